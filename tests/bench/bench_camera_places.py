"""Where the balls lay when the cue ball was struck (the facts' start_mm), against rendered
footage with per-frame truth, and the kitchen verdict the referee would draw from it.

    .venv/bin/python tests/bench/bench_camera_places.py DIR [DIR ...] [--one-core]

DIR holds clips rendered by tools/footage with their per-frame truth (VIDEO.mp4 and
VIDEO.truth.json, not `--no-frames`; docs/camera.md "Measuring"). Each clip is analysed with
the truth's corners and table; each analysed shot is paired with its truth shot by start time.
The truth's start place of a ball is its place in the last truth frame before the stroke.
Prints per band (game, kind/speed, light, fps), never only the average:

* start places: median and p99 error (mm) of the balls on the table, the share given at a
  confidence >= 0.85 (what the referee uses) and the p99 error of those;
* the cue ball's side of the head string as the referee reads it (rules/camera.py: more than
  PLACE_MARGIN_MM from the line at >= 0.85): right, wrong (the harm), or left to a person;
* cue_reach_mm: the error of the cue ball's farthest x before the contact (truth from the
  frames).
"""
import argparse
import glob
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)


def analyse(video, truth):
    from host.camera.analyse import Analyser
    from host.camera.facts import live_dict
    from host.camera.sources import FileSource
    src = FileSource(video)
    a = Analyser(corners=truth["corners_px"], table="%gx%g" % tuple(truth["table_mm"]), fps=src.fps)
    out = []
    for t, frame in src:
        out.extend(a.feed(t, frame))
    out.extend(a.close())
    return [live_dict(f) for f in out]


def truth_start(frames, t_start):
    """{ball: (x, y)} in the last truth frame before `t_start` (balls on the table)."""
    before = [f for f in frames if f["t"] <= t_start - 0.01]
    if not before:
        return {}
    return dict((b, tuple(v["mm"])) for b, v in before[-1]["balls"].items() if "mm" in v)


def truth_reach(frames, t_start, t_until):
    xs = [f["balls"]["0"]["mm"][0] for f in frames
          if t_start <= f["t"] <= t_until and "mm" in f["balls"].get("0", {})]
    return max(xs) if xs else None


def side(x, line, margin):
    return "behind" if x < line - margin else "beyond" if x > line + margin else None


def score(truth, shots):
    from shared_rules.rules.camera import MIN_CONFIDENCE, PLACE_MARGIN_MM
    bands = truth.get("bands", {})
    rows = []
    frames = truth.get("frames") or []
    head = truth["table_mm"][0] / 4.0
    for ts in truth["shots"]:
        s = min(shots, key=lambda s: abs(s["t_start"] - ts["t_start"]), default=None)
        if s is None or abs(s["t_start"] - ts["t_start"]) > 0.6 or not frames:
            continue
        laid = truth_start(frames, ts["t_start"])
        row = {"game": bands.get("game"), "kind": bands.get("kind"), "speed": bands.get("speed"),
               "light": bands.get("light"), "fps": bands.get("fps"), "err": [], "sure_err": [], "n": 0}
        for b, p in laid.items():
            q = s["start_mm"].get(b)
            row["n"] += 1
            e = ((q["x"] - p[0]) ** 2 + (q["y"] - p[1]) ** 2) ** 0.5 if q else float("inf")
            row["err"].append(e)
            if q and q["confidence"] >= MIN_CONFIDENCE:
                row["sure_err"].append(e)
        cue, true_cue = s["start_mm"].get("0"), laid.get("0")
        row["kitchen"] = None
        if true_cue is not None:
            truth_side = "behind" if true_cue[0] < head else "beyond"
            seen = None if cue is None or cue["confidence"] < MIN_CONFIDENCE else side(cue["x"], head, PLACE_MARGIN_MM)
            row["kitchen"] = "person" if seen is None else "right" if seen == truth_side else "wrong"
        until = s["first_contact"]["t"] if s["first_contact"]["t"] is not None else s["t_end"]
        tr = truth_reach(frames, ts["t_start"], until)
        row["reach_err"] = (abs(s["cue_reach_mm"]["x"] - tr) if s["cue_reach_mm"] and tr is not None else None)
        rows.append(row)
    return rows


def pct(k, n):
    return "%d/%d = %.1f%%" % (k, n, 100.0 * k / n) if n else "-"


def q(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p * len(xs)))] if xs else float("nan")


def report(rows, key):
    groups = {}
    for r in rows:
        groups.setdefault(key(r), []).append(r)
    out = []
    for g in sorted(groups, key=str):
        rs = groups[g]
        err = [e for r in rs for e in r["err"]]
        sure = [e for r in rs for e in r["sure_err"]]
        k = [r["kitchen"] for r in rs if r["kitchen"] is not None]
        reach = [r["reach_err"] for r in rs if r["reach_err"] is not None]
        out.append("  %-26s shots %3d | start median %.1f mm, p99 %.1f mm (%d balls) | sure %s, p99 %.1f mm | "
                   "kitchen right %s, wrong %d, person %d | reach median %.1f mm" % (
                       g, len(rs), q(err, 0.5), q(err, 0.99), len(err), pct(len(sure), len(err)), q(sure, 0.99),
                       pct(k.count("right"), len(k)), k.count("wrong"), k.count("person"), q(reach, 0.5)))
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("dirs", nargs="+")
    p.add_argument("--one-core", action="store_true")
    args = p.parse_args(argv)
    import cv2
    if args.one_core:
        cv2.setNumThreads(1)
    clips = sorted(v for d in args.dirs for v in glob.glob(os.path.join(d, "*.mp4"))
                   if os.path.exists(os.path.splitext(v)[0] + ".truth.json"))
    rows = []
    for v in clips:
        with open(os.path.splitext(v)[0] + ".truth.json") as f:
            truth = json.load(f)
        if not truth.get("frames"):
            print("%s: no per-frame truth, skipped" % os.path.basename(v))
            continue
        rows.extend(score(truth, analyse(v, truth)))
    print("clips %d, shots paired %d" % (len(clips), len(rows)))
    print("all:")
    print("\n".join(report(rows, lambda r: "all")))
    for name, key in (("game", lambda r: r["game"]), ("kind/speed", lambda r: "%s/%s" % (r["kind"], r["speed"])),
                      ("light", lambda r: r["light"]), ("fps", lambda r: r["fps"])):
        print("by %s:" % name)
        print("\n".join(report(rows, key)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
