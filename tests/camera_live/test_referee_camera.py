"""The referee with a camera (issue 18, rules/camera.py): the clauses it now judges without a
person, the wait for its facts, and every way it falls back to today's behaviour and says so."""
import json

import pytest

from shared_rules.rules.camera import DEADLINE_MS, MIN_CONFIDENCE, normal_facts
from shared_rules.rules.referee import Referee, replay
from tests.camera_live.helpers import (Table, cmd, facts, health, motion, no_facts, pocket, rail, seen,
                                       solids_for_anna)


def nine_ball_after_break(camera=True):
    """Nine-ball, Anna broke and pocketed the 2: she shoots at the 1 next."""
    t = Table("nine-ball", camera=camera)
    t.shot(rails=9, drops=[(2, 2)], camera="before" if camera else None, first=1,
           railed=(0, 1, 3, 4), followed=range(10), pocketed=(2,))
    assert t.state["shooter"] == 0 and not t.state["last_foul"]
    return t


def foul_codes(t):
    return (t.state["last_foul"] or {}).get("codes", [])


# ------------------------------------------------------------------ judged without a person
@pytest.mark.clause("NB.WRONG-FIRST")
def test_nine_ball_wrong_ball_first_is_a_foul_the_camera_calls():
    t = nine_ball_after_break()
    t.shot(rails=2, camera="before", first=5, railed=(5,), followed=(0, 1, 3, 4, 5, 6, 7, 8, 9))
    assert foul_codes(t) == ["wrong_first_contact"]
    assert "NB.WRONG-FIRST" in t.state["last_foul"]["clauses"]
    assert t.state["shooter"] == 1 and t.state["ball_in_hand"] == "table"
    kinds = t.kinds()
    assert kinds.index("camera") < kinds.index("foul"), "the camera's words come before the foul's"
    said = [e for e in t.events if e["event"] == "camera"][0]
    assert said["first_contact"] == 5 and "hit 5 first" in said["text"]["en"] and said["text"]["ru"]
    last = t.state["camera"]["last_shot"]
    assert last["first_contact"]["ball"] == 5 and last["used"] == ["first_contact", "rail"]
    assert last["fallback"] is None


@pytest.mark.clause("NB.WRONG-FIRST")
def test_a_ball_the_camera_did_not_see_at_the_stroke_leaves_the_first_contact_to_a_person():
    # The 1 is on the table but the camera saw no 1 anywhere when the cue ball was struck (a
    # ball unseen under a spot lamp): the cue ball may have met it first, unseen, and then
    # "the 5 first" would be no foul: the camera cannot call it.
    seen_then = dict((b, (300.0 + 150 * b, 400.0)) for b in (0, 3, 4, 5, 6, 7, 8, 9))
    t = nine_ball_after_break()
    t.shot(rails=2, camera="before", first=5, railed=(5,), followed=(0, 1, 3, 4, 5, 6, 7, 8, 9),
           start=seen_then)
    assert foul_codes(t) == []
    assert "first_contact" not in t.state["camera"]["last_shot"]["used"]
    # Unseen, the 6 would give the same verdict (not the lowest either): the camera calls it.
    seen_then[1] = (1500.0, 300.0)
    del seen_then[6]
    t = nine_ball_after_break()
    t.shot(rails=2, camera="before", first=5, railed=(5,), followed=(0, 1, 3, 4, 5, 6, 7, 8, 9),
           start=seen_then)
    assert foul_codes(t) == ["wrong_first_contact"]


@pytest.mark.clause("NB.WRONG-FIRST")
def test_a_ball_unseen_at_the_stroke_that_nothing_shows_in_the_cue_ball_s_way_was_not_met_first():
    """The 1 lay unseen (green on green cloth, say), but the camera saw nothing leave the cue
    ball's way before it met the 5 (host/camera/way.py: a ball met moves): the 1 was not met
    first, so "the 5 first" is the foul. Unsure of the way, it stays a person's call."""
    seen_then = dict((b, (300.0 + 150 * b, 400.0)) for b in (0, 3, 4, 5, 6, 7, 8, 9))
    for way, fouls, used in ((0.97, ["wrong_first_contact"], True), (0.7, [], False)):
        t = nine_ball_after_break()
        t.shot(rails=2, camera="before", first=5, railed=(5,), followed=(0, 1, 3, 4, 5, 6, 7, 8, 9),
               start=seen_then, way=way)
        assert foul_codes(t) == fouls
        assert ("first_contact" in t.state["camera"]["last_shot"]["used"]) == used
    # The way's word is a number or nothing: anything else is no facts at all.
    bad = facts(first=5, railed=(5,), followed=(0, 1, 3, 4, 5, 6, 7, 8, 9), start=seen_then)
    bad["way_clear"] = {"confidence": "sure"}
    assert normal_facts(bad) is None
    bad["way_clear"] = {"confidence": 0.97}
    assert normal_facts(bad)["way_clear"] == {"confidence": 0.97}
    assert normal_facts(normal_facts(bad)) == normal_facts(bad)      # as journaled, so replayed


def test_without_a_camera_the_same_shot_needs_a_person_as_before():
    t = nine_ball_after_break(camera=False)
    t.shot(rails=2)
    assert foul_codes(t) == [] and t.state["shooter"] == 1 and t.state["ball_in_hand"] is None
    assert t.state["camera"] is None


@pytest.mark.clause("NB.LEGAL-SHOT")
def test_the_lowest_ball_first_is_no_foul():
    t = nine_ball_after_break()
    t.shot(rails=2, camera="before", first=1, railed=(1,), followed=(0, 1, 3, 4, 5, 6, 7, 8, 9))
    assert foul_codes(t) == [] and t.state["shooter"] == 1


@pytest.mark.clause("EB.CLOSED-FIRST")
def test_eight_ball_a_ball_of_the_other_group_first_is_a_foul():
    t = solids_for_anna()
    t.feed(cmd("call", {"ball": 4, "pocket": "foot-left"}))
    t.shot(rails=2, camera="before", first=12, railed=(12,), followed=[0, 2, 4, 5, 6, 7, 8] + list(range(9, 16)))
    assert foul_codes(t) == ["wrong_first_contact"]
    assert "EB.CLOSED-FIRST" in t.state["last_foul"]["clauses"]
    assert t.state["shooter"] == 1 and t.state["ball_in_hand"] == "table"


@pytest.mark.clause("EB.OPEN-8-FIRST")
def test_eight_ball_the_8_first_on_an_open_table_ends_the_inning_without_a_foul():
    t = Table("eight-ball")
    t.shot(rails=12, drops=[(3, 2)], camera="before", first=1, railed=(1, 2, 4, 9, 10),
           followed=range(16), pocketed=(3,))
    t.shot(rails=2, camera="before", first=8, railed=(8,), followed=[0, 1, 2] + list(range(4, 16)))
    assert foul_codes(t) == [] and t.state["shooter"] == 1
    assert "EB.OPEN-8-FIRST" in t.state["last_shot"]["clauses"]


@pytest.mark.clause("GEN.FOULS")
@pytest.mark.parametrize("game", ["eight-ball", "nine-ball", "straight-pool"])
def test_no_ball_hit_is_a_foul_in_every_game(game):
    t = Table(game)
    t.shot(rails=12, drops=[(3, 2)], camera="before", first=1, railed=(0, 1, 2, 4, 9, 10),
           followed=range(16 if game != "nine-ball" else 10), pocketed=(3,))
    if game == "straight-pool":
        t.feed(cmd("call", {"ball": 5, "pocket": "foot-left"}))
    before = t.state["shooter"]
    t.shot(rails=2, camera="before", first=None, railed=(), followed=None)
    assert "no_contact" in foul_codes(t)
    assert t.state["shooter"] != before


@pytest.mark.clause("NB.LEGAL-SHOT")
def test_no_cushion_after_the_contact_is_a_foul_though_the_piezos_heard_rails():
    """The cue ball touched the rail before the 1 (allowed, but it does not count): the piezos
    heard it; the camera saw no ball at a cushion after the contact."""
    t = nine_ball_after_break()
    t.shot(rails=1, camera="before", first=1, railed=(), followed=(0, 1, 3, 4, 5, 6, 7, 8, 9))
    assert foul_codes(t) == ["no_rail"] and t.state["shooter"] == 1


def test_cushions_after_a_contact_the_camera_is_unsure_of_are_the_piezos():
    # The camera guessed the 1 was hit (a first mover, 0.55) and saw no cushion after: "after
    # the contact" has no sure contact to count from, so the piezos' rail stands; no foul.
    t = nine_ball_after_break()
    t.shot(rails=1, camera="before", first=1, first_conf=0.55, railed=(), followed=(0, 1, 3, 4, 5, 6, 7, 8, 9))
    assert foul_codes(t) == [] and t.state["shooter"] == 1
    assert set(t.state["camera"]["last_shot"]["unsure"]) == {"first_contact", "rail"}


@pytest.mark.clause("NB.LEGAL-SHOT")
def test_a_ball_the_camera_never_followed_that_nothing_shows_moved_reached_no_cushion():
    """The 6 was not followed (green on green): it may have been sent to a cushion unseen, so
    "no cushion after the contact" is a person's call; unless the camera saw nothing it does not
    follow move anywhere (`others_still`): then the 6 never moved, and the foul stands."""
    for still, fouls in ((None, []), (0.7, []), (0.97, ["no_rail"])):
        t = nine_ball_after_break()
        t.shot(rails=1, camera="before", first=1, railed=(), followed=(0, 1, 3, 4, 5, 7, 8, 9), still=still)
        assert foul_codes(t) == fouls, still
        assert ("rail" in t.state["camera"]["last_shot"]["used"]) == bool(fouls)


def test_a_cushion_the_piezos_missed_is_no_foul():
    t = nine_ball_after_break()
    t.shot(rails=0, camera="before", first=1, railed=(1,), followed=(0, 1, 3, 4, 5, 6, 7, 8, 9))
    assert foul_codes(t) == [] and t.state["shooter"] == 1


@pytest.mark.clause("EB.BREAK-LEGAL")
def test_eight_ball_break_legal_or_not_by_the_balls_the_camera_counted():
    soft = Table("eight-ball")
    soft.shot(rails=14, camera="before", first=1, railed=(0, 1, 2, 5), followed=range(16))  # 14 impacts
    assert soft.state["decision"]["options"] == ["accept", "rerack", "rebreak"]    # EB.BREAK-ILLEGAL
    assert soft.state["camera"]["last_shot"]["used"] == ["break"]
    good = Table("eight-ball")
    good.shot(rails=3, camera="before", first=1, railed=(1, 2, 5, 9), followed=range(16))     # 3 impacts
    assert good.state["decision"] is None and good.state["shooter"] == 1
    assert good.state["stats"][0]["legal_breaks"] == 1


@pytest.mark.clause("NB.BREAK")
def test_nine_ball_break_any_four_balls_the_cue_ball_one_of_them():
    t = Table("nine-ball")
    t.shot(rails=2, camera="before", first=1, railed=(0, 3, 5, 7), followed=range(10))
    assert foul_codes(t) == [] and t.state["shooter"] == 0
    t = Table("nine-ball")
    t.shot(rails=12, camera="before", first=1, railed=(0, 3, 5), followed=range(10))
    assert foul_codes(t) == ["illegal_break"] and t.state["ball_in_hand"] == "table"
    t = Table("nine-ball")     # NB.BREAK: the cue ball first touches the 1
    t.shot(rails=12, camera="before", first=4, railed=(0, 3, 4, 5, 6), followed=range(10))
    assert foul_codes(t) == ["wrong_first_contact"]


@pytest.mark.clause("SP.BREAK")
def test_straight_pool_safe_break_needs_the_cue_ball_and_two_object_balls():
    t = Table("straight-pool")
    t.shot(rails=1, camera="before", first=5, railed=(0, 5, 9), followed=range(16))
    assert t.state["players"][0]["score"] == 0 and t.state["shooter"] == 1      # SP.SAFETY: legal
    t = Table("straight-pool")
    t.shot(rails=12, camera="before", first=5, railed=(5, 9, 11), followed=range(16))
    assert t.state["players"][0]["score"] == -2                                  # SP.BREAK penalty


def test_an_unknown_drop_is_named_by_the_camera_when_it_agrees_with_the_beams():
    t = nine_ball_after_break()
    t.shot(rails=2, drops=[(None, 3)], camera="before", first=1, railed=(1, 7), pocketed=(7,),
           followed=(0, 1, 3, 4, 5, 6, 7, 8, 9))
    assert t.state["needs"] == [] and 7 not in t.state["on_table"]
    assert t.state["camera"]["last_shot"]["used"] == ["first_contact", "rail", "identity"]


# ------------------------------------------------------------------ falling back, and saying so
def fallback_of(t):
    warns = [e for e in t.events if e["event"] == "warning" and e.get("reason")]
    return warns[0]["reason"] if warns else None


def test_an_unsure_first_contact_is_left_to_a_person_and_said():
    t = nine_ball_after_break()
    t.shot(rails=2, camera="before", first=5, first_conf=MIN_CONFIDENCE - 0.1, railed=(5,),
           followed=(0, 1, 3, 4, 5, 6, 7, 8, 9))
    assert foul_codes(t) == []
    unsure = [e for e in t.events if e.get("unsure")]
    assert unsure[0]["unsure"] == ["first_contact", "rail"] and "first ball hit" in unsure[0]["text"]["en"]
    assert unsure[0]["text"]["ru"]


def test_an_unsure_identity_leaves_the_first_contact_to_a_person():
    t = nine_ball_after_break()
    t.shot(rails=2, camera="before", first=5, id_conf=0.6, railed=(5,), followed=(0, 1, 3, 4, 5, 6, 7, 8, 9))
    assert foul_codes(t) == [] and t.state["camera"]["last_shot"]["unsure"] == ["first_contact"]


def test_the_first_ball_s_own_identity_decides_not_the_least_sure_ball_s():
    # The 5 and the cue ball surely named, a ball elsewhere on the table not (a stripe whose band
    # is hidden): the foul is called. The 5 itself unsure: a person, whatever the others are.
    t = nine_ball_after_break()
    t.shot(rails=2, camera="before", first=5, id_conf=0.2, first_id=0.95, railed=(5,),
           followed=(0, 1, 3, 4, 5, 6, 7, 8, 9))
    assert foul_codes(t) == ["wrong_first_contact"]
    t = nine_ball_after_break()
    t.shot(rails=2, camera="before", first=5, id_conf=0.99, first_id=0.6, railed=(5,),
           followed=(0, 1, 3, 4, 5, 6, 7, 8, 9))
    assert foul_codes(t) == [] and t.state["camera"]["last_shot"]["unsure"] == ["first_contact"]


def test_an_unsure_number_decides_where_every_ball_it_may_be_gives_one_verdict():
    # Nine-ball after the 2 went down: a yellow ball hit first that may be the 1 or the 9 is for
    # a person; one that may be the 5 or the 2 is the 5 (the 2 is off the table): a foul.
    t = nine_ball_after_break()
    t.shot(rails=2, camera="before", first=1, first_id=0.5, may_be=(1, 9), railed=(1,),
           followed=(0, 1, 3, 4, 5, 6, 7, 8, 9))
    assert foul_codes(t) == [] and t.state["camera"]["last_shot"]["unsure"] == ["first_contact"]
    t = nine_ball_after_break()
    t.shot(rails=2, camera="before", first=5, first_id=0.5, may_be=(2, 5), railed=(5,),
           followed=(0, 1, 3, 4, 5, 6, 7, 8, 9))
    assert foul_codes(t) == ["wrong_first_contact"]
    # ... and one that may be the cue ball's own track is no known contact at all.
    t = nine_ball_after_break()
    t.shot(rails=2, camera="before", first=5, first_id=0.5, may_be=(0, 5), railed=(5,),
           followed=(0, 1, 3, 4, 5, 6, 7, 8, 9))
    assert foul_codes(t) == [] and t.state["camera"]["last_shot"]["unsure"] == ["first_contact"]


@pytest.mark.clause("EB.CLOSED-FIRST")
def test_eight_ball_a_stripe_of_unsure_number_is_a_stripe_all_the_same():
    def solids_shooter():
        t = solids_for_anna()
        t.feed(cmd("call", {"ball": 4, "pocket": "foot-left"}))
        return t
    t = solids_shooter()
    t.shot(rails=2, camera="before", first=11, first_id=0.4, may_be=(11, 15), railed=(11,),
           followed=[0, 2, 4, 5, 6, 7, 8] + list(range(9, 16)))
    assert foul_codes(t) == ["wrong_first_contact"]
    t = solids_shooter()
    t.shot(rails=2, camera="before", first=10, first_id=0.4, may_be=(2, 10), railed=(10,),
           followed=[0, 2, 4, 5, 6, 7, 8] + list(range(9, 16)))
    assert foul_codes(t) == [] and t.state["camera"]["last_shot"]["unsure"] == ["first_contact"]


@pytest.mark.clause("SP.LEGAL-SHOT")
def test_straight_pool_needs_a_sure_contact_not_the_ball_s_number():
    t = Table("straight-pool")
    t.shot(rails=6, camera="before", first=1, railed=(0, 1, 2), followed=range(16), brk=2)
    t.shot(rails=2, camera="before", first=12, first_id=0.3, may_be=(4, 12), railed=(),
           followed=range(16))
    assert foul_codes(t) == ["no_rail"]
    assert t.state["camera"]["last_shot"]["used"] == ["first_contact", "rail"]
    # Without the balls it may be (an older analyser), its number's doubt leaves it to a person.
    t = Table("straight-pool")
    t.shot(rails=6, camera="before", first=1, railed=(0, 1, 2), followed=range(16), brk=2)
    t.shot(rails=2, camera="before", first=12, first_id=0.3, railed=(), followed=range(16))
    assert "first_contact" in t.state["camera"]["last_shot"]["unsure"]


def test_a_fault_during_the_shot_means_the_camera_is_not_used():
    t = nine_ball_after_break()
    t0 = t.t
    t.feed(motion(True, t0), health("fault", ["camera_flash"]), health("online"),
           seen(t0 - 20, t0 + 1400, first=5, railed=(5,), followed=(0, 1, 3, 4, 5, 6, 7, 8, 9)),
           rail(1, t0 + 500), motion(False, t0 + 2900))
    assert foul_codes(t) == [] and fallback_of(t) == "fault"
    assert "fault" in [e for e in t.events if e.get("reason")][0]["text"]["en"]


def test_facts_that_contradict_the_beams_are_not_used():
    t = nine_ball_after_break()
    t.shot(rails=2, drops=[(3, 2)], camera="before", first=5, railed=(5,), followed=(0, 1, 3, 4, 5, 6, 7, 8, 9))
    assert foul_codes(t) == [] and fallback_of(t) == "beams"
    assert 3 not in t.state["on_table"], "the beams stay the authority on what dropped"


def test_a_first_ball_that_is_not_on_the_table_is_a_contradiction():
    t = nine_ball_after_break()
    t.shot(rails=2, camera="before", first=2, railed=(2,), followed=(0, 1, 2, 3, 4, 5, 6, 7, 8, 9))
    assert foul_codes(t) == [] and fallback_of(t) == "table"


# ------------------------------------------------------------------ the wait
def test_the_verdict_waits_for_facts_that_come_after_the_balls_stopped():
    t = nine_ball_after_break()
    t0 = t.t
    t.feed(motion(True, t0), rail(2, t0 + 300), motion(False, t0 + 2900))
    assert t.state["shot_open"] and t.state["camera"]["waiting"]
    assert t.state["shot"] == 1, "no verdict yet"
    t.feed(seen(t0 - 20, t0 + 1400, first=5, railed=(5,), followed=(0, 1, 3, 4, 5, 6, 7, 8, 9)))
    assert not t.state["shot_open"] and not t.state["camera"]["waiting"]
    assert foul_codes(t) == ["wrong_first_contact"]


def test_no_facts_within_the_deadline_judges_as_without_a_camera():
    t = nine_ball_after_break()
    t0 = t.t
    t.feed(motion(True, t0), rail(2, t0 + 300), motion(False, t0 + 2900))
    assert t.state["camera"]["waiting"] and t.ref.camera_wait() == 2
    t.feed(no_facts(2))
    assert not t.state["shot_open"] and fallback_of(t) == "late"
    assert "half a second" in [e for e in t.events if e.get("reason")][0]["text"]["en"]
    t.feed(seen(t0 - 20, t0 + 1400, first=5, railed=(5,), followed=(0, 1, 3, 4, 5, 6, 7, 8, 9)))
    assert foul_codes(t) == [], "facts after the deadline change no verdict"
    assert DEADLINE_MS == 500


def test_the_next_stroke_ends_the_wait():
    t = nine_ball_after_break()
    t0 = t.t
    t.feed(motion(True, t0), rail(2, t0 + 300), motion(False, t0 + 2900), motion(True, t0 + 3100))
    assert fallback_of(t) == "interrupted" and t.state["shot_open"] and t.state["shot"] == 2
    assert not t.state["camera"]["waiting"]


def test_rail_hits_while_waiting_are_not_the_shot_s():
    t = nine_ball_after_break()
    t0 = t.t
    t.feed(motion(True, t0), motion(False, t0 + 2900), rail(2, t0 + 3000), no_facts(2))
    assert foul_codes(t) == ["no_rail"], "a rail hit after the balls stopped is not a cushion"


def test_without_the_camera_online_nothing_waits():
    t = nine_ball_after_break()
    t.feed(health("fault", ["camera_stalled"]))
    assert t.state["faults"] == [{"sensor": None, "what": "camera", "fault": "camera_stalled",
                                  "text": "the camera sends no pictures"}]
    t0 = t.t
    t.feed(motion(True, t0), rail(2, t0 + 300), motion(False, t0 + 2900))
    assert not t.state["shot_open"] and fallback_of(t) == "fault"
    t.feed(health("online"))
    assert t.state["faults"] == [] and t.state["camera"]["state"] == "online"


def test_a_camera_removed_is_no_camera():
    t = nine_ball_after_break()
    t.feed(health("fault", ["camera_moved"]), health("none"))
    assert t.state["camera"] is None and t.state["faults"] == []
    t.shot(rails=2)
    assert fallback_of(t) is None


def test_fault_warnings_say_what_came_and_went_in_both_languages():
    t = nine_ball_after_break()
    ev = t.feed(health("fault", ["camera_frozen", "camera_moved"]))
    assert [e["fault"] for e in ev] == ["camera_frozen", "camera_moved"]
    assert "frozen" in ev[0]["text"]["en"] and "застыло" in ev[0]["text"]["ru"]
    ev = t.feed(health("fault", ["camera_moved"]))
    assert [e["fault"] for e in ev] == ["camera_frozen"] and "cleared" in ev[0]["text"]["en"]


# ------------------------------------------------------------------ replay and the journal's heads
def test_a_replay_of_the_journal_judges_every_shot_the_same():
    t = nine_ball_after_break()
    t0 = t.t
    t.feed(motion(True, t0), rail(2, t0 + 300), motion(False, t0 + 2900),
           seen(t0 - 20, t0 + 1400, first=5, railed=(5,), followed=(0, 1, 3, 4, 5, 6, 7, 8, 9)))
    t.shot(rails=2, camera="after", first=3, railed=(3,), followed=(0, 1, 3, 4, 5, 6, 7, 8, 9))
    t0 = t.t
    t.feed(motion(True, t0), rail(2, t0 + 300), motion(False, t0 + 2900), no_facts(4))
    again = replay(t.journal)
    assert json.dumps(again.state(), sort_keys=True) == json.dumps(t.state, sort_keys=True)


def test_a_shot_held_when_the_journal_rolled_is_held_after_a_restart():
    t = nine_ball_after_break()
    t0 = t.t
    t.feed(motion(True, t0), rail(2, t0 + 300), motion(False, t0 + 2900))
    head = json.loads(json.dumps(t.ref.snapshot()))
    later = Referee("t1").restore(head)
    assert later.state()["camera"]["waiting"]
    ev = later.apply(seen(t0 - 20, t0 + 1400, first=5, railed=(5,), followed=(0, 1, 3, 4, 5, 6, 7, 8, 9)))
    assert ev["ok"] and later.state()["last_foul"]["codes"] == ["wrong_first_contact"]


# ------------------------------------------------------------------ hostile entries
def hostile_entries():
    good = seen(1000, 2000, first=3, railed=(3,))
    out = []

    def bad(path, value):
        e = json.loads(json.dumps(good))
        d = e
        for k in path[:-1]:
            d = d[k]
        d[path[-1]] = value
        out.append(e)
    bad(("facts", "railed_after_contact", "balls"), list(range(10000)))
    bad(("facts", "railed_after_contact", "balls"), [3, 3])
    bad(("facts", "railed_after_contact", "confidence"), dict((str(i), 0.9) for i in range(100)))
    bad(("facts", "first_contact", "ball"), 99)
    bad(("facts", "first_contact", "ball"), True)
    bad(("facts", "first_contact", "confidence"), float("nan"))
    bad(("facts", "first_contact", "confidence"), 7)
    bad(("facts", "first_contact"), "3")
    bad(("facts", "first_contact", "may_be"), [5, 9])           # not the ball it names
    bad(("facts", "first_contact", "may_be"), list(range(10000)))
    bad(("facts", "first_contact", "may_be"), "3,11")
    bad(("facts", "rest_mm", "0"), {"x": 1e308 * 10, "y": 1, "confidence": 1})
    bad(("facts", "rest_mm"), dict(("%d" % i, {"x": 1, "y": 1, "confidence": 1}) for i in range(200)))
    bad(("facts", "notes"), ["x"] * 1000)
    bad(("facts", "lost"), [-1])
    bad(("facts", "break"), {"object_balls_railed": 400, "confidence": 0.9})
    bad(("facts", "pocketed"), None)
    bad(("facts",), [1, 2, 3])
    bad(("start_us",), "soon")
    bad(("start_us",), 5000000)                     # after its end
    bad(("kind",), "frame")
    out.append({"src": "camera", "kind": "health", "state": "online", "faults": ["camera_on_fire"]})
    out.append({"src": "camera", "kind": "health", "state": "dancing", "faults": []})
    out.append({"src": "camera", "kind": "health", "state": "fault", "faults": ["camera_flash"] * 50})
    out.append({"src": "camera", "kind": "health", "state": "online", "table_mm": [1, 2, 3]})
    out.append({"src": "camera", "kind": "none", "shot": "2"})
    out.append({"src": "camera"})
    return out


@pytest.mark.parametrize("entry", hostile_entries())
def test_a_hostile_camera_entry_is_refused_and_changes_nothing(entry):
    t = nine_ball_after_break()
    t0 = t.t
    t.feed(motion(True, t0), rail(2, t0 + 300), motion(False, t0 + 2900))
    before = json.dumps(t.ref.snapshot(), sort_keys=True)
    res = t.ref.apply(entry)
    assert res["ok"] is False and res["code"] == "camera_entry" and res["text"]["ru"]
    assert json.dumps(t.ref.snapshot(), sort_keys=True) == before


def test_facts_keep_only_what_the_referee_reads():
    t = nine_ball_after_break()
    e = seen(t.t - 20, t.t + 1400, first=1, railed=(1,), followed=(0, 1, 3, 4, 5, 6, 7, 8, 9))
    e["facts"]["debug"] = "x" * 5000
    t.feed(motion(True, t.t), e, motion(False, t.t + 2900))
    assert "debug" not in json.dumps(t.ref.snapshot())


def test_facts_the_camera_sent_without_a_camera_set_up_change_nothing():
    t = Table("nine-ball", camera=False)
    before = t.state
    t.feed(seen(0, 100, first=3, railed=(3,)))
    assert t.state == before


def test_the_camera_s_referee_runs_under_micropython():
    from tests.conftest import RULES_HEAP, run_micropython
    p = run_micropython("tests/camera_live/micropython_camera.py", heap=RULES_HEAP)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split("\n")[:3] == ["['wrong_first_contact'] ['first_contact', 'rail'] ['camera_flash']",
                                        "camera_entry", "['kitchen'] ['first_contact', 'break', 'kitchen']"]


def test_facts_of_no_shot_move_the_balls_but_not_the_last_shot():
    t = nine_ball_after_break()
    t.shot(rails=2, camera="before", first=1, railed=(1,), followed=(0, 1, 3, 4, 5, 6, 7, 8, 9))
    last = t.state["camera"]["last_shot"]
    t.feed(seen(t.t + 500, t.t + 900, first=3, railed=(3,), followed=(0, 3)))    # the board felt nothing
    assert t.state["camera"]["last_shot"] == last
    assert t.state["camera"]["balls"] == {"0": [300.0, 400.0], "3": [600.0, 400.0]}


def test_a_ball_the_camera_lost_sight_of_may_be_the_one_the_beams_saw_drop():
    """The beams saw the 3 drop; the camera lost it on its way (neither seen to drop nor at
    rest): no contradiction, its first contact is used. Seen at rest instead, it contradicts
    them, and so does a drop the camera saw that no beam did."""
    t = nine_ball_after_break()
    t.shot(rails=2, drops=[(3, 2)], camera="before", first=5, railed=(5,), lost=(3,),
           followed=(0, 1, 3, 4, 5, 6, 7, 8, 9))
    assert foul_codes(t) == ["wrong_first_contact"] and fallback_of(t) is None
    assert 3 not in t.state["on_table"]
    t = nine_ball_after_break()
    t.shot(rails=2, drops=[(3, 2)], camera="before", first=5, railed=(5,), followed=(0, 1, 3, 4, 5, 6, 7, 8, 9))
    assert foul_codes(t) == [] and fallback_of(t) == "beams"
    t = nine_ball_after_break()
    t.shot(rails=2, camera="before", first=5, railed=(5,), lost=(3,), pocketed=(4,),
           followed=(0, 1, 3, 4, 5, 6, 7, 8, 9))
    assert foul_codes(t) == [] and fallback_of(t) == "beams"
