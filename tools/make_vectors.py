#!/usr/bin/env python3
"""Write tests/data/link-v1.json: byte-exact examples of the serial link (docs/protocol.md).

Written from the protocol document alone, on purpose without the project's codec
(shared_rules/link), so that the codec's tests compare it with an independent reading of
the spec: the frame layouts are `struct` formats copied from the document's tables, the CRC
is the bit-by-bit textbook CRC-16/CCITT-FALSE and COBS is the plain two-pointer algorithm.
tests/link/test_vectors.py cross-checks every COBS encoding here with the PyPI `cobs`
package and checks that this script still reproduces the committed file.

    python3 tools/make_vectors.py            # rewrite tests/data/link-v1.json
    python3 tools/make_vectors.py --check    # exit 1 if the committed file differs
"""
import json
import pathlib
import struct
import sys

OUT = pathlib.Path(__file__).resolve().parent.parent / "tests" / "data" / "link-v1.json"

# type: (name, struct format of the payload after type and seq, field names) -- docs/protocol.md
LAYOUTS = {
    0x01: ("<IBBBBBB", ("boot_id", "proto", "fw_major", "fw_minor", "pockets", "rails", "features")),
    0x02: ("<QBBHB", ("t_us", "kind", "index", "value", "flags")),
    0x03: ("<IQHI", ("boot_id", "t_us", "backlog", "dropped")),
    0x04: ("<IB", ("boot_id", "value")),
    0x05: ("<IIIII", ("boot_id", "window_us", "passes", "longest_us", "busy_us")),
    0x81: ("<IH", ("boot_id", "ack")),
    0x82: ("<HB", ("mask", "mode")),
}
HELLO = 0x01
TAILS = {HELLO: ("name", 32), 0x04: ("text", 48)}     # UTF-8 to the end of the payload

BOOT = 0xDEADBEEF
FRAMES = [
    ("hello", HELLO, 0, {"boot_id": BOOT, "proto": 1, "fw_major": 1, "fw_minor": 2, "pockets": 6,
                         "rails": 6, "features": 15, "name": "pico-table-7"}),
    ("pocket, ball 8 in foot-left", 2, 1, {"t_us": 12345678, "kind": 1, "index": 2, "value": 8, "flags": 0}),
    ("pocket, unknown ball, uncertain", 2, 2, {"t_us": 12400000, "kind": 1, "index": 5, "value": 255, "flags": 1}),
    ("rail foot, strength 40000, t past 2^32", 2, 3,
     {"t_us": 5000000000, "kind": 2, "index": 3, "value": 40000, "flags": 0}),
    ("motion still, zeros in payload", 2, 256, {"t_us": 0, "kind": 4, "index": 0, "value": 0, "flags": 0}),
    ("heartbeat", 3, 4, {"boot_id": BOOT, "t_us": 99000000, "backlog": 3, "dropped": 0}),
    ("ack", 0x81, 0, {"boot_id": BOOT, "ack": 3}),
    ("ack across wrap", 0x81, 0, {"boot_id": BOOT, "ack": 65535}),
    ("lights: pockets 2 and 3, ball in hand, blink", 0x82, 0, {"mask": 268, "mode": 1}),
    # Beyond the first published set: the other event kinds, seq past the wrap, a full-length name.
    ("cue ball seen in a shared return", 2, 5, {"t_us": 12500000, "kind": 3, "index": 255, "value": 1, "flags": 0}),
    ("button 9 (new game) long press", 2, 6, {"t_us": 20000000, "kind": 5, "index": 9, "value": 2, "flags": 0}),
    ("fault: rail 16 not responding", 2, 7, {"t_us": 21000000, "kind": 6, "index": 16, "value": 3, "flags": 0}),
    ("event with seq 65535", 2, 65535, {"t_us": 2 ** 40, "kind": 1, "index": 0, "value": 0, "flags": 0}),
    ("hello, 32-byte UTF-8 name, no motion sensor", HELLO, 0,
     {"boot_id": 1, "proto": 1, "fw_major": 0, "fw_minor": 9, "pockets": 6, "rails": 6, "features": 0b1011,
      "name": "стол-" + "x" * 23}),
    ("heartbeat with events lost", 3, 300, {"boot_id": 7, "t_us": 2 ** 33, "backlog": 256, "dropped": 44}),
    # Firmware 1.2: a FAULT 255's text (its seq is the FAULT EVENT's), the loop's rate.
    ("firmware crash, then its FAULT (seq 1)", 4, 1,
     {"boot_id": BOOT, "value": 17, "text": "RuntimeError: shift register on fire"}),
    ("fault 255 value 17: the board could not be built", 2, 1,
     {"t_us": 15800, "kind": 6, "index": 255, "value": 17, "flags": 0}),
    ("configuration refused, text of 48 bytes", 4, 2,
     {"boot_id": 7, "value": 21, "text": "i2c.0.freq: a whole number; motion.every_ms: a w"}),
    ("fault text, UTF-8, no text", 4, 65535, {"boot_id": 1, "value": 20, "text": ""}),
    ("loop rate: 9731 passes in 10 s", 5, 0,
     {"boot_id": BOOT, "window_us": 10000412, "passes": 9731, "longest_us": 4210, "busy_us": 2212004}),
]
COBS_EXAMPLES = [b"", b"\x00", b"\x00\x00", b"\x11\x22\x00\x33", bytes(range(1, 255)), bytes(range(1, 256)),
                 b"\x01" * 508, b"\x01" * 253 + b"\x00", b"\x00" * 3 + b"\x01" * 254]


def crc16_ccitt_false(data):
    """Poly 0x1021, init 0xFFFF, no reflection, no final xor; crc(b"123456789") == 0x29B1."""
    crc = 0xFFFF
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
            crc &= 0xFFFF
    return crc


def cobs_encode(raw):
    """Canonical COBS, piece by piece between the zeros: a run of 254 non-zero bytes is code 0xFF
    (no implied zero); the last piece adds no empty block after a full one."""
    out = bytearray()
    pieces = raw.split(b"\x00")
    for k, piece in enumerate(pieces):
        full = 0
        while len(piece) >= 254:
            out += b"\xff" + piece[:254]
            piece = piece[254:]
            full += 1
        if k == len(pieces) - 1 and full and not piece:
            break
        out += bytes([len(piece) + 1]) + piece
    return bytes(out)


def decoded_frame(ftype, seq, fields):
    fmt, keys = LAYOUTS[ftype]
    body = struct.pack("<BH", ftype, seq) + struct.pack(fmt, *[fields[k] for k in keys])
    if ftype in TAILS:
        key, most = TAILS[ftype]
        body += fields[key].encode("utf-8")[:most]
    return body + struct.pack("<H", crc16_ccitt_false(body))


def build():
    frames = []
    for name, ftype, seq, fields in FRAMES:
        dec = decoded_frame(ftype, seq, fields)
        frames.append({"name": name, "type": ftype, "seq": seq, "fields": fields,
                       "decoded_hex": dec.hex(), "wire_hex": (cobs_encode(dec) + b"\x00").hex()})
    return {
        "about": "Frames of docs/protocol.md, made by tools/make_vectors.py. decoded_hex: type, seq, "
                 "payload, CRC (little-endian). wire_hex: canonical COBS of decoded plus the 0x00 delimiter.",
        "crc_check": {"input_ascii": "123456789", "crc": "0x%04X" % crc16_ccitt_false(b"123456789")},
        "cobs_examples": [{"raw_hex": r.hex(), "cobs_hex": cobs_encode(r).hex()} for r in COBS_EXAMPLES],
        "frames": frames,
    }


def text():
    return json.dumps(build(), indent=1, ensure_ascii=False) + "\n"


def main(argv):
    if "--check" in argv:
        same = OUT.exists() and OUT.read_text(encoding="utf-8") == text()
        print("%s is %s" % (OUT, "up to date" if same else "out of date: run tools/make_vectors.py"))
        return 0 if same else 1
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(text(), encoding="utf-8")
    print("wrote %s" % OUT)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
