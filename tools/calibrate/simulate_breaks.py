"""Simulate pool breaks with pooltool and write what our rail piezos would report.

Calibration data for shared_rules/rules/break_estimator.py.  Runs only in the
separate calibration venv (pooltool is large; see docs/break-estimator.md):

    PYTHONHASHSEED=0 /work/pt-venv/bin/python tools/calibrate/simulate_breaks.py \
        --game eightball --n 400 --seed 1 --out tests/data/breaks/eightball.jsonl

One JSON object per line, per break:

    {"i": 17, "ft": 7, "v": 6.42,                               # break index, table feet; cue-ball speed after the strike, m/s
     "obj": 7, "cue": true,                            # truth: object balls / cue ball on a cushion
     "pot": 1, "cue_pot": false,                       # truth: object balls pocketed, cue scratched
     "imp": [[t_us, rail, strength], ...]}             # the sensor view (board-reported RAIL events)

The sensor model (constants below, documented in docs/break-estimator.md):
  * rail index by the ball's position at impact (CONTRACT rails 0..5; pooltool's
    table has the head rail at y=0 and "left" at x=0 seen from the head end);
  * strength = normal speed into the cushion (m/s) * STRENGTH_PER_MPS, times
    log-normal noise (sigma NOISE_SIGMA), clipped to 0..65535;
  * a piezo sees nothing below PIEZO_THRESHOLD;
  * a board dead time of DEAD_TIME_US per rail, started by each reported impact:
    an impact inside it is lost.
t_us counts from the cue strike.
"""

import argparse
import json
import math
import multiprocessing
import os
import random
import sys

import numpy as np

STRENGTH_PER_MPS = 10000.0  # 1 m/s normal speed into the rail -> 10000 counts
NOISE_SIGMA = 0.15  # multiplicative (log-normal) strength noise
PIEZO_THRESHOLD = 1000  # 0.1 m/s: softer touches do not trigger the piezo
DEAD_TIME_US = 30000  # board dead time per rail
CUE_SPEED_RANGE = (2.5, 9.0)  # cue-ball speed after the strike, m/s
SAFE_SPEED_RANGE = (1.5, 5.0)  # straight-pool safe breaks are soft


def rail_index(x, y, w, l):
    """CONTRACT rail 0..5 of the cushion nearest to (x, y)."""
    d = [(y, "head"), (l - y, "foot"), (x, "left"), (w - x, "right")]
    side = min(d)[1]
    if side == "head":
        return 0
    if side == "foot":
        return 3
    if side == "left":
        return 1 if y < l / 2 else 2
    return 5 if y < l / 2 else 4


def sensor_view(cushion_hits, rng, debug=False):
    """cushion_hits: [(t_s, rail, v_normal, ball)] -> board RAIL events [(t_us, rail, s)].

    debug adds the ball id as a 4th item (for analysis only; never committed).
    """
    out = []
    last = {}
    for t, rail, vn, ball in sorted(cushion_hits):
        s = vn * STRENGTH_PER_MPS * math.exp(rng.normal(0.0, NOISE_SIGMA))
        s = int(min(65535, max(0, round(s))))
        if s < PIEZO_THRESHOLD:
            continue
        t_us = int(round(t * 1e6))
        if rail in last and t_us - last[rail] < DEAD_TIME_US:
            continue
        last[rail] = t_us
        out.append([t_us, rail, s, ball] if debug else [t_us, rail, s])
    return out


def make_table(name):
    import pooltool as pt

    if name == "7ft":
        return pt.Table.default()
    if name == "9ft":
        from pooltool.objects import PocketTableSpecs

        return pt.Table.from_table_specs(PocketTableSpecs(l=2.54, w=1.27))
    raise ValueError(name)


def stick_ratio():
    """Cue-ball speed per unit of cue-stick speed V0 (measured once)."""
    import pooltool as pt

    table = make_table("7ft")
    cue_ball = pt.Ball.create("cue", xy=(table.w / 2, table.l / 4))
    system = pt.System(table=table, balls={"cue": cue_ball}, cue=pt.Cue(cue_ball_id="cue"))
    system.cue.set_state(V0=1.0, phi=90.0, a=0.0, b=0.0)
    pt.simulate(system, inplace=True, max_events=5)
    for e in system.events:
        if e.event_type == pt.EventType.STICK_BALL:
            v = e.agents[1].final.state.rvw[1]
            return float(math.hypot(v[0], v[1]))
    raise RuntimeError("no stick-ball event")


def seed_break(seed, i):
    """Seed random, numpy.random and a generator of its own for break i (repeatable alone)."""
    sub = seed * 1000003 + i
    random.seed(sub)
    np.random.seed(sub % (2**32))
    return np.random.default_rng(sub)


def place_cue_ball(balls, table, rng):
    """The cue ball anywhere in the kitchen (behind the head string, y < l/4); -> the apex ball."""
    balls["cue"].state.rvw[0][0] = rng.uniform(0.12, 0.88) * table.w
    balls["cue"].state.rvw[0][1] = rng.uniform(0.10, 0.245) * table.l
    return min((b for k, b in balls.items() if k != "cue"), key=lambda b: b.state.rvw[0][1])


def strike(system, rng, V0, phi, side, top_draw, elevation, max_events):
    """Strike with random spin and simulate: side spin N(0, side[0]) clipped to
    +-side[1], top/draw uniform over top_draw, cue elevation uniform 0..elevation deg."""
    import pooltool as pt

    a = float(np.clip(rng.normal(0.0, side[0]), -side[1], side[1]))
    b = float(rng.uniform(*top_draw))
    theta = float(rng.uniform(0.0, elevation))
    system.cue.set_state(V0=V0, phi=phi, theta=theta, a=a, b=b)
    pt.simulate(system, inplace=True, max_events=max_events)


def read_events(system):
    """A simulated break's events -> (cue-ball speed after the strike or None,
    [(t_s, ball id, position xyz, normal speed into the cushion)] per cushion
    contact (linear or jaw), ids of the balls pocketed)."""
    import pooltool as pt

    v_cue = None
    contacts = []
    pocketed = set()
    for e in system.events:
        et = e.event_type
        if et == pt.EventType.STICK_BALL and v_cue is None:
            v = e.agents[1].final.state.rvw[1]
            v_cue = float(math.hypot(v[0], v[1]))
        elif et in (pt.EventType.BALL_LINEAR_CUSHION, pt.EventType.BALL_CIRCULAR_CUSHION):
            ball, cush = e.agents[0], e.agents[1]
            xyz = ball.initial.state.rvw[0]
            vel = ball.initial.state.rvw[1]
            n = cush.initial.get_normal_xy(xyz)
            contacts.append((e.time, ball.id, xyz, abs(float(vel[0] * n[0] + vel[1] * n[1]))))
        elif et == pt.EventType.BALL_POCKET:
            pocketed.add(e.agents[0].id)
    return v_cue, contacts, pocketed


def simulate_one(job):
    """One break: job = (game, table_name, seed, i, ratio) -> record dict."""
    import pooltool as pt

    game, table_name, seed, i, ratio, debug = job
    rng = seed_break(seed, i)

    table = make_table(table_name)
    gtype = pt.GameType.NINEBALL if game == "nineball" else pt.GameType.EIGHTBALL
    balls = pt.get_rack(gtype, table)
    apex = place_cue_ball(balls, table, rng)
    system = pt.System(table=table, balls=balls, cue=pt.Cue(cue_ball_id="cue"))

    if game == "straight":
        # safe break: a thin-ish hit on a corner ball of the back row
        back = sorted((b for k, b in balls.items() if k != "cue"), key=lambda b: -b.state.rvw[0][1])[:5]
        corner = min(back, key=lambda b: b.state.rvw[0][0]) if rng.random() < 0.5 else max(back, key=lambda b: b.state.rvw[0][0])
        v_target = rng.uniform(*SAFE_SPEED_RANGE)
        cut = rng.uniform(15.0, 50.0) * (1 if corner.state.rvw[0][0] > table.w / 2 else -1)
        phi = pt.aim.at_ball(system, corner.id, cut=cut) + rng.normal(0.0, 0.35)
    else:
        v_target = rng.uniform(*CUE_SPEED_RANGE)
        phi = pt.aim.at_ball(system, apex.id) + rng.normal(0.0, 0.35)
    strike(system, rng, v_target / ratio, phi, (0.12, 0.4), (-0.4, 0.3), 4.0, 6000)

    v_cue, contacts, pocketed = read_events(system)
    hits = [(t, rail_index(xyz[0], xyz[1], table.w, table.l), vn, ball) for t, ball, xyz, vn in contacts]
    railed = set(c[1] for c in contacts)

    return {
        "i": i,
        "ft": int(table_name[0]),
        "v": round(v_cue if v_cue is not None else v_target, 2),
        "obj": len(railed - {"cue"}),
        "cue": "cue" in railed,
        "pot": len(pocketed - {"cue"}),
        "cue_pot": "cue" in pocketed,
        "imp": sensor_view(hits, rng, debug),
    }


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--game", choices=["eightball", "nineball", "straight"], required=True)
    p.add_argument("--table", choices=["7ft", "9ft"], default="7ft")
    p.add_argument("--n", type=int, default=100)
    p.add_argument("--start", type=int, default=0, help="first break index")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--out", required=True)
    p.add_argument("--debug", action="store_true", help="tag impacts with the ball id (analysis only)")
    args = p.parse_args(argv)
    if os.environ.get("PYTHONHASHSEED") != "0":
        print("warning: set PYTHONHASHSEED=0 for repeatable racks", file=sys.stderr)

    ratio = stick_ratio()
    jobs = [(args.game, args.table, args.seed, i, ratio, args.debug) for i in range(args.start, args.start + args.n)]
    with multiprocessing.get_context("fork").Pool(args.workers) as pool, open(args.out, "a") as f:
        for n, rec in enumerate(pool.imap(simulate_one, jobs), 1):
            f.write(json.dumps(rec, separators=(",", ":")) + "\n")
            f.flush()
            if n % 20 == 0:
                print("%s: %d/%d" % (args.game, n, len(jobs)), file=sys.stderr)


if __name__ == "__main__":
    main()
