"""The board side of the reliable link (CONTRACT section 1), with no I/O and no clock.

The caller passes time in (`now_ms` monotonic, never wrapping; `t_us` the board's
64-bit microseconds) and writes whatever `poll` returns to the wire. Everything the
sender holds lives in buffers allocated once in the constructor, so a burst of
events never grows the heap and a full buffer only counts the loss in `dropped`.

Reliable frames (HELLO = seq 0, then EVENTs) are held until the host acknowledges
them. With no acknowledgement progress for `RETRY_MS` since the oldest held frame
went out, the sender goes back and sends every held frame again, oldest first.
"""
import struct

from shared_rules.link.crc import crc16
from shared_rules.link import frames
from shared_rules.link.names import HELLO, EVENT, HEARTBEAT

RETRY_MS = 250
HEARTBEAT_MS = 1000

# An EVENT body is type + seq + 13 payload bytes + CRC = 18 bytes; COBS adds at
# most one byte for so short a block, and the delimiter one more.
_BODY = 18
SLOT = 20
_HB_BODY = 23
_HB_MAX = 25


def cobs_into(src, n, dst, off):
    """COBS-encode `src[:n]` (n < 254) into `dst` at `off`, then a 0x00; returns the bytes written.

    Allocation-free so the sender can frame events into its preallocated slots.
    """
    code_at = off
    o = off + 1
    code = 1
    for i in range(n):
        b = src[i]
        if b == 0:
            dst[code_at] = code
            code_at = o
            o += 1
            code = 1
        else:
            dst[o] = b
            o += 1
            code += 1
    dst[code_at] = code
    dst[o] = 0
    return o + 1 - off


class Sender:
    """Sequence numbers, holding, acknowledgement, go-back-N retransmit and heartbeat."""

    def __init__(self, boot_id, capacity=256, hello=None, out_size=2048):
        h = hello or {}
        self.boot_id = boot_id & 0xFFFFFFFF
        self.capacity = capacity
        self.dropped = 0
        self.retransmits = 0
        self.sent_frames = 0
        self._hello = frames.pack(HELLO, 0, frames.hello_payload(
            self.boot_id, h.get("fw_major", 1), h.get("fw_minor", 0), h.get("pockets", 6),
            h.get("rails", 6), h.get("features", 0), h.get("name", "board")))
        if len(self._hello) > out_size:
            raise ValueError("out_size too small")
        self._hello_held = True
        self._slots = bytearray(capacity * SLOT)
        self._lens = bytearray(capacity)
        self._head = 0           # ring index of the oldest held event
        self._events = 0         # events held
        self._base = 0           # seq of the oldest held reliable frame (mod 65536)
        self._sent = 0           # held frames sent since the last go-back (cursor)
        self._timer = 0          # when the oldest held frame was last sent, or progress made
        self._progress = False   # an ACK freed frames since the last poll
        self._last_hb = None
        self._scratch = bytearray(_HB_BODY)
        self._out = bytearray(out_size)
        self._mv = memoryview(self._out)

    # --- what the sensors side calls -------------------------------------------------

    def backlog(self):
        """Reliable frames not yet acknowledged (HELLO included)."""
        return self._events + (1 if self._hello_held else 0)

    def next_seq(self):
        return (self._base + self.backlog()) & 0xFFFF

    def push_event(self, t_us, kind, index, value, flags=0):
        """Frame an event into the buffer; False (and `dropped` + 1) when the buffer is full."""
        if self._events >= self.capacity:
            self.dropped = (self.dropped + 1) & 0xFFFFFFFF
            return False
        s = self._scratch
        struct.pack_into("<BHQBBHB", s, 0, EVENT, self.next_seq(), t_us,
                         kind & 0xFF, index & 0xFF, value & 0xFFFF, flags & 0xFF)
        c = crc16(memoryview(s)[:_BODY - 2])
        s[_BODY - 2] = c & 0xFF
        s[_BODY - 1] = c >> 8
        i = self._head + self._events
        if i >= self.capacity:
            i -= self.capacity
        self._lens[i] = cobs_into(s, _BODY, self._slots, i * SLOT)
        self._events += 1
        return True

    # --- what the link reader calls ------------------------------------------------

    def on_ack(self, boot_id, ack):
        """Free every held frame up to and including `ack`; stale or foreign ACKs change nothing.

        Returns the number of frames freed.
        """
        if boot_id != self.boot_id:
            return 0
        held = self.backlog()
        d = (ack - self._base) & 0xFFFF
        if d >= held:
            return 0
        n = d + 1
        self._base = (self._base + n) & 0xFFFF
        if self._hello_held:
            self._hello_held = False
            n -= 1
        self._head = (self._head + n) % self.capacity if self.capacity else 0
        self._events -= n
        self._sent = self._sent - (d + 1) if self._sent > d + 1 else 0
        self._progress = True
        return d + 1

    # --- what the writer calls -------------------------------------------------------

    def _frame(self, k):
        """(buffer, start, length) of the k-th held frame, oldest first."""
        if self._hello_held:
            if k == 0:
                return self._hello, 0, len(self._hello)
            k -= 1
        i = self._head + k
        if i >= self.capacity:
            i -= self.capacity
        return self._slots, i * SLOT, self._lens[i]

    def poll_into(self, now_ms, t_us, buf):
        """Write the bytes due now into `buf` (whole frames, at most len(buf)); returns the count."""
        room = len(buf)
        o = 0
        if self._progress:
            self._progress = False
            self._timer = now_ms
        if self._last_hb is None:
            self._last_hb = now_ms - HEARTBEAT_MS
            self._timer = now_ms
        held = self.backlog()
        if held and self._sent and now_ms - self._timer >= RETRY_MS:
            self._sent = 0
            self.retransmits += 1
        if now_ms - self._last_hb >= HEARTBEAT_MS and room >= _HB_MAX:
            self._last_hb = now_ms
            s = self._scratch
            struct.pack_into("<BHIQHI", s, 0, HEARTBEAT, self.next_seq(), self.boot_id,
                             t_us, held if held < 0xFFFF else 0xFFFF, self.dropped)
            c = crc16(memoryview(s)[:_HB_BODY - 2])
            s[_HB_BODY - 2] = c & 0xFF
            s[_HB_BODY - 1] = c >> 8
            o += cobs_into(s, _HB_BODY, buf, o)
        while self._sent < held:
            src, start, n = self._frame(self._sent)
            if o + n > room:
                break
            buf[o:o + n] = src[start:start + n]
            o += n
            if self._sent == 0:
                self._timer = now_ms
            self._sent += 1
            self.sent_frames += 1
        return o

    def poll(self, now_ms, t_us):
        """The wire bytes to write now (possibly empty)."""
        n = self.poll_into(now_ms, t_us, self._out)
        return bytes(self._mv[:n])
