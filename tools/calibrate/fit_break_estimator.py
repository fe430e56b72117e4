"""Fit the break estimator's DEFAULT_PARAMS on half of the simulated breaks.

    .venv-cal/bin/python tools/calibrate/fit_break_estimator.py            # fit eight-ball's decision, report
    .venv-cal/bin/python tools/calibrate/fit_break_estimator.py --impacts  # also refit the per-impact model
    python3 tools/calibrate/fit_break_estimator.py --report                # report DEFAULT_PARAMS only

Eight-ball's and nine-ball's decisions (count_15, count_9: plain count
thresholds) are fitted on the even breaks of tests/data/breaks/study-*.jsonl,
the sensor study's breaks as six piezos report them, and reported on their
odd breaks per speed band beside the plain count and the per-impact model.

Even lines of each other tests/data/breaks/*.jsonl file are the fit half, odd lines
the held-out half. The per-impact weights are fitted (numpy/scipy, so in the calibration
venv) by least squares of the expected number of balls seen against the true
number of balls (object balls + cue ball) that reached a cushion, pooled over
all three games; cue_share is the fit half's rate of cue balls on a rail; the
margins are the best on the fit half for each referee question: eight-ball and
nine-ball "did >= 4 object balls reach a rail", straight pool's safe break "did
the cue ball and >= 2 object balls reach a rail". The plain impact count, with
its best threshold on the same fit half, is the baseline.
"""

import argparse
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)

from shared_rules.rules import break_estimator as be  # noqa: E402

DATA = os.path.join(ROOT, "tests", "data", "breaks")
# game -> (needed, object balls racked, cue ball must rail too)
QUESTIONS = {"eightball": (4, 15, False), "nineball": (4, 9, False), "straight": (2, 15, True)}
BANDS = ((0.0, 5.0, "soft <5"), (5.0, 7.0, "medium 5-7"), (7.0, 99.0, "hard >=7"))


def load(game):
    with open(os.path.join(DATA, game + ".jsonl")) as f:
        rows = [json.loads(line) for line in f if line.strip()]
    return rows[0::2], rows[1::2]


def truth(game, r):
    needed, _, cue = QUESTIONS[game]
    return r["obj"] >= needed and (r["cue"] or not cue)


def est_says(game, r, params):
    needed, rack, cue = QUESTIONS[game]
    return be.break_reached_rails(r["imp"], needed, params, cue_ball=cue, rack=rack)


def accuracy(game, rows, says):
    if not rows:
        return float("nan")
    return sum(1 for r in rows if says(r) == truth(game, r)) / len(rows)


def best_count(game, rows):
    """Best threshold of the plain impact count on rows."""
    best = None
    for th in range(0, 40):
        acc = accuracy(game, rows, lambda r: len(r["imp"]) >= th)
        if best is None or acc > best[1]:
            best = (th, acc)
    return best[0]


def fit_params(fit):
    import numpy as np
    from scipy.optimize import minimize

    params = dict(be.DEFAULT_PARAMS)
    NW = len(be.features([(0, 0, 5000)])[0])
    params["weights"] = [0.0] * NW
    mats = []
    for g in fit:
        for r in fit[g]:
            F = np.array(be.features(r["imp"], params), dtype=float).reshape(-1, NW)
            mats.append((F, r["obj"] + (1 if r["cue"] else 0)))

    def loss(w):
        err = 0.0
        for F, y in mats:
            e = (1.0 / (1.0 + np.exp(-(F @ w)))).sum() if len(F) else 0.0
            err += (e - y) ** 2
        return err / len(mats) + 1e-3 * float(w @ w)

    res = minimize(loss, np.zeros(NW), method="L-BFGS-B")
    params["weights"] = [round(float(x), 3) for x in res.x]
    cues = [1 if r["cue"] else 0 for g in fit for r in fit[g] if g != "straight"]
    params["cue_share"] = round(sum(cues) / len(cues), 2)
    margins = [round(-1.0 + 0.05 * i, 2) for i in range(61)]
    for key, g in (("margin_15", "eightball"), ("margin_9", "nineball"), ("margin_cue", "straight")):
        best = None
        for m in margins:
            trial = dict(params)
            trial[key] = m
            acc = accuracy(g, fit[g], lambda r: est_says(g, r, trial))
            if best is None or acc > best[1] + 1e-9:
                best = (m, acc)
        params[key] = best[0]
    print("fit loss %.4f" % res.fun, file=sys.stderr)
    return params


STUDY = os.path.join(DATA, "study-%s.jsonl")
STUDY_BANDS = ((0.0, 2.5), (2.5, 4.0), (4.0, 5.0), (5.0, 7.0), (7.0, 9.0), (9.0, 99.0))


def load_study(game="eightball"):
    """The sensor study's breaks as today's six piezos report them
    (tools/calibrate/study.py --export): even breaks fit, odd breaks are held out."""
    with open(STUDY % game) as f:
        rows = [json.loads(line) for line in f if line.strip()]
    return [r for r in rows if r["i"] % 2 == 0], [r for r in rows if r["i"] % 2 == 1]


def railed4(r):
    return r["obj"] >= 4


def four_balls(r):
    """Nine-ball as the engine reads NB.BREAK: any four balls, the cue ball may be one."""
    return r["obj"] + (1 if r["cue"] else 0) >= 4


# study question -> (truth, the estimator's call)
STUDY_QUESTIONS = {
    "eightball": (railed4, lambda imp, p: be.break_reached_rails(imp, 4, p)),
    "nineball": (four_balls, lambda imp, p: be.break_reached_rails(imp, 3, p, cue_ball=True, rack=9)),
}


def count_threshold(rows, key=railed4):
    """Best threshold of the plain impact count on the breaks where nothing dropped."""
    rows = [r for r in rows if r["pot"] == 0]
    return max(range(40), key=lambda th: sum(1 for r in rows if (be.impact_count(r["imp"]) >= th) == key(r)))


def fit_eight_ball(rows, params):
    """count_15, eight-ball's decision, on these breaks (those where nothing dropped)."""
    params = dict(params)
    params["count_15"] = count_threshold(rows)
    return params


def fit_nine_ball(rows, params):
    """count_9, nine-ball's decision, on these breaks (those where nothing dropped)."""
    params = dict(params)
    params["count_9"] = count_threshold(rows, four_balls)
    return params


def study_report(fit, held, params, game="eightball"):
    """Held-out verdicts (a ball dropped, or the rail question) per band: estimator vs count."""
    key, says = STUDY_QUESTIONS[game]
    th = count_threshold(fit, key)
    lines = []
    bands = [("%.1f-%.1f" % (lo, min(hi, 12.0)), lo, hi) for lo, hi in STUDY_BANDS]
    bands += [("soft 0.8-5", 0.0, 5.0), ("normal 4-12", 4.0, 99.0), ("all", 0.0, 99.0)]
    for name, lo, hi in bands:
        sub = [r for r in held if lo <= r["v"] < hi]
        truth = [r["pot"] > 0 or key(r) for r in sub]
        est = sum(1 for r, t in zip(sub, truth) if (r["pot"] > 0 or says(r["imp"], params)) == t)
        cnt = sum(1 for r, t in zip(sub, truth) if (r["pot"] > 0 or be.impact_count(r["imp"]) >= th) == t)
        if game == "eightball":
            old = [be.object_balls_railed(r["imp"], params) >= 4 - params["margin_15"] for r in sub]
        else:
            old = [be.balls_railed(r["imp"], params) >= 4 - params["margin_cue"] for r in sub]
        old = sum(1 for r, o, t in zip(sub, old, truth) if (r["pot"] > 0 or o) == t)
        lines.append("%-9s %-12s n=%4d legal=%4d  estimator %.3f  count>=%d %.3f  per-impact model %.3f"
                     % (game, name, len(sub), sum(truth), est / len(sub), th, cnt / len(sub), old / len(sub)))
    return "\n".join(lines)


def report(fit, held, params):
    """Held-out accuracy per game and speed band: estimator vs best plain count."""
    lines = []
    for g in held:
        th = best_count(g, fit[g])
        rows = held[g]
        for lo, hi, name in ((0.0, 99.0, "all"),) + BANDS:
            sub = [r for r in rows if lo <= r["v"] < hi]
            if not sub:
                continue
            a_est = accuracy(g, sub, lambda r: est_says(g, r, params))
            a_cnt = accuracy(g, sub, lambda r: len(r["imp"]) >= th)
            pos = sum(1 for r in sub if truth(g, r))
            lines.append("%-9s %-11s n=%3d legal=%3d  estimator %.3f  count>=%d %.3f"
                         % (g, name, len(sub), pos, a_est, th, a_cnt))
    # NB.BREAK read as "any four balls, the cue ball may be one" (cue_ball=True, needed=3)
    rows = held["nineball"]
    a_est = sum(1 for r in rows if be.break_reached_rails(r["imp"], 3, params, cue_ball=True)
                == (r["obj"] + (1 if r["cue"] else 0) >= 4)) / len(rows)
    lines.append("nineball  any 4 balls (cue counts) n=%d  estimator %.3f" % (len(rows), a_est))
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--report", action="store_true", help="report DEFAULT_PARAMS, fit nothing")
    ap.add_argument("--impacts", action="store_true",
                    help="refit the per-impact model (weights, cue_share, margins) on tests/data/breaks too")
    args = ap.parse_args(argv)
    fit, held = {}, {}
    for g in QUESTIONS:
        fit[g], held[g] = load(g)
    params = fit_params(fit) if args.impacts and not args.report else dict(be.DEFAULT_PARAMS)
    sfit, sheld = load_study()
    nfit, nheld = load_study("nineball")
    if not args.report:
        params = fit_nine_ball(nfit, fit_eight_ball(sfit, params))
    print("params:", json.dumps(params, sort_keys=True))
    print("fit half:")
    print(report(fit, fit, params))
    print("held-out half:")
    print(report(fit, held, params))
    print("sensor study, eight-ball, held-out half (odd breaks):")
    print(study_report(sfit, sheld, params))
    print("sensor study, nine-ball (any four balls), held-out half (odd breaks):")
    print(study_report(nfit, nheld, params, "nineball"))


if __name__ == "__main__":
    main()
