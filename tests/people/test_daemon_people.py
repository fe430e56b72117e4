"""The people-facing outputs from a running daemon: discovery, display, commands, buttons,
the shot clock, and a venue broker whose ACL keeps unauthorised clients out of the game."""
import json
import time

import pytest

from shared_rules.link.names import BUTTON, MOTION, POCKET, RAIL
from tests.host.harness import DaemonProc, FakeBoard, PtyLink, Subscriber, wait_for
from tests.people.test_acl import broker as acl_broker  # noqa: F401  (fixture)
from tests.people.test_acl import accounts  # noqa: F401  (fixture of acl_broker)
from tests.people.test_acl import ACCOUNTS, connect

pytestmark = pytest.mark.slow
TOPICS = ("billiards/#", "homeassistant/#")


def result_of(sub, n_before, timeout=10):
    wait_for(lambda: len(sub.of("billiards/t1/cmd/result")) > n_before, timeout, what="cmd/result")
    return json.loads(sub.of("billiards/t1/cmd/result")[-1])


@pytest.fixture
def table(tmp_path, broker):
    sub = Subscriber(broker.port, TOPICS)
    link = PtyLink(tmp_path / "ttyTABLE")
    board = FakeBoard(link, features=0x0D | 0x08)
    d = DaemonProc(link.path, broker.url, "t1", tmp_path / "journal",
                   extra=["--players", "Anna,Bob", "--shot-clock", "2"]).start()
    wait_for(lambda: (sub.state("t1") or {}).get("link", {}).get("state") == "up", 15, what="link up")
    yield sub, board, d
    d.stop()
    board.stop()
    link.close()
    sub.close()


def settled_discovery(sub):
    """The config topics, once the last discovery batch is all in: every kind of entity is there
    (buttons come last in a batch, delivered in order) and every config names the board that said
    HELLO (configs are re-sent when it does: until then a batch may still be on its way)."""
    configs = {t for t, _, _ in sub.messages
               if t.startswith("homeassistant/") and t.endswith("/config")}
    kinds = {t.split("/")[1] for t in configs}
    if not {"sensor", "binary_sensor", "select", "button"} <= kinds:
        return None
    if not all("hw_version" in json.loads(sub.last[t])["device"] for t in configs):
        return None
    return configs


def test_home_assistant_gets_one_device_and_rediscovery(table):
    sub, board, d = table
    configs = wait_for(lambda: settled_discovery(sub), 20, what="discovery naming the board")
    devices = {json.dumps(json.loads(sub.last[t])["device"]["identifiers"]) for t in configs}
    assert devices == {'["billiards_t1"]'}
    # Every config is sent again once Home Assistant says it is online (counted from then: the
    # batches before are all in, see settled_discovery).
    sent = len(sub.messages)
    sub.publish("homeassistant/status", "online")
    wait_for(lambda: configs <= {t for t, _, _ in sub.messages[sent:] if t.endswith("/config")},
             20, what="every config sent again after homeassistant/status online")


def test_display_and_select_and_bad_commands(table):
    sub, board, d = table
    disp = wait_for(lambda: sub.last.get("billiards/t1/display"), 10, what="display")
    lines = json.loads(disp)["lines"]
    assert any("ANNA" in l for l in lines) and any("BOB" in l for l in lines)
    before = sub.state("t1")
    n = len(sub.of("billiards/t1/cmd/result"))
    sub.publish("billiards/t1/cmd/call", json.dumps({"ball": 3, "pocket": "middle", "id": "c1"}))
    r = result_of(sub, n)
    assert r["ok"] is False and r["id"] == "c1" and "pocket" in r["error"]
    sub.publish("billiards/t1/cmd/call", "{not json")
    r = result_of(sub, n + 1)
    assert r["ok"] is False and "JSON" in r["error"]
    sub.publish("billiards/t1/cmd/fly", "{}")
    r = result_of(sub, n + 2)
    assert r["ok"] is False and "unknown command" in r["error"]
    time.sleep(0.3)
    after = sub.state("t1")
    assert {k: v for k, v in after.items() if k not in ("link", "shot_clock")} == \
           {k: v for k, v in before.items() if k not in ("link", "shot_clock")}
    # The Home Assistant select sends only the game; the players carry over.
    sub.publish("billiards/t1/cmd/new_game", json.dumps({"game": "nine-ball"}))
    s = wait_for(lambda: (sub.state("t1") or {}).get("game") == "nine-ball" and sub.state("t1"), 10,
                 what="nine-ball")
    assert s["on_table"] == list(range(1, 10)) and [p["name"] for p in s["players"]] == ["Anna", "Bob"]


def play_break(sub, board):
    board.push(MOTION, 0, 1)
    for r in range(12):
        board.push(RAIL, r % 6, 20000)
    board.push(POCKET, 2, 3)
    board.push(MOTION, 0, 0)
    return wait_for(lambda: (sub.state("t1") or {}).get("shot") == 1 and sub.state("t1"), 10,
                    what="break judged")


def test_board_buttons_are_the_same_commands(table):
    sub, board, d = table
    board.push(BUTTON, 2, 1)                      # no call on the break: refused, said as a warning
    wait_for(lambda: [e for e in sub.of("billiards/t1/event") if "Button refused" in e], 10,
             what="refusal")
    play_break(sub, board)
    board.push(BUTTON, 2, 1)                      # call the foot-left pocket
    s = wait_for(lambda: ((sub.state("t1") or {}).get("called") or {}).get("pocket") == "foot-left"
                 and sub.state("t1"), 10, what="call from the button")
    assert s["called"]["ball"] is None
    board.push(BUTTON, 6, 1)                      # safety (eight-ball)
    wait_for(lambda: (sub.state("t1") or {}).get("safety") is True, 10, what="safety button")


@pytest.mark.clause("GEN.SLOW-PLAY")
def test_shot_clock_runs_from_the_end_of_the_last_shot_and_warns(table):
    sub, board, d = table
    s = play_break(sub, board)
    clock = s["shot_clock"]
    assert clock["limit_s"] == 2 and clock["shot"] == 1
    warn = wait_for(lambda: [json.loads(e) for e in sub.of("billiards/t1/event")
                             if "GEN.SLOW-PLAY" in json.loads(e).get("clause", [])], 10,
                    what="time-up warning")
    assert warn[0]["event"] == "warning" and warn[0]["player"] == s["shooter"]


def test_only_authorised_accounts_change_the_game(tmp_path, acl_broker):  # noqa: F811
    """Against the shipped ACL: display and anonymous clients cannot touch the game; a player can."""
    port = acl_broker
    link = PtyLink(tmp_path / "ttyTABLE")
    board = FakeBoard(link)
    d = DaemonProc(link.path, "mqtt://billiards-t3:%s@127.0.0.1:%d" % (ACCOUNTS["billiards-t3"], port), "t3",
                   tmp_path / "journal", extra=["--players", "Anna,Bob"]).start()
    watcher = connect(port, "display")
    watcher.subscribe("billiards/t3/#")
    try:
        def state():
            got = [m for m in watcher.messages(0.2) if m[0] == "billiards/t3/state"]
            if got:
                state.last = json.loads(got[-1][1])
            return getattr(state, "last", None)
        s0 = wait_for(state, 15, what="the daemon's state through the ACL broker")
        assert s0["game"] == "eight-ball"
        display = connect(port, "display")
        display.publish("billiards/t3/cmd/new_game", json.dumps({"game": "nine-ball"}))
        display.close()
        from tests.people.test_acl import Client
        anon = Client(port)
        assert not anon.ok
        anon.close()
        time.sleep(1.0)
        assert state()["game"] == "eight-ball"
        other = connect(port, "player-t1")             # another table's player
        other.publish("billiards/t3/cmd/new_game", json.dumps({"game": "straight-pool"}))
        other.close()
        time.sleep(1.0)
        assert state()["game"] == "eight-ball"
        player = connect(port, "player-t3")
        player.publish("billiards/t3/cmd/new_game", json.dumps({"game": "nine-ball"}))
        player.close()
        wait_for(lambda: state()["game"] == "nine-ball", 10, what="the player's new game")
    finally:
        watcher.close()
        d.stop()
        board.stop()
        link.close()
