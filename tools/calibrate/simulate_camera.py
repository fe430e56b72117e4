"""Break study, camera design: what an overhead camera would judge on the same breaks.

Re-simulates breaks of simulate_raw.py (same seed and index give the same break),
samples every ball's position at the camera's frame rate (pooltool's
continuize) and applies a camera model:

* frames every 1/fps s (exposure and motion blur ignored);
* each ball's centre seen with Gaussian noise `sigma_mm` per axis per frame;
* identity: each ball is tracked from the rack (colour and tracking keep the
  ball apart; no identity swaps modelled);
* a ball "reached a rail" when, away from the pocket mouths, the camera sees
  it within TOL_MM plus one frame's travel across the cushion line while it
  moves (a fast ball rebounds between two frames), or, while still (its
  positions over 1/6 s spread less than STILL_MM), within REST_MM with its
  positions averaged over those frames (a ball that creeps up to a cushion,
  or stops near it).

Writes per break {"i", "cam": {"<fps>": object balls seen on a rail}}.

    PYTHONHASHSEED=0 nice -n 10 .venv-cal/bin/python tools/calibrate/simulate_camera.py \
        --n 400 --seed 101 --out tests/data/breaks/cam-eightball.jsonl
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
TOL_MM = 6.0  # a rebound counts within this (plus one frame's travel) of the cushion
STILL_MM = 8.0  # positions over 1/6 s spread less than this: the ball is (nearly) still
REST_MM = 2.0  # a slow ball within this of the cushion (positions averaged) touches it


def camera_railed(system, fps, rng, sigma=SIGMA_MM / 1000.0, tol=TOL_MM / 1000.0):
    """{fps: object balls the camera sees on a rail} for each frame rate (each dividing the largest)."""
    import pooltool as pt

    cont = pt.continuize(system, dt=1.0 / max(fps), inplace=False)
    tracks = {}
    for bid, ball in cont.balls.items():
        if bid != "cue":
            rvw, s, _ = ball.history_cts.vectorize()
            tracks[bid] = (rvw[:, 0, :2], s)
    return {str(f): _seen(system, tracks, max(fps) // f, f, rng, sigma, tol) for f in fps}


def _smooth(a, n):
    """Centred moving average over n frames (edges use what there is)."""
    k = np.ones(n) / n
    num = np.convolve(a, k, mode="same")
    den = np.convolve(np.ones_like(a), k, mode="same")
    return num / den


def _seen(system, tracks, step, fps, rng, sigma, tol):
    """Object balls whose track touches a cushion: close to it while moving, or resting on it."""
    import pooltool as pt

    w, l = system.table.w, system.table.l
    n_rest = max(3, fps // 6)  # frames averaged for a slow ball (1/6 s)
    seen = set()
    for bid, (pos, s) in tracks.items():
        pos, s = pos[::step], s[::step]
        xy = pos + rng.normal(0.0, sigma, size=pos.shape)
        on_table = s != pt.constants.pocketed
        R = system.balls[bid].params.R
        mouth = np.zeros(len(xy), dtype=bool)
        for pk in system.table.pockets.values():
            c = np.asarray(pk.center)[:2]
            mouth |= np.hypot(xy[:, 0] - c[0], xy[:, 1] - c[1]) < pk.radius + 2 * R
        ok = on_table & ~mouth
        sx, sy = _smooth(xy[:, 0], n_rest), _smooth(xy[:, 1], n_rest)
        # still: its positions over the window spread no more than the noise (a rebound does)
        spread = np.sqrt(np.maximum(0.0, _smooth(xy[:, 0] ** 2, n_rest) - sx ** 2)
                         + np.maximum(0.0, _smooth(xy[:, 1] ** 2, n_rest) - sy ** 2))
        slow = spread < STILL_MM / 1000.0
        v = np.zeros_like(xy)
        v[1:] = np.abs(np.diff(xy, axis=0)) * fps
        for g, gs, vn in ((xy[:, 0] - R, sx - R, v[:, 0]), (w - xy[:, 0] - R, w - sx - R, v[:, 0]),
                          (xy[:, 1] - R, sy - R, v[:, 1]), (l - xy[:, 1] - R, l - sy - R, v[:, 1])):
            moving_touch = ~slow & (g <= tol + vn / fps)
            resting_touch = slow & (gs <= REST_MM / 1000.0)
            if ((moving_touch | resting_touch) & ok).any():
                seen.add(bid)
                break
    return len(seen)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--game", choices=["eightball", "nineball"], default="eightball")
    p.add_argument("--n", type=int, default=100)
    p.add_argument("--start", type=int, default=0)
    p.add_argument("--seed", type=int, default=101)
    p.add_argument("--speed", type=float, nargs=2, default=(0.8, 13.0))
    p.add_argument("--fps", type=int, nargs="+", default=list(FPS),
                   help="frame rates, each dividing the largest (default 30 60)")
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
            cam = camera_railed(system, tuple(args.fps), rng)
            f.write(json.dumps({"i": i, "obj": rec["obj"], "cam": cam}, separators=(",", ":")) + "\n")
            f.flush()


if __name__ == "__main__":
    main()
