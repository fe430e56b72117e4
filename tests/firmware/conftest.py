"""Puts firmware/ on the import path, as MICROPYPATH does on the MicroPython side."""
import sys

from tests.conftest import ROOT

if str(ROOT / "firmware") not in sys.path:
    sys.path.insert(0, str(ROOT / "firmware"))
