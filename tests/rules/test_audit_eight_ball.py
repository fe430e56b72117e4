"""Audit of eight-ball against the Russian seed: situations where two rules meet, as a strict referee sees them."""
import pytest

from tests.scenarios.runner import Run

NG = {"cmd": "new_game", "body": {"game": "eight-ball", "players": ["Anna", "Bob"]}}
# Anna breaks (3 down), then takes solids with the 2; she is still at the table.
START = [NG, {"shot": {"rails": 5, "pocketed": [[3, "foot-left"]]}},
         {"cmd": "call", "body": {"ball": 2, "pocket": "foot-right"}},
         {"shot": {"rails": 2, "pocketed": [[2, "foot-right"]]}}]
# ... and clears the rest of her group: only the 8 and the stripes are left.
CLEARED = START + [step for b in (1, 4, 5, 6, 7) for step in (
    {"cmd": "call", "body": {"ball": b, "pocket": "foot-left"}},
    {"shot": {"rails": 2, "pocketed": [[b, "foot-left"]]}})]


def play(steps):
    r = Run({"steps": [], "features": 15})
    for st in steps:
        r.step(st)
    return r


def events_of(r, kind):
    return [e for e in r.events if e["event"] == kind]


@pytest.mark.clause("GEN.JUMPED-CUE")
@pytest.mark.clause("EB.FOULS")
def test_cue_ball_off_the_table_in_play_is_named_as_the_cue_balls_jump_not_an_object_balls():
    r = play(START + [{"cmd": "call", "body": {"ball": 4, "pocket": "side-left"}},
                      {"shot": {"rails": 2, "pocketed": [[4, "side-left"]]}},
                      {"cmd": "foul", "body": {"code": "jumped_ball", "ball": 0}}])
    s = r.ref.state()
    assert s["shooter"] == 1 and s["ball_in_hand"] == "table"
    foul = events_of(r, "foul")
    assert len(foul) == 1
    assert "GEN.JUMPED-CUE" in foul[0]["clause"]
    assert "EB.JUMP" not in foul[0]["clause"]          # EB.JUMP is the object balls' rule (spotting)
    assert "GEN.JUMPED-CUE" in s["last_shot"]["clauses"]


@pytest.mark.clause("EB.JUMP")
@pytest.mark.clause("GEN.JUMPED-OBJECT")
def test_object_ball_off_the_table_still_names_eb_jump():
    r = play(START + [{"shot": {"rails": 2, "pocketed": []}},
                      {"cmd": "foul", "body": {"code": "jumped_ball", "ball": 12}}])
    foul = events_of(r, "foul")
    assert len(foul) == 1 and "EB.JUMP" in foul[0]["clause"] and "GEN.JUMPED-CUE" not in foul[0]["clause"]
    assert [e for e in r.events if e["event"] == "respot" and e["balls"] == [12]]


@pytest.mark.clause("EB.LOSS")
def test_the_8_off_the_table_loses_and_is_no_longer_shown_on_the_table():
    r = play(CLEARED + [{"cmd": "call", "body": {"ball": 8, "pocket": "foot-left"}},
                        {"shot": {"rails": 2, "pocketed": []}},
                        {"cmd": "foul", "body": {"code": "jumped_ball", "ball": 8}}])
    s = r.ref.state()
    assert s["phase"] == "over" and s["winner"] == 1
    assert 8 not in s["on_table"]
    assert [e for e in r.events if e["event"] == "over" and e.get("loss") == 3]


@pytest.mark.clause("GEN.OPPONENT")
def test_opponent_interfering_on_the_break_is_the_opponents_foul_and_the_breaker_plays_on_in_hand():
    r = play([NG, {"shot": {"rails": 12, "pocketed": []}}])
    assert r.ref.state()["shooter"] == 1                 # a legal break, nothing down: Bob's turn
    r.step({"cmd": "foul", "body": {"code": "interference"}})
    s = r.ref.state()
    assert s["shooter"] == 0 and s["ball_in_hand"] == "table" and s["phase"] == "play"
    assert s["table_open"] is True and s["last_shot"]["fouls"] == ["interference"]
    foul = events_of(r, "foul")
    assert len(foul) == 1 and foul[0]["player"] == 1 and "GEN.OPPONENT" in foul[0]["clause"]
    assert [e for e in r.events if e["event"] == "ball_in_hand" and e["player"] == 0]


@pytest.mark.clause("GEN.OPPONENT")
def test_opponent_interfering_on_a_break_that_dropped_the_8_puts_the_8_back():
    r = play([NG, {"shot": {"rails": 12, "pocketed": [[8, "foot-left"], [10, "side-left"]]}},
              {"cmd": "foul", "body": {"code": "interference"}}])
    s = r.ref.state()
    assert s["phase"] == "play" and s["decision"] is None and s["winner"] is None
    assert 8 in s["on_table"] and 10 not in s["on_table"]
    assert s["shooter"] == 0 and s["ball_in_hand"] == "table"
