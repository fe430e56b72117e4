#!/bin/sh
# Regenerates tests/data/breaks/ (about 2 minutes on 2 cores). Run from the repo root.
set -e
PY=${PT_PYTHON:-/work/pt-venv/bin/python}
export PYTHONHASHSEED=0
D=tests/data/breaks
rm -f $D/eightball.jsonl $D/nineball.jsonl $D/straight.jsonl
$PY tools/calibrate/simulate_breaks.py --game eightball --table 7ft --n 300 --seed 11 --out $D/eightball.jsonl
$PY tools/calibrate/simulate_breaks.py --game eightball --table 9ft --n 200 --seed 12 --out $D/eightball.jsonl
$PY tools/calibrate/simulate_breaks.py --game nineball --table 7ft --n 300 --seed 21 --out $D/nineball.jsonl
$PY tools/calibrate/simulate_breaks.py --game nineball --table 9ft --n 200 --seed 22 --out $D/nineball.jsonl
$PY tools/calibrate/simulate_breaks.py --game straight --table 7ft --n 200 --seed 31 --out $D/straight.jsonl
$PY tools/calibrate/simulate_breaks.py --game straight --table 9ft --n 100 --seed 32 --out $D/straight.jsonl
