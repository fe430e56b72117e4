"""The board side of the reliable link (CONTRACT section 1), with no I/O and no clock.

The caller passes time in (`now_ms` a millisecond count such as `ticks_ms()`: only
differences matter, taken modulo 2^30 like `ticks_diff`, so a board up for days
never leaves the small-int range here; `t_us` the board's 64-bit microseconds) and
writes whatever `poll_into` returns to the wire at once: the caller bounds the
buffer by what its transport accepts now, so a frame's timer starts when it leaves.
Everything the sender holds lives in buffers allocated once in the constructor, so
a burst of events never grows the heap and a full buffer only counts the loss in
`dropped`.

Reliable frames (HELLO = seq 0, then EVENTs) are held until the host acknowledges
them. Two ways to send one again, both readable by a host of contract v1:
- timeout: with no acknowledgement progress for RTO since the oldest held frame
  went out, go back and send every held frame again, oldest first. RTO adapts to
  the measured round trip as in RFC 6298 (SRTT/RTTVAR, Karn's rule: no sample
  from a frame sent twice, doubled on each timeout), between RTO_MIN and RTO_MAX;
  RETRY_MS, the contract's fixed 250 ms, until the first sample.
- fast retransmit: an ACK of the seq just before the oldest held frame (a
  duplicate ACK: the host still waits for that frame, and says so at once on a
  gap or a corrupt frame) goes back to that frame at once, not after RTO, for
  the same frame at most once per round trip. A contract host drops whatever
  follows a gap, so everything from the missing frame on goes again
  (tests/bench/bench_link_noise.py measures resending only the missing one).

Two unreliable frames of firmware 1.2, which a host that does not know them drops:
- FAULT_TEXT goes out right before every sending of the FAULT EVENT it explains
  (`attach_text`), until that EVENT is acknowledged; `text_acked(seq)` is called then;
- LOOP_RATE (`report_loop`) goes out once, when no reliable frame waits for an ACK, so
  that a host answering an unknown frame with a duplicate ACK makes the board resend nothing.
"""
import struct

from shared_rules.link.crc import crc16
from shared_rules.link import frames
from shared_rules.link.names import HELLO, EVENT, HEARTBEAT, LOOP_RATE

RETRY_MS = 250           # contract v1's retry, used until a round trip is measured
RTO_MIN = 20
RTO_MAX = RETRY_MS     # never slower than contract v1, also while backing off
HEARTBEAT_MS = 1000

# Board time arithmetic in the ticks_ms style: modulo 2^30, signed differences.
_MASK = 0x3FFFFFFF
_HALF = 0x20000000

# An EVENT body is type + seq + 13 payload bytes + CRC = 18 bytes; COBS adds at
# most one byte for so short a block, and the delimiter one more.
_BODY = 18
SLOT = 20
_HB_BODY = 23
_HB_MAX = 25
_LR_BODY = 25            # LOOP_RATE: type, seq, 20 payload bytes, CRC
_LR_MAX = 27
_U32 = 0xFFFFFFFF


def _since(now, then):
    """now - then in milliseconds, both modulo 2^30 (as time.ticks_diff)."""
    return ((now - then + _HALF) & _MASK) - _HALF


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
    """Sequence numbers, holding, acknowledgement, retransmit (timeout and fast) and heartbeat."""

    def __init__(self, boot_id, capacity=256, hello=None, out_size=2048):
        h = hello or {}
        self.boot_id = boot_id & 0xFFFFFFFF
        self.capacity = capacity
        self.dropped = 0
        self.retransmits = 0        # go-backs after a timeout
        self.fast_retransmits = 0   # resends on a duplicate ACK
        self.sent_frames = 0
        self.sent_bytes = 0         # reliable frame bytes written, modulo 2^30
        self.resent_bytes = 0       # of which frames sent before
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
        self._ever = 0           # held frames sent at least once
        self._timer = 0          # when the oldest held frame was last sent, or progress made
        self._progress = False   # an ACK freed frames since the last poll
        self._last_hb = None
        # Round-trip estimate (RFC 6298) in ms, scaled: SRTT x 8, RTTVAR x 4.
        self._srtt8 = 0
        self._rttvar4 = 0
        self._has_rtt = False
        self.rto = RETRY_MS
        self._timing = False     # one frame at a time is timed (Karn: never a resent one)
        self._rtt_seq = 0
        self._rtt_at = 0
        self._rtt_done = False   # its ACK came: take the sample at the next poll
        # Fast retransmit.
        self._dup = False        # a duplicate ACK asks for the oldest frame again
        self._fr_seq = -1        # the frame last sent by fast retransmit, and when
        self._fr_at = 0
        self._scratch = bytearray(_LR_BODY)
        smv = memoryview(self._scratch)
        self._ev_crc = smv[:_BODY - 2]
        self._hb_crc = smv[:_HB_BODY - 2]
        self._lr_crc = smv[:_LR_BODY - 2]
        self._texts = []         # [seq, wire bytes] of each FAULT_TEXT not yet acknowledged
        self._told = -1          # the seq whose text went out last, since the last go-back
        self.text_acked = None   # called with the seq of a FAULT whose text was acknowledged
        self._loop = [0, 0, 0, 0, False]   # the last LOOP_RATE numbers, and "not sent yet"
        self._out_size = out_size
        self._out = None         # poll()'s buffer, made on first use (a board calls poll_into)

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
        c = crc16(self._ev_crc)
        s[_BODY - 2] = c & 0xFF
        s[_BODY - 1] = c >> 8
        i = self._head + self._events
        if i >= self.capacity:
            i -= self.capacity
        self._lens[i] = cobs_into(s, _BODY, self._slots, i * SLOT)
        self._events += 1
        return True

    def attach_text(self, seq, value, text):
        """Explain the FAULT EVENT `seq` (value `value`) with `text` (FAULT_TEXT, sent before it)."""
        self._texts.append([seq & 0xFFFF, frames.fault_text(self.boot_id, seq, value, text)])

    def report_loop(self, window_us, passes, longest_us, busy_us):
        """The sensor loop's last window: sent once as LOOP_RATE (a newer one replaces it)."""
        lr = self._loop
        lr[0] = window_us if window_us < _U32 else _U32
        lr[1] = passes if passes < _U32 else _U32
        lr[2] = longest_us if longest_us < _U32 else _U32
        lr[3] = busy_us if busy_us < _U32 else _U32
        lr[4] = True

    # --- what the link reader calls ------------------------------------------------

    def on_ack(self, boot_id, ack, now_ms=None):
        """Free every held frame up to and including `ack`; stale or foreign ACKs free nothing.

        An ACK of the seq just before the oldest held frame is the host saying it
        still waits for that frame: it is sent again at the next poll. `now_ms`,
        when given, times the round trip now rather than at the next poll.
        Returns the number of frames freed.
        """
        if boot_id != self.boot_id:
            return 0
        held = self.backlog()
        d = (ack - self._base) & 0xFFFF
        if d >= held:
            if d == 0xFFFF and held and self._ever:
                self._dup = True
            return 0
        n = d + 1
        if self._timing and ((self._rtt_seq - self._base) & 0xFFFF) < n:
            self._timing = False
            self._rtt_done = True
            if now_ms is not None:
                self._sample(now_ms & _MASK)
        if self._texts:
            self._texts_acked(self._base, n)
        self._base = (self._base + n) & 0xFFFF
        if self._hello_held:
            self._hello_held = False
            n -= 1
        self._head = (self._head + n) % self.capacity if self.capacity else 0
        self._events -= n
        self._sent = self._sent - (d + 1) if self._sent > d + 1 else 0
        self._ever = self._ever - (d + 1) if self._ever > d + 1 else 0
        if now_ms is None:
            self._progress = True         # the wait restarts at the next poll
        else:
            self._timer = now_ms & _MASK
        return d + 1

    def _texts_acked(self, base, n):
        """Drop the texts of the `n` frames from seq `base` just acknowledged; tell `text_acked`."""
        k = 0
        while k < len(self._texts):
            seq = self._texts[k][0]
            if ((seq - base) & 0xFFFF) < n:
                self._texts.pop(k)
                if self.text_acked is not None:
                    self.text_acked(seq)
            else:
                k += 1

    # --- round trip ----------------------------------------------------------------

    def _sample(self, now):
        """Fold one round-trip sample into SRTT/RTTVAR and set RTO (RFC 6298 section 2)."""
        self._rtt_done = False
        r = _since(now, self._rtt_at)
        if r < 0:
            r = 0
        if not self._has_rtt:
            self._has_rtt = True
            self._srtt8 = r << 3
            self._rttvar4 = r << 1
        else:
            delta = r - (self._srtt8 >> 3)
            self._srtt8 += delta
            if delta < 0:
                delta = -delta
            self._rttvar4 += delta - (self._rttvar4 >> 2)
        rto = (self._srtt8 >> 3) + self._rttvar4
        self.rto = RTO_MIN if rto < RTO_MIN else RTO_MAX if rto > RTO_MAX else rto

    def srtt(self):
        """Smoothed round trip in ms (None before the first sample)."""
        return (self._srtt8 >> 3) if self._has_rtt else None

    # --- what the writer calls -------------------------------------------------------

    def _put(self, k, buf, o, room):
        """Copy the k-th held frame (oldest first) into buf at o; its length, or 0 if it does not fit."""
        if self._hello_held and k == 0:
            src = self._hello
            start = 0
            n = len(src)
        else:
            if self._hello_held:
                k -= 1
            i = self._head + k
            if i >= self.capacity:
                i -= self.capacity
            src = self._slots
            start = i * SLOT
            n = self._lens[i]
        if o + n > room:
            return 0
        for j in range(n):
            buf[o + j] = src[start + j]
        self.sent_frames += 1
        self.sent_bytes = (self.sent_bytes + n) & _MASK
        return n

    def poll_into(self, now_ms, t_us, buf, limit=-1):
        """Write the bytes due now into `buf` (whole frames, at most `limit` or len(buf)); returns the count."""
        now = now_ms & _MASK
        room = len(buf) if limit < 0 or limit > len(buf) else limit
        o = 0
        if self._rtt_done:
            self._sample(now)
        if self._progress:
            self._progress = False
            self._timer = now
        if self._last_hb is None:
            self._last_hb = now - HEARTBEAT_MS
            self._timer = now
        held = self.backlog()
        if held and self._sent and _since(now, self._timer) >= self.rto:
            # Everything held goes again from the oldest; nothing in flight is timed (Karn).
            self._sent = 0
            self._told = -1
            self._timing = False
            self._rtt_done = False
            self.retransmits += 1
            r = self.rto << 1
            self.rto = RTO_MAX if r > RTO_MAX else r
        if _since(now, self._last_hb) >= HEARTBEAT_MS and room >= _HB_MAX:
            self._last_hb = now
            if callable(t_us):   # the board hands a function: its 64-bit time is made only here
                t_us = t_us()
            s = self._scratch
            struct.pack_into("<BHIQHI", s, 0, HEARTBEAT, self.next_seq(), self.boot_id,
                             t_us, held if held < 0xFFFF else 0xFFFF, self.dropped)
            c = crc16(self._hb_crc)
            s[_HB_BODY - 2] = c & 0xFF
            s[_HB_BODY - 1] = c >> 8
            o += cobs_into(s, _HB_BODY, buf, o)
        lr = self._loop
        if lr[4] and not held and room - o >= _LR_MAX:
            lr[4] = False
            s = self._scratch
            struct.pack_into("<BHIIIII", s, 0, LOOP_RATE, 0, self.boot_id, lr[0], lr[1], lr[2], lr[3])
            c = crc16(self._lr_crc)
            s[_LR_BODY - 2] = c & 0xFF
            s[_LR_BODY - 1] = c >> 8
            o += cobs_into(s, _LR_BODY, buf, o)
        if self._dup:
            self._dup = False
            o += self._fast(now, held, buf, o, room)
        while self._sent < held:
            if self._texts:
                t = self._text_before(self._sent, buf, o, room)
                if t < 0:
                    break
                o += t
            n = self._put(self._sent, buf, o, room)
            if not n:
                break
            o += n
            if self._sent == 0:
                self._timer = now
            if self._sent < self._ever:
                self.resent_bytes = (self.resent_bytes + n) & _MASK
            else:
                self._ever = self._sent + 1
                if not self._timing:
                    self._timing = True
                    self._rtt_seq = (self._base + self._sent) & 0xFFFF
                    self._rtt_at = now
            self._sent += 1
        return o

    def _text_before(self, k, buf, o, room):
        """Write the FAULT_TEXT due right before the k-th held frame (once each time that
        frame goes out) into buf at o; returns the bytes written, -1 if it does not fit now."""
        seq = (self._base + k) & 0xFFFF
        if seq == self._told:
            return 0
        for t in self._texts:
            if t[0] == seq:
                w = t[1]
                if o + len(w) > room:
                    return -1
                for j in range(len(w)):
                    buf[o + j] = w[j]
                self._told = seq
                return len(w)
        return 0

    def _fast_due(self, now, held):
        """True (and counted) if the oldest frame may go again now: sent, not within a round trip."""
        if not held or not self._ever or not self._sent:
            return False
        if self._fr_seq == self._base and \
                _since(now, self._fr_at) < (self._srtt8 >> 3) + (self._rttvar4 >> 2):
            return False
        self._fr_seq = self._base
        self._fr_at = now
        self.fast_retransmits += 1
        self._timing = False
        self._rtt_done = False
        return True

    def _fast(self, now, held, buf, o, room):
        """Fast retransmit: go back to the oldest held frame now; the bytes written here (none:
        the send loop that follows writes them, oldest first)."""
        if self._fast_due(now, held):
            self._sent = 0
            self._told = -1
        return 0

    def poll(self, now_ms, t_us):
        """The wire bytes to write now (possibly empty)."""
        if self._out is None:
            self._out = bytearray(self._out_size)
        n = self.poll_into(now_ms, t_us, self._out)
        return bytes(self._out[:n])
