"""A tiny kinematic generator: straight lines, cushion reflections, simple collisions.

No physics library: quick CI clips with known events.  Balls roll without
slipping (so they turn as they roll), slow down at a constant deceleration,
reflect off the cushion noses with a restitution, collide as equal smooth
spheres (the normal components exchange, scaled by a restitution), and drop
when their centre passes a pocket's capture point.  The motion is stepped at
`dt`; collision and cushion times are found within the step, so events are
exact to the arithmetic, positions to well under a millimetre.

It is not pooltool: no spin, throw, squirt, jaws or swerve.  It exists for
tests that need footage with exactly known truth in a fraction of a second.

    from tools.footage import kinematic
    traj = kinematic.simulate({0: (500, 495), 1: (1400, 495)},
                              strokes=[(0.5, 2000.0, 0.0)])   # t, mm/s, degrees from +x
"""

import math

import numpy as np

from .trajectory import BALL_RADIUS_MM, BallTrack, Trajectory, quat_from_rotvec, quat_mul, random_orientation, thin

TABLE_7FT_MM = (1981.2, 990.6)  # pooltool's default table (playing area)
CORNER_CAPTURE_MM = 58.0  # a centre this close to the corner point drops
CORNER_MOUTH_MM = 85.0  # no cushion within this of a corner along either rail (table.CORNER_JAW)
SIDE_MOUTH_MM = 72.0  # half the side pocket's mouth, no cushion there (table.SIDE_JAW)


def pockets(table_mm):
    """The six pockets' capture points (mm): the four corners and the two sides' middles."""
    L, W = table_mm
    return [(0.0, 0.0), (0.0, W), (L, W), (L, 0.0), (L / 2, -45.0), (L / 2, W + 45.0)]


def simulate(balls, strokes, table_mm=TABLE_7FT_MM, decel=600.0, cushion_e=0.75, ball_e=0.95,
             dt=0.0005, post_roll=0.6, max_duration=30.0, seed=0, meta=None):
    """balls: {number: (x, y)} in mm; strokes: [(t, speed mm/s, direction deg)] given to the cue
    ball (0), the direction measured from +x towards +y. -> Trajectory (times in seconds)."""
    R = BALL_RADIUS_MM
    L, W = table_mm
    rng = np.random.default_rng(seed)
    ids = sorted(balls)
    n = len(ids)
    pos = np.array([balls[i] for i in ids], dtype=float)
    vel = np.zeros((n, 2))
    q = np.array([random_orientation(rng) for _ in ids])
    on = np.ones(n, dtype=bool)
    pocket_t = [None] * n
    pocket_xy = [None] * n
    events = []
    pending = sorted(strokes)
    cue = ids.index(0)
    caps = pockets(table_mm)
    t = 0.0
    hist_t, hist_p, hist_q = [0.0], [pos.copy()], [q.copy()]
    still_since = 0.0
    while t < max_duration:
        while pending and pending[0][0] <= t + 1e-12:
            ts, speed, ang = pending.pop(0)
            a = math.radians(ang)
            vel[cue] = (speed * math.cos(a), speed * math.sin(a))
            events.append({"t": float(ts), "kind": "stick", "balls": [0]})
        t1 = t + dt
        speed = np.hypot(vel[:, 0], vel[:, 1])
        moving = speed > 0
        if not moving.any() and not pending and t - still_since >= post_roll:
            break
        # rolling without slipping, z down: omega = (v_y, -v_x, 0) / R
        omega = np.stack([vel[:, 1], -vel[:, 0], np.zeros(n)], axis=1) / R
        q = quat_mul(quat_from_rotvec(omega * dt), q)
        q /= np.linalg.norm(q, axis=1, keepdims=True)
        pos += vel * dt
        new_speed = np.maximum(speed - decel * dt, 0.0)
        scale = np.where(speed > 0, new_speed / np.where(speed > 0, speed, 1.0), 0.0)
        vel *= scale[:, None]
        _collide(pos, vel, on, ids, t1, R, ball_e, events)
        _cushions(pos, vel, on, ids, t1, table_mm, R, cushion_e, events)
        for k in range(n):
            if on[k]:
                for c in caps:
                    if math.hypot(pos[k, 0] - c[0], pos[k, 1] - c[1]) < CORNER_CAPTURE_MM:
                        on[k] = False
                        pocket_t[k], pocket_xy[k] = t1, c
                        vel[k] = 0.0
                        events.append({"t": t1, "kind": "pocket", "balls": [ids[k]]})
                        break
        t = t1
        if (np.hypot(vel[:, 0], vel[:, 1]) > 0).any() or pending:
            still_since = t
        hist_t.append(t)
        hist_p.append(pos.copy())
        hist_q.append(q.copy())
    ht = np.array(hist_t)
    hp = np.array(hist_p)
    hq = np.array(hist_q)
    tracks = {}
    for k, b in enumerate(ids):
        tt, xx, yy, qq = thin(ht, hp[:, k, 0], hp[:, k, 1], hq[:, k])
        tracks[b] = BallTrack(tt, xx, yy, qq, pocket_t[k], pocket_xy[k])
    info = {"generator": "kinematic", "decel_mm_s2": decel, "cushion_e": cushion_e, "ball_e": ball_e}
    info.update(meta or {})
    return Trajectory(table_mm, tracks, events, t, info)


def _collide(pos, vel, on, ids, t1, R, e, events):
    """Resolve overlapping, approaching pairs: back to the contact instant, exchange, forward."""
    n = len(ids)
    for i in range(n):
        if not on[i]:
            continue
        for j in range(i + 1, n):
            if not on[j]:
                continue
            d = pos[j] - pos[i]
            dist = math.hypot(d[0], d[1])
            if dist >= 2 * R:
                continue
            rv = vel[j] - vel[i]
            if rv[0] * d[0] + rv[1] * d[1] >= 0:
                continue  # separating already
            # back in time by s so that |d - rv*s| = 2R (rv*s: the relative travel undone)
            a = rv[0] ** 2 + rv[1] ** 2
            b = -2 * (d[0] * rv[0] + d[1] * rv[1])
            c = dist ** 2 - 4 * R * R
            disc = max(b * b - 4 * a * c, 0.0)
            s = (-b - math.sqrt(disc)) / (2 * a) if a > 0 else 0.0
            s = max(s, 0.0)
            pos[i] -= vel[i] * s
            pos[j] -= vel[j] * s
            nrm = (pos[j] - pos[i]) / max(np.hypot(*(pos[j] - pos[i])), 1e-9)
            vi, vj = vel[i] @ nrm, vel[j] @ nrm
            # equal masses: the normal components exchange, a fraction (1 - e)/2 lost
            dvi = (vj - vi) * (1 + e) / 2
            vel[i] += dvi * nrm
            vel[j] -= dvi * nrm
            pos[i] += vel[i] * s
            pos[j] += vel[j] * s
            events.append({"t": t1 - s, "kind": "ball", "balls": sorted([ids[i], ids[j]])})


def _cushions(pos, vel, on, ids, t1, table_mm, R, e, events):
    """Reflect balls whose surface passed a cushion nose (not in a pocket's mouth)."""
    L, W = table_mm
    for k in range(len(ids)):
        if not on[k]:
            continue
        x, y = pos[k]
        for axis, lo, hi, other, olen in ((0, R, L - R, y, W), (1, R, W - R, x, L)):
            p = pos[k, axis]
            if lo <= p <= hi:
                continue
            near_corner = other < CORNER_MOUTH_MM or other > olen - CORNER_MOUTH_MM
            in_side_mouth = axis == 1 and abs(x - L / 2) < SIDE_MOUTH_MM
            if near_corner or in_side_mouth:
                continue
            v = vel[k, axis]
            if v == 0:
                continue
            wall = lo if p < lo else hi
            if (p < lo and v > 0) or (p > hi and v < 0):
                continue
            s = (p - wall) / v  # time since the surface met the nose (>= 0)
            pos[k, axis] = wall + (wall - p) * e  # mirrored, the overshoot shortened by e
            vel[k, axis] = -e * v
            events.append({"t": t1 - s, "kind": "cushion", "balls": [ids[k]]})


def random_clip(game, kind, speed, seed, pre_roll=2.5):
    """A seeded kinematic clip (no pooltool): a rack broken from the kitchen, or a random layout
    with the cue ball sent at a ball (cut up to 50 degrees) or, one time in six, at nothing."""
    rng = np.random.default_rng([seed, 5])
    L, W = TABLE_7FT_MM
    R = BALL_RADIUS_MM
    numbers = list(range(1, 10)) if game == "nineball" else list(range(1, 16))
    balls = {}
    if kind == "break":
        apex = (0.75 * L, W / 2)
        gap = rng.uniform(0.2, 2.0)
        rows = 5 if game != "nineball" else 3
        spots = []
        for r in range(rows):
            for j in range(r + 1):
                spots.append((apex[0] + r * (2 * R + gap) * math.sqrt(3) / 2, apex[1] + (j - r / 2) * (2 * R + gap)))
        if game == "nineball":  # the diamond: rows of 1, 2, 3, 2, 1
            spots = spots[:6] + [(apex[0] + k * (2 * R + gap) * math.sqrt(3) / 2, apex[1] + (j - (4 - k) / 2) * (2 * R + gap))
                                 for k, n in ((3, 2), (4, 1)) for j in range(n)]
        order = list(numbers)
        rng.shuffle(order)
        balls.update({n: s for n, s in zip(order, spots)})
        balls[0] = (rng.uniform(0.1, 0.245) * L, rng.uniform(0.2, 0.8) * W)
        aim = math.degrees(math.atan2(apex[1] - balls[0][1], apex[0] - balls[0][0])) + rng.normal(0, 0.4)
        v = {"soft": (2000, 4500), "normal": (4500, 7500), "hard": (7500, 10000)}[speed]
    else:
        n = int(rng.integers(2, len(numbers) + 1))
        for key in [0] + sorted(rng.choice(numbers, size=n, replace=False).tolist()):
            for _ in range(300):
                p = (rng.uniform(R + 90, L - R - 90), rng.uniform(R + 90, W - R - 90))
                if all(math.hypot(p[0] - a, p[1] - b) > 2 * R + 4 for a, b in balls.values()):
                    balls[int(key)] = p
                    break
        objs = [k for k in balls if k != 0]
        tgt = balls[objs[int(rng.integers(len(objs)))]]
        base = math.degrees(math.atan2(tgt[1] - balls[0][1], tgt[0] - balls[0][0]))
        D = math.hypot(tgt[0] - balls[0][0], tgt[1] - balls[0][1])
        cut = math.degrees(math.asin(min(1.0, 2 * R * math.sin(math.radians(rng.uniform(-50, 50))) / D)))
        aim = base + cut if rng.random() > 1 / 6 else rng.uniform(0, 360)
        v = {"soft": (500, 1500), "normal": (1500, 3500), "hard": (3500, 7000)}[speed]
    meta = {"game": game, "kind": "break" if kind == "sequence" else kind, "speed": speed, "seed": seed, "table": "7ft"}
    strokes = [(pre_roll, float(rng.uniform(*v)), float(aim))]
    decel = float(rng.uniform(250.0, 500.0))
    traj = simulate(balls, strokes, post_roll=1.2, seed=seed, decel=decel, max_duration=25.0, meta=meta)
    if kind != "sequence":
        return traj
    # then two ordinary shots from where the balls lie (the same first stroke replays exactly)
    for _ in range(2):
        shot = traj.shots()[-1]
        rest = shot["rest_mm"]
        objs = sorted(int(k) for k in rest if k != "0")
        if "0" not in rest or not objs:
            break
        cue = rest["0"]
        tgt = rest[str(objs[int(rng.integers(len(objs)))])]
        aim = math.degrees(math.atan2(tgt[1] - cue[1], tgt[0] - cue[0])) + rng.uniform(-3, 3)
        strokes.append((shot["t_end"] + float(rng.uniform(2.8, 4.0)), float(rng.uniform(800, 3000)), aim))
        traj = simulate(balls, strokes, post_roll=1.2, seed=seed, decel=decel, max_duration=60.0,
                        meta=dict(meta, sequence=True))
    return traj
