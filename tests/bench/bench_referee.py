"""Referee speed and memory: time to judge one shot, time to replay a whole journal, and the
engine's heap on the MicroPython unix port during a full game.

    .venv/bin/python tests/bench/bench_referee.py [SCENARIO.json ...]

With no arguments it uses the whole-game scenarios under tests/scenarios/. Prints numbers only.
"""
import glob
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from shared_rules.rules.referee import Referee  # noqa: E402
from tests.conftest import RULES_HEAP, compile_mpy  # noqa: E402
from tests.scenarios.runner import load, run_scenario  # noqa: E402

MPY_PROBE = r'''
import sys, gc, json
from shared_rules.rules.referee import Referee
gc.collect()
base = gc.mem_alloc()
r = Referee("t1")
peak_live = 0
peak_raw = 0
n = 0
with open(sys.argv[1]) as f:
    for line in f:
        r.apply(json.loads(line))
        n += 1
        raw = gc.mem_alloc() - base
        if raw > peak_raw:
            peak_raw = raw
        gc.collect()
        live = gc.mem_alloc() - base
        if live > peak_live:
            peak_live = live
gc.collect()
print(json.dumps({"entries": n, "peak_live": peak_live, "peak_raw": peak_raw,
                  "end_live": gc.mem_alloc() - base, "shot": r.state()["shot"]}))
'''


def journal_of(path):
    return run_scenario(load(path)).journal


def bench_cpython(journal, repeat=5):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        r = Referee("t1")
        for e in journal:
            r.apply(e)
        times.append(time.perf_counter() - t0)
    shots = r.state()["shot"]
    return min(times), statistics.median(times), shots


def bench_micropython(journal):
    exe = pathlib.Path(sys.executable).parent / "micropython"
    with tempfile.TemporaryDirectory() as d:
        j = pathlib.Path(d) / "journal.jsonl"
        j.write_text("".join(json.dumps(e) + "\n" for e in journal))
        probe = pathlib.Path(d) / "probe.py"
        probe.write_text(MPY_PROBE)
        mpy = compile_mpy(pathlib.Path(d) / "mpy")      # deployed as mpy-cross bytecode
        env = dict(os.environ, MICROPYPATH=".frozen:" + str(mpy) + ":" + str(ROOT))
        t0 = time.perf_counter()
        p = subprocess.run([str(exe), "-X", "heapsize=" + RULES_HEAP, str(probe), str(j)], capture_output=True,
                           text=True, env=env)
        wall = time.perf_counter() - t0
    if p.returncode != 0:
        return {"error": p.stderr[-500:]}
    out = json.loads(p.stdout.strip().splitlines()[-1])
    out["wall_s"] = round(wall, 3)
    return out


def main(paths):
    if not paths:
        paths = sorted(p for p in glob.glob(str(ROOT / "tests/scenarios/**/*.json*"), recursive=True)
                       if "full" in p or "150" in p or "three-fouls" in p)
    for p in paths:
        journal = journal_of(p)
        best, med, shots = bench_cpython(journal)
        mp = bench_micropython(journal)
        print("{}: {} entries, {} shots".format(os.path.relpath(p, ROOT), len(journal), shots))
        print("  CPython replay: best {:.2f} ms, median {:.2f} ms; per judged shot {:.1f} us".format(
            best * 1e3, med * 1e3, best * 1e6 / max(shots, 1)))
        if "error" in mp:
            print("  MicroPython: error", mp["error"])
        else:
            print("  MicroPython (heap " + RULES_HEAP + "): replay {:.2f} s wall (with start-up); peak live heap {} B, "
                  "peak heap incl. garbage {} B, live at end {} B".format(
                      mp["wall_s"], mp["peak_live"], mp["peak_raw"], mp["end_live"]))


if __name__ == "__main__":
    main(sys.argv[1:])
