"""Runs the firmware's plain test scripts under the MicroPython unix port at a board-like heap.

The same scripts are collected by pytest under CPython; here each one runs as
`micropython -X heapsize=192K tests/firmware/<script>` and must report no failures.
"""
import pathlib
import re

import pytest

from tests.conftest import run_micropython

HERE = pathlib.Path(__file__).resolve().parent
# Scripts that are plain test functions ending in `run(globals())`.
SCRIPTS = sorted(p.name for p in HERE.glob("test_*.py")
                 if "run(globals())" in p.read_text() and p.name != pathlib.Path(__file__).name)


def test_there_are_scripts_to_run():
    assert "test_sender.py" in SCRIPTS


@pytest.mark.parametrize("script", SCRIPTS)
def test_script_passes_under_micropython(script):
    proc = run_micropython(HERE / script, heap="192K")
    out = proc.stdout + proc.stderr
    m = re.search(r"(\d+) passed, (\d+) failed", proc.stdout)
    assert m, out
    assert int(m.group(2)) == 0, out
    assert int(m.group(1)) > 0, out
    assert proc.returncode == 0, out
