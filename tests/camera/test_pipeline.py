"""The analyser end to end on small synthetic footage (tests/camera/synth.py): frames in,
the shot's facts out, as `billiards camera analyse` would print them."""
import json

import pytest

from host.camera.analyse import analyse_frames
from host.camera.facts import cli_record, live_dict
from host.camera.geometry import Table
from tests.camera.synth import ToyCamera, ToyTable, film

TABLE = Table.named("9ft")


@pytest.fixture(scope="module")
def cut_shot():
    """The cue ball sent at ball 3, which runs to the foot-right cushion; 6 and 10 idle."""
    table = ToyTable(TABLE, {0: (600, 635), 3: (1300, 650), 6: (1800, 300), 10: (900, 1000)})
    cam = ToyCamera(TABLE, size=(640, 360), seed=1)
    frames, truths = film(table, cam, [(0, 1800, 0)], fps=60)
    return cam, frames, truths


def run(cam, frames, **kw):
    out, _ = analyse_frames(((i / 60.0, f) for i, f in enumerate(frames)), fps=60, **kw)
    return [cli_record(f) for f in out], out


def test_one_shot_with_its_first_contact_cushion_and_rest_positions(cut_shot):
    cam, frames, truths = cut_shot
    truth = truths[0]
    assert truth["first_contact"] == 3 and truth["railed_after_contact"] == [3]
    recs, _ = run(cam, frames, corners=cam.corners_px, table="9ft")
    assert len(recs) == 1
    rec = recs[0]
    assert abs(rec["t_start"] - truth["t_start"]) < 0.05
    assert rec["first_contact"] == 3
    assert rec["railed_after_contact"] == [3]
    assert rec["pocketed"] == []
    assert rec["object_balls_railed_on_break"] is None
    assert set(rec["rest_mm"]) == set(truth["rest_mm"])
    for b, (x, y) in truth["rest_mm"].items():
        assert abs(rec["rest_mm"][b][0] - x) < 15 and abs(rec["rest_mm"][b][1] - y) < 15, b
    # Where they lay when the cue ball was struck (the kitchen clauses' positions).
    laid = {"0": (600, 635), "3": (1300, 650), "6": (1800, 300), "10": (900, 1000)}
    assert set(rec["start_mm"]) == set(laid)
    for b, (x, y) in laid.items():
        assert abs(rec["start_mm"][b][0] - x) < 15 and abs(rec["start_mm"][b][1] - y) < 15, b
    json.dumps(recs)                       # plain JSON


def test_the_table_is_found_without_corners(cut_shot):
    cam, frames, truths = cut_shot
    recs, _ = run(cam, frames, table="9ft")    # the corners and the lens from the picture
    assert len(recs) == 1
    assert recs[0]["first_contact"] == 3
    for b, (x, y) in truths[0]["rest_mm"].items():
        assert abs(recs[0]["rest_mm"][b][0] - x) < 40 and abs(recs[0]["rest_mm"][b][1] - y) < 40, b


def test_live_facts_carry_confidences(cut_shot):
    cam, frames, _ = cut_shot
    _, facts = run(cam, frames, corners=cam.corners_px, table="9ft")
    live = live_dict(facts[0])
    assert live["clock"] == "video"
    assert live["first_contact"]["ball"] == 3
    assert 0.5 <= live["first_contact"]["confidence"] <= 1.0
    assert live["railed_after_contact"]["balls"] == [3]
    assert live["start_mm"]["0"]["confidence"] >= 0.85, "a cue ball lying still in plain sight: sure"
    assert 1100 < live["cue_reach_mm"]["x"] < 1300 and live["cue_reach_mm"]["confidence"] >= 0.85


def test_still_footage_has_no_shot():
    table = ToyTable(TABLE, {0: (600, 635), 3: (1300, 650)})
    cam = ToyCamera(TABLE, size=(640, 360), seed=2)
    frames, _ = film(table, cam, [], fps=60, lead_s=1.5)
    recs, _ = run(cam, frames, corners=cam.corners_px, table="9ft")
    assert recs == []


def test_a_frame_of_the_wrong_shape_is_skipped():
    import numpy as np
    from host.camera.analyse import Analyser
    a = Analyser(fps=60)
    assert a.feed(0.0, np.zeros((10, 10), np.uint8)) == []
    assert a.feed(0.0, None) == []


def test_a_cue_ball_hidden_under_the_bridge_until_struck_is_still_the_stroke():
    """The bridge hand and the stick hid the cue ball until the stroke: its track is
    born in the episode already rolling at 2 m/s. That is the stroke, at its birth."""
    from host.camera.analyse import Analyser
    from host.camera.geometry import Table
    from host.camera.tracking import Track, Tracker
    a = Analyser(fps=60)
    a.tracker = Tracker(Table.named("9ft"), 60)
    resting = Track(0, 0.0, 1900.0, 635.0)
    cue = Track(1, 2.5, 520.0, 750.0)
    for i in range(1, 60):
        resting.add(i / 60.0 * 3, 1900.0, 635.0, None, 1.0)
        cue.add(2.5 + i / 60.0, 520.0 + 2000.0 * i / 60.0, 750.0, None, 1.0)
    a.tracker.tracks = [resting, cue]
    found = a._stroked({1: (0, 0.9), 0: (3, 0.9)}, t_open=0.3, t_now=3.5)
    assert found is not None and found[0] is cue
    assert abs(found[2][0] - 2.5) <= 1.0 / 60 + 1e-9
    assert found[1] == (520.0, 750.0)


def _white_track_at_120fps(moving):
    """A cue ball lying at (638, 1129) for 2.5 s at 120 fps, then at the places `moving`."""
    from host.camera.tracking import Track
    tr = Track(0, 0.0, 638.0, 1129.0)
    n = int(2.5 * 120)
    for i in range(1, n):
        tr.add(i / 120.0, 638.0, 1129.0, (1.0, 0.0, 0.0, 0.9, 0.0, 0.0, 0.9), 1.0)
    for i, x in enumerate(moving):
        tr.add(2.5 + (i + 1) / 120.0, x, 1129.0, None, 1.0)
    return tr


def test_a_soft_stroke_whose_smeared_centre_creeps_at_first_is_still_the_stroke():
    # A soft nine-ball shot at 120 fps under a spot lamp: the cue ball leaves at 430 mm/s, but
    # its centre creeps 1-3 mm a frame at first (seen in rendered footage), so its first two
    # moving observations read under 150 mm/s: the stroke, and the whole shot, were not found.
    from host.camera.analyse import Analyser
    from host.camera.geometry import Table
    from host.camera.tracking import Tracker
    a = Analyser(fps=120)
    a.tracker = Tracker(Table.named("9ft"), 120)
    creep = [640, 643, 644, 645, 653, 655, 657, 662, 662, 670, 673, 676, 680, 676, 685, 688]
    cue = _white_track_at_120fps(creep)
    a.tracker.tracks = [cue]
    found = a._stroked({0: (0, 0.9)}, t_open=1.0, t_now=3.0)
    assert found is not None and found[0] is cue and abs(found[2][0] - 2.5) < 0.02
    # A ball a hand rolls into place at 60 mm/s is no stroke.
    a.tracker.tracks = [_white_track_at_120fps([638.0 + 0.5 * (i + 1) for i in range(40)])]
    assert a._stroked({0: (0, 0.9)}, t_open=1.0, t_now=3.0) is None


def test_the_auto_drawing_scale_is_coarser_only_on_a_fine_picture():
    """s_mm="auto": a 1280x720 view of a 9 ft table (about 2.5 mm a pixel) is drawn at
    5 mm a pixel; a 640x360 view (about 4.2 mm a pixel) keeps 4, never much coarser than
    the picture itself."""
    from host.camera.analyse import S_MM_COARSE, S_MM_FINE, drawing_scale
    nine = Table.named("9ft")
    hd = [[140, 100], [140, 610], [1150, 620], [1160, 110]]
    small = [[69, 49], [69, 289], [539, 293], [546, 60]]
    assert drawing_scale(nine, hd) == S_MM_COARSE == 5.0
    assert drawing_scale(Table.named("7ft"), small) == S_MM_FINE == 4.0


def test_the_stroke_is_the_departure_after_the_cue_ball_settled_not_a_jump_with_the_hand():
    # The cue ball's track begins under the bridge hand, jumps off with the hand for a few
    # frames, is unseen, then lies still for 0.18 s and is struck at 2.5 s.
    import numpy as np
    from host.camera import analyse, shots
    fps = 60.0
    pts = [(1.07, 2226, 378), (1.12, 2229, 377), (1.18, 2500, 11), (1.2, 2484, 31), (1.22, 2515, -6)]
    pts += [(2.32 + i / fps, 2227.0, 377.0) for i in range(11)]
    pts += [(2.5 + i / fps, 2227.0 - 50 * i, 377.0 + 60 * i) for i in range(1, 20)]
    t, x, y = zip(*pts)
    p = shots.Path(t, x, y)
    rest = (float(np.median(x[:3])), float(np.median(y[:3])))
    rest, onset = analyse._settled_onset(p, rest, 1.07, 1.07, 4.0)
    assert onset is not None and abs(onset[0] - 2.5) < 2 / fps
    assert abs(rest[0] - 2227.0) < 2 and abs(rest[1] - 377.0) < 2


def test_a_cue_ball_first_seen_rolling_is_not_struck_again_where_it_stopped():
    # Born rolling (out from under the stick), it stops 1 m on and is knocked on later by
    # another ball: that later departure is no stroke of its own.
    import numpy as np
    from host.camera import analyse, shots
    fps = 60.0
    pts = [(2.52 + i / fps, 1591.0 + 40 * i, 479.0) for i in range(25)]
    pts += [(2.95 + i / fps, 2551.0, 479.0) for i in range(300)]
    pts += [(8.0 + i / fps, 2551.0 - 30 * i, 479.0) for i in range(1, 20)]
    t, x, y = zip(*pts)
    p = shots.Path(t, x, y)
    rest = (float(np.median(x[:3])), float(np.median(y[:3])))
    _, onset = analyse._settled_onset(p, rest, 2.52, 2.52, 9.0)
    assert onset is None


def test_a_white_cue_ball_on_a_grey_cloth_is_seen_before_it_is_struck():
    """On a grey cloth the cue ball has the cloth's (lack of) colour: the bare table's
    first estimate must not take it for cloth, or it is unseen until it moves and the
    stroke is no shot at all (a break under a warm lamp was not found)."""
    table = ToyTable(TABLE, {0: (600, 635), 3: (1300, 650), 6: (1800, 300)})
    cam = ToyCamera(TABLE, size=(640, 360), seed=3, cloth=(105, 110, 112))
    frames, truths = film(table, cam, [(0, 1800, 0)], fps=60)
    recs, facts = run(cam, frames, corners=cam.corners_px, table="9ft")
    assert len(recs) == 1
    assert recs[0]["first_contact"] == 3
    assert abs(recs[0]["start_mm"]["0"][0] - 600) < 15 and abs(recs[0]["start_mm"]["0"][1] - 635) < 15


def _looked(key, points, looks, fps=60.0):
    """A Track through `points` ((t, x, y)), each observation with the same looks."""
    from host.camera.tracking import Track
    t0, x0, y0 = points[0]
    tr = Track(key, t0, x0, y0)
    tr.looks.add(looks)
    tr._follow_colour(looks)
    for t, x, y in points[1:]:
        tr.add(t, x, y, looks, 1.0)
    return tr


def test_a_cue_ball_struck_out_of_its_track_is_followed_not_the_stick_s_tip_left_there():
    """Struck at 8 m/s, the cue ball is 100 mm on in the next frame while the stick's tip
    lies where it was: the tracker keeps the ball's track on the tip (dragged off slowly by
    the follow-through) and gives the ball a new one, born rolling. The stroke is the
    ball's leap and its path the new track's: it hits the 1, not nothing."""
    from host.camera import identity
    from host.camera.analyse import Analyser
    from host.camera.tracking import Tracker
    fps = 60.0
    pal = identity.palette()
    white = (1.0, 0.0, 0.0, None, None, None, 4.0)
    yellow = (0.02, 0.0, 0.9, pal[1][0] * 4.0 / 0.85 * 0.85, pal[1][1], pal[1][2], None)
    still = [(i / fps, 557.0, 921.0) for i in range(150)]
    tip = [(2.5, 576.0, 916.0), (2.55, 560.0, 922.0)] + [(2.55 + i / fps, 560.0 + 10 * i, 918.0) for i in range(1, 8)]
    tip += [(2.7 + i / fps, 630.0, 906.0) for i in range(30)]
    ball = [(2.5 + i / fps, 654.0 + 8000.0 / fps * i, 901.0 - 1500.0 / fps * i) for i in range(9)]
    x9, y9 = ball[-1][1:]
    ball += [(2.5 + (9 + i) / fps, x9 + 30.0 * i, y9) for i in range(1, 60)]
    one = [(i / fps, 1900.0, 640.0) for i in range(165)]
    one += [(2.75 + i / fps, 1900.0 + 60.0 * i, 640.0 - 20 * i) for i in range(1, 8)]
    one += [(2.9 + i / fps, 2320.0, 500.0) for i in range(60)]
    a = Analyser(fps=fps)
    a.table = TABLE
    a.tracker = Tracker(TABLE, fps)
    a.tracker.tracks = [_looked(0, still + tip, white), _looked(5, ball, white), _looked(1, one, yellow)]
    facts = a._judge(2.4, 3.9, 4.0)
    assert facts is not None
    assert abs(facts.t_start - 2.49) < 0.02
    assert facts.first_contact == 1
    assert abs(facts.start[0][0] - 557.0) < 5


WHITE = (1.0, 0.0, 0.0, None, None, None, 4.0)
SKIN = (0.0, 0.0, 0.9, 1.0, -0.4, 0.35, None)


def _solid(n):
    """The looks of solid `n` as the appearance model's palette has it."""
    from host.camera import identity
    pal = identity.palette()
    return (0.02, 0.0, 0.9, pal[n][0] * 4.0, pal[n][1], pal[n][2], None)


def _judged(fps, tracks, t_open, t_last, t_now):
    """The facts the analyser judges from `tracks` ((key, points, looks) each) alone."""
    from host.camera.analyse import Analyser
    from host.camera.tracking import Tracker
    a = Analyser(fps=fps)
    a.table = TABLE
    a.tracker = Tracker(TABLE, fps)
    a.tracker.tracks = [_looked(key, points, looks) for key, points, looks in tracks]
    return a._judge(t_open, t_last, t_now)


def _soft_stroke(hand):
    """A cue ball struck softly at 2.5 s (0.45 m/s) from (946, 529) into the 3 at (700, 720),
    with `hand`'s track beside it: the facts of that shot."""
    fps = 60.0
    cue = [(i / fps, 946.0, 529.0) for i in range(150)]
    cue += [(2.5 + i / fps, 946.0 - 6.0 * i, 529.0 + 4.7 * i) for i in range(1, 34)]
    x, y = cue[-1][1:]
    cue += [(cue[-1][0] + i / fps, x, y) for i in range(1, 60)]       # stopped by the 3
    three = [(i / fps, 700.0, 720.0) for i in range(184)]
    three += [(184 / fps + i / fps, 700.0 - 6.0 * i, 720.0 + 4.7 * i) for i in range(1, 20)]
    three += [(three[-1][0] + i / fps, three[-1][1], three[-1][2]) for i in range(1, 60)]
    return _judged(fps, [(0, cue, WHITE), (3, three, _solid(3)), (7, hand, SKIN)], 2.4, 4.9, 5.0)


def test_a_soft_stroke_rolling_on_is_not_given_away_to_a_hand_leaping_off_beside_it():
    """The bridge hand's track, astir while the player lines up, leaps away from the cue ball
    at 5 m/s as it is struck (the hand lifted): a ball struck out of the cue ball's track would
    leave so, but the cue ball's own track rolls on, straight, for longer than any stick
    follows through: it is the ball, and it met the 3 (not "no contact" at the hand's end)."""
    hand = [(1.5 + i / 60.0, 1010.0 + 30.0 * (i % 3), 475.0) for i in range(48)]
    hand += [(2.3 + i / 60.0, 1010.0, 475.0) for i in range(13)]
    hand += [(2.5 + i / 60.0, 1010.0 + 90.0 * i, 475.0 - 75.0 * i) for i in range(1, 6)]
    hand += [(hand[-1][0] + i / 60.0, 1413.0, 150.0) for i in range(1, 40)]
    facts = _soft_stroke(hand)
    assert facts is not None
    assert abs(facts.t_start - 2.5) < 0.03
    assert facts.first_contact == 3
    assert abs(facts.start[0][0] - 946.0) < 5


def test_a_track_drawn_back_slower_than_the_ball_struck_is_not_taken_for_it():
    """Struck hard (7 m/s), the cue ball's own track goes with it; the stick's butt or the hand,
    astir before, is drawn back away from it at 1 m/s as it is struck (seen a little before the
    ball leaves: a smeared ball's onset is found late). A ball leaves faster
    than the stick that struck it: the slow track is not the cue ball, the fast one is."""
    fps = 120.0
    cue = [(i / fps, 311.0, 736.0) for i in range(300)]
    cue += [(2.5 + i / fps, 311.0 + 58.3 * i, 736.0 - 2.0 * i) for i in range(1, 20)]
    cue += [(cue[-1][0] + i / fps, cue[-1][1] - 3.0 * i, cue[-1][2]) for i in range(1, 30)]
    one = [(i / fps, 1478.0, 696.0) for i in range(320)]
    one += [(320 / fps + i / fps, 1478.0 + 40.0 * i, 696.0 - 5.0 * i) for i in range(1, 20)]
    one += [(one[-1][0] + i / fps, one[-1][1], one[-1][2]) for i in range(1, 40)]
    butt = [(1.5 + i / fps, 250.0 + 15.0 * (i % 4), 745.0) for i in range(96)]
    butt += [(2.3 + i / fps, 250.0, 745.0) for i in range(15)]
    butt += [(2.425 + i / fps, 250.0 - 8.5 * i, 745.0 + 1.0 * i) for i in range(1, 50)]
    facts = _judged(fps, [(0, cue, WHITE), (1, one, _solid(1)), (7, butt, SKIN)], 2.4, 3.4, 3.5)
    assert facts is not None
    assert abs(facts.t_start - 2.5) < 0.02
    assert facts.first_contact == 1
    assert abs(facts.start[0][0] - 311.0) < 5


def test_a_cue_ball_first_seen_rolling_and_soon_pocketed_is_the_stroke_from_where_it_lay():
    """Its old track followed the stick's tip after the stroke and took the tip's looks
    (no longer white, not named); its new track, born rolling a frame's roll from where it
    lay, is seen 0.3 s before it drops. It is still the stroke: from where it lay, and it
    hit the 1."""
    from host.camera import identity
    from host.camera.analyse import Analyser
    from host.camera.tracking import Tracker
    fps = 60.0
    pal = identity.palette()
    white = (1.0, 0.0, 0.0, None, None, None, 4.0)
    sleeve = (0.0, 0.0, 0.9, 1.0, -0.4, 0.35, None)
    yellow = (0.02, 0.0, 0.9, pal[1][0] * 4.0, pal[1][1], pal[1][2], None)
    old = _looked(0, [(i / fps, 1366.0, 1214.0) for i in range(150)], white)
    for i in range(60):                          # the tip, followed after the stroke
        old.add(2.5 + i / fps, 1390.0 + i, 1258.0 + i, sleeve, 1.0)
    ball = _looked(5, [(2.5 + i / fps, 1316.0 - 3000.0 / fps * i * 0.3, 1112.0 - 3000.0 / fps * i) for i in range(20)],
                   white)
    ball.lost_since = ball.t[-1]
    one = [(i / fps, 1230.0, 640.0) for i in range(160)]
    one += [(2.667 + i / fps, 1230.0 - 10.0 * i, 640.0 - 40.0 * i) for i in range(1, 40)]
    a = Analyser(fps=fps)
    a.table = TABLE
    a.tracker = Tracker(TABLE, fps)
    a.tracker.tracks = [old, ball, _looked(1, one, yellow)]
    facts = a._judge(2.45, 3.4, 3.9)
    assert facts is not None
    assert abs(facts.t_start - 2.49) < 0.02
    assert facts.first_contact == 1
    assert abs(facts.start[0][0] - 1366.0) < 5 and abs(facts.start[0][1] - 1214.0) < 5
