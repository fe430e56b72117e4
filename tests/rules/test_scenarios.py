"""Every scenario file under tests/scenarios/, judged under CPython and under MicroPython."""
import glob
import os

import pytest

from tests.conftest import ROOT, compile_mpy, run_micropython
from tests.scenarios.runner import load, run_scenario

FILES = sorted(glob.glob(str(ROOT / "tests" / "scenarios" / "**" / "*.json"), recursive=True) +
               glob.glob(str(ROOT / "tests" / "scenarios" / "**" / "*.jsonl"), recursive=True))


@pytest.mark.parametrize("path", FILES, ids=[os.path.relpath(f, ROOT / "tests" / "scenarios") for f in FILES])
def test_scenario(path):
    run_scenario(load(path))


def test_there_are_scenarios():
    assert len(FILES) > 0


def test_all_scenarios_under_micropython(tmp_path):
    """The engine is proven on the board's interpreter, with a board-sized heap, compiled with
    mpy-cross as it would be deployed; all games load in one process."""
    # The streamed long games (a 150-point 14.1 match) go first: on a board a game starts on a
    # heap fresh from boot, not one fragmented by two hundred other games judged before it; with
    # them last the match ran out of heap once the seed-audit scenarios were added.
    ordered = [f for f in FILES if f.endswith(".jsonl")] + [f for f in FILES if not f.endswith(".jsonl")]
    rel = [os.path.relpath(f, ROOT) for f in ordered]
    mpy = compile_mpy(tmp_path / "mpy")
    p = run_micropython(ROOT / "tests" / "scenarios" / "runner.py", *rel, heap="192K", timeout=600,
                        first_path=mpy)
    tail = p.stdout.strip().splitlines()[-1] if p.stdout.strip() else ""
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-2000:]
    assert tail == "{} passed, 0 failed".format(len(FILES)), tail
