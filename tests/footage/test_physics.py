"""Footage from pooltool (only where pooltool is installed: the calibrate extra; CI skips it)."""
import math

import numpy as np
import pytest

pytest.importorskip("pooltool")

from tools.footage import physics  # noqa: E402

R = 28.575


def _min_gap(traj, a, b, t0, t1):
    ts = np.linspace(t0, t1, 4000)
    xa, ya, _, _ = traj.balls[a].at(ts)
    xb, yb, _, _ = traj.balls[b].at(ts)
    return float(np.min(np.hypot(xa - xb, ya - yb))) - 2 * R


def test_near_miss_passes_within_a_few_mm_without_contact():
    for seed in range(20):
        traj = physics.simulate_clip("nineball", "shot", "normal", seed, shot_type="near_miss")
        shot, = traj.shots()
        target = traj.meta["target"]
        first_ball = next((e for e in traj.events if e["kind"] == "ball"), None)
        t1 = first_ball["t"] if first_ball else shot["t_end"]
        gap = _min_gap(traj, 0, target, shot["t_start"], t1)
        if first_ball is None or target not in first_ball["balls"]:
            assert 0 < gap < 6.0, (seed, gap)
            assert shot["first_contact"] != target or first_ball is None or 0 not in first_ball["balls"]
            return
    pytest.fail("no near miss in 20 seeds")


def test_break_truth_is_consistent_with_the_motion():
    traj = physics.simulate_clip("eightball", "break", "normal", 5)
    shot, = traj.shots()
    L, W = traj.table_mm
    assert shot["t_start"] == physics.PRE_ROLL
    assert shot["object_balls_railed_on_break"] >= 0
    assert shot["first_contact"] is not None
    for key, (x, y) in shot["rest_mm"].items():
        assert R - 1 <= x <= L - R + 1 and R - 1 <= y <= W - R + 1
    for n in shot["pocketed"]:
        assert str(n) not in shot["rest_mm"]
    # a ball the truth puts on a cushion came within a hair of it (or into a pocket's jaw)
    for e in traj.events:
        if e["kind"] == "cushion" and e.get("where") == "rail":
            x, y, _, _ = traj.balls[e["balls"][0]].at([e["t"]])
            edge = min(x[0], L - x[0], y[0], W - y[0])
            assert abs(edge - R) < 2.0


def test_rolling_balls_turn():
    traj = physics.simulate_clip("eightball", "shot", "normal", 3, shot_type="straight")
    cue = traj.balls[0]
    t0 = traj.strokes()[0]
    x, y, q, _ = cue.at([t0 + 0.3, t0 + 0.35])
    assert math.hypot(x[1] - x[0], y[1] - y[0]) > 5
    assert abs(abs(float(np.dot(q[0], q[1]))) - 1) > 1e-4


def test_a_sequence_plays_on_from_the_rest_positions():
    traj = physics.simulate_clip("nineball", "sequence", "normal", 8)
    shots = traj.shots()
    assert 1 <= len(shots) <= 3 and len(shots) == len(traj.strokes())
    for a, b in zip(shots, shots[1:]):
        assert a["t_end"] < b["t_start"]
        for key, (x, y) in a["rest_mm"].items():
            bx, by, _, on = traj.balls[int(key)].at([b["t_start"] - 0.01])
            assert on[0] and abs(bx[0] - x) < 0.2 and abs(by[0] - y) < 0.2
