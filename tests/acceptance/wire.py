"""An independent codec of CONTRACT section 1, written from the contract text only.

It uses the PyPI `cobs` package and its own CRC, so the acceptance suite does
not trust the project's codec to check the project's codec.
"""
import struct

from cobs import cobs

HELLO, EVENT, HEARTBEAT, ACK, LIGHTS = 0x01, 0x02, 0x03, 0x81, 0x82
POCKET, RAIL, CUE, MOTION, BUTTON, FAULT = 1, 2, 3, 4, 5, 6
POCKETS = ["head-left", "side-left", "foot-left", "foot-right", "side-right", "head-right"]


def crc16(data):
    """CRC-16/CCITT-FALSE: poly 0x1021, init 0xFFFF, not reflected, xorout 0."""
    crc = 0xFFFF
    for b in data:
        crc ^= b << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) & 0xFFFF if crc & 0x8000 else (crc << 1) & 0xFFFF
    return crc


def frame(ftype, seq, payload):
    body = struct.pack("<BH", ftype, seq & 0xFFFF) + payload
    return cobs.encode(body + struct.pack("<H", crc16(body))) + b"\x00"


def hello(boot_id, features=0, seq=0, name=b"acc-board", pockets=6, rails=6):
    return frame(HELLO, seq, struct.pack("<IBBBBBB", boot_id, 1, 1, 0, pockets, rails, features) + name)


def event(seq, t_us, kind, index, value, flags=0):
    return frame(EVENT, seq, struct.pack("<QBBHB", t_us, kind, index, value, flags))


def heartbeat(boot_id, seq, t_us, backlog, dropped=0):
    return frame(HEARTBEAT, seq, struct.pack("<IQHI", boot_id, t_us, backlog, dropped))


def ack_bytes(boot_id, ack):
    """The exact bytes the host must send to acknowledge `ack` (seq field 0)."""
    return frame(ACK, 0, struct.pack("<IH", boot_id, ack))


class Decoder:
    """Splits the host's byte stream at 0x00 and decodes ACK / LIGHTS; keeps the raw wire bytes."""

    def __init__(self):
        self.buf = b""
        self.bad = 0

    def feed(self, data):
        self.buf += data
        out = []
        while b"\x00" in self.buf:
            chunk, self.buf = self.buf.split(b"\x00", 1)
            if not chunk:
                continue
            try:
                raw = cobs.decode(chunk)
            except cobs.DecodeError:
                self.bad += 1
                continue
            if len(raw) < 5 or crc16(raw[:-2]) != struct.unpack("<H", raw[-2:])[0]:
                self.bad += 1
                continue
            ftype, seq = struct.unpack("<BH", raw[:3])
            payload = raw[3:-2]
            f = {"type": ftype, "seq": seq, "wire": chunk + b"\x00", "len": len(payload)}
            if ftype == ACK and len(payload) == 6:
                f["boot_id"], f["ack"] = struct.unpack("<IH", payload)
            elif ftype == LIGHTS and len(payload) == 3:
                f["mask"], f["mode"] = struct.unpack("<HB", payload)
            out.append(f)
        return out
