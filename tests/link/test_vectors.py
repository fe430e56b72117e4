"""The link vectors (tests/data/link-v1.json) are the project's own, made by tools/make_vectors.py
from docs/protocol.md; here they are checked against the PyPI `cobs` package, an outside
implementation of the same canonical COBS, and against the script that made them."""
import json
import struct
import subprocess
import sys

import cobs.cobs as reference_cobs

from tests.conftest import LINK_VECTORS, ROOT


def load():
    return json.loads(LINK_VECTORS.read_text(encoding="utf-8"))


def test_every_cobs_example_matches_the_cobs_package():
    v = load()
    assert len(v["cobs_examples"]) >= 7
    for ex in v["cobs_examples"]:
        raw = bytes.fromhex(ex["raw_hex"])
        assert reference_cobs.encode(raw).hex() == ex["cobs_hex"], ex["raw_hex"][:16]
        assert reference_cobs.decode(bytes.fromhex(ex["cobs_hex"])) == raw


def test_every_frame_on_the_wire_is_the_cobs_package_encoding_plus_a_zero():
    v = load()
    assert len(v["frames"]) >= 9
    for f in v["frames"]:
        dec, wire = bytes.fromhex(f["decoded_hex"]), bytes.fromhex(f["wire_hex"])
        assert wire[-1:] == b"\x00" and b"\x00" not in wire[:-1], f["name"]
        assert reference_cobs.encode(dec) == wire[:-1], f["name"]
        assert dec[0] == f["type"] and struct.unpack("<H", dec[1:3])[0] == f["seq"], f["name"]


def test_the_crc_check_value_of_the_document():
    assert load()["crc_check"] == {"input_ascii": "123456789", "crc": "0x29B1"}


def test_the_script_still_makes_the_committed_file():
    p = subprocess.run([sys.executable, str(ROOT / "tools" / "make_vectors.py"), "--check"],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stdout + p.stderr
