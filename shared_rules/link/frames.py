"""Frame encoding and decoding: type, seq, payload, CRC, wrapped in COBS with a 0x00 delimiter.

Frames are plain dicts so both interpreters can log, compare and journal them.
"""
import struct

from shared_rules.link import cobs
from shared_rules.link.crc import crc16
from shared_rules.link.names import HELLO, EVENT, HEARTBEAT, ACK, LIGHTS

NAME_MAX = 32
EVENT_LEN = 13


def pack(ftype, seq, payload):
    """Wire bytes of one frame: COBS(type, seq, payload, CRC) + 0x00."""
    body = bytearray(struct.pack("<BH", ftype, seq & 0xFFFF))
    body.extend(payload)
    c = crc16(body)
    body.append(c & 0xFF)
    body.append(c >> 8)
    return cobs.encode(body) + b"\x00"


def hello_payload(boot_id, fw_major, fw_minor, pockets, rails, features, name):
    nb = name.encode("utf-8")[:NAME_MAX]
    return struct.pack("<IBBBBBB", boot_id, 1, fw_major, fw_minor, pockets, rails, features) + nb


def event_payload(t_us, kind, index, value, flags):
    return struct.pack("<QBBHB", t_us, kind, index, value, flags)


def heartbeat_payload(boot_id, t_us, backlog, dropped):
    return struct.pack("<IQHI", boot_id, t_us, backlog, dropped)


def ack_payload(boot_id, ack):
    return struct.pack("<IH", boot_id, ack & 0xFFFF)


def lights_payload(mask, mode):
    return struct.pack("<HB", mask, mode)


def encode(frame):
    """Wire bytes of a frame dict as `decode_body` returns it."""
    t = frame["type"]
    seq = frame.get("seq", 0)
    if t == HELLO:
        p = hello_payload(frame["boot_id"], frame["fw_major"], frame["fw_minor"],
                          frame["pockets"], frame["rails"], frame["features"], frame["name"])
    elif t == EVENT:
        p = event_payload(frame["t_us"], frame["kind"], frame["index"], frame["value"],
                          frame["flags"])
    elif t == HEARTBEAT:
        p = heartbeat_payload(frame["boot_id"], frame["t_us"], frame["backlog"], frame["dropped"])
    elif t == ACK:
        p = ack_payload(frame["boot_id"], frame["ack"])
    elif t == LIGHTS:
        p = lights_payload(frame["mask"], frame["mode"])
    else:
        raise ValueError("unknown frame type")
    return pack(t, seq, p)


def decode_body(body):
    """Frame dict from the decoded (un-COBSed) bytes, or an error string."""
    n = len(body)
    if n < 5:
        return "short"
    c = crc16(body[:n - 2])
    if body[n - 2] != (c & 0xFF) or body[n - 1] != (c >> 8):
        return "crc"
    t = body[0]
    seq = body[1] | (body[2] << 8)
    p = body[3:n - 2]
    pn = len(p)
    f = {"type": t, "seq": seq}
    if t == HELLO:
        if pn < 10 or pn > 10 + NAME_MAX:
            return "length"
        v = struct.unpack("<IBBBBBB", p[:10])
        try:
            name = str(p[10:], "utf-8")
        except Exception:
            return "name"
        f["boot_id"] = v[0]
        f["proto"] = v[1]
        f["fw_major"] = v[2]
        f["fw_minor"] = v[3]
        f["pockets"] = v[4]
        f["rails"] = v[5]
        f["features"] = v[6]
        f["name"] = name
    elif t == EVENT:
        if pn != EVENT_LEN:
            return "length"
        v = struct.unpack("<QBBHB", p)
        f["t_us"] = v[0]
        f["kind"] = v[1]
        f["index"] = v[2]
        f["value"] = v[3]
        f["flags"] = v[4]
    elif t == HEARTBEAT:
        if pn != 18:
            return "length"
        v = struct.unpack("<IQHI", p)
        f["boot_id"] = v[0]
        f["t_us"] = v[1]
        f["backlog"] = v[2]
        f["dropped"] = v[3]
    elif t == ACK:
        if pn != 6:
            return "length"
        v = struct.unpack("<IH", p)
        f["boot_id"] = v[0]
        f["ack"] = v[1]
    elif t == LIGHTS:
        if pn != 3:
            return "length"
        v = struct.unpack("<HB", p)
        f["mask"] = v[0]
        f["mode"] = v[1]
    else:
        return "type"
    return f


def decode(wire):
    """Frame dict from one delimited or undelimited wire frame, or an error string."""
    if len(wire) and wire[-1] == 0:
        wire = wire[:-1]
    body = cobs.decode(wire)
    if body is None:
        return "cobs"
    return decode_body(body)


class FrameReader:
    """Turns an arbitrary byte stream into frames; garbage is counted by reason, never raised."""

    MAX_FRAME = 64

    def __init__(self):
        self.buf = bytearray()
        self.errors = {}
        self.frames = 0
        self._skipping = False

    def error_count(self):
        n = 0
        for v in self.errors.values():
            n += v
        return n

    def _count(self, why):
        self.errors[why] = self.errors.get(why, 0) + 1

    def feed(self, data):
        """Frames completed by `data`, in order."""
        out = []
        for b in data:
            if b == 0:
                if self._skipping:
                    self._skipping = False
                elif len(self.buf):
                    f = decode(bytes(self.buf))
                    if isinstance(f, str):
                        self._count(f)
                    else:
                        self.frames += 1
                        out.append(f)
                self.buf = bytearray()
            elif not self._skipping:
                self.buf.append(b)
                if len(self.buf) > self.MAX_FRAME:
                    # Longer than any frame of the contract: drop up to the next delimiter.
                    self._count("overlong")
                    self.buf = bytearray()
                    self._skipping = True
        return out
