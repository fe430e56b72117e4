"""hardware/README.md's install page, step 4, as Raspberry Pi OS / Debian 12 runs it: the shipped
mosquitto.conf copied into /etc/mosquitto/conf.d/ under the distribution's own main
mosquitto.conf. That main file already sets persistence and persistence_location, and mosquitto
refuses to start on a second persistence_location ("Duplicate persistence_location value"), so
a copied file that sets it again leaves the venue without a broker."""
import getpass
import os
import socket
import subprocess
import time

import pytest

from tests.host.harness import free_port
from tests.people.test_acl import CONF_DIR, MOSQUITTO, PASSWD, make_accounts

pytestmark = pytest.mark.skipif(not (os.path.exists(MOSQUITTO) and os.path.exists(PASSWD)),
                                reason="mosquitto and mosquitto_passwd are needed")

# Debian 12's /etc/mosquitto/mosquitto.conf (package mosquitto 2.0.11), paths moved into the
# test's folder; `user` added so that a root test run does not drop to user mosquitto.
DEBIAN_MAIN_CONF = """\
# Place your local configuration in /etc/mosquitto/conf.d/
pid_file {d}/mosquitto.pid

persistence true
persistence_location {d}/lib/

log_dest file {d}/mosquitto.log

include_dir {d}/conf.d
user {user}
"""


def shipped_conf_for(d, mosq, port):
    """The shipped file as the installer copies it, pointed at the test's folders and port."""
    text = (CONF_DIR / "mosquitto.conf").read_text()
    assert "\nlistener 1883\n" in text
    return (text.replace("/etc/mosquitto/billiards", str(mosq))
            .replace("/var/lib/mosquitto/", str(d / "lib") + "/")
            .replace("\nlistener 1883\n", "\nlistener %d 127.0.0.1\n" % port))


def start(d, conf, port):
    proc = subprocess.Popen([MOSQUITTO, "-c", str(conf)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 10
    while time.time() < deadline and proc.poll() is None:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return proc, ""
        except OSError:
            time.sleep(0.05)
    proc.kill()
    err = proc.communicate(timeout=5)[1]
    log = (d / "mosquitto.log").read_text() if (d / "mosquitto.log").exists() else ""
    return None, err + log


def publish(port, user, password):
    """0 when the broker lets `user` in (a CONNACK's reason code, as mosquitto_pub's exit)."""
    import threading
    import paho.mqtt.client as mqtt
    answer, got = [], threading.Event()
    c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
    c.username_pw_set(user, password)
    c.on_connect = lambda client, userdata, flags, rc, props=None: (answer.append(rc.value), got.set())
    c.connect("127.0.0.1", port)
    c.loop_start()
    try:
        assert got.wait(10), "no CONNACK"
    finally:
        c.loop_stop()
        c.disconnect()
    return answer[0]


def install(d, edit=lambda text: text):
    """make-passwd.sh for t1, the shipped file copied into conf.d: (main conf, port)."""
    mosq, _ = make_accounts(d, tables=("t1",))
    return configure(d, mosq, edit)


def configure(d, mosq, edit=lambda text: text):
    """Debian's main conf, the shipped file in its conf.d with the accounts in `mosq`."""
    for sub in ("conf.d", "lib"):
        (d / sub).mkdir()
    port = free_port()
    (d / "conf.d" / "billiards.conf").write_text(edit(shipped_conf_for(d, mosq, port)))
    main = d / "mosquitto.conf"
    main.write_text(DEBIAN_MAIN_CONF.format(d=d, user=getpass.getuser()))
    return main, port


def test_the_shipped_conf_starts_in_debians_conf_d(tmp_path):
    main, port = install(tmp_path)
    proc, why = start(tmp_path, main, port)
    assert proc is not None, "mosquitto refused Debian's main conf with ours in conf.d: " + why
    try:
        assert publish(port, "player-t1", "player-t1-pw") == 0
        assert publish(port, "player-t1", "wrong") != 0          # the accounts are on
    finally:
        proc.terminate()
        proc.wait(10)


def test_a_conf_d_file_setting_persistence_again_is_what_fails(tmp_path):
    """The check above can fail: the copy with its persistence lines back on is refused."""
    main, port = install(tmp_path, lambda t: t.replace("#persistence_location", "persistence_location"))
    proc, why = start(tmp_path, main, port)
    if proc is not None:
        proc.terminate()
        proc.wait(10)
    assert proc is None and "persistence_location" in why


def env_file(text):
    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line and not line.startswith("#"))


def test_step_6_makes_a_second_table_its_own_board_account_and_page():
    """The install page's own command for t2's env file, run on the shipped example."""
    readme = (CONF_DIR.parent / "README.md").read_text()
    line = next(l for l in readme.splitlines() if "sed -e" in l and "t2.env" in l)
    sed = line.strip().split(" systemd/billiards.env.example")[0].replace("sudo ", "", 1)
    example = CONF_DIR.parent / "systemd" / "billiards.env.example"
    t1 = env_file(example.read_text())
    t2 = env_file(subprocess.run(sed + " " + str(example), shell=True, capture_output=True, text=True,
                                 check=True, timeout=20).stdout)
    assert t2["BILLIARDS_SERIAL"] == "/dev/billiards-t2"
    assert t2["BILLIARDS_BROKER"].startswith("mqtt://billiards-t2@")
    assert "--http 8080" in t1["BILLIARDS_ARGS"] and "--http 8081" in t2["BILLIARDS_ARGS"]


def test_adding_a_table_keeps_the_running_tables_daemon_passwords(tmp_path):
    """Adding t2 means running make-passwd.sh again with the whole list; t1's daemon, running
    with the password its service loaded, must still get in afterwards."""
    _, etc = make_accounts(tmp_path, tables=("t1",))
    before = (etc / "t1.broker-password").read_text()
    env = {k: v for k, v in os.environ.items() if not k.startswith("BILLIARDS_PW_")}
    env.update(BILLIARDS_ETC=str(etc), BILLIARDS_PW_REFEREE="r", BILLIARDS_PW_HOMEASSISTANT="h",
               BILLIARDS_PW_DISPLAY="d", BILLIARDS_PW_AWTRIX="a", BILLIARDS_PW_PLAYER_T1="p1",
               BILLIARDS_PW_PLAYER_T2="p2")         # no daemon password given: t2's is made
    p = subprocess.run(["sh", str(CONF_DIR / "make-passwd.sh"), str(tmp_path / "mosq"), "t1", "t2"],
                       env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60)
    assert p.returncode == 0, p.stderr
    assert (etc / "t1.broker-password").read_text() == before
    assert (etc / "t2.broker-password").read_text().strip()
    main, port = configure(tmp_path, tmp_path / "mosq")
    proc, why = start(tmp_path, main, port)
    assert proc is not None, why
    try:
        assert publish(port, "billiards-t1", before.strip()) == 0       # t1's daemon still gets in
        assert publish(port, "player-t2", "p2") == 0
    finally:
        proc.terminate()
        proc.wait(10)
