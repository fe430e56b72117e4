# Runs under the MicroPython unix port: the codec must match the vectors on the board's interpreter.
import sys
import json
from shared_rules.link import frames, cobs
from shared_rules.link.crc import crc16


def unhex(s):
    return bytes(int(s[i:i + 2], 16) for i in range(0, len(s), 2))


d = json.load(open(sys.argv[1]))
assert crc16(b"123456789") == 0x29B1
for ex in d["cobs_examples"]:
    raw = unhex(ex["raw_hex"])
    enc = unhex(ex["cobs_hex"])
    assert cobs.encode(raw) == enc
    assert cobs.decode(enc) == raw
n = 0
for v in d["frames"]:
    f = dict(v["fields"])
    f["type"] = v["type"]
    f["seq"] = v["seq"]
    wire = unhex(v["wire_hex"])
    assert frames.encode(f) == wire, v["name"]
    g = frames.decode(wire)
    for k in f:
        assert g[k] == f[k], (v["name"], k)
    n += 1
r = frames.FrameReader()
got = r.feed(b"\x01\x02garbage\x00" + unhex(d["frames"][1]["wire_hex"]))
assert len(got) == 1 and r.error_count() == 1
print("vectors ok", n)
