#!/bin/sh
# Regenerates the sensor study's physics (build/breaks/raw-*.jsonl, not committed; about
# 40 min of one core). Run from the repo root with the calibration venv (the `calibrate` extra).
set -e
PY=${PT_PYTHON:-.venv-cal/bin/python}
export PYTHONHASHSEED=0
D=build/breaks
mkdir -p $D
rm -f $D/raw-eightball.jsonl $D/raw-nineball.jsonl
nice -n 10 $PY tools/calibrate/simulate_raw.py --game eightball --n 2400 --seed 101 --speed 0.8 13 --out $D/raw-eightball.jsonl
nice -n 10 $PY tools/calibrate/simulate_raw.py --game nineball --n 1000 --seed 201 --speed 0.8 13 --out $D/raw-nineball.jsonl
