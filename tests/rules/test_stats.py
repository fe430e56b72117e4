"""Per-player statistics in the state: balls pocketed, fouls, breaks and legal breaks, high run."""
import pytest

from tests.scenarios.runner import new_game


@pytest.mark.clause("GEN.OPPONENT")
def test_an_interference_foul_counts_against_the_opponent_not_the_shooter():
    r = new_game("eight-ball")
    r.step({"shot": {"rails": 12, "pocketed": [[3, "foot-left"]]}})
    r.step({"cmd": "call", "body": {"ball": 2, "pocket": "foot-right"}})
    r.step({"shot": {"rails": 2, "pocketed": [[2, "foot-right"]]}})
    r.step({"cmd": "foul", "body": {"code": "interference"}})
    s = r.ref.state()
    assert s["stats"][0]["fouls"] == 0 and s["stats"][1]["fouls"] == 1
    assert s["shooter"] == 0


def test_stats_count_breaks_balls_fouls_and_the_high_run():
    r = new_game("straight-pool")
    r.step({"cmd": "call", "body": {"ball": 1, "pocket": "foot-left"}})
    r.step({"shot": {"rails": 4, "pocketed": [[1, "foot-left"]]}})      # legal called break, +1
    for ball in (2, 3, 4):
        r.step({"cmd": "call", "body": {"ball": ball, "pocket": "side-left"}})
        r.step({"shot": {"rails": 2, "pocketed": [[ball, "side-left"]]}})
    r.step({"cmd": "call", "body": {"ball": 5, "pocket": "side-left"}})
    r.step({"shot": {"rails": 2, "cue": True}})                          # scratch: foul, run ends
    s = r.ref.state()
    a = s["stats"][0]
    assert a == {"pocketed": 4, "fouls": 1, "breaks": 1, "legal_breaks": 1, "high_run": 4}
    assert s["players"][0]["score"] == 3 and s["shooter"] == 1
