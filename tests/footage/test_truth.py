"""The footage's truth: the kinematic generator's events and the per-shot facts derived from a
trajectory, as docs/camera-footage.md defines them (no OpenCV needed)."""
import json
import math

import numpy as np

from tools.footage import kinematic
from tools.footage.trajectory import BallTrack, Trajectory, quat_to_matrix

R = 28.575


def still(x, y, t1=10.0):
    return BallTrack([0.0, t1], [x, x], [y, y], [[1, 0, 0, 0], [1, 0, 0, 0]])


def test_straight_shot_contact_time_and_facts():
    traj = kinematic.simulate({0: (500, 495), 1: (1400, 495)}, strokes=[(0.5, 2000.0, 0.0)], decel=600.0)
    shot, = traj.shots()
    # the cue ball covers 900 - 2R at 2000 mm/s slowing by 600 mm/s^2
    gap = 900 - 2 * R
    t_hit = 0.5 + (2000 - math.sqrt(2000 ** 2 - 2 * 600 * gap)) / 600
    contact = next(e for e in traj.events if e["kind"] == "ball")
    assert abs(contact["t"] - t_hit) < 1e-3
    assert shot["t_start"] == 0.5
    assert shot["first_contact"] == 1
    assert shot["railed_after_contact"] == [1]  # the 1 reaches the foot cushion, the cue ball stops short
    assert shot["object_balls_railed_on_break"] is None
    assert shot["pocketed"] == []
    assert set(shot["rest_mm"]) == {"0", "1"}
    # every ball is still at t_end and was moving just before it
    for n, track in traj.balls.items():
        x, y, _, _ = track.at([shot["t_end"], shot["t_end"] + 0.5])
        assert abs(x[1] - x[0]) < 1e-6 and abs(y[1] - y[0]) < 1e-6
    assert any(abs(t.last_motion(0.5, 99) - shot["t_end"]) < 1e-4 for t in traj.balls.values())


def test_miss_has_no_contact_and_no_rails_after_it():
    traj = kinematic.simulate({0: (500, 300), 1: (1400, 700)}, strokes=[(0.2, 1500.0, 0.0)])
    shot, = traj.shots()
    assert shot["first_contact"] is None
    assert shot["railed_after_contact"] == []
    assert shot["rest_mm"]["1"] == [1400.0, 700.0]


def test_ball_into_the_corner_pocket():
    L, W = kinematic.TABLE_7FT_MM
    b1 = np.array([1800.0, 100.0])
    u = np.array([L, 0.0]) - b1
    u /= np.linalg.norm(u)
    cue = b1 - u * 600
    traj = kinematic.simulate({0: tuple(cue), 1: tuple(b1)}, strokes=[(0.1, 2500.0, math.degrees(math.atan2(u[1], u[0])))])
    shot, = traj.shots()
    assert shot["first_contact"] == 1
    assert shot["pocketed"] == [1]
    assert "1" not in shot["rest_mm"]
    assert traj.balls[1].at([shot["t_end"]])[3][0] == False  # noqa: E712 (numpy bool)


def test_balls_turn_as_they_roll():
    """Rolling without slipping: the orientation turns by distance / R about the horizontal axis
    across the motion (so stripes and numbers turn in the video)."""
    traj = kinematic.simulate({0: (400, 495)}, strokes=[(0.0, 900.0, 0.0)], decel=600.0)
    tr = traj.balls[0]
    x, y, q, _ = tr.at([0.0, 0.3])
    dist = math.hypot(x[1] - x[0], y[1] - y[0])
    M0, M1 = quat_to_matrix(q)
    rel = M1 @ M0.T
    angle = math.acos(max(-1.0, min(1.0, (np.trace(rel) - 1) / 2)))
    assert abs(angle - (dist / R) % (2 * math.pi)) < 0.02 or abs(2 * math.pi - angle - (dist / R) % (2 * math.pi)) < 0.02
    axis = np.array([rel[2, 1] - rel[1, 2], rel[0, 2] - rel[2, 0], rel[1, 0] - rel[0, 1]])
    assert abs(axis[0]) < 1e-6 and abs(axis[2]) < 1e-6  # about the y axis, across an x motion


def test_truth_rules_on_a_written_trajectory():
    """railed_after_contact ignores cushions before the first contact; a break counts distinct
    object balls on a cushion; pocketed keeps the order of the drops; shots split at strokes."""
    balls = {0: still(300, 400), 1: still(900, 400), 2: still(1000, 300),
             3: BallTrack([0.0, 2.0, 2.5, 10.0], [1000, 1000, 1900, 1900], [600, 600, 950, 950],
                          [[1, 0, 0, 0]] * 4, pocketed_t=2.5, pocketed_xy=(1981, 990))}
    events = [
        {"t": 1.0, "kind": "stick", "balls": [0]},
        {"t": 1.2, "kind": "cushion", "balls": [0]},
        {"t": 1.5, "kind": "ball", "balls": [0, 2]},
        {"t": 1.6, "kind": "ball", "balls": [0, 1]},
        {"t": 1.7, "kind": "cushion", "balls": [2]},
        {"t": 1.8, "kind": "cushion", "balls": [2]},
        {"t": 1.9, "kind": "cushion", "balls": [0]},
        {"t": 2.4, "kind": "cushion", "balls": [3]},
        {"t": 2.5, "kind": "pocket", "balls": [3]},
        {"t": 6.0, "kind": "stick", "balls": [0]},
        {"t": 6.5, "kind": "cushion", "balls": [0]},
    ]
    traj = Trajectory((1981.2, 990.6), balls, events, 10.0, {"kind": "break"})
    first, second = traj.shots()
    assert first["first_contact"] == 2
    assert first["railed_after_contact"] == [0, 2, 3]
    assert first["object_balls_railed_on_break"] == 2
    assert first["pocketed"] == [3]
    assert first["t_end"] == 2.5
    assert "3" not in first["rest_mm"]
    assert second["first_contact"] is None and second["railed_after_contact"] == []
    assert second["object_balls_railed_on_break"] is None  # only the first stroke is the break


def test_json_round_trip_keeps_the_truth():
    traj = kinematic.simulate({0: (450, 520), 1: (1300, 470), 9: (1500, 650)}, strokes=[(0.3, 2600.0, -2.5)])
    again = Trajectory.from_json(json.loads(json.dumps(traj.to_json())))
    a, = again.shots()
    b, = traj.shots()
    # stored to 0.01 mm: a ball's last creep (< 0.01 mm) may end a step earlier
    assert abs(a.pop("t_end") - b.pop("t_end")) <= 0.002
    ra, rb = a.pop("rest_mm"), b.pop("rest_mm")
    assert ra.keys() == rb.keys() and all(abs(ra[k][i] - rb[k][i]) <= 0.15 for k in ra for i in (0, 1))
    assert a == b
    x0, y0, q0, _ = traj.balls[9].at([1.0])
    x1, y1, q1, _ = again.balls[9].at([1.0])
    assert abs(x0[0] - x1[0]) < 0.01 and abs(y0[0] - y1[0]) < 0.01
    assert np.abs(np.abs((q0 * q1).sum()) - 1) < 1e-4


def test_a_sequence_is_several_shots_each_starting_where_the_last_left_the_balls():
    traj = kinematic.random_clip("eightball", "sequence", "normal", 11)
    shots = traj.shots()
    assert len(shots) >= 2
    assert shots[0]["object_balls_railed_on_break"] is not None
    assert all(s["object_balls_railed_on_break"] is None for s in shots[1:])
    for a, b in zip(shots, shots[1:]):
        assert a["t_end"] < b["t_start"]
        for key, (x, y) in a["rest_mm"].items():
            if key in b["rest_mm"] or key not in {str(n) for n in b["pocketed"]}:
                bx, by, _, on = traj.balls[int(key)].at([b["t_start"]])
                assert on[0] and abs(bx[0] - x) < 0.1 and abs(by[0] - y) < 0.1
