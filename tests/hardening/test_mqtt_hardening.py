"""Issue 16, findings 4 and 5 and the AWTRIX prefix, against the real daemon and real mosquittos:
the harness's private broker, one with the shipped venue configuration (hardware/mosquitto:
mosquitto.conf, make-passwd.sh's accounts and ACL), and the chain's central broker bridged to a
venue (central.conf, bridge.conf, central-acl).

4. A retained command (`new_game` with the retain flag) replaced the game in progress at every
   restart, reconnect or kick. Now it is never executed, it is cleared where the ACL lets the
   daemon publish, and answered on …/cmd/result.
5. The daemon's client id was `billiards-t1-<pid>` (350 guesses found it) and any account could
   take any id, the bridge's too. Now the id has a random part, and the shipped configurations
   make every connection's id its account name (use_username_as_clientid).
"""
import getpass
import json
import os
import subprocess
import time
import uuid

import paho.mqtt.client as mqtt
import pytest

from tests.deploy.test_bridge import (VENUE, Client as BridgeClient, chain, command,  # noqa: F401 (chain)
                                     start_table, stop_table)
from tests.host.harness import (MOSQUITTO, DaemonProc, FakeBoard, PtyLink, free_port,
                                listens, wait_for)
from tests.people.play_table import Table
from tests.people.test_acl import ACCOUNTS, CONF_DIR, PASSWD, make_accounts

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not (os.path.exists(MOSQUITTO) and os.path.exists(PASSWD)),
                                 reason="mosquitto and mosquitto_passwd are needed")]

RETAINED_GAME = json.dumps({"game": "nine-ball", "players": ["Ghost", "Replay"], "id": "ghost"})


@pytest.fixture
def table(tmp_path, broker):
    t = Table(tmp_path, broker)
    yield t
    t.close()


def retained_commands(port, user=None, password=None, topic="billiards/+/cmd/#"):
    """What a new subscriber is handed as retained under `topic`."""
    got = []
    c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="check-" + uuid.uuid4().hex[:8])
    if user:
        c.username_pw_set(user, password)
    c.on_connect = lambda cl, u, f, rc, p: cl.subscribe(topic, qos=1)
    c.on_message = lambda cl, u, m: got.append((m.topic, bytes(m.payload))) if m.retain else None
    c.connect("127.0.0.1", port)
    c.loop_start()
    time.sleep(1.0)
    c.loop_stop()
    c.disconnect()
    return got


def publish_retained(port, topic, payload, user=None, password=None):
    c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="pub-" + uuid.uuid4().hex[:8])
    if user:
        c.username_pw_set(user, password)
    c.connect("127.0.0.1", port)
    c.loop_start()
    c.publish(topic, payload, qos=1, retain=True).wait_for_publish(5)
    c.loop_stop()
    c.disconnect()


def refusals(results):
    return [r for r in results if r.get("cmd") == "new_game" and not r["ok"] and "retained" in (r["error"] or "")]


def test_a_retained_command_is_never_executed_and_is_cleared(table, broker):
    """Live: refused and cleared at once; the game goes on."""
    assert table.state()["game"] == "eight-ball"
    publish_retained(broker.port, "billiards/t1/cmd/new_game", RETAINED_GAME)
    wait_for(lambda: refusals(table.results()), 10, what="the refusal on cmd/result")
    time.sleep(0.5)
    assert table.state()["game"] == "eight-ball"
    assert retained_commands(broker.port) == []
    assert not [l for l in table.journal_lines() if b"Ghost" in l]


def test_a_retained_command_does_not_replay_at_a_restart(table, broker):
    """Left retained while the daemon was down: handed over at its start, never run."""
    table.daemon.stop()
    publish_retained(broker.port, "billiards/t1/cmd/new_game", RETAINED_GAME)
    table.daemon.start()
    wait_for(lambda: len(refusals(table.results())) >= 1, 20, what="the refusal after the restart")
    wait_for(lambda: (table.state() or {}).get("link", {}).get("state") == "up", 20, what="link up")
    assert table.state()["game"] == "eight-ball"
    assert retained_commands(broker.port) == []
    # A command sent as commands are (not retained, empty payload too) still runs.
    table.sub.publish("billiards/t1/cmd/undo", "")
    wait_for(lambda: [r for r in table.results() if r["cmd"] == "undo"], 10, what="undo answered")
    assert not [l for l in table.journal_lines() if b"Ghost" in l]


def test_the_daemons_client_id_is_not_its_pid(table, broker):
    """Before, `billiards-t1-<pid>` was found in about 350 guesses; each hit disconnected the daemon
    (its will said offline). Now every guess from the pid is a stranger's id."""
    pid = table.daemon.proc.pid
    statuses = []
    watch = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="watch")
    watch.on_connect = lambda cl, u, f, rc, p: cl.subscribe("billiards/t1/status", qos=1)
    watch.on_message = lambda cl, u, m: statuses.append(m.payload.decode())
    watch.connect("127.0.0.1", broker.port)
    watch.loop_start()
    try:
        wait_for(lambda: statuses, 5, what="the status")
        for guess in range(pid - 20, pid + 21):
            c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="billiards-t1-%d" % guess)
            c.connect("127.0.0.1", broker.port)
            c.disconnect()
        time.sleep(1.0)
        assert "offline" not in statuses, statuses
    finally:
        watch.loop_stop()
        watch.disconnect()
    table.sub.publish("billiards/t1/cmd/lag", json.dumps({"winner": 0, "id": "still-here"}))
    wait_for(lambda: [r for r in table.results() if r.get("id") == "still-here"], 10, what="answer")


# --- the shipped venue configuration ------------------------------------------------------------

class VenueBroker:
    """mosquitto running the shipped mosquitto.conf line for line (its listener on a free
    loopback port, the accounts and ACL make-passwd.sh wrote, no persistence)."""

    def __init__(self, d):
        self.mosq, self.etc = make_accounts(d, tables=("t1", "t2"))
        self.port = free_port()
        lines = ["user %s" % getpass.getuser(), "persistence false"]
        for line in (CONF_DIR / "mosquitto.conf").read_text().splitlines():
            words = line.split()
            if not words or line.startswith("#") or words[0] in ("persistence", "persistence_location"):
                continue
            if words[0] == "listener":
                line = "listener %d 127.0.0.1" % self.port
            elif words[0] in ("password_file", "acl_file"):
                line = "%s %s" % (words[0], self.mosq / ("passwd" if words[0] == "password_file" else "acl"))
            lines.append(line)
        assert "use_username_as_clientid true" in lines
        conf = d / "venue.conf"
        conf.write_text("\n".join(lines) + "\n")
        self.proc = subprocess.Popen([MOSQUITTO, "-c", str(conf)], stdout=subprocess.DEVNULL,
                                     stderr=open(d / "venue.log", "w"))
        wait_for(lambda: listens(self.proc.pid, self.port), 20, what="the venue broker")

    def client(self, user, client_id=None, topics=()):
        return Account(self.port, user, ACCOUNTS[user], client_id, topics)

    def stop(self):
        self.proc.terminate()
        self.proc.wait(10)


class Account:
    """A paho client of one account; keeps what it receives and every disconnect it suffers."""

    def __init__(self, port, user, password, client_id=None, topics=()):
        self.got = []
        self.disconnects = 0
        self.c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2,
                             client_id=client_id or "acct-" + uuid.uuid4().hex[:8])
        self.c.username_pw_set(user, password)
        self.c.on_connect = lambda cl, u, f, rc, p: [cl.subscribe(t, qos=1) for t in topics]
        self.c.on_message = lambda cl, u, m: self.got.append((m.topic, m.payload.decode("utf-8", "replace")))
        self.c.on_disconnect = lambda *a: setattr(self, "disconnects", self.disconnects + 1)
        self.c.reconnect_delay_set(0.1, 0.5)
        self.c.connect_async("127.0.0.1", port)
        self.c.loop_start()
        wait_for(self.c.is_connected, 10, what="%s connected" % user)

    def publish(self, topic, payload, retain=False):
        self.c.publish(topic, payload, qos=1, retain=retain).wait_for_publish(5)

    def of(self, topic):
        return [p for t, p in self.got if t == topic]

    def close(self):
        self.c.loop_stop()
        self.c.disconnect()


@pytest.fixture
def venue(tmp_path):
    v = VenueBroker(tmp_path)
    yield v
    v.stop()


@pytest.fixture
def venue_daemon(tmp_path, venue):
    link = PtyLink(tmp_path / "tty")
    board = FakeBoard(link)
    d = DaemonProc(link.path, "mqtt://billiards-t1@127.0.0.1:%d" % venue.port, "t1", tmp_path / "journal",
                   extra=["--broker-password-file", str(venue.etc / "t1.broker-password"),
                          "--awtrix", "awtrix/t1"]).start()
    watcher = venue.client("referee", topics=("billiards/t1/status", "billiards/t1/state",
                                              "billiards/t1/cmd/result"))
    try:
        wait_for(lambda: any('"state":"up"' in p.replace(" ", "") for p in watcher.of("billiards/t1/state")),
                 20, what="the daemon's link up at the venue broker")
        yield d, watcher
    finally:
        d.stop()
        watcher.close()
        board.stop()
        link.close()


def test_at_the_venue_a_player_cannot_take_the_daemons_client_id(venue, venue_daemon):
    """With use_username_as_clientid every connection's id is its account name, so player-t1
    connecting as `billiards-t1` (the daemon's id there) is player-t1 and nobody else."""
    d, watcher = venue_daemon
    for cid in ("billiards-t1", "local.billiards-venue-%s" % VENUE, ""):
        intruder = venue.client("player-t1", client_id=cid or None)
        time.sleep(0.5)
        intruder.close()
    time.sleep(1.0)
    assert "offline" not in watcher.of("billiards/t1/status")
    player = venue.client("player-t1", topics=("billiards/t1/cmd/result",))
    player.publish("billiards/t1/cmd/lag", json.dumps({"winner": 0, "id": "after"}))
    wait_for(lambda: [p for p in player.of("billiards/t1/cmd/result") if '"after"' in p], 10,
             what="the daemon still answers")
    player.close()
    assert d.proc.poll() is None


def test_at_the_venue_two_devices_on_one_account_are_told_apart_by_their_accounts(venue):
    """The price of the setting: one connection per account (the second takes the first's place);
    make-passwd.sh's BILLIARDS_DEVICES gives each device its own account with the same rights."""
    first = venue.client("display", topics=("billiards/+/state",))
    second = venue.client("display")
    wait_for(lambda: first.disconnects >= 1, 5, what="the first display's connection taken over")
    second.close()
    first.close()


def test_make_passwd_gives_extra_devices_their_own_accounts(tmp_path):
    env = dict(os.environ, BILLIARDS_ETC=str(tmp_path / "etc"), BILLIARDS_DEVICES="display-lobby player-t1-box")
    for user, pw in list(ACCOUNTS.items()) + [("display-lobby", "lobby-pw"), ("player-t1-box", "box-pw")]:
        env["BILLIARDS_PW_" + user.upper().replace("-", "_")] = pw
    p = subprocess.run(["sh", str(CONF_DIR / "make-passwd.sh"), str(tmp_path / "mosq"), "t1"], env=env,
                       capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60)
    assert p.returncode == 0, p.stderr
    acl = (tmp_path / "mosq" / "acl").read_text()
    lobby = acl.split("user display-lobby\n", 1)[1].split("\n\n", 1)[0]
    assert lobby.splitlines() == ["topic read billiards/+/state", "topic read billiards/+/display",
                                  "topic read billiards/+/status", "topic read billiards-venue/#"]
    box = acl.split("user player-t1-box\n", 1)[1]
    assert "topic write billiards/t1/cmd/undo" in box and "billiards/t2" not in box
    bad = subprocess.run(["sh", str(CONF_DIR / "make-passwd.sh"), str(tmp_path / "mosq2"), "t1"],
                         env=dict(env, BILLIARDS_DEVICES="root"), capture_output=True, text=True,
                         stdin=subprocess.DEVNULL, timeout=60)
    assert bad.returncode == 2 and "root" in bad.stderr


def test_at_the_venue_a_players_retained_command_is_cleared_by_the_daemon(venue, venue_daemon):
    """player-t1 may publish retained on its commands; the table's daemon may publish there too
    (acl.table: write billiards/t1/cmd/#), so it clears them."""
    d, watcher = venue_daemon
    publish_retained(venue.port, "billiards/t1/cmd/new_game", RETAINED_GAME, "player-t1", ACCOUNTS["player-t1"])
    wait_for(lambda: [p for p in watcher.of("billiards/t1/cmd/result") if "retained" in p], 10,
             what="the refusal")
    assert retained_commands(venue.port, "billiards-t2", ACCOUNTS["billiards-t2"], "billiards/t2/cmd/#") == []
    assert retained_commands(venue.port, "referee", ACCOUNTS["referee"], "billiards/t1/cmd/result") == []
    # The daemon's own account sees what is retained on its commands: nothing.
    d.stop()
    assert retained_commands(venue.port, "billiards-t1", ACCOUNTS["billiards-t1"], "billiards/t1/cmd/#") == []
    assert not any("Ghost" in p for p in watcher.of("billiards/t1/state"))


def test_awtrix_example_publishes_where_the_acl_lets_it(venue, venue_daemon):
    """`--awtrix awtrix/t1` (the help's example): the clock's account reads the custom app."""
    from host.cli import build_parser
    run = next(a for a in build_parser()._subparsers._group_actions[0].choices["run"]._actions
               if "--awtrix" in a.option_strings)
    assert "awtrix/t1" in run.help and "awtrix_" not in run.help
    clock = venue.client("awtrix", topics=("awtrix/#",))
    d, watcher = venue_daemon
    d.stop()                       # a restart publishes the app again on connect
    d.start()
    wait_for(lambda: clock.of("awtrix/t1/custom/billiards"), 20, what="the AWTRIX app")
    clock.close()


# --- the chain: central.conf and bridge.conf ----------------------------------------------------

def test_another_venue_cannot_cut_this_venues_bridge_off(chain, tmp_path):
    """Before, a second venue connected to central with the client id written in bridge.conf and
    cut the first venue's bridge off; an operator command sent meanwhile was lost."""
    central, venue_broker = chain
    base = "venues/%s/billiards/t1" % VENUE
    operator = BridgeClient(central.port, "operator", "op-pw", topics=("venues/#",))
    daemon = start_table(venue_broker.port, tmp_path / "journal")
    try:
        wait_for(lambda: operator.last.get("venues/%s/bridge" % VENUE) == "1", 20, what="bridge up")
        wait_for(lambda: operator.state(base + "/state"), 20, what="state at central")
        seen = []
        operator.c.on_message = lambda cl, u, m: (seen.append((m.topic, m.payload.decode())),
                                                  BridgeClient._on(operator, cl, u, m))
        intruders = []
        for cid in ("billiards-venue-%s" % VENUE, VENUE, "local.%s" % VENUE):
            c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=cid)
            c.username_pw_set("bar2", "bar2-pw")
            c.connect("127.0.0.1", central.port)
            c.loop_start()
            intruders.append(c)
        time.sleep(1.5)
        assert ("venues/%s/bridge" % VENUE, "0") not in seen, "the bridge was cut off"
        res = command(operator, base, {"game": "nine-ball", "players": ["Central", "Office"]}, "i")
        assert res["ok"] is True, res
        for c in intruders:
            c.loop_stop()
            c.disconnect()
    finally:
        stop_table(daemon)
        operator.close()


def test_an_operators_retained_command_never_runs_even_when_the_bridge_reconnects(chain, tmp_path):
    """Retained at central, it comes to the venue again, retained, each time the bridge
    (re)subscribes, while the daemon stays connected to the venue: MQTT 3.1.1 would hand it to
    the daemon as a live command; the daemon subscribes with MQTT 5's Retain As Published and
    never runs it."""
    central, venue_broker = chain
    base = "venues/%s/billiards/t1" % VENUE
    local = BridgeClient(venue_broker.port, topics=("billiards/#",))
    results = []
    local.c.on_message = lambda cl, u, m: (results.append(m.payload.decode()) if m.topic.endswith("/cmd/result")
                                           else None, BridgeClient._on(local, cl, u, m))
    daemon = start_table(venue_broker.port, tmp_path / "journal")
    operator = BridgeClient(central.port, "operator", "op-pw", topics=("venues/#",))
    try:
        wait_for(lambda: local.state("billiards/t1/state"), 20, what="the daemon's state")
        game = local.state("billiards/t1/state")["game"]
        wait_for(lambda: operator.last.get("venues/%s/bridge" % VENUE) == "1", 20, what="bridge up")
        operator.c.publish(base + "/cmd/new_game", RETAINED_GAME, qos=1, retain=True).wait_for_publish(5)
        wait_for(lambda: [r for r in results if "retained" in r], 10, what="the refusal")
        first = len([r for r in results if "retained" in r])
        # The venue's bridge session at central is taken over (its own account logs in): the bridge
        # reconnects, subscribes again, and central hands it the retained command again.
        kick = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="kick")
        kick.username_pw_set(VENUE, "venue-pw")
        kick.connect("127.0.0.1", central.port)
        kick.disconnect()
        wait_for(lambda: len([r for r in results if "retained" in r]) > first, 20,
                 what="the command handed over again, and refused again")
        time.sleep(1.0)
        state = local.state("billiards/t1/state")
        assert state["game"] == game and "Ghost" not in json.dumps(state)
        assert daemon.poll() is None
    finally:
        stop_table(daemon)
        operator.close()
        local.close()


def test_on_a_broker_of_mqtt_3_1_1_a_retained_command_is_refused_too(tmp_path):
    """The embedded amqtt speaks 3.1.1 only: the shell falls back by itself, and a retained
    command handed over at subscription is refused and cleared there too; the empty message that
    clears it, which 3.1.1 hands back to the daemon, is not taken for a command."""
    import queue
    pytest.importorskip("amqtt")
    from host.broker import EmbeddedBroker
    from host.mqtt import MqttShell
    port = free_port()
    embedded = EmbeddedBroker("127.0.0.1", port)
    embedded.start()
    try:
        publish_retained(port, "billiards/t1/cmd/new_game", RETAINED_GAME)
        q = queue.Queue()
        shell = MqttShell({"host": "127.0.0.1", "port": port}, "billiards-t1-test", None, q,
                          ["billiards/t1/cmd/+"], commands="billiards/t1/cmd/")
        shell.start()
        try:
            wait_for(lambda: shell.connected, 15, what="connected in 3.1.1")
            assert not shell.v5
            time.sleep(1.0)
            items = list(q.queue)
            commands = [d for k, d in items if k == "message" and not d[0].endswith("/result")]
            assert commands == [], items
            assert [d for k, d in items if k == "message" and d[0].endswith("/result")
                    and b"retained" in d[1]]
            assert retained_commands(port) == []
        finally:
            shell.stop()
    finally:
        embedded.stop()


def test_a_command_sent_while_the_daemon_reconnects_is_answered_not_lost(broker):
    """The daemon's MQTT 5 session outlives its connection: a command published at QoS 1 while
    the daemon is away (a kicked, wedged connection; a blip) is handed over on the reconnect.
    With a clean session each time, the broker would have thrown it away (the command flood)."""
    import queue
    from host.mqtt import MqttShell
    q = queue.Queue()
    shell = MqttShell({"host": "127.0.0.1", "port": broker.port}, "billiards-t1-" + uuid.uuid4().hex[:16],
                      None, q, ["billiards/t1/cmd/+"], commands="billiards/t1/cmd/")
    shell.start()
    try:
        wait_for(lambda: shell.connected, 15, what="connected")
        assert shell.v5
        shell.client.loop_stop()            # the daemon hears nothing now...
        shell.client.socket().shutdown(2)   # ... and its connection is gone
        sender = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="phone-" + uuid.uuid4().hex[:8])
        sender.connect("127.0.0.1", broker.port)
        sender.loop_start()
        time.sleep(0.5)                     # the broker has seen the daemon go
        sender.publish("billiards/t1/cmd/rename", json.dumps({"player": 0, "name": "Zed", "id": "away"}),
                       qos=1).wait_for_publish(5)
        sender.loop_stop()
        sender.disconnect()
        shell.client.loop_start()           # paho reconnects, taking up the kept session

        def heard():
            return [d for k, d in list(q.queue) if k == "message" and d[0] == "billiards/t1/cmd/rename"]
        got = wait_for(heard, 15, what="the command sent while the daemon was away")
        assert json.loads(got[0][1])["id"] == "away"
    finally:
        shell.stop()
