"""Time of the break estimator per break, on CPython (prints numbers; no assertions).

    .venv/bin/python tests/bench/bench_break_estimator.py
Under MicroPython see tests/data/breaks/mpy_check.py (the same estimator on the held-out data).
"""
import json
import pathlib
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT))

from shared_rules.rules import break_estimator as be  # noqa: E402

rows = []
for game in ("study-eightball", "nineball", "straight"):
    with open(ROOT / "tests" / "data" / "breaks" / (game + ".jsonl")) as f:
        rows += [json.loads(line)["imp"] for line in f if line.strip()]
n_imp = sum(len(r) for r in rows)
print("breaks %d, impacts per break %.1f (max %d)" % (len(rows), n_imp / len(rows), max(len(r) for r in rows)))
for name, kw in (("eight-ball (impact count)", dict(needed=4)),
                 ("nine-ball (per-impact model)", dict(needed=3, cue_ball=True, rack=9)),
                 ("straight pool (per-impact model)", dict(needed=2, cue_ball=True))):
    t0 = time.perf_counter()
    for _ in range(5):
        for imp in rows:
            be.break_reached_rails(imp, **kw)
    dt = (time.perf_counter() - t0) / (5 * len(rows))
    print("break_reached_rails, %s: %.1f us per break (CPython)" % (name, dt * 1e6))
