"""EB.SIMULTANEOUS judged from the camera's facts (rules/camera.simultaneous): own and opponent ball
hit too close together to tell apart go the shooter's way; contacts well apart leave the first to
stand; a second contact the camera is unsure of changes nothing."""
import json

import pytest

from shared_rules.rules.camera import MIN_CONFIDENCE, SIMULTANEOUS_MS
from shared_rules.rules.referee import replay
from tests.camera_live.helpers import Table, cmd, solids_for_anna

OTHERS = [0, 2, 4, 5, 6, 7, 8] + list(range(9, 16))       # on the table once 1 and 3 are down




def foul_codes(t):
    return (t.state["last_foul"] or {}).get("codes", [])


def aim(t, **kw):
    """Anna plays a safety off the 4 (nothing down): the camera's facts of it as `kw`."""
    t.feed(cmd("call", {"ball": 4, "pocket": "foot-left"}))
    t.shot(rails=2, camera="before", railed=(12,), followed=OTHERS, **kw)


@pytest.mark.clause("EB.SIMULTANEOUS")
def test_opponent_ball_first_but_own_ball_within_the_window_is_the_shooter_s_way():
    t = solids_for_anna()
    aim(t, first=12, second=(4, 8.0))
    assert foul_codes(t) == [] and t.state["ball_in_hand"] is None
    assert t.state["shooter"] == 1                       # nothing down: the inning passes, no foul
    assert "EB.SIMULTANEOUS" in t.state["last_shot"]["clauses"]
    last = t.state["camera"]["last_shot"]
    assert "simultaneous" in last["used"] and last["unsure"] == []
    said = [e for e in t.events if e["event"] == "camera"][0]
    assert "12 and 4" in said["text"]["en"] and "shooter" in said["text"]["en"] and said["text"]["ru"]


@pytest.mark.clause("EB.SIMULTANEOUS")
def test_the_8_first_while_it_is_not_on_and_own_ball_within_the_window_is_no_foul():
    t = solids_for_anna()
    aim(t, first=8, second=(5, SIMULTANEOUS_MS))
    assert foul_codes(t) == [] and "EB.SIMULTANEOUS" in t.state["last_shot"]["clauses"]


@pytest.mark.clause("EB.CLOSED-FIRST")
def test_contacts_well_apart_leave_the_first_contact_to_stand():
    t = solids_for_anna()
    aim(t, first=12, second=(4, SIMULTANEOUS_MS + 25))
    assert foul_codes(t) == ["wrong_first_contact"] and t.state["ball_in_hand"] == "table"
    assert "EB.SIMULTANEOUS" not in t.state["last_foul"]["clauses"]


@pytest.mark.clause("EB.CLOSED-FIRST")
@pytest.mark.parametrize("second", ["old", None, (4, 8.0, MIN_CONFIDENCE - 0.2)])
def test_without_a_sure_second_contact_the_camera_judges_as_before(second):
    """An analyser from before the second contact, none seen, or one it is unsure of: the sure
    first contact on the opponent's ball is the foul it was."""
    t = solids_for_anna()
    aim(t, first=12, second=second)
    assert foul_codes(t) == ["wrong_first_contact"]
    assert "simultaneous" not in t.state["camera"]["last_shot"]["used"]


@pytest.mark.clause("EB.SIMULTANEOUS")
def test_an_unsure_first_contact_between_own_and_opponent_ball_is_decided_the_shooter_s_way():
    """The first contact's doubt is only which of two balls, both known, hit within the window."""
    t = solids_for_anna()
    aim(t, first=12, first_conf=0.82, second=(4, 2.0))
    assert foul_codes(t) == [] and t.state["camera"]["last_shot"]["unsure"] == []
    assert "EB.SIMULTANEOUS" in t.state["last_shot"]["clauses"]


def test_an_unsure_first_contact_with_the_second_well_after_is_left_to_a_person():
    t = solids_for_anna()
    aim(t, first=12, first_conf=0.7, second=(4, 60.0))
    # ... and with it the cushions after that contact (the piezos').
    assert foul_codes(t) == [] and t.state["camera"]["last_shot"]["unsure"] == ["first_contact", "rail"]


@pytest.mark.clause("EB.CLOSED-FIRST")
def test_two_opponent_balls_within_the_window_are_a_wrong_first_contact_whichever_was_first():
    t = solids_for_anna()
    aim(t, first=12, first_conf=0.82, second=(8, 3.0))
    assert foul_codes(t) == ["wrong_first_contact"]
    assert "simultaneous" not in t.state["camera"]["last_shot"]["used"]


@pytest.mark.clause("EB.OPEN-8-FIRST")
def test_on_an_open_table_the_clause_does_not_apply():
    t = Table("eight-ball")
    t.shot(rails=12, drops=[(3, 2)], camera="before", first=1, railed=(1, 2, 4, 9, 10),
           followed=range(16), pocketed=(3,))
    t.shot(rails=2, camera="before", first=8, second=(2, 5.0), railed=(8,), followed=[0, 1, 2] + list(range(4, 16)))
    assert "EB.OPEN-8-FIRST" in t.state["last_shot"]["clauses"]
    assert "EB.SIMULTANEOUS" not in t.state["last_shot"]["clauses"]


@pytest.mark.clause("EB.SIMULTANEOUS")
def test_a_replay_judges_the_simultaneous_contact_the_same_and_old_facts_still_replay():
    t = solids_for_anna()
    aim(t, first=12, second=(4, 8.0))
    t.feed(cmd("call", {"ball": 10, "pocket": "foot-left"}))
    t.shot(rails=2, camera="before", first=4, second="old", railed=(4,), followed=OTHERS)    # Bob: solids first
    assert foul_codes(t) == ["wrong_first_contact"]
    again = replay(json.loads(json.dumps(t.journal)))
    assert json.dumps(again.state(), sort_keys=True) == json.dumps(t.state, sort_keys=True)


@pytest.mark.parametrize("second", [{"ball": 4, "after_ms": -1, "confidence": 0.9},
                                    {"ball": 16, "after_ms": 5, "confidence": 0.9},
                                    {"ball": 4, "after_ms": 5, "confidence": 1.5},
                                    {"ball": 4, "after_ms": "5", "confidence": 0.9}, [4, 5, 0.9]])
def test_a_second_contact_of_another_shape_is_refused_and_changes_nothing(second):
    from tests.camera_live.helpers import seen
    t = solids_for_anna()
    before = json.dumps(t.state, sort_keys=True)
    e = seen(t.t - 20, t.t + 1400, first=12, second=(4, 8.0))
    e["facts"]["second_contact"] = second
    res = t.ref.apply(e)
    assert not res["ok"]
    assert json.dumps(t.state, sort_keys=True) == before
