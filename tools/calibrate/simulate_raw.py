"""Simulate breaks with pooltool and keep every cushion hit (the physics, no sensor).

The break study (docs/break-estimator.md, "Sensor study") applies several
sensor designs to the same physics, so the simulation is run once and the
sensor models live in tools/calibrate/sensors.py.  Calibration venv only:

    PYTHONHASHSEED=0 nice -n 10 .venv-cal/bin/python tools/calibrate/simulate_raw.py \
        --game eightball --n 800 --seed 101 --speed 0.8 13 --out tests/data/breaks/raw-eightball.jsonl

One JSON object per line, per break:

    {"i": 17, "game": "eightball", "ft": 7, "v": 6.42,     # cue-ball speed after the strike, m/s
     "rack": 0.012, "w": 990, "l": 1980,                   # rack spacing factor; table mm
     "obj": 7, "cue": true, "pot": 1, "cue_pot": false,    # truth, as simulate_breaks.py
     "trunc": false,                                       # hit the event cap before the balls stopped
     "hits": [[t_us, ball, x_mm, y_mm, vn_mm_s], ...]}     # ball 0 = cue ball

Variation per break: cue-ball speed uniform over --speed (default 0.8-12 m/s),
rack tightness (pooltool's spacing_factor, log-uniform 2e-4..4e-2: from a
frozen rack to gaps of about 2 mm), table 7 ft or 9 ft, cue ball anywhere in
the kitchen, aim noise, side spin, top/draw and cue elevation.  Each break
seeds its own generators from (seed, i), so any break can be regenerated alone.
"""

import argparse
import json
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from simulate_breaks import make_table, place_cue_ball, read_events, seed_break, stick_ratio, strike  # noqa: E402,E501

MAX_EVENTS = 12000


def safe_break_aim(pt, system, balls, table, rng):
    """14.1's safe break: a cut of 15-50 degrees on a corner ball of the rack's back row."""
    back = sorted((b for k, b in balls.items() if k != "cue"), key=lambda b: -b.state.rvw[0][1])[:5]
    left = min(back, key=lambda b: b.state.rvw[0][0])
    right = max(back, key=lambda b: b.state.rvw[0][0])
    corner = left if rng.random() < 0.5 else right
    cut = rng.uniform(15.0, 50.0) * (1 if corner.state.rvw[0][0] > table.w / 2 else -1)
    return pt.aim.at_ball(system, corner.id, cut=cut)


def simulate_one(game, seed, i, ratio, speed):
    import pooltool as pt

    rng = seed_break(seed, i)

    table_name = "7ft" if rng.random() < 0.6 else "9ft"
    table = make_table(table_name)
    gtype = pt.GameType.NINEBALL if game == "nineball" else pt.GameType.EIGHTBALL
    spacing = float(math.exp(rng.uniform(math.log(2e-4), math.log(4e-2))))
    balls = pt.get_rack(gtype, table, spacing_factor=spacing)
    apex = place_cue_ball(balls, table, rng)
    system = pt.System(table=table, balls=balls, cue=pt.Cue(cue_ball_id="cue"))
    v_target = rng.uniform(*speed)
    if game == "straight":
        phi = safe_break_aim(pt, system, balls, table, rng) + rng.normal(0.0, 0.6)
    else:
        phi = pt.aim.at_ball(system, apex.id) + rng.normal(0.0, 0.6)
    strike(system, rng, v_target / ratio, phi, (0.15, 0.5), (-0.5, 0.4), 6.0, MAX_EVENTS)

    v_cue, contacts, pocketed = read_events(system)
    ids = {"cue": 0}
    hits = [[int(round(t * 1e6)), ids.setdefault(ball, len(ids)), int(round(xyz[0] * 1000)),
             int(round(xyz[1] * 1000)), int(round(vn * 1000))] for t, ball, xyz, vn in contacts]
    railed = set(c[1] for c in contacts)
    hits.sort()
    return {
        "i": i, "game": game, "ft": int(table_name[0]),
        "v": round(v_cue if v_cue is not None else v_target, 3),
        "rack": round(spacing, 5),
        "w": int(round(table.w * 1000)), "l": int(round(table.l * 1000)),
        "obj": len(railed - {"cue"}), "cue": "cue" in railed,
        "pot": len(pocketed - {"cue"}), "cue_pot": "cue" in pocketed,
        "trunc": len(system.events) >= MAX_EVENTS,
        "hits": hits,
    }


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--game", choices=["eightball", "nineball", "straight"], required=True)
    p.add_argument("--n", type=int, default=100)
    p.add_argument("--start", type=int, default=0, help="first break index")
    p.add_argument("--seed", type=int, default=101)
    p.add_argument("--speed", type=float, nargs=2, default=None, metavar=("LO", "HI"),
                   help="cue-ball speed range, m/s (default 0.8-12; straight pool's safe break 1-5)")
    p.add_argument("--out", required=True)
    args = p.parse_args(argv)
    if os.environ.get("PYTHONHASHSEED") != "0":
        print("warning: set PYTHONHASHSEED=0 for repeatable racks", file=sys.stderr)
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    ratio = stick_ratio()
    speed = tuple(args.speed) if args.speed else ((1.0, 5.0) if args.game == "straight" else (0.8, 12.0))
    with open(args.out, "a") as f:
        for n, i in enumerate(range(args.start, args.start + args.n), 1):
            rec = simulate_one(args.game, args.seed, i, ratio, speed)
            f.write(json.dumps(rec, separators=(",", ":")) + "\n")
            f.flush()
            if n % 50 == 0:
                print("%s: %d/%d" % (args.game, n, args.n), file=sys.stderr)


if __name__ == "__main__":
    main()
