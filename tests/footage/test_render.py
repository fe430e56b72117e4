"""The renderer: a short kinematic clip whose video and truth agree with each other
(docs/camera-footage.md). Checked from the pixels, with OpenCV's own camera model."""
import json
import math

import cv2
import numpy as np
import pytest

from tools.footage import kinematic
from tools.footage.render import Renderer, render_clip, truth_path
from tools.footage.scene import scene_for
from tools.footage.table import NOSE_H

R = 28.575
SIZE = (640, 360)


@pytest.fixture(scope="module")
def traj():
    balls = {0: (450, 520), 1: (1300, 470), 9: (1500, 650), 5: (1100, 250), 8: (1650, 300)}
    return kinematic.simulate(balls, strokes=[(0.3, 3000.0, -2.5)], decel=900.0, max_duration=2.0)


@pytest.fixture(scope="module")
def clip(traj, tmp_path_factory):
    out = tmp_path_factory.mktemp("clip") / "k.mp4"
    truth, _ = render_clip(traj, str(out), seed=4, fps=60, light="even", cloth="blue", size=SIZE)
    return out, truth


def test_video_and_truth_file(clip, traj):
    out, truth = clip
    with open(truth_path(str(out))) as f:
        on_disk = json.load(f)
    assert on_disk["video"] == "k.mp4" and on_disk["fps"] == 60 and on_disk["size"] == list(SIZE)
    cap = cv2.VideoCapture(str(out))
    n = 0
    while True:
        ok, frame = cap.read()
        if not ok:
            break
        assert frame.shape == (SIZE[1], SIZE[0], 3)
        n += 1
    assert n == on_disk["n_frames"] == len(on_disk["frames"])
    assert on_disk["shots"] == json.loads(json.dumps(traj.shots()))
    assert on_disk["bands"]["light"] == "even" and on_disk["bands"]["cloth"] == "blue"
    assert len(on_disk["corners_px"]) == 4


def _renderer(traj, seed=4, players=False, **kw):
    scene = scene_for(seed, traj.table_mm, fps=60, light=kw.pop("light", "even"), cloth=kw.pop("cloth", "blue"), size=SIZE)
    for k, v in kw.items():
        setattr(scene, k, v)
    return Renderer(traj, scene, seed, players=players)


def _blobs(img, bg, thresh=40):
    """Pixels that differ from the empty table by more than thresh, as components."""
    diff = np.abs(img.astype(np.float32) - bg).max(axis=2)
    mask = (diff > thresh).astype(np.uint8)
    n, lab, stats, cent = cv2.connectedComponentsWithStats(mask)
    return [(stats[i], cent[i], lab == i) for i in range(1, n) if stats[i, cv2.CC_STAT_AREA] > 20]


def test_ball_pixels_project_back_to_the_truth_mm(traj):
    """Balls found in a frame (before the stroke), undistorted with OpenCV and the truth's K and
    dist, and cast onto the plane of ball centres, land on the truth's mm."""
    r = _renderer(traj, noise_read=0.0, noise_shot=0.0, jpeg_quality=100)
    img, tf = r.render_frame(3)
    cam = r.truth("x.mp4")["camera"]
    K, dist = np.array(cam["K"]), np.array(cam["dist"])
    Rwc, C = np.array(cam["R_world_to_camera"]), np.array(cam["center_mm"])
    found = 0
    for stats, cent, mask in _blobs(img, r.bg.image):
        ys, xs = np.nonzero(mask)
        # the ball's disc, not its shadow: the circle through the blob's far edges
        (cu, cv), rad = cv2.minEnclosingCircle(np.stack([xs, ys], 1).astype(np.float32))
        best = min(tf["balls"].values(), key=lambda b: math.hypot(b["px"][0] - cent[0], b["px"][1] - cent[1]))
        assert math.hypot(best["px"][0] - cent[0], best["px"][1] - cent[1]) < 3.0
        und = cv2.undistortPoints(np.array([[[cent[0], cent[1]]]], dtype=np.float64), K, dist)[0, 0]
        d = Rwc.T @ np.array([und[0], und[1], 1.0])
        P = C + d * ((-cam["ball_center_height_mm"] - C[2]) / d[2])
        assert math.hypot(P[0] - best["mm"][0], P[1] - best["mm"][1]) < 6.0
        found += 1
    assert found == len(traj.balls)


def test_corners_are_where_the_cushion_noses_meet(traj):
    """The nose is the sharpest edge across each cushion; lines fitted through the edges found
    (undistorted with the truth's numbers) meet at corners_px."""
    r = _renderer(traj)
    bg = cv2.cvtColor(np.clip(r.bg.image, 0, 255).astype(np.uint8), cv2.COLOR_BGR2GRAY).astype(np.float32)
    cam = r.truth("x.mp4")["camera"]
    K, dist = np.array(cam["K"]), np.array(cam["dist"])
    L, W = traj.table_mm
    along = np.r_[np.linspace(0.1, 0.4, 6), np.linspace(0.6, 0.9, 6)] * L  # not at the side pockets
    sides = {"head": [(0, y) for y in np.linspace(0.2, 0.8, 7) * W], "right": [(x, W) for x in along],
             "foot": [(L, y) for y in np.linspace(0.2, 0.8, 7) * W], "left": [(x, 0) for x in along]}
    inward = {"head": (1, 0), "right": (0, -1), "foot": (-1, 0), "left": (0, 1)}
    lines = {}
    for side, pts in sides.items():
        found = []
        for x, y in pts:
            a = r.cam.project(np.array([x - 40 * inward[side][0], y - 40 * inward[side][1], -NOSE_H]))
            b = r.cam.project(np.array([x + 40 * inward[side][0], y + 40 * inward[side][1], -NOSE_H]))
            s = np.linspace(0, 1, 200)
            prof = cv2.remap(bg, (a[0] + s * (b[0] - a[0])).astype(np.float32)[None, :],
                             (a[1] + s * (b[1] - a[1])).astype(np.float32)[None, :], cv2.INTER_LINEAR)[0]
            g = np.abs(np.diff(prof))
            k = int(np.clip(np.argmax(g), 1, len(g) - 2))
            den = g[k - 1] - 2 * g[k] + g[k + 1]
            k = k + (0.5 * (g[k - 1] - g[k + 1]) / den if den < 0 else 0.0)  # the peak, sub-sample
            found.append(a + (k + 0.5) / (len(s) - 1) * (b - a))
        und = cv2.undistortPoints(np.array(found, dtype=np.float64)[:, None, :], K, dist)[:, 0, :]
        vx, vy, x0, y0 = cv2.fitLine(und.astype(np.float32), cv2.DIST_L2, 0, 0.01, 0.01).ravel()
        lines[side] = (np.array([x0, y0]), np.array([vx, vy]))

    def meet(a, b):
        (p, u), (q, v) = lines[a], lines[b]
        s = np.linalg.solve(np.array([u, -v]).T, q - p)[0]
        return p + s * u

    truth = r.truth("x.mp4")["corners_px"]
    und_truth = cv2.undistortPoints(np.array(truth, dtype=np.float64)[:, None, :], K, dist)[:, 0, :]
    for (a, b), c in zip((("head", "left"), ("head", "right"), ("foot", "right"), ("foot", "left")), und_truth):
        assert np.linalg.norm(meet(a, b) - c) * K[0, 0] < 2.0  # pixels


def _elongation(mask):
    ys, xs = np.nonzero(mask)
    ev = np.linalg.eigvalsh(np.cov(np.stack([xs, ys]).astype(float)))
    return math.sqrt(ev[1] / ev[0])


def test_motion_blur_streaks_a_fast_ball_only(traj):
    r = _renderer(traj, noise_read=0.0, noise_shot=0.0, jpeg_quality=100, exposure=1 / 60)
    i = int(0.34 * 60)  # just after the stroke: the cue ball at ~3 m/s
    img, tf = r.render_frame(i)
    sharp = _renderer(traj, noise_read=0.0, noise_shot=0.0, jpeg_quality=100, exposure=1e-5)
    img_sharp, _ = sharp.render_frame(i)
    cue = tf["balls"]["0"]["px"]

    def blob_at(im, rr, px):
        # only the ball's own colour change (the cue ball is brighter than the cloth)
        diff = im.astype(np.float32).sum(axis=2) - rr.bg.image.sum(axis=2)
        mask = (diff > 30).astype(np.uint8)
        n, lab = cv2.connectedComponents(mask)
        k = lab[int(round(px[1])), int(round(px[0]))]
        assert k > 0
        return lab == k

    assert _elongation(blob_at(img, r, cue)) > 1.35  # ~10 px of travel on a 12 px ball
    assert _elongation(blob_at(img_sharp, sharp, cue)) < 1.1
    still = tf["balls"]["9"]["px"]  # a ball at rest looks the same however long the exposure
    assert abs(_elongation(blob_at(img, r, still)) - _elongation(blob_at(img_sharp, sharp, still))) < 0.02


def test_the_player_occludes_and_the_truth_says_so(traj):
    """At the stroke the stick and bridge hand cover the table behind the cue ball; a ball under
    them is marked occluded in the per-frame truth, the others visible."""
    balls = {0: (900, 495), 1: (1500, 495), 2: (640, 495)}  # 2 lies where the bridge hand goes
    t2 = kinematic.simulate(balls, strokes=[(2.3, 1500.0, 0.0)], decel=900.0, max_duration=3.0)
    r = _renderer(t2, players=True)
    i = int(2.25 * 60)
    img, tf = r.render_frame(i)
    assert tf["balls"]["2"]["state"] == "occluded"
    assert tf["balls"]["1"]["state"] == "visible"
    # and the image shows it: the 2's colour is not where the truth puts it
    empty = _renderer(t2, players=False).render_frame(i)[0]
    u, v = (int(round(c)) for c in tf["balls"]["2"]["px"])
    assert np.abs(img[v - 2:v + 3, u - 2:u + 3].astype(float) - empty[v - 2:v + 3, u - 2:u + 3]).mean() > 30


def test_a_seed_gives_the_same_frames_and_another_seed_other_ones(traj):
    def frames(seed):
        r = Renderer(traj, scene_for(seed, traj.table_mm, size=(320, 180)), seed)
        return [r.render_frame(i)[0] for i in (0, 21)]

    a, b, c = frames(5), frames(5), frames(6)
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert not np.array_equal(a[0], c[0])


def test_rolling_shutter_sees_lower_rows_later_and_flicker_changes_the_brightness(traj):
    r = _renderer(traj, readout=0.015, flicker=0.0)
    _, tf = r.render_frame(int(0.5 * 60))
    seen = sorted((b["px"][1], b["t"]) for b in tf["balls"].values() if "t" in b)
    assert len(seen) >= 3 and all(t1 >= t0 for (_, t0), (_, t1) in zip(seen, seen[1:]))
    assert seen[-1][1] - seen[0][1] > 0.002
    assert abs((seen[-1][1] - seen[0][1]) - 0.015 * (seen[-1][0] - seen[0][0]) / SIZE[1]) < 1e-4

    def mean_levels(**kw):
        rr = _renderer(traj, noise_read=0.0, noise_shot=0.0, jpeg_quality=100, readout=0.0, **kw)
        return [float(rr.render_frame(i)[0].mean()) for i in range(0, 8)]

    steady = mean_levels(flicker=0.0)
    lit = mean_levels(flicker=0.08, flicker_hz=100.0, exposure=0.002)
    assert max(steady) - min(steady) < 0.05
    assert max(lit) - min(lit) > 1.0


def test_forcing_a_band_leaves_the_rest_of_the_scene(traj):
    free = scene_for(9, traj.table_mm)
    forced = scene_for(9, traj.table_mm, light="dim" if free.light_name != "dim" else "even", fps=120)
    assert np.allclose(free.camera.R, forced.camera.R) and free.camera.dist == forced.camera.dist
    assert free.cloth_name == forced.cloth_name and free.head_right == forced.head_right
