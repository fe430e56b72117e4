"""Every scenario file under tests/scenarios/, judged under CPython and under MicroPython."""
import glob
import os

import pytest

from tests.conftest import ROOT, RULES_HEAP, compile_mpy, run_micropython
from tests.scenarios.runner import expected_failure, load, run_scenario

FILES = sorted(glob.glob(str(ROOT / "tests" / "scenarios" / "**" / "*.json"), recursive=True) +
               glob.glob(str(ROOT / "tests" / "scenarios" / "**" / "*.jsonl"), recursive=True))


def _param(path):
    """A scenario marked "xfail" shows a known engine defect: a strict xfail turns red when fixed."""
    why = expected_failure(load(path))
    marks = [pytest.mark.xfail(strict=True, reason=why)] if why else []
    return pytest.param(path, marks=marks, id=os.path.relpath(path, ROOT / "tests" / "scenarios"))


@pytest.mark.parametrize("path", [_param(f) for f in FILES])
def test_scenario(path):
    run_scenario(load(path))


def test_there_are_scenarios():
    assert len(FILES) > 0


def test_all_scenarios_under_micropython(tmp_path):
    """The engine is proven on MicroPython, compiled with mpy-cross as it would be deployed; all
    games load in one process."""
    rel = [os.path.relpath(f, ROOT) for f in FILES]
    mpy = compile_mpy(tmp_path / "mpy")
    listing = tmp_path / "scenarios.txt"      # a list file: two hundred paths make a long command line
    listing.write_text("\n".join(rel) + "\n")
    p = run_micropython(ROOT / "tests" / "scenarios" / "runner.py", "@" + str(listing), heap=RULES_HEAP,
                        timeout=600, first_path=mpy)
    tail = p.stdout.strip().splitlines()[-1] if p.stdout.strip() else ""
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-2000:]
    assert tail == "{} passed, 0 failed".format(len(FILES)), tail
