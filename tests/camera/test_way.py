"""Was the cue ball's way clear (host/camera/way.py)? A ball of the cloth's own colour that the
detector never found still changes the picture when it is met and leaves its place."""
import numpy as np
import pytest

from host.camera import detect, way
from host.camera.facts import CameraFacts, live_dict
from host.camera.geometry import BALL_R_MM as R, Table

cv2 = pytest.importorskip("cv2")
GEO = detect.Rectified(Table.named("9ft"), 4.0, 90.0)
CLOTH = (40, 120, 30)                  # BGR: green cloth
PATH = [(500.0 + 20 * k, 635.0) for k in range(60)]      # the cue ball rolled along y = 635


def table(seed, gain=1.0, balls=(), occluder=None):
    """A top-down YCrCb picture: the cloth lit unevenly, sensor noise, `balls` (x, y) of the
    cloth's own colour shaded as a lamp lights them (the far side dark, a highlight, a contact
    shadow), every value times `gain` (a lamp's flicker), `occluder` a box of sleeve."""
    rng = np.random.default_rng(seed)
    h, w = GEO.shape
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    light = 0.8 + 0.2 * np.cos((xx - w / 2) / w * 2.0)
    img = np.empty((h, w, 3), np.float32)
    for ch in range(3):
        img[..., ch] = CLOTH[ch] * light
    for x, y in balls:
        c, r = GEO.to_px(x, y)
        d = np.hypot(xx - c, yy - r)
        shadow = (d > GEO.r_px) & (d < GEO.r_px * 1.3)
        img[shadow] *= 0.55
        inside = d <= GEO.r_px
        shade = np.clip(1.05 - 0.7 * ((xx - c) / GEO.r_px + 0.4) ** 2, 0.3, 1.1)
        for ch in range(3):
            img[..., ch][inside] = CLOTH[ch] * shade[inside]
        glint = np.hypot(xx - c + 0.35 * GEO.r_px, yy - r + 0.35 * GEO.r_px) < 1.2
        img[glint] = 235
    if occluder is not None:
        x0, x1, y0, y1 = occluder
        c0, r0 = GEO.to_px(x0, y0)
        c1, r1 = GEO.to_px(x1, y1)
        img[int(r0):int(r1), int(c0):int(c1)] = (120, 150, 200)
    img = img * gain + rng.normal(0, 3.0, img.shape)
    return detect.to_ycc(np.clip(img, 0, 255).astype(np.uint8))


def mask_of(box):
    m = np.zeros(GEO.shape, np.uint8)
    c0, r0 = GEO.to_px(box[0], box[2])
    c1, r1 = GEO.to_px(box[1], box[3])
    m[int(r0):int(r1), int(c0):int(c1)] = 255
    return m


def change(before_balls, after_balls, places=(), gain=1.0, occluders=None, occluder=None):
    befores = [table(k, balls=before_balls, occluder=occluder) for k in range(4)]
    afters = [table(10 + k, gain=gain, balls=after_balls) for k in range(4)]
    return way.way_change(befores, afters, GEO, PATH, list(places), occluded=occluders or ())


def test_a_ball_of_the_cloth_s_colour_that_left_the_way_is_seen_to_have_gone():
    """The detector may never find a green ball on green cloth; when it is met it leaves, and
    its place changes: the way was not clear."""
    gone = change([(1200.0, 635.0 + R)], [])
    assert gone > way.CHANGED
    assert way.clear_confidence(gone) == 0.0


def test_a_still_ball_and_the_lamps_flicker_leave_the_way_clear():
    """A ball of the cloth's colour lying still near the way (a near miss), and the whole
    picture 6 % brighter after the shot (a lamp's flicker): nothing left the way."""
    still = change([(1200.0, 635.0 + 2 * R + 6)], [(1200.0, 635.0 + 2 * R + 6)], gain=1.06)
    assert still < way.CHANGED
    assert way.clear_confidence(still) >= 0.85


def test_the_balls_the_camera_follows_and_what_lies_behind_the_cue_ball_are_left_out():
    """The first ball, which moved as its track says, is no stranger in the way; a ball that
    lay behind the cue ball where it was struck was never in its way."""
    first = (1600.0, 635.0)
    behind = (500.0 - 2 * R - 1, 635.0)
    ch = change([first, behind], [], places=[first])
    assert ch < way.CHANGED
    assert change([first, behind], []) > way.CHANGED         # the first ball not followed: a change


def test_an_arm_over_the_way_in_every_picture_before_leaves_it_unknown():
    box = (1000.0, 1300.0, 500.0, 800.0)
    occ = [mask_of(box)] * 4 + [None] * 4
    assert change([], [], occluders=occ, occluder=box) is None
    # Seen clear in one picture before: that one is used, and it was clear.
    occ = [mask_of(box)] * 3 + [None] * 5
    befores = [table(k, occluder=box if k < 3 else None) for k in range(4)]
    afters = [table(10 + k) for k in range(4)]
    assert way.way_change(befores, afters, GEO, PATH, [], occluded=occ) < way.CHANGED


def test_the_live_facts_say_how_sure_the_way_was_clear():
    f = CameraFacts(1.0, 3.0)
    assert live_dict(f)["way_clear"] == {"confidence": 0.0}        # not looked at: not known
    f.way_change = way.CHANGED / 4
    assert live_dict(f)["way_clear"]["confidence"] >= 0.85
    f.way_change = way.CHANGED * 2
    assert live_dict(f)["way_clear"]["confidence"] == 0.0


def test_a_ball_frozen_to_one_the_line_passed_counts_as_in_the_way():
    """The cue ball's line passed ball B within a few mm and B never moved (shots.first_contact
    names the next ball first); a ball of the cloth's colour frozen to B's far side, unseen, that
    left took a touch on through B: the way was not clear."""
    b = (1200.0, 635.0 + 2 * R + 2)
    hidden = (1200.0, 635.0 + 4 * R + 2)
    befores = [table(k, balls=[b, hidden]) for k in range(4)]
    afters = [table(10 + k, balls=[b]) for k in range(4)]
    assert way.way_change(befores, afters, GEO, PATH, [b]) < way.CHANGED      # not beside: not looked at
    assert way.way_change(befores, afters, GEO, PATH, [b], beside=[b]) > way.CHANGED


def test_a_ball_whose_track_stayed_put_is_looked_at_and_a_change_in_the_way_unsettles_the_contact():
    """Only the balls whose tracks moved are left out of the check: a red 3 on burgundy grazed
    8 mm away in dim light looked still to its track (its centre a few mm astray), so its
    pictures are looked at, and a change in the way makes "no contact" (or the ball named first)
    a person's call."""
    from host.camera import shots
    fps = 60.0
    t = np.arange(0, 4, 1 / fps)
    still = shots.Path(t, np.full(len(t), 1200.0), np.full(len(t), 700.0))
    moved = shots.Path(t, np.where(t < 1.5, 1600.0, 1700.0), np.full(len(t), 635.0))
    places = way.movers_places([still, moved], 1.0, 3.0, [0.9, 3.2], 3 / fps)
    assert places and all(abs(x - 1200.0) > 100 for x, _ in places)
    assert any(abs(x - 1600.0) < 1 for x, _ in places) and any(abs(x - 1700.0) < 1 for x, _ in places)
    for first, conf in ((None, 0.95), (3, 0.97)):
        f = CameraFacts(1.0, 3.0)
        f.first_contact, f.first_contact_conf = first, conf
        way.doubt_first(f, way.CHANGED * 0.5)
        assert f.first_contact_conf == conf and not f.notes
        way.doubt_first(f, way.CHANGED * 1.5)
        assert f.first_contact_conf < 0.85 and f.notes == [way.WAY_CHANGED]


def test_a_ball_never_followed_that_moved_anywhere_shows_and_a_table_left_alone_does_not():
    """`elsewhere_change`: a ball of the cloth's colour far from the cue ball's way that another
    ball sent to a cushion left its place: the table was not still; nothing moved: it was, with
    the lamp's flicker; a player leaning over the bed in every picture after: not known."""
    far = (2200.0, 300.0)
    befores = [table(k, balls=[far]) for k in range(4)]
    moved = way.elsewhere_change(befores, [table(10 + k) for k in range(4)], GEO, [])
    assert moved > way.CHANGED
    still = way.elsewhere_change(befores, [table(10 + k, gain=1.05, balls=[far]) for k in range(4)], GEO, [])
    assert still < way.CHANGED
    box = (1000.0, 1300.0, 500.0, 800.0)
    afters = [table(10 + k, balls=[far], occluder=box) for k in range(4)]
    assert way.elsewhere_change(befores, afters, GEO, [], [mask_of(box)] * 4) is None
    # Hidden in some pictures only: each pixel from those that showed it.
    afters[0] = table(10, balls=[far])
    assert way.elsewhere_change(befores, afters, GEO, [], [None] + [mask_of(box)] * 3) < way.CHANGED
