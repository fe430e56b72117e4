"""The venue broker config (hardware/mosquitto/): who may publish what.

Starts a private mosquitto on a free port with the shipped `acl` file and a
password file made with `mosquitto_passwd -b`, then uses real clients.
"""

import os
import pathlib
import queue
import shutil
import socket
import subprocess
import time
import uuid

import pytest

mqtt = pytest.importorskip("paho.mqtt.client")

ROOT = pathlib.Path(__file__).resolve().parents[2]
CONF_DIR = ROOT / "hardware" / "mosquitto"
MOSQUITTO = "/usr/sbin/mosquitto"
PASSWD = shutil.which("mosquitto_passwd") or "/usr/bin/mosquitto_passwd"
ACCOUNTS = {"billiards": "daemon-pw", "player": "player-pw", "referee": "ref-pw",
            "homeassistant": "ha-pw", "display": "display-pw"}

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not (os.path.exists(MOSQUITTO) and os.path.exists(PASSWD)),
                       reason="mosquitto and mosquitto_passwd are needed"),
]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def security_settings():
    """The lines of the shipped mosquitto.conf that decide who gets in."""
    keep = {}
    for line in (CONF_DIR / "mosquitto.conf").read_text().splitlines():
        words = line.split()
        if words and not line.startswith("#"):
            keep[words[0]] = words[1:]
    return keep


@pytest.fixture(scope="module")
def broker(tmp_path_factory):
    d = tmp_path_factory.mktemp("broker")
    passwd = d / "passwd"
    passwd.touch()
    for user, pw in ACCOUNTS.items():
        subprocess.run([PASSWD, "-b", str(passwd), user, pw], check=True,
                       capture_output=True)
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
        "acl_file %s" % (CONF_DIR / "acl"),
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


def test_display_can_neither_command_nor_fake_the_state(broker):
    daemon = connect(broker, "billiards")
    daemon.subscribe("billiards/t1/cmd/#")
    watcher = connect(broker, "display")
    watcher.subscribe("billiards/t1/state")
    display = connect(broker, "display")
    player = connect(broker, "player")

    display.publish("billiards/t1/cmd/undo", '{"id": "from-display"}')
    display.publish("billiards/t1/state", '{"fake": true}', retain=True)
    player.publish("billiards/t1/cmd/undo", '{"id": "from-player"}')   # after: a marker
    daemon.publish("billiards/t1/state", '{"real": true}', retain=True)

    cmds = daemon.messages()
    assert [m[1] for m in cmds] == ['{"id": "from-player"}']
    states = watcher.messages()
    assert [m[1] for m in states] == ['{"real": true}']

    late = connect(broker, "display")                  # the retained copy is the daemon's
    late.subscribe("billiards/t1/state")
    assert [m[1] for m in late.messages()] == ['{"real": true}']
    for c in (daemon, watcher, display, player, late):
        c.close()


def test_player_and_referee_can_command_but_not_publish_state_or_results(broker):
    daemon = connect(broker, "billiards")
    daemon.subscribe("billiards/+/cmd/#")
    watcher = connect(broker, "display")
    watcher.subscribe("billiards/t2/#")
    player = connect(broker, "player")
    referee = connect(broker, "referee")

    player.publish("billiards/t2/cmd/call", '{"ball": 3, "pocket": "foot-left"}')
    referee.publish("billiards/t2/cmd/foul", '{"code": "double_hit"}')
    for c in (player, referee):
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
    for c in (daemon, watcher, player, referee):
        c.close()


def test_home_assistant_sees_discovery_and_presses_only_its_buttons(broker):
    daemon = connect(broker, "billiards")
    daemon.subscribe("billiards/t3/cmd/#")
    daemon.subscribe("homeassistant/status")
    ha = connect(broker, "homeassistant")
    ha.subscribe("homeassistant/#")
    daemon.publish("homeassistant/button/billiards_t3/undo/config", '{"x": 1}', retain=True)
    ha.publish("homeassistant/status", "online")
    ha.publish("billiards/t3/cmd/undo", "{}")
    ha.publish("billiards/t3/cmd/ha/game", '{"game": "nine-ball"}')   # the game select
    ha.publish("billiards/t3/cmd/call", '{"ball": 3, "pocket": "foot-left"}')   # not HA's to send
    ha.publish("billiards/t3/cmd/result", '{"cmd": "undo", "ok": true}')        # nor this
    got = daemon.messages()
    assert sorted(m[0] for m in got) == ["billiards/t3/cmd/ha/game", "billiards/t3/cmd/undo",
                                         "homeassistant/status"]
    assert [m[0] for m in ha.messages() if m[0].endswith("config")] == [
        "homeassistant/button/billiards_t3/undo/config"]
    for c in (daemon, ha):
        c.close()
