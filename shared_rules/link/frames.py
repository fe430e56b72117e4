"""Frame encoding and decoding: type, seq, payload, CRC, wrapped in COBS with a 0x00 delimiter.

Frames are plain dicts so both interpreters can log, compare and journal them.
"""
import struct

from shared_rules.link import cobs
from shared_rules.link.crc import crc16
from shared_rules.link.names import HELLO, EVENT, HEARTBEAT, FAULT_TEXT, LOOP_RATE, ACK, LIGHTS

NAME_MAX = 32
TEXT_MAX = 48      # a FAULT_TEXT's text: the frame stays under FrameReader.MAX_FRAME


def pack(ftype, seq, payload):
    """Wire bytes of one frame: COBS(type, seq, payload, CRC) + 0x00."""
    body = bytearray(struct.pack("<BH", ftype, seq & 0xFFFF))
    body.extend(payload)
    c = crc16(body)
    body.append(c & 0xFF)
    body.append(c >> 8)
    return cobs.encode(body) + b"\x00"


# Payload layout per frame type: struct format and field names, in wire order.
# HELLO is followed by the board name, FAULT_TEXT by its text (UTF-8, to the end: TAIL).
LAYOUT = {
    HELLO: ("<IBBBBBB", ("boot_id", "proto", "fw_major", "fw_minor", "pockets", "rails", "features")),
    EVENT: ("<QBBHB", ("t_us", "kind", "index", "value", "flags")),
    HEARTBEAT: ("<IQHI", ("boot_id", "t_us", "backlog", "dropped")),
    FAULT_TEXT: ("<IB", ("boot_id", "value")),
    LOOP_RATE: ("<IIIII", ("boot_id", "window_us", "passes", "longest_us", "busy_us")),
    ACK: ("<IH", ("boot_id", "ack")),
    LIGHTS: ("<HB", ("mask", "mode")),
}
TAIL = {HELLO: ("name", NAME_MAX), FAULT_TEXT: ("text", TEXT_MAX)}


def utf8_cut(text, most):
    """`text` as UTF-8 bytes, cut to at most `most` bytes without splitting a character."""
    b = text.encode("utf-8")
    if len(b) <= most:
        return b
    n = most
    while n > 0 and (b[n] & 0xC0) == 0x80:
        n -= 1
    return b[:n]


def hello_payload(boot_id, fw_major, fw_minor, pockets, rails, features, name):
    nb = name.encode("utf-8")[:NAME_MAX]
    return struct.pack("<IBBBBBB", boot_id, 1, fw_major, fw_minor, pockets, rails, features) + nb


def fault_text(boot_id, seq, value, text):
    """Wire bytes of the FAULT_TEXT explaining the FAULT EVENT `seq` (value `value`)."""
    return pack(FAULT_TEXT, seq, struct.pack("<IB", boot_id, value) + utf8_cut(text, TEXT_MAX))


def encode(frame):
    """Wire bytes of a frame dict as `decode_body` returns it (HELLO's `proto` defaults to 1)."""
    t = frame["type"]
    if t not in LAYOUT:
        raise ValueError("unknown frame type")
    fmt, fields = LAYOUT[t]
    values = [frame.get(k, 1) if k == "proto" else frame[k] for k in fields]
    p = struct.pack(fmt, *values)
    if t in TAIL:
        key, most = TAIL[t]
        p += utf8_cut(frame[key], most) if t == FAULT_TEXT else frame[key].encode("utf-8")[:most]
    return pack(t, frame.get("seq", 0), p)


def decode_body(body):
    """Frame dict from the decoded (un-COBSed) bytes, or an error string."""
    n = len(body)
    if n < 5:
        return "short"
    c = crc16(body[:n - 2])
    if body[n - 2] != (c & 0xFF) or body[n - 1] != (c >> 8):
        return "crc"
    t = body[0]
    if t not in LAYOUT:
        return "type"
    fmt, fields = LAYOUT[t]
    size = struct.calcsize(fmt)
    extra = n - 5 - size
    tail = TAIL.get(t)
    if extra < 0 or extra > (tail[1] if tail else 0):
        return "length"
    f = {"type": t, "seq": body[1] | (body[2] << 8)}
    # unpack_from reads in place: no slice copies, which fragment a board-sized heap.
    values = struct.unpack_from(fmt, body, 3)
    for i in range(len(fields)):
        f[fields[i]] = values[i]
    if tail:
        raw = body[3 + size:n - 2]
        try:
            f[tail[0]] = str(raw, "utf-8")
        except Exception:
            # A name or a text is only a label: a bad one must not stop the link (the CRC is good).
            f[tail[0]] = "".join(chr(b) if 32 <= b < 127 else "?" for b in raw)
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
    """Turns an arbitrary byte stream into frames; garbage is counted by reason, never raised.

    Bytes collect in one buffer allocated up front (the board reads ACK and
    LIGHTS with this too, and per-byte growth would fragment its heap).
    """

    MAX_FRAME = 64

    def __init__(self):
        self.buf = bytearray(self.MAX_FRAME)
        self.n = 0
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
        buf = self.buf
        for b in data:
            if b == 0:
                if self._skipping:
                    self._skipping = False
                elif self.n:
                    f = decode(bytes(buf[:self.n]))
                    if isinstance(f, str):
                        self._count(f)
                    else:
                        self.frames += 1
                        out.append(f)
                self.n = 0
            elif not self._skipping:
                if self.n == self.MAX_FRAME:
                    # Longer than any frame of the contract: drop up to the next delimiter.
                    self._count("overlong")
                    self.n = 0
                    self._skipping = True
                else:
                    buf[self.n] = b
                    self.n += 1
        return out
