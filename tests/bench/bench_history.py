"""Cost of the venue history: folding a table's journal into match records (what the daemon's
recorder does at each match end, and `billiards history --rebuild` per table), and writing SQLite.

    .venv/bin/python tests/bench/bench_history.py [MATCHES]
Prints numbers; no assertions.
"""
import os
import pathlib
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT))

from host import history  # noqa: E402
from tests.venue import match_script  # noqa: E402

n = int(sys.argv[1]) if len(sys.argv) > 1 else 200
entries = []
for i in range(n):                      # the test match, n times, one after the other
    entries += match_script.journal(wall0=1764540000.0 + i * 3600)[1:]
t0 = time.perf_counter()
records, _ = history.matches_from_entries(entries, "t1")
fold = time.perf_counter() - t0
print("journal: %d matches, %d entries" % (len(records), len(entries)))
print("fold: %.2f s, %.1f us per entry, %.1f ms per match" % (fold, fold / len(entries) * 1e6,
                                                              fold / len(records) * 1e3))
with tempfile.TemporaryDirectory() as d:
    db = history.HistoryDB(os.path.join(d, "h.sqlite3"))
    t0 = time.perf_counter()
    db.sync_table("t1", records, set())
    write = time.perf_counter() - t0
    t0 = time.perf_counter()
    rep = history.report(db)
    read = time.perf_counter() - t0
    db.close()
    size = os.path.getsize(os.path.join(d, "h.sqlite3"))
print("sqlite: write %d records %.3f s; report %.1f ms; file %d kB (%.0f B per match)" % (
    len(records), write, read * 1e3, size // 1024, size / len(records)))
