"""Shot clock: one minute from the end of the previous shot (GEN.SLOW-PLAY)."""

import pytest

from host.shot_clock import ShotClock, expired, next_shot_clock, remaining
from people_game import game, step

pytestmark = pytest.mark.clause("GEN.SLOW-PLAY")

T0 = 1764480000.0


def test_off_unless_the_setting_is_on():
    state, events = step("break")
    assert next_shot_clock(None, state, events, T0, enabled=False) is None
    assert ShotClock().update(state, events, T0) is None


def test_one_minute_from_when_the_shot_was_judged():
    state, events = step("break")
    clock = next_shot_clock(None, state, events, T0)
    assert clock["limit_s"] == 60 and clock["started_wall"] == T0
    assert remaining(clock, T0 + 15) == 45
    assert not expired(clock, T0 + 59.9)
    assert expired(clock, T0 + 60)
    assert remaining(clock, T0 + 600) == 0


def test_other_changes_keep_it_running_and_a_judged_shot_restarts_it():
    state, events = step("bob misses")
    clock = next_shot_clock(None, state, events, T0)
    state["called"] = {"ball": 2, "pocket": "side-left"}   # a call: same shot still
    same = next_shot_clock(clock, state, [], T0 + 20)
    assert same["started_wall"] == T0 and remaining(same, T0 + 20) == 40
    after, events = step("anna no rail")
    new = next_shot_clock(same, after, events, T0 + 31)
    assert new["started_wall"] == T0 + 31 and remaining(new, T0 + 31) == 60


def test_undo_restarts_it_too():
    state, _ = step("anna no rail")
    clock = next_shot_clock(None, state, [], T0)
    undone, _ = step("bob misses")                        # shot count goes back
    assert next_shot_clock(clock, undone, [], T0 + 5)["started_wall"] == T0 + 5


def test_stopped_when_over_or_a_decision_or_input_is_pending():
    state, events = step("anna wins")
    assert next_shot_clock({"limit_s": 60, "started_wall": T0, "shot": 8},
                           state, events, T0 + 3) is None
    state, _ = step("break")
    running = next_shot_clock(None, state, [], T0)
    state["phase"] = "decision"
    state["decision"] = {"player": 1, "options": ["accept", "rebreak"]}
    assert next_shot_clock(running, state, [], T0 + 2) is None
    state["phase"] = "play"; state["decision"] = None      # chosen: the clock starts afresh
    assert next_shot_clock(None, state, [], T0 + 30)["started_wall"] == T0 + 30
    state["needs"] = [{"identify": {"pocket": "foot-left"}}]
    assert next_shot_clock(running, state, [], T0 + 2) is None


def test_through_a_whole_game_with_the_keeper():
    keeper = ShotClock(enabled=True, limit_s=60)
    starts = []
    for i, (label, state, events) in enumerate(game()):
        value = keeper.update(state, events, T0 + 100 * i)
        starts.append(None if value is None else value["started_wall"] - T0)
    # Issue 17: no clock while the players rack and lag (the break phase), so none at "new game".
    assert starts == [None, 100, 200, 300, 400, 500, 600, 700, 800, None]


def test_bad_values_give_no_clock_and_never_raise():
    assert remaining(None, T0) is None
    assert remaining({"limit_s": "x", "started_wall": T0}, T0) is None
    assert remaining({}, T0) is None
    assert next_shot_clock("junk", {"shot": "x", "phase": "play"}, None, T0)["shot"] == 0
    assert next_shot_clock(None, None, None, T0) is None


def test_the_games_own_setting_turns_it_on_with_its_limit():
    state, events = step("break")
    state["shot_clock"] = 45                      # new_game body {"shot_clock": 45}
    keeper = ShotClock()                          # the daemon's default: off
    value = keeper.update(state, events, T0)
    assert value["limit_s"] == 45 and remaining(value, T0 + 5) == 40
    state["shot_clock"] = None                    # a game without a clock
    assert ShotClock().update(state, events, T0) is None
    assert ShotClock(enabled=True).update(state, events, T0)["limit_s"] == 60
