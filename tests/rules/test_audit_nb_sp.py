"""Audit of nine-ball and 14.1 against the Russian seed: interactions a strict referee would check.

Each test plays a situation through the Referee and asserts what the players see (scores, foul
runs, warnings, decisions, ball in hand, table, winner, event clauses).
"""
import pytest

from tests.scenarios.runner import apply_command, new_game

cmd = apply_command
P = ("head-left", "side-left", "foot-left", "foot-right", "side-right", "head-right")
FULL = list(range(1, 16))


def shot(r, **sh):
    r.events = []
    r.shot(sh)
    return r.ref.state()


def kinds(r, kind):
    return [e for e in r.events if e["event"] == kind]


# ------------------------------------------------------------------ nine-ball
def nb(**body):
    r = new_game("nine-ball", **body)
    s = shot(r, rails=8, pocketed=[[1, "foot-left"]])
    assert s["last_shot"]["fouls"] == [] and s["shooter"] == 0
    return r


@pytest.mark.clause("NB.JUMP")
@pytest.mark.clause("NB.FOUL-9")
def test_nb_jumped_nine_is_spotted_and_the_clauses_a_player_sees_are_listed_once():
    r = nb()
    shot(r, rails=3)                                   # Anna passes; Bob shoots ...
    res = cmd(r, "foul", {"code": "jumped_ball", "ball": 9})
    assert res["ok"]
    s = r.ref.state()
    assert s["on_table"] == [2, 3, 4, 5, 6, 7, 8, 9] and s["ball_in_hand"] == "table" and s["shooter"] == 1
    cl = s["last_shot"]["clauses"]
    assert "NB.JUMP" in cl and "NB.FOUL-9" in cl
    assert len(cl) == len(set(cl)), cl


@pytest.mark.clause("NB.PUSH")
def test_nb_no_contact_entered_on_a_push_out_is_no_foul_and_the_referee_is_told():
    r = nb()
    assert cmd(r, "push_out")["ok"]
    shot(r, rails=0)
    res = cmd(r, "foul", {"code": "no_contact"})
    assert res["ok"]
    s = r.ref.state()
    assert s["decision"] == {"player": 1, "options": ["accept", "pass_back"]} and s["players"][0]["fouls"] == 0
    assert not [e for e in res["events"] if e["event"] == "foul"]
    assert [e for e in res["events"] if e["event"] == "warning" and "NB.PUSH" in e["clause"]]


@pytest.mark.clause("NB.PUSH")
@pytest.mark.clause("NB.FOUL-BIH")
def test_nb_push_out_then_a_hand_entered_foul_on_it_gives_ball_in_hand_not_the_choice():
    r = nb()
    assert cmd(r, "push_out")["ok"]
    shot(r, rails=0, pocketed=[[9, "side-left"]])
    assert r.ref.state()["on_table"] == [2, 3, 4, 5, 6, 7, 8, 9]   # the 9 of a push-out is spotted
    assert cmd(r, "foul", {"code": "double_hit"})["ok"]
    s = r.ref.state()
    assert s["decision"] is None and s["phase"] == "play" and s["shooter"] == 1 and s["ball_in_hand"] == "table"
    assert [p["fouls"] for p in s["players"]] == [1, 0] and 9 in s["on_table"] and s["winner"] is None


@pytest.mark.clause("NB.3-FOULS")
@pytest.mark.clause("NB.PUSH")
def test_nb_three_fouls_across_a_pass_back_lose_the_game():
    r = nb()
    assert cmd(r, "push_out")["ok"]
    shot(r, rails=0)
    assert cmd(r, "choose", {"option": "pass_back"})["ok"]
    shot(r, rails=2, cue=True)                         # Anna foul 1 (the push-out was no foul)
    shot(r, rails=2)                                   # Bob passes
    s = shot(r, rails=0)                               # Anna foul 2
    assert s["players"][0]["fouls"] == 2 and s["warning"]["player"] == 0
    shot(r, rails=2)                                   # Bob passes
    s = shot(r, rails=2, cue=True)                     # Anna foul 3
    assert s["phase"] == "over" and s["winner"] == 1
    assert [e for e in kinds(r, "over") if "NB.3-FOULS" in e["clause"]]


@pytest.mark.clause("NB.FOUL-9")
@pytest.mark.clause("NB.WIN")
def test_nb_nine_pocketed_with_a_jumped_object_ball_is_a_foul_and_is_spotted():
    r = nb()
    s = shot(r, rails=2, pocketed=[[9, "foot-left"]])
    assert s["winner"] == 0
    assert cmd(r, "foul", {"code": "jumped_ball", "ball": 4})["ok"]
    s = r.ref.state()
    assert s["winner"] is None and s["phase"] == "play" and 9 in s["on_table"] and 4 not in s["on_table"]
    assert s["shooter"] == 1 and s["ball_in_hand"] == "table" and s["players"][0]["score"] == 0


# --------------------------------------------------------------- straight pool
def sp(target=150):
    """Anna breaks calling the 1 and runs 13 balls: the 14 and 15 are left."""
    r = new_game("straight-pool", target=target)
    assert cmd(r, "call", {"ball": 1, "pocket": "side-left"})["ok"]
    s = shot(r, rails=3, pocketed=[[b, P[b % 6]] for b in range(1, 14)])
    assert s["on_table"] == [14, 15] and s["players"][0]["score"] == 13 and s["shooter"] == 0
    return r


@pytest.mark.clause("SP.CONTINUE")
def test_sp_a_miss_names_the_rule_that_ends_the_inning():
    r = sp()
    assert cmd(r, "call", {"ball": 14, "pocket": "foot-left"})["ok"]
    s = shot(r, rails=2)
    assert s["shooter"] == 1 and "SP.CONTINUE" in s["last_shot"]["clauses"]
    assert [e for e in kinds(r, "turn") if "SP.CONTINUE" in e["clause"]]


@pytest.mark.clause("SP.CUE-OUT")
@pytest.mark.clause("SP.RERACK")
def test_sp_scratch_on_the_fourteenth_spots_it_and_does_not_rerack():
    r = sp()
    assert cmd(r, "call", {"ball": 14, "pocket": "foot-left"})["ok"]
    s = shot(r, rails=2, pocketed=[[14, "foot-left"]], cue=True)
    assert s["on_table"] == [14, 15] and s["players"][0]["score"] == 12 and s["players"][0]["fouls"] == 1
    assert s["shooter"] == 1 and s["ball_in_hand"] == "kitchen" and s["rerack"] is None
    assert not kinds(r, "rerack")


@pytest.mark.clause("SP.SAFETY")
@pytest.mark.clause("SP.WRONG-POCKET")
def test_sp_safety_or_wrong_pocket_on_the_last_ball_of_a_rack_spots_it_and_ends_the_inning():
    for declare in ("safety", "wrong"):
        r = sp()
        if declare == "safety":
            assert cmd(r, "safety")["ok"]
        else:
            assert cmd(r, "call", {"ball": 14, "pocket": "foot-left"})["ok"]
        s = shot(r, rails=2, pocketed=[[14, "foot-right"]])
        assert s["on_table"] == [14, 15] and s["players"][0]["score"] == 13 and s["shooter"] == 1, declare
        assert s["players"][0]["fouls"] == 0 and s["ball_in_hand"] is None and not kinds(r, "rerack")


@pytest.mark.clause("SP.RERACK")
@pytest.mark.clause("SP.14-15")
def test_sp_undo_across_reracks_restores_the_table_and_the_score():
    r = sp()
    assert cmd(r, "call", {"ball": 14, "pocket": "foot-left"})["ok"]
    s = shot(r, rails=2, pocketed=[[14, "foot-left"]])
    assert s["on_table"] == FULL and s["rerack"]["balls"] == 14 and s["rerack"]["fifteenth"] == 15
    assert s["shooter"] == 0 and s["players"][0]["score"] == 14
    assert cmd(r, "undo")["ok"]
    s = r.ref.state()
    assert s["on_table"] == [14, 15] and s["players"][0]["score"] == 13 and s["rerack"] is None
    assert cmd(r, "call", {"ball": 14, "pocket": "foot-left"})["ok"]
    s = shot(r, rails=2, pocketed=[[14, "foot-left"], [15, "side-left"]])
    assert s["on_table"] == FULL and s["rerack"]["balls"] == 15 and s["players"][0]["score"] == 15


@pytest.mark.clause("SP.WIN")
@pytest.mark.clause("SP.TARGET")
def test_sp_target_reached_mid_run_ends_the_game_before_any_rerack():
    r = sp(target=14)
    assert cmd(r, "call", {"ball": 14, "pocket": "foot-left"})["ok"]
    s = shot(r, rails=2, pocketed=[[14, "foot-left"]])
    assert s["phase"] == "over" and s["winner"] == 0 and s["players"][0]["score"] == 14
    assert not kinds(r, "rerack") and [e for e in kinds(r, "over") if "SP.WIN" in e["clause"]]
    assert cmd(r, "foul", {"code": "double_hit"})["ok"]      # ... but it was a double hit
    s = r.ref.state()
    assert s["phase"] == "play" and s["winner"] is None and s["players"][0]["score"] == 12
    assert s["on_table"] == [14, 15]


@pytest.mark.clause("SP.3-FOULS")
@pytest.mark.clause("SP.WIN")
def test_sp_third_foul_then_the_opponent_reaches_the_target_exactly():
    r = new_game("straight-pool", target=3)
    shot(r, rails=8)                                   # Anna: safe break; Bob at the table
    for _ in range(2):
        shot(r, rails=0)                               # Bob foul
        assert cmd(r, "call", {"ball": 2, "pocket": "foot-left"})["ok"]
        shot(r, rails=2)                               # Anna misses
    s = shot(r, rails=0)                               # Bob's third foul
    assert s["players"][1]["score"] == -18 and s["players"][1]["fouls"] == 0
    assert s["decision"] == {"player": 0, "options": ["accept", "rerack_offender_breaks"]}
    assert cmd(r, "choose", {"option": "accept"})["ok"]
    assert cmd(r, "call", {"ball": 1, "pocket": "foot-left"})["ok"]
    s = shot(r, rails=1, pocketed=[[1, "foot-left"], [2, "foot-right"], [3, "side-left"]])
    assert s["phase"] == "over" and s["winner"] == 0 and [p["score"] for p in s["players"]] == [3, -18]
