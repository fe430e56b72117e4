#!/bin/sh
# The new held-out physics of the per-band choice (docs/break-estimator.md, "Per speed band"):
# build/breaks/raw-GAME-SEED.jsonl (not committed; about 2 MB), then the tables and the
# committed sample (tests/data/breaks/held-GAME.jsonl). About 40 min of one core for the
# physics (pooltool, the calibration venv: PT_PYTHON), seconds for the rest (the test venv:
# PY). Run from the repo root.
set -e
PT=${PT_PYTHON:-.venv-cal/bin/python}
PY=${PY:-.venv/bin/python}
export PYTHONHASHSEED=0
D=build/breaks
mkdir -p $D
for spec in "eightball 111 1000" "eightball 112 1000" "nineball 211 1000" "nineball 212 1000" \
            "straight 311 600" "straight 312 600"; do
  set -- $spec
  speed="--speed 0.8 13"
  [ "$1" = straight ] && speed=""          # the safe break's own range, 1-5 m/s
  rm -f $D/raw-$1-$2.jsonl $D/view-$1-$2-*.jsonl
  nice -n 10 $PT tools/calibrate/simulate_raw.py --game $1 --n $3 --seed $2 $speed --out $D/raw-$1-$2.jsonl
done
$PY tools/calibrate/band_study.py --export-sample
$PY tools/calibrate/band_study.py
