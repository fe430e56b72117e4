"""Runs the firmware's plain test scripts under the MicroPython unix port at a board-like heap.

The same scripts are collected by pytest under CPython; here each one runs as
`micropython -X heapsize=256K tests/firmware/<script>` and must report no failures.
The firmware, its fakes and the link run as mpy-cross bytecode, as deployed on a board
(hardware/README.md): compiling them on a board-sized heap is not what a board does.
"""
import pathlib
import re

import pytest

from tests.conftest import compile_mpy, run_micropython

HERE = pathlib.Path(__file__).resolve().parent
# Scripts that are plain test functions ending in `run(globals())`.
SCRIPTS = sorted(p.name for p in HERE.glob("test_*.py")
                 if "run(globals())" in p.read_text() and p.name != pathlib.Path(__file__).name)


# MicroPython-only scripts (they boot main.py on the port models): not collected under CPython.
MP_ONLY = ["mp_boot.py", "mp_uptime.py"]


def test_there_are_scripts_to_run():
    assert "test_sender.py" in SCRIPTS


# A Pico has 185 KB free once the Board is built (measured on a real RP2040 image, issue 8);
# here the same heap also holds the fake machine, the test rig and every frame the host decodes,
# test_field.py two rigs at once, and every object is twice a board's size (64-bit pointers).
# The declared configuration and the per-chip registry (issue 15) and the board's own fault
# texts and loop report (issue 16) take about 21 KB more here (about half that on a board,
# where config.py and chips.py are also dropped after boot): 256K became 288K.
HEAP = "288K"


@pytest.fixture(scope="module")
def bytecode(tmp_path_factory):
    """firmware/ and shared_rules/ compiled with mpy-cross, ahead of the sources on the path."""
    d = tmp_path_factory.mktemp("mpy")
    compile_mpy(d, "shared_rules")
    fw = d / "fw"
    for pkg in ("tableboard", "vboard"):
        compile_mpy(fw, "firmware/" + pkg)
    return "%s:%s" % (d, fw / "firmware")


@pytest.mark.parametrize("script", SCRIPTS + MP_ONLY)
def test_script_passes_under_micropython(script, bytecode, tmp_path):
    proc = run_micropython(HERE / script, tmp_path, heap=HEAP, first_path=bytecode)
    out = proc.stdout + proc.stderr
    m = re.search(r"(\d+) passed, (\d+) failed", proc.stdout)
    assert m, out
    assert int(m.group(2)) == 0, out
    assert int(m.group(1)) > 0, out
    assert proc.returncode == 0, out
