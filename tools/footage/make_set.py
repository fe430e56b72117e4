"""Make a seeded set of clips, each with its truth: the footage the analyser is measured on.

    python -m tools.footage.make_set --seeds 0-47 --out footage/tune
    python -m tools.footage.make_set --seeds 100000-100299 --out footage/heldout --fps 60,120

The seed decides everything about a clip.  Game, kind and speed cycle with
the seed (so any run of len(games) * len(kinds) * len(speeds) consecutive
seeds covers every combination once); light, cloth and frame rate are drawn
from the seed among the values given.  Seed ranges, by convention:

* 0-99999: tuning (look at these, fit on them);
* 100000-199999: held out (measure on these only; never look at them while tuning).

Kinds: "break" and "shot" are one stroke a clip; "sequence" (ask for it with --kinds) is a
break followed by up to two more shots from where the balls lie, several shots a clip.

pooltool is used when it imports (the `calibrate` extra), else pass
`--generator kinematic` for the built-in straight-line generator (quick, cruder).
Writes DIR/clip-SEED.mp4, DIR/clip-SEED.truth.json and one line per clip in DIR/index.jsonl;
clips already there are skipped, so a stopped run resumes.
"""

import argparse
import json
import os
import sys
import time

import numpy as np

from .scene import CLOTHS, FPS, LIGHTS

GAMES = ("eightball", "nineball", "straight")
KINDS = ("break", "shot")  # the default cycle; "sequence" (a break, then shots) on request
ALL_KINDS = KINDS + ("sequence",)
SPEEDS = ("soft", "normal", "hard")
TUNING = (0, 99999)
HELD_OUT = (100000, 199999)


def seed_range(text):
    """'A-B' or 'A' or 'A,B,C' -> list of ints."""
    out = []
    for part in text.split(","):
        if "-" in part.strip()[1:]:
            a, b = part.split("-", 1)
            out.extend(range(int(a), int(b) + 1))
        else:
            out.append(int(part))
    return out


def plan(seed, games=GAMES, kinds=KINDS, speeds=SPEEDS, fps=FPS, lights=tuple(LIGHTS), cloths=tuple(CLOTHS)):
    """The bands of clip `seed`: {game, kind, speed, fps, light, cloth}."""
    g, k, s = len(games), len(kinds), len(speeds)
    rng = np.random.default_rng([seed, 1])
    return {
        "game": games[seed % g],
        "kind": kinds[(seed // g) % k],
        "speed": speeds[(seed // (g * k)) % s],
        "fps": int(fps[int(rng.integers(len(fps)))]),
        "light": lights[int(rng.integers(len(lights)))],
        "cloth": cloths[int(rng.integers(len(cloths)))],
    }


def trajectory_for(seed, bands, generator):
    if generator == "kinematic":
        from .kinematic import random_clip

        return random_clip(bands["game"], bands["kind"], bands["speed"], seed)
    from .physics import simulate_clip

    return simulate_clip(bands["game"], bands["kind"], bands["speed"], seed)


def make_clip(seed, out_dir, bands, generator, size=None, frames_truth=True):
    from .render import render_clip

    video = os.path.join(out_dir, "clip-%d.mp4" % seed)
    t0 = time.time()
    traj = trajectory_for(seed, bands, generator)
    t_sim = time.time() - t0
    truth, t_render = render_clip(traj, video, seed, fps=bands["fps"], light=bands["light"], cloth=bands["cloth"],
                                  size=size, frames_truth=frames_truth, bands=dict(bands, generator=generator))
    return {"seed": seed, "video": os.path.basename(video), "bands": truth["bands"], "n_frames": truth["n_frames"],
            "duration_s": round(truth["n_frames"] / truth["fps"], 3), "simulate_s": round(t_sim, 2),
            "render_s": round(t_render, 2), "truncated": bool(traj.meta.get("truncated", False)),
            "shots": truth["shots"]}


def _csv(text, allowed=None):
    items = tuple(x.strip() for x in text.split(",") if x.strip())
    if allowed is not None:
        bad = [x for x in items if x not in allowed]
        if bad:
            raise SystemExit("unknown value(s) %s; choose from %s" % (", ".join(bad), ", ".join(map(str, allowed))))
    return items


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seeds", required=True, help="A-B (inclusive), or a comma list")
    p.add_argument("--out", required=True)
    p.add_argument("--games", default=",".join(GAMES))
    p.add_argument("--kinds", default=",".join(KINDS))
    p.add_argument("--speeds", default=",".join(SPEEDS))
    p.add_argument("--fps", default=",".join(map(str, FPS)))
    p.add_argument("--lights", default=",".join(LIGHTS))
    p.add_argument("--cloths", default=",".join(CLOTHS))
    p.add_argument("--size", help="WxH (default 1280x720)")
    p.add_argument("--generator", choices=["pooltool", "kinematic"], default="pooltool")
    p.add_argument("--no-frames", action="store_true", help="leave the per-frame truth out of the truth files")
    args = p.parse_args(argv)
    if args.generator == "pooltool":
        from .physics import ensure_hash_seed

        ensure_hash_seed("tools.footage.make_set", sys.argv[1:] if argv is None else argv)
    os.makedirs(args.out, exist_ok=True)
    opts = dict(games=_csv(args.games, GAMES), kinds=_csv(args.kinds, ALL_KINDS), speeds=_csv(args.speeds, SPEEDS),
                fps=tuple(int(f) for f in _csv(args.fps)), lights=_csv(args.lights, tuple(LIGHTS)),
                cloths=_csv(args.cloths, tuple(CLOTHS)))
    size = tuple(int(v) for v in args.size.lower().split("x")) if args.size else None
    index = os.path.join(args.out, "index.jsonl")
    done = set()
    if os.path.exists(index):
        with open(index) as f:
            done = {json.loads(line)["seed"] for line in f if line.strip()}
    seeds = seed_range(args.seeds)
    for n, seed in enumerate(seeds, 1):
        if seed in done:
            continue
        bands = plan(seed, **opts)
        rec = make_clip(seed, args.out, bands, args.generator, size, not args.no_frames)
        with open(index, "a") as f:
            f.write(json.dumps(rec, separators=(",", ":")) + "\n")
        print("%d/%d seed %d %s: %.1f s of video, simulated in %.1f s, rendered in %.1f s" % (
            n, len(seeds), seed, "/".join(str(bands[k]) for k in ("game", "kind", "speed", "fps", "light", "cloth")),
            rec["duration_s"], rec["simulate_s"], rec["render_s"]), file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
