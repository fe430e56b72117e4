"""Which end is the head, told from the picture (host/camera/ends.py), against the truth.

    .venv/bin/python tests/bench/bench_camera_ends.py frames --seeds 0-99 [--generator kinematic]
    .venv/bin/python tests/bench/bench_camera_ends.py clips DIR [DIR ...]

`frames`: for each seed, the clip's first frame only is rendered (tools/footage, the same
scene and balls as `make_set` would render) and the analyser set up on it, as the
analyser decides the ends from its first frame; its head end against the truth's
`scene.head_end`. Prints per kind (break / shot) and game how many were found right,
wrong (a confident wrong turn: must not happen) or left to the default (head at the
image's left), and how many of the defaults were right by luck.

`clips`: each rendered clip analysed in full twice with the table found in the picture,
as before (`--head left`: the finder's old assumption) and now (ends told from the
picture); prints the rest-position median error per head end, before and after.
Tuning seeds only (0-99999).
"""
import argparse
import glob
import json
import os
import sys
from collections import defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)


def first_frame(seed, generator):
    """(BGR frame 0, truth: {head_end, game, kind}) of clip `seed` as make_set plans it."""
    from tools.footage import make_set
    from tools.footage.render import Renderer
    from tools.footage.scene import scene_for
    bands = make_set.plan(seed)
    traj = make_set.trajectory_for(seed, bands, generator)
    scene = scene_for(seed, traj.table_mm, fps=bands["fps"], light=bands["light"], cloth=bands["cloth"])
    r = Renderer(traj, scene, seed)
    img, _ = r.render_frame(0)
    return img, {"head_end": scene.to_json()["head_end"], "game": bands["game"], "kind": bands["kind"],
                 "light": bands["light"], "corners_px": r.corners_px()}


TABLE_OFF_PX = 25.0      # found corners farther than this from the truth's: the table was not found


def decide_on(frame, game=None, corners_px=None):
    """The analyser's head end for a picture whose first frame is `frame`, and whether the
    table it found is the truth's (`corners_px`, either way round)."""
    import numpy as np
    from host.camera.analyse import Analyser
    from host.camera import ends
    a = Analyser(game=game)
    a.feed(0.0, frame)
    found = np.asarray(a.found["corners_px"], dtype=float)
    truth = np.asarray(corners_px, dtype=float)
    off = min(np.hypot(*(found - t).T).max() for t in (truth, np.asarray(ends.half_turn(truth))))
    return a.head_end, off <= TABLE_OFF_PX


def verdict(head, truth_side):
    if head["found_by"].startswith("assumed"):
        return "default"
    return "right" if head["image_side"] == truth_side else "wrong"


def cmd_frames(args):
    from tools.footage.make_set import seed_range
    counts = defaultdict(lambda: defaultdict(int))
    for seed in seed_range(args.seeds):
        if seed >= 100000:
            raise SystemExit("held-out seeds (>= 100000) are not for tuning")
        img, truth = first_frame(seed, args.generator)
        try:
            head, table_ok = decide_on(img, truth["game"], truth["corners_px"])
        except ValueError as e:
            print("seed %d: %s" % (seed, e))
            continue
        v = verdict(head, truth["head_end"])
        if not table_ok:
            v += ", table off"
        print("seed %5d %-9s %-5s %-5s head %-5s -> %-5s %-18s %.2f %s" % (
            seed, truth["game"], truth["kind"], truth["light"], truth["head_end"], head["image_side"], v,
            head["confidence"], head["found_by"]), flush=True)
        for key in ("all", truth["kind"], truth["game"], "%s %s" % (truth["kind"], truth["game"]),
                    "head " + truth["head_end"]):
            counts[key][v] += 1
            if v == "default" and truth["head_end"] == "left":
                counts[key]["default, right by luck"] += 1
    print("\n| band | clips | right | wrong | default (of which head left) | table not found (right / wrong / default) |")
    print("|---|---|---|---|---|---|")
    for key, c in counts.items():
        n = sum(c[k] for k in ("right", "wrong", "default"))
        off = [c[k + ", table off"] for k in ("right", "wrong", "default")]
        print("| %s | %d | %d | %d | %d (%d) | %d / %d / %d |" % (
            key, n + sum(off), c["right"], c["wrong"], c["default"], c["default, right by luck"], *off))


def median(v):
    v = sorted(v)
    return v[len(v) // 2] if v else float("nan")


def cmd_clips(args):
    from tests.bench.bench_camera import analyse_clip, score_clip
    errs = defaultdict(list)
    for d in args.dirs:
        for video in sorted(glob.glob(os.path.join(d, "clip-*.mp4"))):
            with open(os.path.splitext(video)[0] + ".truth.json") as f:
                truth = json.load(f)
            side = truth["scene"]["head_end"]
            for name, head in (("before", "left"), ("after", None)):
                shots = analyse_clip(video, truth, auto=True, head=head)[0]
                rows, _ = score_clip(truth, shots)
                e = [x for r in rows for x in r["rest_err"]]
                errs[(side, name)].extend(e)
                found = shots[0]["head_end"] if shots else None
                print("%s head %-5s %-6s rest median %7.1f mm (%d balls) %s" % (
                    os.path.basename(video), side, name, median(e), len(e), found), flush=True)
    print("\n| head end | clips' balls | rest median before | after |")
    print("|---|---|---|---|")
    for side in ("left", "right"):
        b, a = errs[(side, "before")], errs[(side, "after")]
        if b:
            print("| %s | %d | %.1f mm | %.1f mm |" % (side, len(b), median(b), median(a)))


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    f = sub.add_parser("frames")
    f.add_argument("--seeds", required=True)
    f.add_argument("--generator", choices=["kinematic", "pooltool"], default="kinematic")
    c = sub.add_parser("clips")
    c.add_argument("dirs", nargs="+")
    args = p.parse_args(argv)
    return cmd_frames(args) if args.cmd == "frames" else cmd_clips(args)


if __name__ == "__main__":
    sys.exit(main())
