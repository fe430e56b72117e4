"""Run inside `unshare -rn` (a private loopback): `billiards run` with no --broker.

argv: MODE (embedded | existing) WORKDIR. Prints OK on success, else a reason and exits 1.
Nothing here can reach the machine's own 127.0.0.1:1883.
"""
import getpass
import json
import socket
import os
import pathlib
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from tests.host.harness import MOSQUITTO, PtyLink, Subscriber, wait_for  # noqa: E402


def main(mode, work):
    work = pathlib.Path(work)
    mosq = None
    if mode == "existing":
        conf = work / "m.conf"
        # `user`: in the namespace we are root, and mosquitto would drop to a missing user.
        conf.write_text("user %s\nlistener 1883 127.0.0.1\nallow_anonymous true\n"
                        "persistence false\n" % getpass.getuser())
        mosq = subprocess.Popen([MOSQUITTO, "-c", str(conf)], stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)

        def up():
            try:
                socket.create_connection(("127.0.0.1", 1883), timeout=0.2).close()
                return True
            except OSError:
                return False
        wait_for(up, 10, what="mosquitto on 1883 in the namespace")
    link = PtyLink(work / "tty")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    log = open(work / "daemon.log", "wb")
    d = subprocess.Popen([sys.executable, "-m", "host.cli", "run", "--serial", link.path,
                          "--table", "e1", "--journal", str(work / "j"), "--no-console"],
                         cwd=str(ROOT), env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        time.sleep(1.0)
        sub = Subscriber(1883)
        wait_for(lambda: sub.last.get("billiards/e1/status") == "online", 15, what="online")
        state = json.loads(wait_for(lambda: sub.last.get("billiards/e1/state"), 10, what="state"))
        assert state["table"] == "e1"
        sub.close()
    finally:
        d.terminate()
        d.wait(10)
        if mosq is not None:
            mosq.terminate()
            mosq.wait(5)
    text = (work / "daemon.log").read_text()
    said_embedded = "embedded" in text
    if mode == "embedded" and not said_embedded:
        print("no embedded broker started:\n" + text)
        return 1
    if mode == "existing" and said_embedded:
        print("started an embedded broker although one listened:\n" + text)
        return 1
    if mode == "existing" and "MQTT broker 127.0.0.1:1883 (one listens there already" not in text:
        print("did not say which broker it uses:\n" + text)
        return 1
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
