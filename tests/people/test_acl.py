"""The venue broker config (hardware/mosquitto/): who may publish and read what, per table.

Runs the shipped make-passwd.sh for tables t1, t2, t3 (passwords from the environment, as an
installer's script would), starts a private mosquitto on a free port with the passwd and acl
files it wrote and the shipped mosquitto.conf's security settings, then uses real clients.
"""

import json
import os
import pathlib
import queue
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid

import pytest

mqtt = pytest.importorskip("paho.mqtt.client")

ROOT = pathlib.Path(__file__).resolve().parents[2]
CONF_DIR = ROOT / "hardware" / "mosquitto"
MOSQUITTO = "/usr/sbin/mosquitto"
PASSWD = shutil.which("mosquitto_passwd") or "/usr/bin/mosquitto_passwd"
TABLES = ("t1", "t2", "t3")
ACCOUNTS = {"referee": "ref-pw", "homeassistant": "ha-pw", "display": "display-pw", "awtrix": "aw-pw",
            "venue": "venue-pw"}      # the venue's tournament service (acl.venue, tests/tournament)
for _t in TABLES:
    ACCOUNTS["billiards-" + _t] = "daemon-%s-pw" % _t
    ACCOUNTS["player-" + _t] = "player-%s-pw" % _t

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not (os.path.exists(MOSQUITTO) and os.path.exists(PASSWD)),
                       reason="mosquitto and mosquitto_passwd are needed"),
]


from tests.host.harness import free_port  # noqa: E402  (below the ephemeral range, see there)


def security_settings():
    """The lines of the shipped mosquitto.conf that decide who gets in."""
    keep = {}
    for line in (CONF_DIR / "mosquitto.conf").read_text().splitlines():
        words = line.split()
        if words and not line.startswith("#"):
            keep[words[0]] = words[1:]
    return keep


def make_accounts(d, tables=TABLES):
    """make-passwd.sh DIR TABLES..., as an installer runs it; returns (DIR, the etc dir)."""
    env = dict(os.environ, BILLIARDS_ETC=str(d / "etc"))
    for user, pw in ACCOUNTS.items():
        env["BILLIARDS_PW_" + user.upper().replace("-", "_")] = pw
    p = subprocess.run(["sh", str(CONF_DIR / "make-passwd.sh"), str(d / "mosq")] + list(tables),
                       env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60)
    assert p.returncode == 0, p.stderr
    return d / "mosq", d / "etc"


@pytest.fixture(scope="module")
def accounts(tmp_path_factory):
    return make_accounts(tmp_path_factory.mktemp("accounts"))


@pytest.fixture(scope="module")
def broker(tmp_path_factory, accounts):
    d = tmp_path_factory.mktemp("broker")
    mosq, _ = accounts
    passwd = mosq / "passwd"
    shipped = security_settings()
    assert shipped["allow_anonymous"] == ["false"]
    assert "password_file" in shipped and "acl_file" in shipped
    port = free_port()
    conf = d / "mosquitto.conf"
    # Run as root (CI containers), mosquitto would drop to user `mosquitto`,
    # which cannot read pytest's private temp dir: stay as who we are.
    import pwd
    me = pwd.getpwuid(os.geteuid()).pw_name
    conf.write_text("\n".join([
        "user %s" % me,
        "per_listener_settings %s" % shipped["per_listener_settings"][0],
        "allow_anonymous %s" % shipped["allow_anonymous"][0],
        "password_file %s" % passwd,
        "acl_file %s" % (mosq / "acl"),
        "persistence false",
        "listener %d 127.0.0.1" % port,
        "",
    ]))
    proc = subprocess.Popen([MOSQUITTO, "-c", str(conf)], stdout=subprocess.DEVNULL,
                            stderr=open(d / "log", "w"))
    deadline = time.time() + 10
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            break
        except OSError:
            if proc.poll() is not None or time.time() > deadline:
                proc.kill()
                pytest.fail("mosquitto did not start: %s" % (d / "log").read_text())
            time.sleep(0.05)
    yield port
    proc.terminate()
    try:
        proc.wait(5)
    except subprocess.TimeoutExpired:
        proc.kill()


class Client:
    """A connected paho client that queues what it receives."""

    def __init__(self, port, user=None, password=None, protocol=None):
        self.got = queue.Queue()
        self.connected = queue.Queue()
        self.c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2,
                             client_id="acl-test-" + uuid.uuid4().hex[:8],
                             protocol=protocol or mqtt.MQTTv311)
        if user is not None:
            self.c.username_pw_set(user, password)
        self.c.on_connect = lambda c, u, f, rc, p=None: self.connected.put(rc)
        self.c.on_message = lambda c, u, m: self.got.put((m.topic, m.payload.decode(), m.retain))
        self.c.connect("127.0.0.1", port)
        self.c.loop_start()
        self.rc = self.connected.get(timeout=5)

    @property
    def ok(self):
        return not self.rc.is_failure

    def subscribe(self, topic):
        done = queue.Queue()
        self.c.on_subscribe = lambda c, u, mid, codes, p=None: done.put(codes)
        self.c.subscribe(topic, qos=1)
        codes = done.get(timeout=5)
        return codes

    def publish(self, topic, payload, retain=False):
        info = self.c.publish(topic, payload, qos=1, retain=retain)
        info.wait_for_publish(5)     # the broker has taken (or dropped) it
        assert info.is_published()

    def messages(self, wait=0.5):
        out = []
        end = time.time() + wait
        while True:
            try:
                out.append(self.got.get(timeout=max(0.0, end - time.time())))
            except queue.Empty:
                return out

    def close(self):
        self.c.loop_stop()
        self.c.disconnect()


def connect(port, user=None):
    return Client(port, user, ACCOUNTS.get(user))


def test_anonymous_and_wrong_password_cannot_connect(broker):
    anon = Client(broker)
    assert not anon.ok and anon.rc == "Not authorized"
    anon.close()
    wrong = Client(broker, "display", "guess")
    assert not wrong.ok
    wrong.close()
    good = connect(broker, "display")
    assert good.ok
    good.close()


def test_make_passwd_writes_private_files_and_the_daemons_passwords(accounts):
    mosq, etc = accounts
    for f in (mosq / "passwd", mosq / "acl") + tuple(etc / ("%s.broker-password" % t) for t in TABLES):
        assert f.stat().st_mode & 0o077 == 0, f
    assert (etc / "t2.broker-password").read_text() == "daemon-t2-pw\n"
    users = [line.split(":")[0] for line in (mosq / "passwd").read_text().splitlines()]
    assert sorted(users) == sorted(ACCOUNTS)
    acl = (mosq / "acl").read_text()
    assert "user player-t3" in acl and "TABLE" not in acl


def test_the_acl_lets_players_send_every_command_the_referee_knows():
    """A command added to the engine needs its line in acl.table and acl (referee)."""
    from shared_rules.rules.commands import COMMANDS
    for f in ("acl.table", "acl"):
        text = (CONF_DIR / f).read_text()
        for name in COMMANDS:
            assert "/cmd/%s\n" % name in text, (f, name)


def test_home_assistant_may_send_every_command_its_entities_send():
    """Each command topic in the discovery configs has its line in the homeassistant block."""
    from host.outputs.ha_discovery import configs
    text = (CONF_DIR / "acl").read_text()
    block = text[text.index("user homeassistant"):].split("\nuser ", 1)[0]
    allowed = {line.split()[-1] for line in block.splitlines() if line.startswith("topic write")}
    sent = {cfg["command_topic"].replace("billiards/t1/", "billiards/+/")
            for _, cfg in configs("t1") if "command_topic" in cfg}
    assert sent and sent <= allowed, sent - allowed


def test_a_player_of_t1_commands_t1_and_cannot_command_t2(broker):
    d1, d2 = connect(broker, "billiards-t1"), connect(broker, "billiards-t2")
    d1.subscribe("billiards/t1/cmd/#")
    d2.subscribe("billiards/t2/cmd/#")
    p1 = connect(broker, "player-t1")
    p1.subscribe("billiards/+/cmd/result")
    p1.publish("billiards/t2/cmd/undo", '{"id": "t1 player at t2"}')
    p1.publish("billiards/t2/cmd/new_game", '{"game": "nine-ball", "players": ["X", "Y"]}')
    p1.publish("billiards/t1/cmd/call", '{"ball": 3, "pocket": "foot-left"}')
    d1.publish("billiards/t1/cmd/result", '{"cmd": "call", "ok": true}')
    d2.publish("billiards/t2/cmd/result", '{"cmd": "undo", "ok": true}')
    def commands(c):
        return [m[0] for m in c.messages() if not m[0].endswith("/result")]
    assert commands(d2) == []
    assert commands(d1) == ["billiards/t1/cmd/call"]
    assert [m[0] for m in p1.messages()] == ["billiards/t1/cmd/result"], "t2's answers are t2's"
    for c in (d1, d2, p1):
        c.close()


def test_display_reads_state_and_display_only_and_can_fake_nothing(broker):
    daemon = connect(broker, "billiards-t1")
    daemon.subscribe("billiards/t1/cmd/#")
    watcher = connect(broker, "display")
    watcher.subscribe("billiards/#")
    watcher.subscribe("billiards/t1/cmd/#")
    display = connect(broker, "display")
    player = connect(broker, "player-t1")

    display.publish("billiards/t1/cmd/undo", '{"id": "from-display"}')
    display.publish("billiards/t1/state", '{"fake": true}', retain=True)
    player.publish("billiards/t1/cmd/undo", '{"id": "from-player"}')   # after: a marker
    daemon.publish("billiards/t1/cmd/result", '{"cmd": "undo", "ok": true}')
    daemon.publish("billiards/t1/event", '{"event": "turn"}')
    daemon.publish("billiards/t1/state", '{"real": true}', retain=True)
    daemon.publish("billiards/t1/display", '{"lines": ["A 1", "B 2"], "alert": null}', retain=True)

    assert [m[1] for m in daemon.messages() if m[0].endswith("/undo")] == ['{"id": "from-player"}']
    seen = watcher.messages()
    assert sorted(m[0] for m in seen) == ["billiards/t1/display", "billiards/t1/state"], seen
    assert [m[1] for m in seen if m[0].endswith("/state")] == ['{"real": true}']

    late = connect(broker, "display")                  # the retained copy is the daemon's
    late.subscribe("billiards/t1/state")
    assert [m[1] for m in late.messages()] == ['{"real": true}']
    daemon.publish("billiards/t1/state", "", retain=True)       # leave no retained copy behind
    daemon.publish("billiards/t1/display", "", retain=True)
    for c in (daemon, watcher, display, player, late):
        c.close()


def test_only_the_tables_daemon_reads_its_commands(broker):
    readers = {u: connect(broker, u) for u in ("billiards-t2", "player-t2", "referee", "homeassistant",
                                                "awtrix")}
    for c in readers.values():
        c.subscribe("billiards/#")
    own = connect(broker, "billiards-t2")
    own.subscribe("billiards/t2/cmd/+")
    connect(broker, "referee").publish("billiards/t2/cmd/foul", '{"code": "double_hit"}')
    assert [m[0] for m in own.messages()] == ["billiards/t2/cmd/foul"]
    for user, c in readers.items():
        got = [m[0] for m in c.messages(0.2) if "/cmd/" in m[0] and not m[0].endswith("/result")]
        assert got == ([] if user != "billiards-t2" else got), user
    readers.pop("billiards-t2")
    for c in list(readers.values()) + [own]:
        c.close()


def test_player_and_referee_can_command_but_not_publish_state_or_results(broker):
    daemon = connect(broker, "billiards-t2")
    daemon.subscribe("billiards/+/cmd/#")
    watcher = connect(broker, "display")
    watcher.subscribe("billiards/t2/#")
    player = connect(broker, "player-t2")
    referee = connect(broker, "referee")
    other_daemon = connect(broker, "billiards-t1")

    player.publish("billiards/t2/cmd/call", '{"ball": 3, "pocket": "foot-left"}')
    referee.publish("billiards/t2/cmd/foul", '{"code": "double_hit"}')
    for c in (player, referee, other_daemon):
        c.publish("billiards/t2/state", '{"fake": true}', retain=True)
        c.publish("billiards/t2/status", "offline", retain=True)
        c.publish("billiards/t2/display", '{"lines": ["FAKE", ""], "alert": null}')
        c.publish("billiards/t2/cmd/result", '{"cmd": "undo", "ok": true}')
        c.publish("homeassistant/sensor/billiards_t2/x/config", "{}")
    daemon.publish("billiards/t2/cmd/result", '{"cmd": "call", "ok": true}')

    got = daemon.messages()
    assert sorted(m[0] for m in got) == ["billiards/t2/cmd/call", "billiards/t2/cmd/foul",
                                         "billiards/t2/cmd/result"]
    assert [m[1] for m in got if m[0].endswith("result")] == ['{"cmd": "call", "ok": true}']
    seen = watcher.messages()
    assert not [m for m in seen if m[0].rsplit("/", 1)[-1] in ("state", "status", "display")]
    for c in (daemon, watcher, player, referee, other_daemon):
        c.close()


def test_home_assistant_sees_discovery_and_sends_only_what_its_entities_send(broker):
    daemon = connect(broker, "billiards-t3")
    daemon.subscribe("billiards/t3/cmd/#")
    daemon.subscribe("homeassistant/status")
    ha = connect(broker, "homeassistant")
    ha.subscribe("homeassistant/#")
    ha.subscribe("billiards/t3/cmd/result")
    daemon.publish("homeassistant/button/billiards_t3/undo/config", '{"x": 1}', retain=True)
    ha.publish("homeassistant/status", "online")
    ha.publish("billiards/t3/cmd/undo", "{}")
    ha.publish("billiards/t3/cmd/ha/game", '{"game": "nine-ball"}')   # the game select
    ha.publish("billiards/t3/cmd/call", '{"ball": 3, "pocket": "foot-left"}')   # not HA's to send
    ha.publish("billiards/t3/cmd/result", '{"cmd": "undo", "ok": true}')        # nor this
    ha.publish("billiards/t3/state", '{"fake": true}')
    got = daemon.messages()
    assert sorted(m[0] for m in got) == ["billiards/t3/cmd/ha/game", "billiards/t3/cmd/undo",
                                         "homeassistant/status"]
    daemon.publish("billiards/t3/cmd/result", '{"cmd": "undo", "ok": true, "id": "d"}')
    got = ha.messages()
    assert [m[0] for m in got if m[0].endswith("config")] == [
        "homeassistant/button/billiards_t3/undo/config"]
    assert [m[1] for m in got if m[0].endswith("/result")] == ['{"cmd": "undo", "ok": true, "id": "d"}']
    for c in (daemon, ha):
        c.close()
