"""Trajectories from pooltool (pooltool-billiards 0.6.0, the `calibrate` extra).

    traj = simulate_clip("eightball", "break", "soft", seed=12)
    traj = simulate_clip("nineball", "shot", "normal", seed=40, shot_type="near_miss")

Everything is decided by (seed): the table (7 ft or 9 ft), the layout, the
stroke, the spin.  Breaks rack the game's balls (a 15-ball triangle for
eight-ball and 14.1, nine-ball's diamond) and strike from the kitchen;
14.1's break is the safe break (a thin hit on a back corner ball).  Ordinary
shots lay out a random mid-game position and play one of SHOT_TYPES:

* straight / cut: at the target ball, cut angle near 0 or up to 60 degrees;
* bank: the object ball sent at a cushion (towards a pocket's mirror image);
* kick: the cue ball sent at a cushion first (at the target's mirror image);
* combination: the target driven into a second ball;
* near_miss: the cue ball's path passes 0.5-5 mm outside the target;
* thin: the cue ball's path overlaps the target by 0.5-5 mm (the thinnest hits);
* no_contact: aimed where no ball lies.

Whatever pooltool then does is the truth (another ball may be hit first).
The pooltool frame (x across from the left, y along from the head, z up, m)
becomes the footage frame (x along, y across, z down, mm); angular
velocities turn the same way and are integrated into orientations.
"""

import math
import os
import random

import numpy as np

from tools.calibrate import simulate_breaks

from .trajectory import BALL_RADIUS_MM, BallTrack, Trajectory, integrate_rotation, random_orientation, thin

GAMES = ("eightball", "nineball", "straight")
KINDS = ("break", "shot", "sequence")
SPEEDS = ("soft", "normal", "hard")
SHOT_TYPES = ("straight", "cut", "bank", "kick", "combination", "near_miss", "thin", "no_contact")
# cue-ball speed after the stroke, m/s, per band
BREAK_SPEED = {"soft": (2.0, 4.5), "normal": (4.5, 7.5), "hard": (7.5, 11.0)}
SAFE_BREAK_SPEED = {"soft": (1.0, 2.0), "normal": (2.0, 3.3), "hard": (3.3, 5.0)}
SHOT_SPEED = {"soft": (0.5, 1.5), "normal": (1.5, 3.5), "hard": (3.5, 7.0)}
PRE_ROLL = 2.5  # s of still table before the stroke (the player steps in)
POST_ROLL = 1.2  # s after every ball is still
SAMPLE_DT = 0.001  # s between samples (plus every event's instant)
MAX_EVENTS = 12000
M_PT = np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, -1.0]])  # pooltool -> footage axes


def _pt():
    import pooltool as pt

    return pt


_RATIO = {}


def stick_ratio():
    """Cue-ball speed per unit of stick speed V0 (the break study's measurement, once)."""
    if "r" not in _RATIO:
        _RATIO["r"] = simulate_breaks.stick_ratio()
    return _RATIO["r"]


def ensure_hash_seed(module, argv):
    """pooltool's racks depend on Python's string hashing: re-run this command with
    PYTHONHASHSEED=0 unless it already is, so that a seed gives the same clip everywhere."""
    if os.environ.get("PYTHONHASHSEED") != "0":
        import sys

        env = dict(os.environ, PYTHONHASHSEED="0")
        os.execve(sys.executable, [sys.executable, "-m", module] + list(argv), env)


def _seed_all(seed):
    """pooltool's racks draw from random and numpy.random: seed both for this clip."""
    sub = (seed * 1000003 + 17) % (2 ** 32)
    random.seed(sub)
    np.random.seed(sub)
    return np.random.default_rng([seed, 3])


def simulate_clip(game, kind, speed, seed, table=None, shot_type=None, n_shots=3):
    """One clip's trajectory (see the module docstring). kind "sequence": a break, then
    ordinary shots from where the balls lie, up to n_shots strokes in all (fewer after a
    scratch: ball in hand would move a ball by hand), 2.8-4 s apart."""
    pt = _pt()
    rng = _seed_all(seed)
    table_name = table or ("7ft" if rng.random() < 0.6 else "9ft")
    tbl = simulate_breaks.make_table(table_name)
    meta = {"generator": "pooltool", "pooltool": getattr(pt, "__version__", "?"), "game": game, "kind": kind,
            "speed": speed, "seed": seed, "table": table_name}
    strokes = []
    if kind in ("break", "sequence"):
        system, info = _break(pt, tbl, game, speed, rng)
    else:
        system, info = _shot(pt, tbl, game, speed, rng, shot_type)
    meta.update(info)
    parts = []
    t = PRE_ROLL
    q0 = None
    for k in range(n_shots if kind == "sequence" else 1):
        if k > 0:
            rest = {key: xy for key, xy in _rest(system).items()}
            if "cue" not in rest or len(rest) < 2:
                break
            balls = {key: pt.Ball.create(key, xy=xy) for key, xy in rest.items()}
            system, info = _shot(pt, tbl, game, speed, rng, None, balls)
        _play(pt, system, info)
        strokes.append({key: info[key] for key in ("shot_type", "v_cue", "target") if key in info})
        part = _samples(pt, system, t, q0, rng)
        parts.append(part)
        q0 = part["q_end"]
        t = part["t_end"] + float(rng.uniform(2.8, 4.0))
        meta["truncated"] = meta.get("truncated", False) or len(system.events) >= MAX_EVENTS
    if kind == "sequence":
        meta["strokes"] = strokes
        meta["kind"] = "break"  # the first stroke is a break; the truth counts its railed balls
        meta["sequence"] = True
    return _assemble(parts, system, meta)


def _play(pt, system, info):
    V0 = info["v_cue"] / stick_ratio()
    system.cue.set_state(V0=V0, phi=info["phi"], theta=info["elevation"], a=info["side"], b=info["top"])
    pt.simulate(system, inplace=True, max_events=MAX_EVENTS)


def _rest(system):
    """Where the balls on the table came to rest (pooltool frame, m)."""
    pt = _pt()
    out = {}
    for key, ball in system.balls.items():
        st = ball.history[-1] if len(ball.history) else ball.state
        if st.s != pt.constants.pocketed:
            out[key] = (float(st.rvw[0][0]), float(st.rvw[0][1]))
    return out


# --- layouts and strokes (pooltool frame, metres, phi in degrees) ----------------------------------

def _spin(rng, straight=False):
    if straight:
        return 0.0, float(rng.uniform(-0.3, 0.3)), 0.0
    return (float(np.clip(rng.normal(0, 0.12), -0.4, 0.4)), float(rng.uniform(-0.4, 0.35)),
            float(rng.uniform(0.0, 5.0)))


def _break(pt, tbl, game, speed, rng):
    gtype = pt.GameType.NINEBALL if game == "nineball" else pt.GameType.EIGHTBALL
    spacing = float(math.exp(rng.uniform(math.log(2e-4), math.log(4e-2))))
    balls = pt.get_rack(gtype, tbl, spacing_factor=spacing)
    balls["cue"].state.rvw[0][0] = rng.uniform(0.15, 0.85) * tbl.w
    balls["cue"].state.rvw[0][1] = rng.uniform(0.10, 0.245) * tbl.l
    system = pt.System(table=tbl, balls=balls, cue=pt.Cue(cue_ball_id="cue"))
    objs = [b for k, b in balls.items() if k != "cue"]
    if game == "straight":
        back = sorted(objs, key=lambda b: -b.state.rvw[0][1])[:5]
        corner = min(back, key=lambda b: b.state.rvw[0][0]) if rng.random() < 0.5 else max(back, key=lambda b: b.state.rvw[0][0])
        cut = rng.uniform(20.0, 55.0) * (1 if corner.state.rvw[0][0] > tbl.w / 2 else -1)
        phi = pt.aim.at_ball(system, corner.id, cut=cut) + rng.normal(0.0, 0.3)
        v = rng.uniform(*SAFE_BREAK_SPEED[speed])
    else:
        apex = min(objs, key=lambda b: b.state.rvw[0][1])
        phi = pt.aim.at_ball(system, apex.id) + rng.normal(0.0, 0.5)
        v = rng.uniform(*BREAK_SPEED[speed])
    side, top, elev = _spin(rng)
    return system, {"shot_type": "break", "v_cue": round(float(v), 3), "phi": float(phi), "side": side,
                    "top": top, "elevation": elev, "rack_spacing": round(spacing, 5)}


def _layout(pt, tbl, game, rng):
    """A mid-game position: some of the game's balls anywhere, not overlapping."""
    R = BALL_RADIUS_MM / 1000
    numbers = list(range(1, 10)) if game == "nineball" else list(range(1, 16))
    n = int(rng.integers(2, len(numbers) + 1)) if game == "nineball" else int(rng.integers(3, 16))
    chosen = sorted(rng.choice(numbers, size=n, replace=False).tolist())
    placed = {}
    for key in ["cue"] + [str(k) for k in chosen]:
        for _ in range(500):
            x = rng.uniform(R + 0.002, tbl.w - R - 0.002)
            y = rng.uniform(R + 0.002, tbl.l - R - 0.002)
            if rng.random() < 0.08:  # now and then frozen to a cushion
                if rng.random() < 0.5:
                    x = R + 1e-4 if rng.random() < 0.5 else tbl.w - R - 1e-4
                else:
                    y = R + 1e-4 if rng.random() < 0.5 else tbl.l - R - 1e-4
            near_pocket = any(math.hypot(x - p.center[0], y - p.center[1]) < p.radius + 2.2 * R for p in tbl.pockets.values())
            if near_pocket or any(math.hypot(x - a, y - b) < 2 * R + 0.003 for a, b in placed.values()):
                continue
            placed[key] = (x, y)
            break
    balls = {k: pt.Ball.create(k, xy=xy) for k, xy in placed.items()}
    return balls


def _angle(a, b):
    return math.degrees(math.atan2(b[1] - a[1], b[0] - a[0]))


def _mirror(p, tbl, rng):
    """p mirrored across a random cushion line (the ball's centre reflects R inside it)."""
    R = BALL_RADIUS_MM / 1000
    side = int(rng.integers(4))
    x, y = p
    if side == 0:
        return (2 * R - x, y)
    if side == 1:
        return (2 * (tbl.w - R) - x, y)
    if side == 2:
        return (x, 2 * R - y)
    return (x, 2 * (tbl.l - R) - y)


def _shot(pt, tbl, game, speed, rng, shot_type=None, balls=None):
    R = BALL_RADIUS_MM / 1000
    balls = balls or _layout(pt, tbl, game, rng)
    system = pt.System(table=tbl, balls=balls, cue=pt.Cue(cue_ball_id="cue"))
    objs = [k for k in balls if k != "cue"]
    target = min(objs, key=int) if game == "nineball" else objs[int(rng.integers(len(objs)))]
    cue = tuple(balls["cue"].state.rvw[0][:2])
    tgt = tuple(balls[target].state.rvw[0][:2])
    shot_type = shot_type or SHOT_TYPES[int(rng.integers(len(SHOT_TYPES)))]
    if shot_type == "combination" and len(objs) < 2:
        shot_type = "cut"
    straight = shot_type in ("near_miss", "thin")
    info = {"shot_type": shot_type, "target": int(target)}
    if shot_type == "straight":
        phi = pt.aim.at_ball(system, target, cut=float(rng.normal(0, 2.0)))
    elif shot_type == "cut":
        phi = pt.aim.at_ball(system, target, cut=float(rng.uniform(-60, 60)))
    elif shot_type == "bank":
        pocket = list(tbl.pockets.values())[int(rng.integers(6))]
        aim = _mirror(tuple(pocket.center[:2]), tbl, rng)
        phi = _angle(cue, _ghost(tgt, aim, R))
    elif shot_type == "kick":
        phi = _angle(cue, _mirror(tgt, tbl, rng))
    elif shot_type == "combination":
        second = min((k for k in objs if k != target), key=lambda k: math.hypot(*(balls[k].state.rvw[0][:2] - np.array(tgt))))
        info["second"] = int(second)
        phi = _angle(cue, _ghost(tgt, tuple(balls[second].state.rvw[0][:2]), R))
    elif shot_type in ("near_miss", "thin"):
        gap = float(rng.uniform(0.0005, 0.005))
        info["gap_mm"] = round(gap * 1000 * (1 if shot_type == "near_miss" else -1), 2)
        b = 2 * R + (gap if shot_type == "near_miss" else -gap)
        D = math.hypot(tgt[0] - cue[0], tgt[1] - cue[1])
        phi = _angle(cue, tgt) + (1 if rng.random() < 0.5 else -1) * math.degrees(math.asin(min(1.0, b / D)))
    else:  # no_contact: the direction that keeps furthest from every ball
        best, phi = -1.0, 0.0
        for cand in np.linspace(0, 360, 72, endpoint=False):
            u = (math.cos(math.radians(cand)), math.sin(math.radians(cand)))
            clear = min((_clearance(cue, u, tuple(balls[k].state.rvw[0][:2])) for k in objs), default=1.0)
            if clear > best:
                best, phi = clear, float(cand)
    side, top, elev = _spin(rng, straight)
    v = rng.uniform(*SHOT_SPEED[speed])
    info.update({"v_cue": round(float(v), 3), "phi": float(phi) % 360, "side": side, "top": top, "elevation": elev})
    return system, info


def _ghost(obj, towards, R):
    """Where the cue ball's centre must be at contact to send `obj` towards `towards`."""
    d = np.array(towards) - np.array(obj)
    d /= max(np.linalg.norm(d), 1e-9)
    return tuple(np.array(obj) - 2 * R * d)


def _clearance(start, u, p):
    """Distance from p to the ray start + s*u (s >= 0)."""
    dx, dy = p[0] - start[0], p[1] - start[1]
    s = max(0.0, dx * u[0] + dy * u[1])
    return math.hypot(dx - s * u[0], dy - s * u[1])


# --- pooltool's result -> the footage's trajectory ------------------------------------------------

def _samples(pt, system, t0, q0, rng):
    """One simulated stroke -> samples from t0 (its stroke), events, drops, final orientations."""
    cont = pt.continuize(system, dt=SAMPLE_DT, inplace=False)
    ids = {k: (0 if k == "cue" else int(k)) for k in system.balls}
    events = []
    pocketed = {}
    for e in system.events:
        et = e.event_type
        t = float(e.time) + t0
        agents = [a.id for a in e.agents]
        if et == pt.EventType.STICK_BALL:
            events.append({"t": t, "kind": "stick", "balls": [0]})
        elif et == pt.EventType.BALL_BALL:
            events.append({"t": t, "kind": "ball", "balls": sorted(ids[a] for a in agents)})
        elif et in (pt.EventType.BALL_LINEAR_CUSHION, pt.EventType.BALL_CIRCULAR_CUSHION):
            events.append({"t": t, "kind": "cushion", "balls": [ids[agents[0]]],
                           "where": "jaw" if et == pt.EventType.BALL_CIRCULAR_CUSHION else "rail"})
        elif et == pt.EventType.BALL_POCKET:
            events.append({"t": t, "kind": "pocket", "balls": [ids[agents[0]]]})
            c = system.table.pockets[agents[1]].center
            pocketed[ids[agents[0]]] = (t, (float(c[1] * 1000), float(c[0] * 1000)))
    t_end = float(system.events[-1].time) + t0
    balls = {}
    q_end = dict(q0 or {})
    for key, ball in cont.balls.items():
        states = sorted(list(ball.history_cts.states) + list(system.balls[key].history.states), key=lambda s: s.t)
        ts = np.array([s.t for s in states]) + t0
        keep = np.r_[True, np.diff(ts) > 1e-9]
        rvw = np.array([s.rvw for s in states])[keep]
        ts = ts[keep]
        pos = rvw[:, 0, :] @ M_PT.T * 1000.0
        omega = rvw[:, 2, :] @ M_PT.T
        n = ids[key]
        start = q_end.get(n)
        q = integrate_rotation(ts, omega, start if start is not None else random_orientation(rng))
        p_t = pocketed.get(n, (None, None))[0]
        if p_t is not None:  # after the drop pooltool puts it in the pocket: hold it where it went in
            pos[ts > p_t] = pos[ts <= p_t][-1]
        balls[n] = (ts, pos, q)
        q_end[n] = q[-1]
    return {"balls": balls, "events": events, "pocketed": pocketed, "t_end": t_end, "q_end": q_end}


def _assemble(parts, system, meta):
    """Strokes' samples -> one Trajectory, still from 0 to the first stroke and after the last."""
    end = parts[-1]["t_end"] + POST_ROLL
    tracks = {}
    events = [e for p in parts for e in p["events"]]
    pocketed = {}
    for p in parts:
        pocketed.update(p["pocketed"])
    for n in parts[0]["balls"]:
        ts, pos, q = [np.zeros(1)], [parts[0]["balls"][n][1][:1]], [parts[0]["balls"][n][2][:1]]
        for p in parts:
            if n in p["balls"]:
                ts.append(p["balls"][n][0])
                pos.append(p["balls"][n][1])
                q.append(p["balls"][n][2])
        ts.append(np.array([end]))
        pos.append(pos[-1][-1:])
        q.append(q[-1][-1:])
        ts, pos, q = np.concatenate(ts), np.vstack(pos), np.vstack(q)
        keep = np.r_[True, np.diff(ts) > 1e-9]
        ts, pos, q = ts[keep], pos[keep], q[keep]
        p_t, p_xy = pocketed.get(n, (None, None))
        tt, xx, yy, qq = thin(ts, pos[:, 0], pos[:, 1], q)
        tracks[n] = BallTrack(tt, xx, yy, qq, p_t, p_xy)
    L = system.table.l * 1000.0
    W = system.table.w * 1000.0
    meta = dict(meta, phi=round(meta["phi"], 4))
    return Trajectory((L, W), tracks, events, end, meta, BALL_RADIUS_MM)
