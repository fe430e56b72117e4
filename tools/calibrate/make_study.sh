#!/bin/sh
# Regenerates the sensor study (docs/break-estimator.md, "Sensor study"): the physics
# (tests/data/breaks/raw-eightball.jsonl, cam-eightball.jsonl), the estimator's fit data
# (tests/data/breaks/study-eightball.jsonl) and the study's table.
# About 15 min of one core for the physics, 5 for the camera, 20 for the study. Run from the
# repo root with the calibration venv (the `calibrate` extra, see the doc).
set -e
PY=${PT_PYTHON:-.venv-cal/bin/python}
export PYTHONHASHSEED=0
D=tests/data/breaks
mkdir -p $D
rm -f $D/raw-eightball.jsonl $D/raw-nineball.jsonl $D/cam-eightball.jsonl $D/cam120-eightball.jsonl
nice -n 10 $PY tools/calibrate/simulate_raw.py --game eightball --n 800 --seed 101 --speed 0.8 13 --out $D/raw-eightball.jsonl
nice -n 10 $PY tools/calibrate/simulate_raw.py --game nineball --n 800 --seed 201 --speed 0.8 13 --out $D/raw-nineball.jsonl
nice -n 10 $PY tools/calibrate/simulate_camera.py --n 400 --seed 101 --out $D/cam-eightball.jsonl
nice -n 10 $PY tools/calibrate/simulate_camera.py --n 400 --seed 101 --fps 60 120 --out $D/cam120-eightball.jsonl
nice -n 10 $PY tools/calibrate/study.py --export tests/data/breaks/study-GAME.jsonl
nice -n 10 $PY tools/calibrate/study.py
