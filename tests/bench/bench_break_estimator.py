"""The break estimator: time per break on CPython, and the per-band table (prints numbers; no assertions).

    .venv/bin/python tests/bench/bench_break_estimator.py            # committed sets (and build/breaks/ if made)
    .venv/bin/python tests/bench/bench_break_estimator.py --timing   # the times only

The table: per game, held-out set and speed band (the cue ball's speed after the strike), the
share of breaks judged right by every decision the referee used before and by the one shipped
now ("chosen"), the shipped one against the best earlier one with a 95 % interval, and how often
the strongest impact puts a break in the wrong band (docs/break-estimator.md, "Per speed band").
Under MicroPython see tests/data/breaks/mpy_check.py (the same estimator on the held-out data).
"""
import json
import pathlib
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools" / "calibrate"))

from shared_rules.rules import break_estimator as be  # noqa: E402


def timing():
    rows = []
    for game in ("study-eightball", "study-nineball", "straight"):
        with open(ROOT / "tests" / "data" / "breaks" / (game + ".jsonl")) as f:
            rows += [json.loads(line)["imp"] for line in f if line.strip()]
    n_imp = sum(len(r) for r in rows)
    print("breaks %d, impacts per break %.1f (max %d)" % (len(rows), n_imp / len(rows), max(len(r) for r in rows)))
    for name, kw in (("eight-ball", dict(needed=4)),
                     ("nine-ball, any four balls", dict(needed=3, cue_ball=True, rack=9)),
                     ("straight pool's safe break", dict(needed=2, cue_ball=True))):
        t0 = time.perf_counter()
        for _ in range(5):
            for imp in rows:
                be.break_reached_rails(imp, **kw)
        dt = (time.perf_counter() - t0) / (5 * len(rows))
        print("break_reached_rails, %s: %.1f us per break (CPython)" % (name, dt * 1e6))


def tables():
    import band_study as bs

    for game in bs.QUESTIONS:
        sets = bs.held_rows(bs.data_sets(game))
        new = [s for s in bs.NEW_SEEDS[game] if any(bs.seed_of(name) == str(s) for name, _ in sets)]
        if not new:  # build/breaks/ not made (tools/calibrate/make_bands.sh): the committed sets
            sets = bs.committed_sets(game)
        judged = [bs.Judged(game, name, rows) for name, rows in sets]
        print("\n## %s: %s" % (game, json.dumps(dict((k, be.DEFAULT_PARAMS[k]) for k in
                                                     ("band_" + bs.band_key(game), "decide_" + bs.band_key(game))))))
        print(bs.band_table(game, judged, ("shipped",) * 3)[0])
        print()
        print(bs.band_inference_table(game, judged))


if __name__ == "__main__":
    timing()
    if "--timing" not in sys.argv:
        tables()
