"""CONTRACT section 2: topics, retained flags, state and event shapes, every command's answer."""
import json
import re
import time

import pytest

from tests.host.harness import Subscriber, wait_for
from tests.acceptance import wire
from tests.acceptance.helpers import Table

pytestmark = pytest.mark.slow
BOARD = 0b0101        # pocket ball-ID + motion sensor: a shot is MOTION 1 ... MOTION 0
CODES_BY_HAND = ["wrong_first_contact", "no_contact", "jumped_ball", "double_hit", "push_shot",
                 "touched_ball", "no_foot_on_floor", "bad_stroke", "near_ball", "moving_ball",
                 "kitchen"]
# A hard break: eight strong impacts over all rails (rail piezo strength 0..65535).
BREAK_RAILS = [(wire.RAIL, r, v) for r, v in ((3, 40000), (2, 30000), (4, 28000), (1, 22000),
                                               (5, 20000), (0, 15000), (3, 12000), (2, 9000))]
OPTIONS = {"accept", "rebreak", "rerack", "rerack_offender_breaks", "spot_eight", "pass_back",
           "reshoot"}


class Board:
    """Our side of the serial link for one table: HELLO once, then whole shots."""

    def __init__(self, table, boot_id=0x00AC0001):
        self.t = table
        self.boot = boot_id
        self.seq = 1
        table.write(wire.hello(boot_id, BOARD))
        table.wait_ack(boot_id, 0)

    def play(self, items):
        """MOTION 1, items, MOTION 0; returns the state once the shot is judged."""
        n = self.t.state()["shot"]
        frames = [wire.event(self.seq, self.seq * 40_000, wire.MOTION, 0, 1)]
        for i, it in enumerate(items):
            frames.append(wire.event(self.seq + 1 + i, (self.seq + 1 + i) * 40_000, *it))
        frames.append(wire.event(self.seq + 1 + len(items), (self.seq + 1 + len(items)) * 40_000,
                                 wire.MOTION, 0, 0))
        self.seq += len(frames)
        self.t.write(*frames)
        self.t.wait_ack(self.boot, self.seq - 1)
        return self.t.wait_state(lambda s: s["shot"] == n + 1 or s["needs"],
                                 what="shot %d judged (or waiting for an input)" % (n + 1))

    def legal_break(self, ball=3):
        return self.play(BREAK_RAILS + [(wire.POCKET, 2, ball)])


@pytest.fixture(scope="module")
def table(tmp_path_factory, broker, sub):
    t = Table(tmp_path_factory.mktemp("mqtt"), broker, sub, table="m1").start()
    t.board = Board(t)
    yield t
    assert t.stop() == 0, t.proc.output()


def new_game(t, **body):
    body.setdefault("game", "eight-ball")
    body.setdefault("players", ["Anna", "Bob"])
    r = t.cmd("new_game", body)
    assert r["ok"], r
    return t.wait_state(lambda s: s["shot"] == 0 and s["phase"] == "break"
                        and s["game"] == body["game"], what="new game")


def comparable(state):
    s = dict(state)
    s.pop("link", None)
    s.pop("shot_clock", None)
    return s


def check_result(r, name, cid, ok):
    assert {"cmd", "ok", "error", "id"} <= set(r) <= {"cmd", "ok", "error", "id", "code", "text"}, r
    assert r["cmd"] == name and r["id"] == cid and r["ok"] is ok, r
    if ok:
        assert r["error"] is None, r
    else:
        assert isinstance(r["error"], str) and len(r["error"]) > 5, r


def check_state_shape(s, table):
    assert s["table"] == table
    assert s["game"] in ("eight-ball", "nine-ball", "straight-pool")
    assert isinstance(s["players"], list) and len(s["players"]) == 2
    for p in s["players"]:
        assert isinstance(p["name"], str) and p["name"]
        assert isinstance(p["score"], int) and not isinstance(p["score"], bool)
        assert p["group"] in ("solids", "stripes", None)
        assert isinstance(p["fouls"], int) and p["fouls"] >= 0
    assert s["shooter"] in (0, 1)
    assert s["phase"] in ("break", "play", "decision", "over")
    assert s["ball_in_hand"] in (None, "kitchen", "table")
    assert s["table_open"] in (True, False)
    if s["game"] != "eight-ball":
        assert s["table_open"] is False
    assert isinstance(s["on_table"], list) and all(isinstance(b, int) and 1 <= b <= 15
                                                   for b in s["on_table"])
    d = s["decision"]
    assert d is None or (d["player"] in (0, 1) and d["options"] and set(d["options"]) <= OPTIONS), d
    assert (d is not None) == (s["phase"] == "decision")
    assert isinstance(s["needs"], list)
    assert s["winner"] in (None, 0, 1)
    assert isinstance(s["shot"], int) and s["shot"] >= 0
    ls = s["last_shot"]
    if ls is not None:
        assert isinstance(ls["pocketed"], list) and all(isinstance(b, int) for b in ls["pocketed"])
        assert isinstance(ls["rails"], int)
        assert isinstance(ls["fouls"], list) and all(isinstance(f, str) for f in ls["fouls"])
        assert isinstance(ls["clauses"], list)
    assert s["link"]["state"] in ("up", "down")
    assert isinstance(s["link"]["dropped"], int)


def clause_ids():
    """The project's clause index (host/data/clauses.tsv), read as plain text."""
    from tests.conftest import ROOT
    text = (ROOT / "host" / "data" / "clauses.tsv").read_text(encoding="utf-8")
    return set(re.findall(r"^((?:GEN|EB|NB|SP)\.[A-Z0-9-]+)\t", text, re.M))


# --- topics and retained flags -------------------------------------------

def test_retained_topics_and_event_not_retained(table, broker):
    new_game(table)
    table.board.play([(wire.RAIL, 1, 900)])            # illegal break: events, a decision
    table.flush()                                       # the events follow the state
    assert table.events(), "no events published"
    late = Subscriber(broker.port, topics=("#",))       # a newcomer sees only retained messages
    try:
        # The broker sends the retained messages as it takes the subscription, before it takes
        # anything the newcomer publishes after: once its own message is back, they are all in.
        late.publish("tests/late/flush", "1")
        wait_for(lambda: any(m[0] == "tests/late/flush" for m in late.messages), 10,
                 what="retained messages, then the newcomer's own")
        retained = {m[0]: m[1] for m in late.messages if m[2]}
        live = {m[0] for m in late.messages if not m[2]}
    finally:
        late.close()
    b = table.base
    assert retained.get(b + "/status") == "online"
    assert json.loads(retained[b + "/state"]) == table.state()
    disp = json.loads(retained[b + "/display"])
    assert set(disp) >= {"lines", "alert"}
    assert isinstance(disp["lines"], list) and disp["lines"] and all(isinstance(l, str) for l in disp["lines"])
    assert disp["alert"] is None or isinstance(disp["alert"], str)
    assert b + "/event" not in retained, "events must not be retained"
    assert b + "/cmd/result" not in retained
    # (the module's broker may also hold the configs of tables other tests ran, in any order)
    ha = [t for t in retained if t.startswith("homeassistant/")]
    assert [t for t in ha if "/billiards_m1/" in t], "no retained Home Assistant discovery config"
    for t in ha:
        m = re.match(r"^homeassistant/([a-z_]+)/billiards_[a-z0-9_]+/([A-Za-z0-9_-]+)/config$", t)
        assert m, t
        json.loads(retained[t])
    assert b + "/state" not in live


def test_display_alert_on_foul_and_names(table):
    new_game(table, players=["Anna", "Bob"])
    table.board.legal_break()
    table.board.play([(wire.RAIL, 1, 900), (wire.POCKET, 0, 0)])   # scratch
    s = table.state()
    assert "cue_pocketed" in s["last_shot"]["fouls"]

    def disp():
        d = json.loads(table.sub.last[table.base + "/display"])
        return d if d["alert"] else None
    d = wait_for(disp, 5, what="display alert")
    assert "FOUL" in d["alert"].upper()
    joined = " ".join(d["lines"]).upper()
    assert "ANNA" in joined and "BOB" in joined


def test_ha_discovery_again_on_homeassistant_online(table):
    n = len([m for m in table.sub.messages if m[0].startswith("homeassistant/") and
             m[0].endswith("/config")])
    table.sub.publish("homeassistant/status", "online")
    wait_for(lambda: len([m for m in table.sub.messages if m[0].startswith("homeassistant/") and
                          m[0].endswith("/config")]) > n, 5, what="discovery sent again")


# --- state and events ------------------------------------------------------

def test_state_fields_through_a_few_shots(table):
    ids = clause_ids()
    assert len(ids) > 80
    s = new_game(table, game="eight-ball", players=["Anna", "Bob"])
    check_state_shape(s, "m1")
    assert [p["name"] for p in s["players"]] == ["Anna", "Bob"]
    assert s["on_table"] == list(range(1, 16)) and s["last_shot"] is None and s["winner"] is None
    assert s["table_open"] is True and s["decision"] is None and s["needs"] == []
    ev0 = len(table.events())
    s = table.board.legal_break(ball=3)
    check_state_shape(s, "m1")
    assert s["last_shot"]["pocketed"] == [3] and s["last_shot"]["rails"] == len(BREAK_RAILS)
    assert s["last_shot"]["fouls"] == [] and s["last_shot"]["clauses"]
    assert set(s["last_shot"]["clauses"]) <= ids
    assert 3 not in s["on_table"] and s["shot"] == 1 and s["phase"] == "play"
    # Solid 1 into foot-left: groups are decided.
    assert table.cmd("call", {"ball": 1, "pocket": "foot-left"})["ok"]
    s = table.board.play([(wire.RAIL, 3, 500), (wire.POCKET, 2, 1)])
    check_state_shape(s, "m1")
    assert s["players"][0]["group"] == "solids" and s["players"][1]["group"] == "stripes"
    assert s["table_open"] is False
    # A scratch: foul, ball in hand for Bob (eight-ball has no three-foul rule: no foul run).
    s = table.board.play([(wire.RAIL, 3, 500), (wire.POCKET, 4, 0)])
    check_state_shape(s, "m1")
    assert s["shooter"] == 1 and s["ball_in_hand"] == "table"
    assert s["last_shot"]["fouls"] == ["cue_pocketed"]
    wait_for(lambda: len(table.events()) > ev0 + 3, 5, what="events")
    evs = table.events()[ev0:]
    kinds = {e["event"] for e in evs}
    assert {"pocketed", "group", "foul", "turn"} <= kinds, kinds
    for e in evs:
        assert isinstance(e["event"], str)
        assert "player" in e and e["player"] in (None, 0, 1)
        assert isinstance(e["clause"], list) and e["clause"] and set(e["clause"]) <= ids, e
        assert isinstance(e["text"]["en"], str) and e["text"]["en"]
        assert isinstance(e["text"]["ru"], str) and re.search("[а-яА-Я]", e["text"]["ru"]), e
    foul = [e for e in evs if e["event"] == "foul"][-1]
    assert foul["player"] == 0


# --- commands --------------------------------------------------------------

def test_new_game_bodies(table):
    s = new_game(table, game="nine-ball", players=["Kim", "Lee"], breaker=1, race_to=3)
    check_state_shape(s, "m1")
    assert [p["name"] for p in s["players"]] == ["Kim", "Lee"] and s["shooter"] == 1
    assert s["on_table"] == list(range(1, 10)) and s["table_open"] is False
    s = new_game(table, game="straight-pool", players=["Kim", "Lee"], target=50, breaker=0)
    check_state_shape(s, "m1")
    assert s["shooter"] == 0 and s["on_table"] == list(range(1, 16))
    assert all(p["score"] == 0 for p in s["players"])


def test_every_command_answered_exactly(table):
    t = table
    new_game(t, game="eight-ball")
    t.board.legal_break()
    # call: pocket by name and by number
    for pocket in ("foot-right", 3):
        r = t.cmd("call", {"ball": 2, "pocket": pocket})
        check_result(r, "call", r["id"], True)
    r = t.cmd("safety")
    check_result(r, "safety", r["id"], True)
    # end_shot on a motion board with no shot open: answered either way, with a reason if refused
    r = t.cmd("end_shot")
    assert {"cmd", "ok", "error", "id"} <= set(r) <= {"cmd", "ok", "error", "id", "code", "text"} and r["cmd"] == "end_shot"
    # push_out: nine-ball, the shot after the break
    new_game(t, game="nine-ball")
    s = t.board.play(BREAK_RAILS)                                  # legal break, nothing down
    assert s["last_shot"]["fouls"] == [] and s["shooter"] == 0, s["last_shot"]   # NB.BREAK-CONTINUE
    r = t.cmd("push_out")
    check_result(r, "push_out", r["id"], True)
    s = t.board.play([(wire.RAIL, 1, 300)])
    assert s["decision"] and "pass_back" in s["decision"]["options"] or \
        s["decision"] and "accept" in s["decision"]["options"], s["decision"]
    # choose: one of the offered options
    opt = s["decision"]["options"][0]
    r = t.cmd("choose", {"option": opt})
    check_result(r, "choose", r["id"], True)
    assert t.wait_state(lambda s: s["decision"] is None, what="decision made")["phase"] == "play"
    # identify after an unknown ball
    new_game(t, game="nine-ball")
    s = t.board.play(BREAK_RAILS + [(wire.POCKET, 5, 255, 1)])
    assert s["needs"], "an unknown ball must make the engine ask for it"
    assert s["shot"] == 0, "a shot waiting for an input is not judged yet"
    r = t.cmd("identify", {"pocket": "head-right", "ball": 4})
    check_result(r, "identify", r["id"], True)
    s = t.wait_state(lambda s: s["needs"] == [] and s["shot"] == 1, what="needs cleared")
    assert 4 in s["last_shot"]["pocketed"] and 4 not in s["on_table"]
    # undo
    before = s["shot"]
    r = t.cmd("undo")
    check_result(r, "undo", r["id"], True)
    s = t.wait_state(lambda s: s["shot"] == before - 1, what="undone")
    assert 4 in s["on_table"]
    # the id is optional: without it, "id" is null; an empty payload means {}
    # (no shot is left to take back, so this undo takes back the new game: the last game returns)
    n = len(t.results())
    t.sub.publish(t.base + "/cmd/undo", "")
    r = wait_for(lambda: t.results()[n:], 5, what="result of empty payload")[0]
    assert r == {"cmd": "undo", "ok": True, "error": None, "id": None}
    t.wait_state(lambda s: s["shot"] == 2 and s["phase"] == "play", what="the replaced game back")
    new_game(t, game="eight-ball")
    t.board.legal_break()
    n = len(t.results())
    t.sub.publish(t.base + "/cmd/safety", b"")
    r = wait_for(lambda: t.results()[n:], 5, what="result of empty payload")[0]
    assert r == {"cmd": "safety", "ok": True, "error": None, "id": None}
    # id of any JSON type is echoed
    for cid in (7, "x-1", None):
        n = len(t.results())
        t.sub.publish(t.base + "/cmd/call", json.dumps({"ball": 99, "pocket": 1, "id": cid}))
        r = wait_for(lambda: t.results()[n:], 5, what="result")[0]
        assert r["id"] == cid and r["ok"] is False


@pytest.mark.parametrize("code", CODES_BY_HAND)
def test_foul_by_hand_every_code(table, code):
    t = table
    new_game(t, game="nine-ball", players=["Anna", "Bob"])
    t.board.legal_break(ball=2)                                   # Anna goes on
    s = t.board.play([(wire.RAIL, 1, 300), (wire.RAIL, 2, 300)])   # nothing down: Bob to shoot
    assert s["shooter"] == 1
    body = {"code": code}
    if code == "jumped_ball":
        body["ball"] = 0
    r = t.cmd("foul", body)
    check_result(r, "foul", r["id"], True)
    s = t.wait_state(lambda s: code in s["last_shot"]["fouls"], what="foul on the last shot")
    assert s["shooter"] == 1 and s["ball_in_hand"] == "table"
    assert s["players"][0]["fouls"] == 1
    ev = [e for e in t.events() if e["event"] == "foul"][-1]
    assert ev["player"] == 0 and ev["clause"]


def test_refused_commands_change_nothing(table):
    t = table
    new_game(t, game="eight-ball")
    t.board.legal_break()
    t.flush()                                           # the break's events follow its state
    before = comparable(t.state())
    ev = len(t.events())
    bad = [("call", "{not json"), ("call", "[1, 2]"), ("call", "\"text\""), ("call", "3"),
           ("no_such_command", "{}"), ("call", json.dumps({"ball": 3, "pocket": "foot-left"})),
           ("call", json.dumps({"ball": 1, "pocket": "middle"})), ("call", json.dumps({"ball": 1, "pocket": 6})),
           ("call", "{}"), ("push_out", "{}"), ("choose", json.dumps({"option": "rerack"})),
           ("foul", json.dumps({"code": "no_such_foul"})), ("foul", "{}"),
           ("identify", json.dumps({"pocket": "head-left", "ball": 5})),
           ("identify", json.dumps({"pocket": "foot-left", "ball": 16})),
           ("identify", json.dumps({"pocket": "nowhere", "ball": 5})),
           ("new_game", json.dumps({"game": "snooker", "players": ["A", "B"]})),
           ("new_game", json.dumps({"game": "nine-ball", "players": ["A"]})),
           ("new_game", json.dumps({"game": "nine-ball", "players": ["A", "B"], "breaker": 2}))]
    for name, payload in bad:
        r = t.cmd(name, raw=payload)
        assert {"cmd", "ok", "error", "id"} <= set(r) <= {"cmd", "ok", "error", "id", "code", "text"}, r
        assert r["cmd"] == name and r["ok"] is False, (name, payload, r)
        assert isinstance(r["error"], str) and len(r["error"]) > 5, r
    time.sleep(0.3)
    assert comparable(t.state()) == before
    assert len(t.events()) == ev


# --- other daemons: prefix, status on stop and on kill -9 ---------------------

def test_prefix_first_word_configurable(tmp_path, broker, sub):
    t = Table(tmp_path, broker, sub, table="p1", extra=["--prefix", "pool"]).start()
    try:
        assert sub.last.get("pool/p1/status") == "online"
        r = t.cmd("new_game", {"game": "nine-ball", "players": ["X", "Y"]})
        assert r["ok"] and r["cmd"] == "new_game"
        t.wait_state(lambda s: s["game"] == "nine-ball")
        assert not [m for m in sub.messages if m[0].startswith("billiards/p1/")]
        assert r == t.results()[-1] and {"cmd", "ok", "error", "id"} <= set(r) <= {"cmd", "ok", "error", "id", "code", "text"}
    finally:
        assert t.stop() == 0
    assert sub.last.get("pool/p1/status") == "offline"


def test_status_offline_on_stop_and_last_will_on_kill9(tmp_path, broker, sub):
    t = Table(tmp_path, broker, sub, table="k1").start()
    assert t.stop() == 0
    wait_for(lambda: sub.last.get("billiards/k1/status") == "offline", 5, what="offline on stop")
    t2 = Table(tmp_path, broker, sub, table="k1").start()    # same journal: carries on
    assert sub.last.get("billiards/k1/status") == "online"
    t2.proc.kill9()
    t2.link.close()
    wait_for(lambda: sub.last.get("billiards/k1/status") == "offline", 10, what="last will")
    late = Subscriber(broker.port, topics=("billiards/k1/status",))
    try:
        wait_for(lambda: late.messages, 5, what="retained status")
        assert late.messages[-1][1:] == ("offline", True)
    finally:
        late.close()


# --- buttons (CONTRACT section 1, EVENT kind 5) and odd sensor values --------

def _events(t, items):
    b = t.board
    frames = []
    for it in items:
        frames.append(wire.event(b.seq, b.seq * 40_000, *it))
        b.seq += 1
    t.write(*frames)
    t.wait_ack(b.boot, b.seq - 1)


def test_buttons_call_safety_undo_new_game(table):
    t = table
    new_game(t, game="eight-ball")
    t.board.legal_break()
    mark = t.mark()
    _events(t, [(wire.BUTTON, 4, 1)])                    # button 4 calls pocket 4 (side-right)
    t.wait_lights(lambda f: f["mask"] & 0x3F == 1 << 4, mark, what="lamp of pocket 4")
    _events(t, [(wire.BUTTON, 8, 1)])                    # undo: the break is taken back
    s = t.wait_state(lambda s: s["shot"] == 0, what="undo by button")
    assert 3 in s["on_table"] and s["last_shot"] is None
    t.board.legal_break(ball=5)
    before = t.state()["shot"]
    _events(t, [(wire.BUTTON, 9, 2)])                    # new game (long press)
    s = t.wait_state(lambda s: s["shot"] == 0 and 5 in s["on_table"], what="new game by button")
    assert before == 1 and s["phase"] == "break"


def test_odd_sensor_values_do_not_change_the_game(table):
    t = table
    new_game(t, game="eight-ball")
    t.board.legal_break()
    t.flush()                                           # the break's events follow its state
    before = comparable(t.state())
    _events(t, [(wire.POCKET, 9, 3), (wire.POCKET, 2, 77), (wire.RAIL, 40, 5), (99, 0, 0),
                (wire.MOTION, 3, 7), (wire.BUTTON, 15, 9), (wire.CUE, 77, 3)])
    t.flush()                                           # whatever they changed is published by now
    assert t.proc.proc.poll() is None
    after = comparable(t.state())
    for k in ("shot", "on_table", "shooter", "phase", "players", "last_shot", "ball_in_hand", "winner"):
        assert after[k] == before[k], k


def documented_state_fields():
    """(top-level, last_shot) field names docs/mqtt.md gives for `…/state`: the keys of its
    example and the names its 'Extra fields' paragraph lists."""
    import pathlib
    doc = (pathlib.Path(__file__).resolve().parents[2] / "docs" / "mqtt.md").read_text()
    section = doc.split("## State (`…/state`)", 1)[1].split("\n## ", 1)[0]
    example = section.split("```", 2)[1]
    top = set(re.findall(r'^\s*"(\w+)":', example, re.M))
    shot = set(re.findall(r'"(\w+)":', re.search(r'"last_shot":[^\n]*', example).group(0))) - {"last_shot"}
    extra = section.split("- Extra fields", 1)[1].split("\n\n", 1)[0]
    extra = re.sub(r"\([^()]*\)", "", extra)          # the names, not what the brackets say
    extra_top, _, extra_shot = extra.partition("in `last_shot`:")
    top |= set(re.findall(r"`(\w+)`", extra_top))
    shot |= set(re.findall(r"`(\w+)`", extra_shot))
    return top, shot


def test_every_published_state_field_is_documented_and_back(table):
    top, shot = documented_state_fields()
    assert {"table", "players", "faults", "can_undo"} <= top and {"pocketed", "break"} <= shot
    new_game(table)
    s = table.board.legal_break()
    assert set(s) == top, "docs/mqtt.md and …/state differ: %s" % sorted(set(s) ^ top)
    assert set(s["last_shot"]) == shot, sorted(set(s["last_shot"]) ^ shot)
