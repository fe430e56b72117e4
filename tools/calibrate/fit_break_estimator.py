"""Fit the break estimator's DEFAULT_PARAMS on half of the simulated breaks.

    /work/pt-venv/bin/python tools/calibrate/fit_break_estimator.py           # fit, print params + report
    python3 tools/calibrate/fit_break_estimator.py --report                   # report DEFAULT_PARAMS only

Even lines of each tests/data/breaks/*.jsonl file are the fit half, odd lines
the held-out half. The weights are fitted (numpy/scipy, so in the calibration
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
    args = ap.parse_args(argv)
    fit, held = {}, {}
    for g in QUESTIONS:
        fit[g], held[g] = load(g)
    params = be.DEFAULT_PARAMS if args.report else fit_params(fit)
    print("params:", json.dumps(params, sort_keys=True))
    print("fit half:")
    print(report(fit, fit, params))
    print("held-out half:")
    print(report(fit, held, params))


if __name__ == "__main__":
    main()
