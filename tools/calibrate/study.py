"""Break study: how well can each rail design judge "enough balls reached a rail"?

    .venv-cal/bin/python tools/calibrate/study.py   # tools/calibrate/make_study.sh regenerates its data

For every design of tools/calibrate/sensors.py, on the breaks of
tests/data/breaks/raw-eightball.jsonl (physics only, from simulate_raw.py), the held-out accuracy of the legal-break verdict (a
ball pocketed, seen by the beams, or the rail question answered from the RAIL
events) per speed band, for:

* count: a plain threshold on the number of RAIL events (fitted);
* today: break_estimator's per-impact model with its weights and margin
  (fitted on other data: tests/data/breaks/eightball.jsonl, so held out here),
  the eight-ball decision before this study;
* estimator: break_estimator's decision now (count_15, count_9) fitted here
  on the other folds (fit_break_estimator.fit_eight_ball, fit_nine_ball);
* gbm, rf, logit: gradient boosting, a random forest and a logistic
  regression over the whole impact sequence (scikit-learn, offline only);
* best: per band, the best of the classifiers above, picked on the held-out
  breaks (optimistic): our estimate of the design's bound;
* heard: an oracle told which ball made each reported impact, counting the
  distinct balls heard: what perfect attribution of the reported impacts gives.

Held out: five folds by break index; every break is predicted by what was
fitted on the other four.  Scikit-learn is used here only.
"""

import argparse
import json
import math
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, ROOT)

import fit_break_estimator  # noqa: E402
import sensors  # noqa: E402
from shared_rules.rules import break_estimator as be  # noqa: E402

RAW = os.path.join(ROOT, "tests", "data", "breaks")  # raw-*.jsonl, cam-*.jsonl (committed, small)
BANDS = ((0.0, 2.5), (2.5, 4.0), (4.0, 5.0), (5.0, 7.0), (7.0, 9.0), (9.0, 99.0))
GROUPS = (("soft 0.8-5", 0.0, 5.0), ("normal 4-12", 4.0, 99.0), ("all", 0.0, 99.0))
NEEDED = {"eightball": (4, False), "nineball": (3, True)}  # (needed, the cue ball counts)
# the "best" column: the best of these on each band, picked on the held-out
# breaks themselves, so an optimistic estimate of what any classifier can do
CLASSIFIERS = ("count", "today", "estimator", "gbm", "rf", "logit")
FOLDS = 5  # every break is predicted by what was fitted on the other four fifths
SEQ = 24  # impacts kept one by one in the GBM's features


def load(game, limit=None):
    path = os.path.join(RAW, "raw-%s.jsonl" % game)
    if not os.path.exists(path):
        return []
    with open(path) as f:
        rows = [json.loads(line) for line in f if line.strip()]
    return rows[:limit] if limit else rows


def views(rows, design):
    return [sensors.sensor_view(r["hits"], r["w"], r["l"], design,
                                sensors.view_rng(7, r["i"], design), debug=True) for r in rows]


def seq_features(imp, w_mm, l_mm):
    """A fixed-length description of a break's RAIL events for the GBM."""
    f = []
    n = len(imp)
    f.append(n)
    per_rail = [0] * 6
    for e in imp:
        per_rail[e[1]] += 1
    f += per_rail
    f.append(sum(1 for c in per_rail if c))
    s = [e[2] for e in imp]
    smax = max(s) if s else 0
    f.append(math.log(1 + smax))
    for th in (2000, 4000, 8000, 16000, 32000):
        f.append(sum(1 for x in s if x >= th))
    t0 = imp[0][0] if imp else 0
    for lim in (100000, 250000, 500000, 1000000, 2000000):
        f.append(sum(1 for e in imp if e[0] - t0 < lim))
    f.append(be.balls_railed([e[:3] for e in imp]))
    f.append(tracks(imp, w_mm, l_mm))
    for k in range(SEQ):
        if k < n:
            e = imp[k]
            f += [(e[0] - t0) / 1e6, e[1], math.log(1 + e[2]), e[3],
                  (e[0] - imp[k - 1][0]) / 1e6 if k else -1.0]
        else:
            f += [-1.0, -1.0, -1.0, -1.0, -1.0]
    return f


def place(e, w, l):
    """Table position (m) of an impact placed along its rail, None when not placed."""
    rail, pos = e[1], e[3]
    if pos is None or pos < 0:
        return None
    u = pos / 127.0
    if rail == 0:
        return (u * w, 0.0)
    if rail == 3:
        return (u * w, l)
    if rail in (1, 2):
        return (0.0, (u + (rail == 2)) * l / 2)
    return (w, (u + (rail == 4)) * l / 2)


def tracks(imp, w_mm, l_mm, vmax=None):
    """Fewest balls that explain the impacts (greedy): a ball cannot be in two
    places faster than the break's speed allows.  Needs placed impacts; -1 if not."""
    w, l = w_mm / 1000.0, l_mm / 1000.0
    pts = [place(e, w, l) for e in imp]
    if not imp or any(p is None for p in pts):
        return -1
    smax = max(e[2] for e in imp)
    v = vmax or max(0.5, 1.3 * smax / sensors.GAIN)
    ends = []  # (t_us, point) of each track's last impact
    for e, p in zip(imp, pts):
        best = None
        for k, (t, q) in enumerate(ends):
            dt = (e[0] - t) / 1e6
            d = math.hypot(p[0] - q[0], p[1] - q[1])
            if d > 0.05 and d <= v * dt + 0.1 and (best is None or t > ends[best][0]):
                best = k
        if best is None:
            ends.append((e[0], p))
        else:
            ends[best] = (e[0], p)
    return len(ends)


def heard_oracle(imp, game):
    needed, cue = NEEDED[game]
    balls = set(e[4] for e in imp if e[4] >= 0)
    if not cue:
        balls.discard(0)
    return len(balls) >= needed + (1 if cue else 0)


def railed_truth(r, game):
    needed, cue = NEEDED[game]
    return r["obj"] + (1 if (cue and r["cue"]) else 0) >= needed + (1 if cue else 0)


def fit_count(rows, imps, game):
    best = None
    for th in range(0, 40):
        acc = sum(1 for r, imp in zip(rows, imps) if (len(imp) >= th) == railed_truth(r, game))
        if best is None or acc > best[1]:
            best = (th, acc)
    return best[0]


def today_says(imp, game, params=None):
    """The verdict of break_estimator's per-impact model (the decision before this study)."""
    needed, cue = NEEDED[game]
    imp = [e[:3] for e in imp]
    if game == "eightball":
        return be.object_balls_railed(imp, params) >= needed - be.DEFAULT_PARAMS["margin_15"]
    return be.balls_railed(imp, params) >= needed + 1 - be.DEFAULT_PARAMS["margin_cue"]


def study(game, design, rows, fitted=None):
    """Per-break verdicts of every method, each predicted out of fold."""
    imps = views(rows, design)
    X = np.array([seq_features(imp, r["w"], r["l"]) for r, imp in zip(rows, imps)], dtype=float)
    y = np.array([railed_truth(r, game) for r in rows])
    pot = np.array([r["pot"] > 0 for r in rows])
    fold = np.array([r["i"] % FOLDS for r in rows])
    out = {m: np.zeros(len(rows), dtype=bool) for m in ("count", "today", "estimator", "gbm", "rf", "logit", "heard")}
    from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    for k in range(FOLDS):
        tr, te = (fold != k) & ~pot, fold == k
        th = fit_count([r for r, m in zip(rows, tr) if m], [x for x, m in zip(imps, tr) if m], game)
        clf = HistGradientBoostingClassifier(max_iter=200, learning_rate=0.05, max_leaf_nodes=8,
                                             min_samples_leaf=10, l2_regularization=1.0, random_state=0)
        clf.fit(X[tr], y[tr])
        gb = clf.predict(X)
        rf = RandomForestClassifier(n_estimators=300, min_samples_leaf=3, random_state=0,
                                    n_jobs=1).fit(X[tr], y[tr]).predict(X)
        lg = make_pipeline(StandardScaler(), LogisticRegression(C=0.3, max_iter=5000)).fit(X[tr], y[tr]).predict(X)
        fit_rows = [{"imp": [e[:3] for e in imps[j]], "obj": rows[j]["obj"], "cue": rows[j]["cue"],
                     "pot": rows[j]["pot"]} for j in range(len(rows)) if fold[j] != k]
        fit = fit_break_estimator.fit_eight_ball if game == "eightball" else fit_break_estimator.fit_nine_ball
        params = fit(fit_rows, be.DEFAULT_PARAMS)
        out.setdefault("params", {})[k] = params
        for j in np.nonzero(te)[0]:
            imp = imps[j]
            out["count"][j] = len(imp) >= th
            out["today"][j] = today_says(imp, game)
            out["estimator"][j] = be.break_reached_rails([e[:3] for e in imp], NEEDED[game][0], params,
                                                         cue_ball=NEEDED[game][1],
                                                         rack=15 if game == "eightball" else 9)
            out["gbm"][j] = gb[j]
            out["rf"][j] = rf[j]
            out["logit"][j] = lg[j]
            out["heard"][j] = heard_oracle(imp, game)
    params = out.pop("params")
    for m in out:
        out[m] = out[m] | pot
    out["params"] = params
    truth = y | pot
    return truth, out, imps


def table(game, design, rows, truth, out):
    v = np.array([r["v"] for r in rows])
    lines = []
    names = ["%.1f-%.1f" % (lo, hi if hi < 50 else 12) for lo, hi in BANDS] + [g[0] for g in GROUPS]
    ranges = list(BANDS) + [(g[1], g[2]) for g in GROUPS]
    for name, (lo, hi) in zip(names, ranges):
        m = (v >= lo) & (v < hi)
        if not m.any():
            continue
        accs = ["%s %.3f" % (k, (out[k][m] == truth[m]).mean()) for k in out if k != "params"]
        best = max((out[k][m] == truth[m]).mean() for k in CLASSIFIERS if k in out)
        accs.append("best %.3f" % best)
        lines.append("%-9s %-8s %-12s n=%4d legal=%4d  %s" % (game, design, name, m.sum(),
                                                               truth[m].sum(), "  ".join(accs)))
    return lines


def camera(limit=None):
    """The camera design (simulate_camera.py) on its breaks, beside six piezos on the same breaks."""
    path = os.path.join(RAW, "cam-eightball.jsonl")
    if not os.path.exists(path):
        return []
    with open(path) as f:
        cams = dict((c["i"], c["cam"]) for c in (json.loads(line) for line in f if line.strip()))
    rows = [r for r in load("eightball", limit) if r["i"] in cams]
    if not rows:
        return []
    truth, out, _ = study("eightball", "six", rows)
    out.pop("params")
    pot = np.array([r["pot"] > 0 for r in rows])
    for fps in ("30", "60"):
        out["camera@" + fps] = np.array([cams[r["i"]][fps] >= 4 for r in rows]) | pot
    # a second noise draw, at 60 and 120 fps (simulate_camera.py --fps 60 120)
    path = os.path.join(RAW, "cam120-eightball.jsonl")
    if os.path.exists(path):
        with open(path) as f:
            c2 = dict((c["i"], c["cam"]) for c in (json.loads(line) for line in f if line.strip()))
        if all(r["i"] in c2 for r in rows):
            for fps in ("60", "120"):
                out["camera-b@" + fps] = np.array([c2[r["i"]][fps] >= 4 for r in rows]) | pot
    lines = []
    # the camera's detector was adjusted looking at breaks 0-199 only; 200-399 judge it
    for name, keep in (("camera (breaks 0-199)", lambda i: i < 200), ("camera (breaks 200-399)", lambda i: i >= 200),
                       ("camera (all)", lambda i: True)):
        m = np.array([keep(r["i"]) for r in rows])
        if m.any():
            sub = [r for r, k in zip(rows, m) if k]
            lines += table("eightball", name, sub, truth[m], {k: v[m] for k, v in out.items()})
    return lines


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", nargs="+", default=["eightball", "nineball"])
    ap.add_argument("--designs", nargs="+", default=list(sensors.DESIGNS))
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--export", metavar="FILE",
                    help="write each game's breaks as six piezos report them (the estimator's fit data) "
                         "to FILE with GAME replaced by the game")
    args = ap.parse_args(argv)
    if args.export:
        # the estimator's fit data: each game's breaks as six piezos report them
        for game in args.games:
            rows = load(game, args.limit)
            if not rows:
                continue
            with open(args.export.replace("GAME", game), "w") as f:
                for r, imp in zip(rows, views(rows, "six")):
                    rec = {"i": r["i"], "v": round(r["v"], 2), "obj": r["obj"], "cue": r["cue"], "pot": r["pot"],
                           "imp": [e[:3] for e in imp]}
                    f.write(json.dumps(rec, separators=(",", ":")) + "\n")
        return
    cam = camera(args.limit)
    if cam:
        print("\n".join(cam), flush=True)
    for game in args.games:
        rows = load(game, args.limit)
        if not rows:
            continue
        for design in args.designs:
            truth, out, _ = study(game, design, rows)
            print("\n".join(table(game, design, rows, truth, out)), flush=True)
            for k, prm in out["params"].items():
                print("  fold %d fit: count_15 %d, count_9 %d" % (k, prm["count_15"], prm["count_9"]))


if __name__ == "__main__":
    main()
