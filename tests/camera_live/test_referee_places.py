"""The referee with a camera: the clauses about where balls lie (rules/camera.py, "where the balls
lay"), judged from the camera's start and rest positions when it is sure, left to a person as
before when it is not or says nothing, and said either way.

The table is 9 ft (2540 x 1270 mm, the camera's health entry): the head string at x = 635 mm, the
foot string and the foot spot at x = 1905 mm."""
import pytest

from shared_rules.rules.camera import PLACE_MARGIN_MM
from shared_rules.rules.referee import replay
from tests.camera_live.helpers import Table, cmd, health

HEAD, FOOT = 635.0, 1905.0
ROW = 57.15 * 0.8660254                 # a rack's rows apart; its balls 57.15 mm apart across


def rack(balls, x=FOOT):
    """Object balls laid out beyond the foot string (a rack, or balls spread there)."""
    return dict((b, (x + 30.0 * i, 400.0 + 25.0 * i)) for i, b in enumerate(balls))


def at(game_balls, cue, **kw):
    """Start places: the cue ball at `cue` (x or (x, y[, conf])), the object balls racked."""
    cue = (cue, 600.0) if isinstance(cue, (int, float)) else cue
    out = rack(game_balls)
    out.update(kw.get("more", {}))
    out[0] = cue
    return out


def foul_codes(t):
    return (t.state["last_foul"] or {}).get("codes", [])


def camera_said(t):
    said = [e for e in t.events if e["event"] == "camera"]
    return said[0]["text"] if said else None


def unsure_of(t):
    return t.state["camera"]["last_shot"]["unsure"]


NB = list(range(1, 10))
EB = list(range(1, 16))


def nine_ball_break(cue, start="racked"):
    t = Table("nine-ball")
    t.shot(rails=2, camera="before", first=1, railed=(0, 3, 5, 7), followed=range(10),
           start=at(NB, cue) if start == "racked" else start)
    return t


# ------------------------------------------------------------------ the cue ball in hand
@pytest.mark.clause("GEN.KITCHEN")
@pytest.mark.clause("NB.BREAK")
def test_a_break_from_behind_the_head_string_is_legal_and_the_camera_says_so():
    t = nine_ball_break(400)
    assert foul_codes(t) == [] and t.state["shooter"] == 0
    last = t.state["camera"]["last_shot"]
    assert "kitchen" in last["used"] and "kitchen" not in last["unsure"]
    said = camera_said(t)
    assert "behind the head string" in said["en"] and "в доме" in said["ru"]


@pytest.mark.clause("GEN.KITCHEN")
@pytest.mark.clause("GEN.FOULS")
def test_a_cue_ball_placed_past_the_head_string_is_the_kitchen_foul():
    t = nine_ball_break(800)
    assert foul_codes(t) == ["kitchen"]
    assert "GEN.KITCHEN" in t.state["last_foul"]["clauses"]
    assert t.state["shooter"] == 1 and t.state["ball_in_hand"] == "table"     # NB.FOUL-BIH
    assert "past the head string" in camera_said(t)["en"]


@pytest.mark.clause("GEN.KITCHEN")
def test_a_cue_ball_on_the_head_string_is_outside_but_too_close_for_the_camera_to_call():
    """GEN.KITCHEN: on the line is outside; the camera's centre is a few mm off, so a cue ball
    within PLACE_MARGIN_MM of the line is left to a person, and the referee says so."""
    for x in (HEAD, HEAD - PLACE_MARGIN_MM + 2, HEAD + PLACE_MARGIN_MM - 2):
        t = nine_ball_break(x)
        assert foul_codes(t) == [] and t.state["shooter"] == 0, x
        assert "kitchen" in unsure_of(t)
        warn = [e for e in t.events if e.get("unsure")][0]
        assert "where the cue ball in hand lay" in warn["text"]["en"] and "дом" in warn["text"]["ru"]
    t = nine_ball_break(HEAD + PLACE_MARGIN_MM + 2)
    assert foul_codes(t) == ["kitchen"]


def test_an_unsure_place_or_no_place_is_today_s_behaviour():
    unsure = nine_ball_break((800, 600, 0.7))                 # seen under the player's arm
    assert foul_codes(unsure) == [] and "kitchen" in unsure_of(unsure)
    silent = nine_ball_break(800, start=None)                 # an analyser that gives no places
    assert foul_codes(silent) == [] and "kitchen" not in unsure_of(silent)
    assert "kitchen" not in silent.state["camera"]["last_shot"]["used"]
    hidden = Table("nine-ball")                               # the cue ball not seen at the start
    hidden.shot(rails=2, camera="before", first=1, railed=(0, 3, 5, 7), followed=range(10), start=rack(NB))
    assert foul_codes(hidden) == [] and "kitchen" in unsure_of(hidden)
    # Without the table's size the head string is nowhere.
    t = Table("nine-ball", camera=False)
    t.feed(health(table_mm=None))
    t.shot(rails=2, camera="before", first=1, railed=(0, 3, 5, 7), followed=range(10), start=at(NB, 800))
    assert foul_codes(t) == [] and "kitchen" in unsure_of(t)


def test_without_a_camera_the_same_break_needs_a_person_as_before():
    t = Table("nine-ball", camera=False)
    t.shot(rails=12)
    assert foul_codes(t) == [] and t.state["camera"] is None
    t.feed(cmd("foul", {"code": "kitchen"}))
    assert foul_codes(t) == ["kitchen"]


def test_a_shot_not_from_the_kitchen_is_not_judged_by_where_the_cue_ball_lay():
    t = nine_ball_break(400)
    t.shot(rails=2, camera="before", first=1, railed=(1,), followed=(0,) + tuple(NB), start=at(NB, 1200))
    assert foul_codes(t) == [] and "kitchen" not in t.state["camera"]["last_shot"]["used"]


@pytest.mark.clause("EB.BREAK-LEGAL")
@pytest.mark.clause("GEN.KITCHEN")
def test_eight_ball_break_from_past_the_head_string_is_a_foul():
    good = Table("eight-ball")
    good.shot(rails=3, camera="before", first=1, railed=(1, 2, 5, 9), followed=range(16), start=at(EB, 300))
    assert good.state["decision"] is None and good.state["shooter"] == 1 and foul_codes(good) == []
    bad = Table("eight-ball")
    bad.shot(rails=3, camera="before", first=1, railed=(1, 2, 5, 9), followed=range(16), start=at(EB, 900))
    assert foul_codes(bad) == ["kitchen"] and bad.state["shooter"] == 1


def eight_ball_after_a_break_scratch():
    """Anna broke and scratched (EB.BREAK-SCRATCH): Bob has the cue ball in hand from the kitchen."""
    t = Table("eight-ball")
    t.shot(rails=3, drops=[(0, 0)], camera="before", first=1, railed=(1, 2, 5, 9), followed=range(16),
           pocketed=(0,), start=at(EB, 300))
    assert t.state["shooter"] == 1 and t.state["ball_in_hand"] == "kitchen"
    return t


@pytest.mark.clause("EB.BREAK-SCRATCH")
@pytest.mark.clause("GEN.KITCHEN")
def test_after_a_break_scratch_the_cue_ball_must_be_played_from_the_kitchen():
    t = eight_ball_after_a_break_scratch()
    t.shot(rails=2, camera="before", first=3, railed=(3,), followed=range(16), start=at(EB, 1000))
    assert foul_codes(t) == ["kitchen"] and t.state["shooter"] == 0 and t.state["ball_in_hand"] == "table"
    t = eight_ball_after_a_break_scratch()
    t.shot(rails=2, camera="before", first=3, railed=(3,), followed=range(16), start=at(EB, 500))
    assert foul_codes(t) == [] and t.state["shooter"] == 0


@pytest.mark.clause("EB.BREAK-JUMP")
def test_after_a_ball_jumped_on_the_break_the_cue_ball_may_be_played_where_it_lies():
    """EB.BREAK-JUMP: from the kitchen, or the position as it lies: a cue ball past the head
    string is then no foul the camera can call (a person judges, as before)."""
    t = Table("eight-ball")
    t.shot(rails=3, camera="before", first=1, railed=(1, 2, 5, 9), followed=range(16), start=at(EB, 300))
    t.feed(cmd("foul", {"code": "jumped_ball", "ball": 5}))
    assert t.state["shooter"] == 1 and t.state["ball_in_hand"] == "kitchen"
    t.shot(rails=2, camera="before", first=3, railed=(3,), followed=range(16), start=at(EB, 1200))
    assert foul_codes(t) == [] and "kitchen" in unsure_of(t)
    t = Table("eight-ball")
    t.shot(rails=3, camera="before", first=1, railed=(1, 2, 5, 9), followed=range(16), start=at(EB, 300))
    t.feed(cmd("foul", {"code": "jumped_ball", "ball": 5}))
    t.shot(rails=2, camera="before", first=3, railed=(3,), followed=range(16), start=at(EB, 300))
    assert foul_codes(t) == [] and "kitchen" in t.state["camera"]["last_shot"]["used"]


# ------------------------------------------------------------------ the ball hit first
def kitchen_ball_shot(reach, where=400.0):
    """Bob, in hand from the kitchen, hits ball 3 first, which lay at x = `where`."""
    t = eight_ball_after_a_break_scratch()
    start = at(EB, (200, 300), more={3: (where, 900)})
    t.shot(rails=2, camera="before", first=3, railed=(3,), followed=range(16), start=start, reach=reach)
    return t


@pytest.mark.clause("GEN.KITCHEN-ONLY-OUT")
@pytest.mark.clause("EB.KITCHEN")
def test_a_ball_in_the_kitchen_hit_directly_from_the_kitchen_is_a_foul():
    t = kitchen_ball_shot(reach=350)
    assert foul_codes(t) == ["kitchen"]
    assert {"EB.KITCHEN", "GEN.KITCHEN-ONLY-OUT"} <= set(t.state["last_foul"]["clauses"])
    assert "ball 3 lay in the kitchen" in camera_said(t)["en"] and "шар 3" in camera_said(t)["ru"]
    assert t.state["camera"]["last_shot"]["used"] == ["first_contact", "rail", "kitchen", "kitchen_ball"]


@pytest.mark.clause("EB.KITCHEN")
def test_a_cue_ball_that_left_the_kitchen_first_may_have_banked_off_the_foot_rail_a_person_judges():
    t = kitchen_ball_shot(reach=2400)
    assert foul_codes(t) == [] and "kitchen_ball" in unsure_of(t)
    t = kitchen_ball_shot(reach=(350, 0.6))            # the cue ball out of sight on its way
    assert foul_codes(t) == [] and "kitchen_ball" in unsure_of(t)
    t = kitchen_ball_shot(reach=None)                  # an analyser that does not say
    assert foul_codes(t) == [] and "kitchen_ball" in unsure_of(t)


def test_a_ball_outside_the_kitchen_may_be_hit_directly():
    t = kitchen_ball_shot(reach=700, where=900)
    assert foul_codes(t) == [] and unsure_of(t) == []
    t = kitchen_ball_shot(reach=600, where=HEAD)       # on the line: too close to call
    assert foul_codes(t) == [] and "kitchen_ball" in unsure_of(t)


@pytest.mark.clause("GEN.KITCHEN-ONLY-OUT")
def test_every_object_ball_in_the_kitchen_means_the_temporary_kitchen_at_the_foot():
    t = eight_ball_after_a_break_scratch()
    inside = dict((b, (100 + 30 * b, 100 + 60 * b)) for b in EB)
    inside[0] = (2100, 600)
    t.shot(rails=2, camera="before", first=3, railed=(3,), followed=range(16), start=inside, reach=2100)
    assert foul_codes(t) == [] and "temporary_kitchen" in t.state["camera"]["last_shot"]["used"]
    assert "temporary kitchen" in camera_said(t)["en"]
    t = eight_ball_after_a_break_scratch()
    inside[0] = (300, 600)                             # from the usual kitchen: the wrong end
    t.shot(rails=2, camera="before", first=3, railed=(3,), followed=range(16), start=inside, reach=400)
    assert foul_codes(t) == ["kitchen"]


# ------------------------------------------------------------------ 14.1
def straight_pool_at_the_14th(fifteenth, cue, conf=0.95):
    """Anna called 1 on the break and pocketed 1-13; she pots the 14th; the camera saw the 15th and
    the cue ball come to rest at `fifteenth` and `cue` (None: the cue ball dropped too)."""
    t = Table("straight-pool")
    t.feed(cmd("call", {"ball": 1, "pocket": "foot-left"}))
    drops = [(1, 2)] + [(b, 1) for b in range(2, 14)]
    t.shot(rails=4, drops=drops, camera="before", first=1, railed=(1,), followed=range(16),
           pocketed=range(1, 14), start=at(EB, 300))
    assert t.state["on_table"] == [14, 15] and t.state["players"][0]["score"] == 13
    t.feed(cmd("call", {"ball": 14, "pocket": "foot-left"}))
    rest = {15: fifteenth + (conf,)}
    if cue is not None:
        rest[0] = cue + (conf,)
    drops = [(14, 2)] + ([(0, 3)] if cue is None else [])
    t.shot(rails=1, drops=drops, camera="before", first=14, railed=(14,), followed=(0, 14, 15),
           pocketed=[d[0] for d in drops], rest=rest, start={0: (1000, 600), 14: (2300, 200), 15: (1500, 900)})
    return t


@pytest.mark.clause("SP.RERACK")
def test_the_15th_and_the_cue_ball_clear_of_the_rack_the_14_are_racked():
    t = straight_pool_at_the_14th((1400, 900), (1000, 600))
    s = t.state
    assert s["rerack"]["balls"] == 14 and s["rerack"]["cue"] == "stays" and s["ball_in_hand"] is None
    assert s["rerack"]["facts"] == {"fifteenth": "clear", "cue": "clear"}
    assert "rack" in s["camera"]["last_shot"]["used"] and "clear of the rack" in camera_said(t)["en"]


@pytest.mark.clause("SP.RACK-CONFLICT")
def test_the_cue_ball_in_the_rack_area_means_play_from_the_kitchen():
    t = straight_pool_at_the_14th((1400, 900), (FOOT + ROW, 635 - 57.15 / 2))
    s = t.state
    assert s["rerack"]["cue"] == "kitchen" and s["ball_in_hand"] == "kitchen" and s["shooter"] == 0
    assert "SP.RACK-CONFLICT" in [c for e in t.events if e["event"] == "rerack" for c in e["clauses"]]


@pytest.mark.clause("SP.RACK-CONFLICT")
def test_the_15th_in_the_rack_area_goes_to_the_head_spot():
    t = straight_pool_at_the_14th((FOOT + 4 * ROW + 3, 637), (1000, 600))   # the back row
    s = t.state
    assert s["rerack"]["facts"]["fifteenth"] == "rack" and s["rerack"]["balls"] == 14
    assert "head spot" in [e for e in t.events if e["event"] == "rerack"][0]["text"]["en"]


@pytest.mark.clause("SP.FULL-RERACK")
def test_the_15th_on_the_apex_spot_means_all_fifteen_are_racked():
    t = straight_pool_at_the_14th((FOOT + 3, 633), (1000, 600))
    assert t.state["rerack"]["balls"] == 15 and t.state["on_table"] == EB


@pytest.mark.clause("SP.RACK-CONFLICT")
def test_the_cue_ball_in_the_rack_and_the_15th_in_the_kitchen_cue_ball_on_the_head_spot():
    t = straight_pool_at_the_14th((300, 900), (FOOT + ROW, 635 + 57.15 / 2))
    assert t.state["rerack"]["cue"] == "head spot" and t.state["ball_in_hand"] is None


def test_near_the_rack_s_edge_or_unsure_the_rack_is_left_to_a_person_as_before():
    edge = FOOT - 57.15                                  # touching the apex ball's place: too close
    for fifteenth, conf in (((edge, 635), 0.95), ((1400, 900), 0.6)):
        t = straight_pool_at_the_14th(fifteenth, (1000, 600), conf)
        s = t.state
        assert s["rerack"]["facts"] == {} and "rack" in unsure_of(t)
        t.feed(cmd("rack", {"fifteenth": "rack"}))                  # a person says, as before
        assert t.state["rerack"]["facts"] == {"fifteenth": "rack", "cue": "clear"}


@pytest.mark.clause("SP.CUE-OUT")
def test_a_scratch_on_the_14th_spots_it_and_asks_nothing_of_the_rack():
    t = straight_pool_at_the_14th((1400, 900), None)
    s = t.state
    assert s["on_table"] == [14, 15] and s["rerack"] is None and s["ball_in_hand"] == "kitchen"
    last = s["camera"]["last_shot"]
    assert "rack" not in last["used"] and "rack" not in last["unsure"]


def test_a_person_s_rack_overrules_the_camera_s_and_a_replay_agrees():
    t = straight_pool_at_the_14th((1400, 900), (1000, 600))
    t.feed(cmd("rack", {"cue": "rack"}))
    assert t.state["rerack"]["cue"] == "kitchen" and t.state["ball_in_hand"] == "kitchen"
    again = replay(t.journal)
    assert again.state() == t.state


def test_the_camera_s_places_replay_the_same():
    t = kitchen_ball_shot(reach=350)
    assert replay(t.journal).state() == t.state



def hostile_places():
    from tests.camera_live.helpers import seen
    out = []
    for key, value in (("start_mm", {"0": {"x": 1e309, "y": 1.0, "confidence": 0.9}}),
                       ("start_mm", dict((str(i), {"x": 1.0, "y": 1.0, "confidence": 1.0}) for i in range(200))),
                       ("start_mm", {"0": [400, 600]}),
                       ("start_mm", {"cue": {"x": 1.0, "y": 1.0, "confidence": 1.0}}),
                       ("start_mm", "kitchen"),
                       ("cue_reach_mm", {"x": "far", "confidence": 0.9}),
                       ("cue_reach_mm", {"x": 400.0, "confidence": 2}),
                       ("cue_reach_mm", [400.0])):
        e = seen(1000, 2000, first=1, railed=(1,))
        e["facts"][key] = value
        out.append(e)
    return out


@pytest.mark.parametrize("entry", hostile_places())
def test_hostile_places_are_refused_and_change_nothing(entry):
    t = Table("nine-ball")
    before = t.ref.snapshot()
    res = t.ref.apply(entry)
    assert res["ok"] is False and res["code"] == "camera_entry"
    assert t.ref.snapshot() == before
