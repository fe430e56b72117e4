"""Score an analyser's per-shot JSON against the footage's truth, per band.

    python -m tools.footage.score DIR [--results RDIR] [--suffix .analysis.json]

For every DIR/*.truth.json, reads the analyser's output for that video (by default
DIR/<video minus extension>.analysis.json, the JSON list that
`billiards camera analyse VIDEO --json` prints) and prints, per band (game, kind,
speed, fps, light, cloth) and overall, the issue-18 targets:

* first contact right, over shots where the truth has one (and, apart, where it has none);
* legal break right (eight-ball, nine-ball: a ball pocketed or >= 4 object balls railed;
  14.1's safe break: a ball pocketed, or the cue ball and >= 2 object balls railed);
* railed_after_contact exactly right; pocketed exactly right (as sets);
* rest positions: median and 99th percentile error, mm, over balls the truth has at rest.

Shots are matched in order of time: each truth shot takes the analyser's shot whose
t_start is nearest, within --match seconds (default 0.5); an unmatched truth shot counts
wrong on every measure, an analyser shot left over is counted as "extra".
"""

import argparse
import collections
import glob
import json
import math
import os

BANDS = ("game", "kind", "speed", "fps", "light", "cloth")


def legal_break(shot, game):
    """The break verdict the truth (or an analyser) implies, or None when it says nothing."""
    if shot.get("object_balls_railed_on_break") is None:
        return None
    if [b for b in shot.get("pocketed", []) if b != 0]:
        return True
    if game == "straight":
        return 0 in shot.get("railed_after_contact", []) and shot["object_balls_railed_on_break"] >= 2
    return shot["object_balls_railed_on_break"] >= 4


def match(truth_shots, found, window):
    """[(truth shot, analyser shot or None)], leftover analyser shots."""
    left = list(found)
    out = []
    for t in truth_shots:
        best = min(left, key=lambda f: abs(f.get("t_start", 1e9) - t["t_start"]), default=None)
        if best is not None and abs(best.get("t_start", 1e9) - t["t_start"]) <= window:
            left.remove(best)
            out.append((t, best))
        else:
            out.append((t, None))
    return out, left


def judge(truth, pair, game):
    """{measure: True/False} for one truth shot and its analyser shot (None if none)."""
    t, f = pair
    r = {}
    if t["first_contact"] is not None:
        r["first_contact"] = f is not None and f.get("first_contact") == t["first_contact"]
    else:
        r["no_contact"] = f is not None and f.get("first_contact") is None
    r["railed"] = f is not None and sorted(f.get("railed_after_contact") or []) == t["railed_after_contact"]
    r["pocketed"] = f is not None and sorted(f.get("pocketed") or []) == sorted(t["pocketed"])
    lt = legal_break(t, game)
    if lt is not None and game in ("eightball", "nineball", "straight"):
        r["legal_break"] = f is not None and legal_break(f, game) == lt
    return r


def rest_errors(pair):
    t, f = pair
    errs = []
    for ball, (x, y) in t["rest_mm"].items():
        got = (f or {}).get("rest_mm", {}).get(str(ball))
        errs.append(math.hypot(got[0] - x, got[1] - y) if got else float("inf"))
    return errs


def percentile(values, p):
    v = sorted(values)
    if not v:
        return float("nan")
    return v[min(len(v) - 1, max(0, int(math.ceil(p / 100 * len(v))) - 1))]


def score(set_dir, results_dir=None, suffix=".analysis.json", window=0.5):
    """-> {band: {value: {"n_shots", measure: [right, total], "rest": [errors], "extra", "missing"}}}"""
    table = collections.defaultdict(lambda: collections.defaultdict(lambda: {
        "n_shots": 0, "extra": 0, "missing_output": 0, "rest": [], "m": collections.defaultdict(lambda: [0, 0])}))
    for path in sorted(glob.glob(os.path.join(set_dir, "*.truth.json"))):
        with open(path) as fh:
            truth = json.load(fh)
        stem = os.path.splitext(truth["video"])[0]
        res = os.path.join(results_dir or set_dir, stem + suffix)
        found, missing = [], 0
        if os.path.exists(res):
            with open(res) as fh:
                found = json.load(fh)
        else:
            missing = 1
        pairs, extra = match(truth["shots"], found, window)
        bands = dict(truth["bands"])
        for key in ("all",) + BANDS:
            cell = table[key]["all" if key == "all" else str(bands.get(key))]
            cell["n_shots"] += len(pairs)
            cell["extra"] += len(extra)
            cell["missing_output"] += missing
            for pair in pairs:
                for m, ok in judge(truth, pair, bands.get("game")).items():
                    cell["m"][m][0] += int(ok)
                    cell["m"][m][1] += 1
                cell["rest"].extend(rest_errors(pair))
    return table


def report(table):
    cols = ("first_contact", "no_contact", "legal_break", "railed", "pocketed")
    lines = ["%-6s %-10s %5s %13s %13s %13s %13s %13s %9s %9s %5s" % (
        "band", "value", "shots", *cols, "rest p50", "rest p99", "extra")]
    for key in ("all",) + BANDS:
        for value, cell in sorted(table.get(key, {}).items()):
            row = []
            for m in cols:
                right, total = cell["m"].get(m, (0, 0))
                row.append("%d/%d %.3f" % (right, total, right / total) if total else "-")
            lines.append("%-6s %-10s %5d %13s %13s %13s %13s %13s %9.1f %9.1f %5d" % (
                key, value, cell["n_shots"], *row, percentile(cell["rest"], 50), percentile(cell["rest"], 99),
                cell["extra"]))
    return "\n".join(lines)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("set_dir")
    p.add_argument("--results", help="where the analyser's outputs are (default: beside the videos)")
    p.add_argument("--suffix", default=".analysis.json")
    p.add_argument("--match", type=float, default=0.5, help="seconds between t_starts to pair shots")
    args = p.parse_args(argv)
    print(report(score(args.set_dir, args.results, args.suffix, args.match)))


if __name__ == "__main__":
    main()
