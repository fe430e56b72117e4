"""Which end is the head: a camera hung the other way round still gives places from the head
cushion (host/camera/ends.py), `--head` says it outright, and a picture that shows neither a
rack nor the foot spot keeps the usual hanging (head at the image's left) and says so."""
import json
import math

import pytest

from host.cli import main
from host.camera import ends

SIZE = (640, 360)
FPS = 30
SEED = 14                  # a scene the analyser finds the table in (tests/camera_live/footage.py)
LIGHT = "even"
SHOT = {0: (400, 700), 3: (1200, 250), 5: (700, 300)}      # away from both spots' places
FOOT_SPOT = (0.75 * 1981.2, 990.6 / 2)                     # the kinematic generator's 7 ft table


def render(path, balls, head_right):
    """A short clip (no player) of the cue ball rolled up the table, the camera turned or not;
    -> the truth's rest places {ball: (x, y)}, its table (L, W) and its corners (--corners)."""
    from tools.footage import kinematic
    from tools.footage.render import render_clip
    traj = kinematic.simulate(balls, strokes=[(1.0, 900.0, 0.0)], post_roll=1.0,
                              meta={"kind": "shot", "game": "eightball"})
    truth, _ = render_clip(traj, str(path), SEED, fps=FPS, size=SIZE, light=LIGHT, players=False,
                           frames_truth=False, head_right=head_right)
    assert truth["scene"]["head_end"] == ("right" if head_right else "left")
    rest = {int(b): tuple(p) for b, p in truth["shots"][0]["rest_mm"].items()}
    return rest, tuple(truth["table_mm"]), " ".join("%.1f,%.1f" % tuple(p) for p in truth["corners_px"])


@pytest.fixture(scope="module")
def turned(tmp_path_factory):
    path = tmp_path_factory.mktemp("ends") / "turned.mp4"
    return (str(path),) + render(path, SHOT, head_right=True)


@pytest.fixture(scope="module")
def turned_spot_covered(tmp_path_factory):
    path = tmp_path_factory.mktemp("ends") / "covered.mp4"
    return (str(path),) + render(path, {**SHOT, 8: FOOT_SPOT}, head_right=True)


def analyse(capsys, path, *extra):
    assert main(["camera", "analyse", path, "--table", "7ft", "--json", *extra]) == 0
    out = capsys.readouterr()
    shots = json.loads(out.out)
    assert len(shots) == 1
    return shots[0], out.err


def worst_miss(shot, truth, mirrored=False, table=None):
    """The largest distance (mm) from a truth rest place to the analyser's, over the truth's balls."""
    worst = 0.0
    for b, (x, y) in truth.items():
        if mirrored:
            x, y = table[0] - x, table[1] - y
        p = shot["rest_mm"].get(str(b))
        worst = max(worst, math.inf if p is None else math.hypot(p[0] - x, p[1] - y))
    return worst


def test_a_camera_turned_round_gives_places_from_the_head_cushion(turned, capsys):
    path, rest, _, _ = turned
    shot, err = analyse(capsys, path)
    assert shot["head_end"]["image_side"] == "right"
    assert "foot spot" in shot["head_end"]["found_by"]
    assert shot["head_end"]["confidence"] >= 0.95
    assert worst_miss(shot, rest) < 30.0          # was ~L away (every ball mirrored)
    assert "head end is at the image's right" in err


def test_head_option_overrides_the_picture(turned, capsys):
    path, rest, table, _ = turned
    shot, _ = analyse(capsys, path, "--head", "left")     # wrong on purpose: it is obeyed
    assert shot["head_end"] == {"image_side": "left", "found_by": "--head", "confidence": 1.0}
    assert worst_miss(shot, rest, mirrored=True, table=table) < 30.0
    shot, _ = analyse(capsys, path, "--head", "right")
    assert shot["head_end"]["found_by"] == "--head"
    assert worst_miss(shot, rest) < 30.0


def test_head_across_the_table_is_refused(turned, capsys):
    path, _, _, _ = turned
    assert main(["camera", "analyse", path, "--head", "top", "--json"]) == 2
    assert "--head top" in capsys.readouterr().err


def test_no_rack_and_the_foot_spot_covered_keeps_the_usual_hanging_and_says_so(turned_spot_covered, capsys):
    path, rest, table, _ = turned_spot_covered
    shot, err = analyse(capsys, path)
    assert shot["head_end"]["image_side"] == "left"
    assert shot["head_end"]["found_by"].startswith("assumed")
    assert worst_miss(shot, rest, mirrored=True, table=table) < 30.0   # as before this change
    assert "give --head" in err


def test_corners_say_the_head_themselves(turned, capsys):
    path, rest, _, corners = turned
    shot, _ = analyse(capsys, path, "--corners", corners)
    assert worst_miss(shot, rest) < 30.0
    assert shot["head_end"]["found_by"] == "--corners"
    assert shot["head_end"]["image_side"] == "right"


# ------------------------------------------------------------ the decision (pure)

def test_weak_or_contradicting_evidence_keeps_the_default():
    assert ends.decide([])["turn"] is False
    assert ends.decide([(0.0, None)])["found_by"].startswith("assumed")
    faint = ends.decide([ends.spot_evidence(far=3.0, near=7.0)])
    assert faint["turn"] is False and faint["found_by"].startswith("assumed")
    both = ends.decide([ends.rack_evidence(0.3, 0.0, [(1700, 495)] * 5 + [(300, 500)], 1981.2, 990.6),
                        ends.spot_evidence(far=2.0, near=40.0)])    # a rack one way, a spot the other
    assert both["turn"] is False


def test_a_rack_at_the_near_end_turns_the_table_round():
    L, W = 1981.2, 990.6
    rack = [(L - 1600 + dx, W / 2 + dy) for dx, dy in ((0, 0), (-50, 30), (-50, -30), (-100, 0), (-100, 60))]
    d = ends.decide([ends.rack_evidence(0.0, 0.35, rack + [(1700, 480)], L, W)])
    assert d["turn"] is True and d["confidence"] >= 0.95


def test_a_head_spot_as_well_as_the_foot_spot_says_nothing():
    assert ends.spot_evidence(far=40.0, near=35.0) == (0.0, None)


def test_with_head_at_names_the_head_where_asked():
    c = [(100, 50), (100, 300), (600, 300), (600, 50)]          # head at the image's left
    assert ends.head_side(c) == "left"
    assert ends.head_side(ends.with_head_at(c, "right")) == "right"
    assert ends.with_head_at(c, "left") == c
    with pytest.raises(ValueError):
        ends.with_head_at(c, "bottom")


def test_a_table_upright_in_the_picture_is_named_from_its_head_too(turned):
    """A camera turned a quarter round (the table's length down the picture): the same table
    places at the same spots of the table, the head end at the bottom."""
    import cv2
    import numpy as np
    from host.camera.analyse import Analyser
    path = turned[0]
    cap = cv2.VideoCapture(path)
    ok, frame = cap.read()
    cap.release()
    assert ok
    flat, upright = Analyser(table="7ft"), Analyser(table="7ft")
    flat.feed(0.0, frame)
    upright.feed(0.0, cv2.rotate(frame, cv2.ROTATE_90_CLOCKWISE))
    assert upright.head_end["image_side"] == "bottom"
    h = frame.shape[0]
    for x, y in SHOT.values():
        u, v = flat.view.mm_to_px([(x, y)])[0]
        expect = np.array([h - 1 - v, u])          # where the quarter turn takes that pixel
        assert np.hypot(*(upright.view.mm_to_px([(x, y)])[0] - expect)) < 4.0
