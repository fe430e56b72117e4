"""Benchmark: render held-out footage clips; print render speed and the set's statistics per band.

    .venv/bin/python tests/bench/bench_footage.py [--n 6] [--first 100000] [--generator kinematic|pooltool]
        [--size 1280x720] [--fps 60,120] [--out DIR]

Clips come from tools/footage/make_set.py's held-out seed range (100000 on) unless --first
says otherwise.  Prints, per clip, the seconds spent simulating and rendering and the speed
(frames/s and x real time), then per band (game, kind, speed, fps, light): clips, shots, the
share of shots with a first contact, the mean number of balls railed after contact, balls
pocketed, and on breaks the mean number of object balls that reached a cushion.  No
assertion: numbers to read (see tests/bench/README.md).
"""

import argparse
import collections
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

from tools.footage import make_set  # noqa: E402
from tools.footage.make_set import HELD_OUT  # noqa: E402


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=6)
    p.add_argument("--first", type=int, default=HELD_OUT[0])
    p.add_argument("--generator", choices=["pooltool", "kinematic"], default=None,
                   help="default: pooltool if it imports, else kinematic")
    p.add_argument("--size", default="1280x720")
    p.add_argument("--fps", default="60,120")
    p.add_argument("--out", help="keep the clips here (default: a temporary folder)")
    args = p.parse_args(argv)
    gen = args.generator
    if gen is None:
        try:
            import pooltool  # noqa: F401
            gen = "pooltool"
        except ImportError:
            gen = "kinematic"
    if gen == "pooltool" and os.environ.get("PYTHONHASHSEED") != "0":  # pooltool's racks hash strings
        os.execve(sys.executable, [sys.executable, os.path.abspath(__file__)] + (sys.argv[1:] if argv is None else argv),
                  dict(os.environ, PYTHONHASHSEED="0"))
    size = tuple(int(v) for v in args.size.lower().split("x"))
    fps = tuple(int(f) for f in args.fps.split(","))
    out = args.out or tempfile.mkdtemp(prefix="footage-bench-")
    os.makedirs(out, exist_ok=True)
    recs = []
    print("generator %s, %dx%d, fps %s, seeds %d-%d, into %s" % (gen, size[0], size[1], fps, args.first,
                                                               args.first + args.n - 1, out))
    print("%-7s %-28s %7s %7s %8s %9s %8s" % ("seed", "bands", "video s", "sim s", "render s", "frames/s", "x real"))
    t_all = time.time()
    for seed in range(args.first, args.first + args.n):
        bands = make_set.plan(seed, fps=fps)
        rec = make_set.make_clip(seed, out, bands, gen, size, frames_truth=False)
        recs.append(rec)
        print("%-7d %-28s %7.1f %7.1f %8.1f %9.1f %8.2f" % (
            seed, "/".join(str(bands[k]) for k in ("game", "kind", "speed", "fps")), rec["duration_s"],
            rec["simulate_s"], rec["render_s"], rec["n_frames"] / rec["render_s"], rec["duration_s"] / rec["render_s"]))
    frames = sum(r["n_frames"] for r in recs)
    render = sum(r["render_s"] for r in recs)
    video = sum(r["duration_s"] for r in recs)
    print("\nall: %d clips, %.1f s of video, %d frames rendered in %.1f s: %.1f frames/s, %.2f x real time "
          "(wall %.1f s)" % (len(recs), video, frames, render, frames / render, video / render, time.time() - t_all))
    for f in sorted({r["bands"]["fps"] for r in recs}):
        sub = [r for r in recs if r["bands"]["fps"] == f]
        print("  %d fps: %.1f frames/s; a 10 s clip takes %.0f s" % (
            f, sum(r["n_frames"] for r in sub) / sum(r["render_s"] for r in sub),
            10 * f / (sum(r["n_frames"] for r in sub) / sum(r["render_s"] for r in sub))))
    print("\nper band: clips, shots, with a first contact, mean railed after contact, pocketed, "
          "mean object balls railed on breaks")
    for key in ("game", "kind", "speed", "fps", "light"):
        groups = collections.defaultdict(list)
        for r in recs:
            groups[r["bands"][key]].append(r)
        for value, rs in sorted(groups.items(), key=lambda kv: str(kv[0])):
            shots = [s for r in rs for s in r["shots"]]
            contact = sum(1 for s in shots if s["first_contact"] is not None)
            railed = sum(len(s["railed_after_contact"]) for s in shots) / max(len(shots), 1)
            pocketed = sum(len(s["pocketed"]) for s in shots)
            brk = [s["object_balls_railed_on_break"] for s in shots if s["object_balls_railed_on_break"] is not None]
            print("  %-6s %-10s clips %3d shots %3d contact %3d railed %.1f pocketed %3d%s" % (
                key, value, len(rs), len(shots), contact, railed, pocketed,
                (" break-railed %.1f" % (sum(brk) / len(brk))) if brk else ""))


if __name__ == "__main__":
    main()
