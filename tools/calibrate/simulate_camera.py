"""Break study, camera design: what an overhead camera would judge on the same breaks.

Re-simulates breaks of simulate_raw.py (same seed and index give the same break),
samples every ball's position at the camera's frame rate (pooltool's
continuize) and applies a camera model:

* frames every 1/fps s (exposure and motion blur ignored);
* each ball's centre seen with Gaussian noise `sigma_mm` per axis per frame;
* identity: each ball is tracked from the rack (colour and tracking keep the
  ball apart; no identity swaps modelled);
* a ball "reached a rail" when, away from the pocket mouths, in some frame its centre is within
  R + tol + (its speed across the cushion line x 1/fps) of a cushion line:
  a fast ball can rebound between two frames, so the reach grows with speed.

Writes per break {"i", "cam": {"<fps>": object balls seen on a rail}}.

    PYTHONHASHSEED=0 nice -n 10 .venv-cal/bin/python tools/calibrate/simulate_camera.py \
        --n 300 --seed 101 --out build/breaks/cam-eightball.jsonl
"""

import argparse
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import simulate_raw  # noqa: E402
from simulate_breaks import stick_ratio  # noqa: E402

FPS = (30, 60)
SIGMA_MM = 3.0  # 1080p over a 9 ft table: ~1.4 mm a pixel; centroid noise ~2 px
TOL_MM = 6.0


def camera_railed(system, fps, rng, sigma=SIGMA_MM / 1000.0, tol=TOL_MM / 1000.0):
    """{fps: object balls the camera sees on a rail} for each frame rate (dividing FPS[-1])."""
    import pooltool as pt

    cont = pt.continuize(system, dt=1.0 / max(FPS), inplace=False)
    tracks = {}
    for bid, ball in cont.balls.items():
        if bid != "cue":
            rvw, s, _ = ball.history_cts.vectorize()
            tracks[bid] = (rvw[:, 0, :2], s)
    return {str(f): _seen(system, tracks, max(FPS) // f, f, rng, sigma, tol) for f in fps}


def _seen(system, tracks, step, fps, rng, sigma, tol):
    import pooltool as pt

    w, l = system.table.w, system.table.l
    seen = set()
    for bid, (pos, s) in tracks.items():
        pos, s = pos[::step], s[::step]
        xy = pos + rng.normal(0.0, sigma, size=pos.shape)
        on_table = s != pt.constants.pocketed
        R = system.balls[bid].params.R
        v = np.zeros_like(xy)
        v[1:] = np.abs(np.diff(xy, axis=0)) * fps
        d = np.stack([xy[:, 0], w - xy[:, 0], xy[:, 1], l - xy[:, 1]], axis=1)
        vn = np.stack([v[:, 0], v[:, 0], v[:, 1], v[:, 1]], axis=1)
        near = (d - R <= tol + vn / fps) & on_table[:, None]
        # no cushion in a pocket's mouth: a ball rolling into a pocket crosses the line there
        for pk in system.table.pockets.values():
            c = np.asarray(pk.center)[:2]
            mouth = np.hypot(xy[:, 0] - c[0], xy[:, 1] - c[1]) < pk.radius + 2 * R
            near &= ~mouth[:, None]
        if near.any():
            seen.add(bid)
    return len(seen)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--game", choices=["eightball", "nineball"], default="eightball")
    p.add_argument("--n", type=int, default=100)
    p.add_argument("--start", type=int, default=0)
    p.add_argument("--seed", type=int, default=101)
    p.add_argument("--speed", type=float, nargs=2, default=(0.8, 13.0))
    p.add_argument("--out", required=True)
    args = p.parse_args(argv)
    import pooltool as pt

    ratio = stick_ratio()
    orig = pt.simulate
    with open(args.out, "a") as f:
        for i in range(args.start, args.start + args.n):
            kept = {}

            def keep(system, **kw):
                kept["s"] = orig(system, **kw)
                return kept["s"]

            pt.simulate = keep
            try:
                rec = simulate_raw.simulate_one(args.game, args.seed, i, ratio, tuple(args.speed))
            finally:
                pt.simulate = orig
            rng = np.random.default_rng([args.seed, i, 99])
            system = kept["s"]
            cam = camera_railed(system, FPS, rng)
            f.write(json.dumps({"i": i, "obj": rec["obj"], "cam": cam}, separators=(",", ":")) + "\n")
            f.flush()


if __name__ == "__main__":
    main()
