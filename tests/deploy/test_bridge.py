"""A chain of venues: a venue's mosquitto bridged to a central one with the shipped configs.

Two real mosquittos on loopback. The venue broker runs hardware/mosquitto/bridge.conf (address,
venue id and password filled in, TLS off on loopback); the central broker runs
hardware/mosquitto/central-acl with a password account per venue. The daemon runs on the venue
side, as at a real venue. Proved: state reaches central under venues/<venue>/, a command from
central reaches the table and its answer comes back, another venue's account cannot command
this venue, and the venue keeps playing while central is down, then central catches up."""
import getpass
import json
import os
import pathlib
import queue
import shutil
import signal
import subprocess
import sys
import time
import uuid

import pytest
import paho.mqtt.client as mqtt

from tests.host.harness import MOSQUITTO, Mosquitto, free_port, wait_for

ROOT = pathlib.Path(__file__).resolve().parents[2]
CONF = ROOT / "hardware" / "mosquitto"
PASSWD = shutil.which("mosquitto_passwd") or "/usr/bin/mosquitto_passwd"
VENUE = "bar1"

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not (os.path.exists(MOSQUITTO) and os.path.exists(PASSWD)),
                                 reason="mosquitto and mosquitto_passwd are needed")]


class Broker(Mosquitto):
    """The harness's mosquitto, with these config lines (accounts, an ACL, a bridge)."""

    def __init__(self, d, name, lines):
        self.port = free_port()
        self.conf = str(d / ("%s.conf" % name))
        pathlib.Path(self.conf).write_text("\n".join(
            ["user %s" % getpass.getuser(), "persistence false", "listener %d 127.0.0.1" % self.port]
            + lines) + "\n")
        self.proc = None


class Client:
    def __init__(self, port, user=None, password=None, topics=()):
        self.got = queue.Queue()
        self.last = {}
        c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="t-" + uuid.uuid4().hex[:8])
        if user:
            c.username_pw_set(user, password)
        c.on_connect = lambda cl, u, f, rc, p: [cl.subscribe(t, qos=1) for t in topics]
        c.on_message = self._on
        c.reconnect_delay_set(0.1, 1)
        c.connect_async("127.0.0.1", port)
        c.loop_start()
        self.c = c

    def _on(self, client, userdata, m):
        text = m.payload.decode("utf-8", "replace")
        self.last[m.topic] = text
        self.got.put((m.topic, text))

    def publish(self, topic, payload):
        wait_for(self.c.is_connected, 10, what="client connected")
        self.c.publish(topic, payload, qos=1).wait_for_publish(5)

    def state(self, topic):
        raw = self.last.get(topic)
        return json.loads(raw) if raw else None

    def close(self):
        self.c.loop_stop()
        self.c.disconnect()


def central_settings():
    """The lines of the shipped central.conf that decide who gets in and under which client id
    (its listener, certificates and file paths are the test's own)."""
    keep = ("per_listener_settings", "allow_anonymous", "use_username_as_clientid")
    return [line for line in (CONF / "central.conf").read_text().splitlines()
            if line.split()[:1] and line.split()[0] in keep]


@pytest.fixture
def chain(tmp_path):
    passwd = tmp_path / "central-passwd"
    passwd.touch()
    for user, pw in ((VENUE, "venue-pw"), ("bar2", "bar2-pw"), ("operator", "op-pw"), ("dashboard", "dash-pw")):
        subprocess.run([PASSWD, "-b", str(passwd), user, pw], check=True, capture_output=True)
    os.chmod(passwd, 0o600)
    settings = central_settings()
    assert "allow_anonymous false" in settings and "use_username_as_clientid true" in settings
    central = Broker(tmp_path, "central", settings + ["password_file %s" % passwd,
                                                      "acl_file %s" % (CONF / "central-acl")]).start()
    bridge = (CONF / "bridge.conf").read_text()
    bridge = (bridge.replace("central.example.com:8883", "127.0.0.1:%d" % central.port)
              .replace("VENUE", VENUE).replace("CHANGE-ME", "venue-pw")
              .replace("restart_timeout 2 30", "restart_timeout 1 2"))
    bridge = "\n".join(l for l in bridge.splitlines() if not l.startswith("bridge_cafile"))
    venue = Broker(tmp_path, "venue", ["allow_anonymous true", bridge]).start()
    yield central, venue
    venue.stop()
    central.stop()


def command(client, base, body, tag, tries=10):
    """new_game through `client`, answered on base/cmd/result; sent again while the simulated
    table has a shot open (the referee then refuses a new game), up to `tries` times."""
    for n in range(tries):
        cid = "%s%d" % (tag, n)
        client.publish(base + "/cmd/new_game", json.dumps(dict(body, id=cid)))
        res = wait_for(lambda: (client.state(base + "/cmd/result") or {}).get("id") == cid
                       and client.state(base + "/cmd/result"), 15, what="the answer to " + cid)
        if res["ok"]:
            return res
        time.sleep(0.5)
    return res


def start_table(venue_port, journal, log=subprocess.DEVNULL):
    """`billiards run --simulate` for table t1 on the venue broker, as at a real venue (the
    daemon talks to its venue's broker only)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.Popen([sys.executable, "-m", "host.cli", "run", "--simulate", "--sim-speed", "4",
                             "--broker", "mqtt://127.0.0.1:%d" % venue_port, "--table", "t1",
                             "--journal", str(journal), "--no-console"],
                            cwd=str(ROOT), env=env, stdout=log, stderr=subprocess.STDOUT)


def stop_table(daemon):
    daemon.send_signal(signal.SIGINT)
    try:
        daemon.wait(15)
    except subprocess.TimeoutExpired:
        daemon.kill()


def test_state_out_commands_in_and_the_venue_plays_on_without_central(chain, tmp_path):
    central, venue = chain
    base = "venues/%s/billiards/t1" % VENUE
    operator = Client(central.port, "operator", "op-pw", topics=("venues/#",))
    dashboard = Client(central.port, "dashboard", "dash-pw", topics=("venues/#",))
    local = Client(venue.port, topics=("billiards/#",))
    daemon = start_table(venue.port, tmp_path / "journal", open(tmp_path / "daemon.log", "w"))
    try:
        # 1. The table's state reaches central, under the venue's prefix.
        s = wait_for(lambda: dashboard.state(base + "/state"), 20, what="state at central")
        assert s["table"] == "t1" and s["link"]["simulated"] is True
        wait_for(lambda: dashboard.last.get(base + "/status") == "online", 10, what="status at central")
        wait_for(lambda: dashboard.last.get("venues/%s/bridge" % VENUE) == "1", 10, what="bridge up")

        # 2. A command from central reaches the table; the answer and new state come back.
        res = command(operator, base, {"game": "nine-ball", "players": ["Central", "Office"]}, "c")
        assert res["ok"] is True, res
        wait_for(lambda: (dashboard.state(base + "/state") or {}).get("game") == "nine-ball", 15,
                 what="the new game at central")
        assert [p["name"] for p in dashboard.state(base + "/state")["players"]] == ["Central", "Office"]

        # 3. Another venue's account cannot command this venue's tables, nor fake its state.
        other = Client(central.port, "bar2", "bar2-pw", topics=())
        other.publish(base + "/cmd/new_game", json.dumps({"game": "straight-pool", "players": ["X", "Y"],
                                                          "id": "intruder"}))
        other.publish(base + "/state", json.dumps({"fake": True}))
        time.sleep(1.5)
        assert local.state("billiards/t1/state")["game"] == "nine-ball"
        assert "fake" not in dashboard.state(base + "/state")
        assert not [m for m in list(local.got.queue) if "intruder" in m[1]]
        other.close()

        # 4. Central goes down: the venue plays on; local commands and state still work.
        central.stop()
        time.sleep(0.5)
        res = command(local, "billiards/t1", {"game": "eight-ball", "players": ["Venue", "Alone"]}, "v")
        assert res["ok"] is True, res
        wait_for(lambda: (local.state("billiards/t1/state") or {}).get("game") == "eight-ball", 10,
                 what="local state while central is down")
        assert daemon.poll() is None

        # 5. Central comes back: the bridge reconnects and central catches up with the venue.
        central.start()
        dashboard.close()            # one connection per account at central (use_username_as_clientid)
        watcher = Client(central.port, "dashboard", "dash-pw", topics=("venues/#",))
        wait_for(lambda: [p["name"] for p in (watcher.state(base + "/state") or {"players": []})["players"]]
                 == ["Venue", "Alone"], 30, what="central catching up after its restart")
        watcher.close()
    finally:
        stop_table(daemon)
        for c in (operator, dashboard, local):
            c.close()
    assert daemon.returncode == 0, (tmp_path / "daemon.log").read_text()
