"""Ball trajectories as plain data, and the per-shot truth derived from them.

A trajectory is what happened on the table, independent of any camera: every
ball's centre and orientation over time, and the events (strokes, ball-ball
contacts, cushion contacts, pocketings).  Two sources write it: the built-in
kinematic generator (`tools.footage.kinematic`, no dependencies) and pooltool
(`tools.footage.physics`).  The renderer only reads it.

Coordinates (the analyser's, docs/camera-footage.md): millimetres on the bed
of the table, x along the table from the head cushion's nose, y across it
from the left cushion's nose (left as seen from the head end), so the
playing area's corners are (0, 0) head-left, (0, W) head-right, (L, W)
foot-right, (L, 0) foot-left.  Heights (z) are measured downwards from the
cloth (z = -R at a ball's centre): x forward, y right, z down is a
right-handed frame, so rotations are proper.  Times are seconds from the
start of the video.

The JSON form (``to_json`` / ``from_json``)::

    {"format": "billiards-footage-trajectory/1",
     "table_mm": [L, W], "ball_radius_mm": R, "duration": s,
     "meta": {...},                       # generator, game, kind, speed, seed ...
     "balls": {"0": {"t": [...], "x": [...], "y": [...],
                     "q": [[w, x, y, z], ...]},   # orientation, body -> world
               ...},
     "pocketed": {"3": {"t": 2.31, "xy": [x, y]}},   # when it dropped, where
     "events": [{"t": 1.5, "kind": "stick", "balls": [0]},
                {"t": 1.62, "kind": "ball", "balls": [0, 1]},
                {"t": 1.9, "kind": "cushion", "balls": [1]},
                {"t": 2.31, "kind": "pocket", "balls": [3]}]}

Samples are linearly interpolated (orientations by normalised lerp); a ball
is on the table before its pocketing time and gone after it.

Truth per shot (``shots``), exactly the analyser's per-shot schema:

* a shot starts at a ``stick`` event (the cue ball's first motion) and ends
  when every ball is still: the last time, before the next stroke, at which
  any ball's centre moves (a ball spinning in place counts as still; a ball
  that drops counts as still from its pocketing);
* ``first_contact``: the other ball of the first ``ball`` event involving the
  cue ball (0) in the shot, else null;
* ``railed_after_contact``: the balls (cue ball included), ascending, with a
  ``cushion`` event after the first contact (a jaw of a pocket is a cushion);
  empty when there was no contact;
* ``object_balls_railed_on_break``: on a break, the number of distinct object
  balls with a cushion event in the shot; null on other shots;
* ``pocketed``: the balls that dropped in the shot, in the order they dropped;
* ``rest_mm``: {"ball": [x, y]} of every ball on the table at the shot's end.
"""

import json

import numpy as np

FORMAT = "billiards-footage-trajectory/1"
BALL_RADIUS_MM = 28.575  # 2 1/4 inch balls
EVENT_KINDS = ("stick", "ball", "cushion", "pocket")
MOVING_MM = 1e-6  # a centre that moves less than this between samples is still (sources stop balls exactly)


class BallTrack:
    """One ball's samples: times (s), centre (mm), orientation quaternions (w, x, y, z)."""

    def __init__(self, t, x, y, q, pocketed_t=None, pocketed_xy=None):
        self.t = np.asarray(t, dtype=float)
        self.x = np.asarray(x, dtype=float)
        self.y = np.asarray(y, dtype=float)
        self.q = np.asarray(q, dtype=float).reshape(-1, 4)
        self.pocketed_t = pocketed_t
        self.pocketed_xy = pocketed_xy

    def at(self, t):
        """(x, y, q, on_table) at the times t (an array): interpolated samples."""
        t = np.atleast_1d(np.asarray(t, dtype=float))
        x = np.interp(t, self.t, self.x)
        y = np.interp(t, self.t, self.y)
        q = _nlerp(self.t, self.q, t)
        on = np.ones(t.shape, dtype=bool) if self.pocketed_t is None else t < self.pocketed_t
        return x, y, q, on

    def last_motion(self, t0, t1):
        """The last time in [t0, t1) at which the centre moves, or None."""
        moving = np.hypot(np.diff(self.x), np.diff(self.y)) > MOVING_MM
        idx = np.nonzero(moving & (self.t[1:] > t0) & (self.t[:-1] < t1))[0]
        if len(idx) == 0:
            return None
        return float(min(self.t[idx[-1] + 1], t1))


class Trajectory:
    """Balls (int -> BallTrack), events (dicts, sorted by time) and the table."""

    def __init__(self, table_mm, balls, events, duration, meta=None, ball_radius_mm=BALL_RADIUS_MM):
        self.table_mm = (float(table_mm[0]), float(table_mm[1]))
        self.balls = dict(sorted(balls.items()))
        self.events = sorted(events, key=lambda e: (e["t"], EVENT_KINDS.index(e["kind"])))
        self.duration = float(duration)
        self.meta = dict(meta or {})
        self.ball_radius_mm = float(ball_radius_mm)

    def strokes(self):
        return [e["t"] for e in self.events if e["kind"] == "stick"]

    def shots(self, kind=None):
        """The per-shot truth (module docstring), one dict per stroke."""
        kind = kind or self.meta.get("kind", "shot")
        starts = self.strokes()
        out = []
        for i, t0 in enumerate(starts):
            t_next = starts[i + 1] if i + 1 < len(starts) else self.duration + 1.0
            out.append(self._shot(t0, t_next, kind == "break" and i == 0))
        return out

    def _shot(self, t0, t_next, is_break):
        evs = [e for e in self.events if t0 <= e["t"] < t_next]
        first = next((e for e in evs if e["kind"] == "ball" and 0 in e["balls"]), None)
        first_contact = None
        railed = []
        if first is not None:
            others = [b for b in first["balls"] if b != 0]
            first_contact = others[0] if others else None
            railed = sorted({b for e in evs if e["kind"] == "cushion" and e["t"] > first["t"] for b in e["balls"]})
        on_break = None
        if is_break:
            on_break = len({b for e in evs if e["kind"] == "cushion" for b in e["balls"] if b != 0})
        pocketed = []
        for e in evs:
            if e["kind"] == "pocket":
                pocketed.extend(b for b in e["balls"] if b not in pocketed)
        ends = [t0]
        for n, track in self.balls.items():
            if track.pocketed_t is not None and t0 <= track.pocketed_t < t_next:
                ends.append(track.pocketed_t)
            last = track.last_motion(t0, t_next)
            if last is not None:
                ends.append(last)
        t_end = max(ends)
        rest = {}
        for n, track in self.balls.items():
            x, y, _, on = track.at([t_end])
            if on[0]:
                rest[str(n)] = [round(float(x[0]), 1), round(float(y[0]), 1)]
        return {
            "t_start": round(t0, 4),
            "t_end": round(t_end, 4),
            "first_contact": first_contact,
            "railed_after_contact": railed,
            "object_balls_railed_on_break": on_break,
            "pocketed": pocketed,
            "rest_mm": rest,
        }

    # --- plain data -------------------------------------------------------------------------

    def to_json(self):
        balls = {}
        pocketed = {}
        for n, tr in self.balls.items():
            balls[str(n)] = {
                "t": [round(float(v), 5) for v in tr.t],
                "x": [round(float(v), 2) for v in tr.x],
                "y": [round(float(v), 2) for v in tr.y],
                "q": [[round(float(c), 5) for c in q] for q in tr.q],
            }
            if tr.pocketed_t is not None:
                pocketed[str(n)] = {"t": round(float(tr.pocketed_t), 5),
                                    "xy": [round(float(c), 1) for c in (tr.pocketed_xy or (0.0, 0.0))]}
        return {
            "format": FORMAT,
            "table_mm": list(self.table_mm),
            "ball_radius_mm": self.ball_radius_mm,
            "duration": round(self.duration, 5),
            "meta": self.meta,
            "balls": balls,
            "pocketed": pocketed,
            "events": [dict(e, t=round(float(e["t"]), 5)) for e in self.events],
        }

    @classmethod
    def from_json(cls, data):
        if data.get("format") != FORMAT:
            raise ValueError("not a %s document" % FORMAT)
        balls = {}
        for key, b in data["balls"].items():
            p = data.get("pocketed", {}).get(key)
            balls[int(key)] = BallTrack(b["t"], b["x"], b["y"], b["q"],
                                        p["t"] if p else None, tuple(p["xy"]) if p else None)
        return cls(data["table_mm"], balls, data["events"], data["duration"], data.get("meta"),
                   data.get("ball_radius_mm", BALL_RADIUS_MM))

    def save(self, path):
        with open(path, "w") as f:
            json.dump(self.to_json(), f, separators=(",", ":"))

    @classmethod
    def load(cls, path):
        with open(path) as f:
            return cls.from_json(json.load(f))


def thin(t, x, y, q, keep=()):
    """Drop the samples inside runs where the ball neither moves nor turns (keep the runs'
    ends and the times in `keep`): a still ball needs two samples, not thousands."""
    t = np.asarray(t, dtype=float)
    pos = np.stack([x, y], axis=1)
    q = np.asarray(q, dtype=float)
    same = np.zeros(len(t), dtype=bool)
    if len(t) > 2:
        dp_prev = np.abs(pos[1:-1] - pos[:-2]).max(axis=1)
        dp_next = np.abs(pos[2:] - pos[1:-1]).max(axis=1)
        dq_prev = np.abs(q[1:-1] - q[:-2]).max(axis=1)
        dq_next = np.abs(q[2:] - q[1:-1]).max(axis=1)
        same[1:-1] = (dp_prev < 1e-6) & (dp_next < 1e-6) & (dq_prev < 1e-9) & (dq_next < 1e-9)
    if len(keep):
        same &= ~np.isin(t, np.asarray(keep, dtype=float))
    k = ~same
    return t[k], np.asarray(x)[k], np.asarray(y)[k], q[k]


def quat_mul(a, b):
    """Hamilton product of quaternion arrays (..., 4) as (w, x, y, z)."""
    aw, ax, ay, az = np.moveaxis(a, -1, 0)
    bw, bx, by, bz = np.moveaxis(b, -1, 0)
    return np.stack([aw * bw - ax * bx - ay * by - az * bz,
                     aw * bx + ax * bw + ay * bz - az * by,
                     aw * by - ax * bz + ay * bw + az * bx,
                     aw * bz + ax * by - ay * bx + az * bw], axis=-1)


def quat_from_rotvec(v):
    """Quaternions (..., 4) of rotation vectors (..., 3) (axis times angle, radians)."""
    v = np.asarray(v, dtype=float)
    ang = np.linalg.norm(v, axis=-1, keepdims=True)
    half = 0.5 * ang
    s = np.where(ang > 1e-12, np.sin(half) / np.maximum(ang, 1e-12), 0.5)
    return np.concatenate([np.cos(half), v * s], axis=-1)


def quat_to_matrix(q):
    """Rotation matrices (..., 3, 3) of unit quaternions (..., 4)."""
    w, x, y, z = np.moveaxis(np.asarray(q, dtype=float), -1, 0)
    return np.stack([
        np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)], -1),
        np.stack([2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)], -1),
        np.stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], -1),
    ], -2)


def integrate_rotation(t, omega, q0=(1.0, 0.0, 0.0, 0.0)):
    """Orientations at the times t of a ball turning at the world angular velocities omega
    (rad/s, one per sample, held over the interval that starts there)."""
    q = np.empty((len(t), 4))
    q[0] = q0
    dt = np.diff(np.asarray(t, dtype=float))
    steps = quat_from_rotvec(np.asarray(omega, dtype=float)[:-1] * dt[:, None]) if len(dt) else np.empty((0, 4))
    for i in range(1, len(t)):
        qi = quat_mul(steps[i - 1], q[i - 1])
        q[i] = qi / np.linalg.norm(qi)
    return q


def random_orientation(rng):
    """A uniformly random unit quaternion (a ball lies any way up)."""
    u1, u2, u3 = rng.random(3)
    return np.array([np.sqrt(1 - u1) * np.sin(2 * np.pi * u2), np.sqrt(1 - u1) * np.cos(2 * np.pi * u2),
                     np.sqrt(u1) * np.sin(2 * np.pi * u3), np.sqrt(u1) * np.cos(2 * np.pi * u3)])


def _nlerp(ts, qs, t):
    if len(ts) == 1:
        return np.repeat(qs[:1], len(t), axis=0)
    i = np.clip(np.searchsorted(ts, t, side="right") - 1, 0, len(ts) - 2)
    span = ts[i + 1] - ts[i]
    f = np.clip(np.where(span > 0, (t - ts[i]) / np.where(span > 0, span, 1.0), 0.0), 0.0, 1.0)[:, None]
    a, b = qs[i], qs[i + 1]
    b = np.where((a * b).sum(axis=1, keepdims=True) < 0, -b, b)
    q = a * (1 - f) + b * f
    return q / np.linalg.norm(q, axis=1, keepdims=True)
