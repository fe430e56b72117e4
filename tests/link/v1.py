"""Contract v1 peers written from CONTRACT section 1 alone, as a third party would:
a board and a host that know nothing of duplicate ACKs, fast retransmit or an
adaptive timer. The interop tests and the noisy-link benchmark run the new side
against them, so "an old board with a new host, a new board with an old host"
is checked, not assumed.
"""
from shared_rules.link import frames
from shared_rules.link.names import HELLO, EVENT, HEARTBEAT, ACK

RETRY_MS = 250


class V1Board:
    """Holds reliable frames until ACKed; no ACK progress for 250 ms: all of them again, oldest first."""

    def __init__(self, boot_id, capacity=256):
        self.boot_id = boot_id
        self.capacity = capacity
        self.held = [frames.encode({"type": HELLO, "seq": 0, "boot_id": boot_id, "fw_major": 1,
                                    "fw_minor": 0, "pockets": 6, "rails": 6, "features": 0,
                                    "name": "v1"})]
        self.base = 0
        self.cursor = 0          # held frames sent since the last go-back
        self.timer = None
        self.last_hb = None
        self.dropped = 0
        self.sent_bytes = 0
        self.resent_bytes = 0
        self.ever = 0
        self.hello_held = 1

    def backlog(self):
        return len(self.held)

    def next_seq(self):
        return (self.base + len(self.held)) & 0xFFFF

    def push_event(self, t_us, kind, index, value, flags=0):
        if len(self.held) - self.hello_held >= self.capacity:
            self.dropped += 1
            return False
        self.held.append(frames.encode({"type": EVENT, "seq": self.next_seq(), "t_us": t_us,
                                        "kind": kind, "index": index, "value": value,
                                        "flags": flags}))
        return True

    def on_ack(self, boot_id, ack, now_ms=None):
        d = (ack - self.base) & 0xFFFF
        if boot_id != self.boot_id or d >= len(self.held):
            return 0
        n = d + 1
        del self.held[:n]
        self.hello_held = 0
        self.base = (self.base + n) & 0xFFFF
        self.cursor = max(0, self.cursor - n)
        self.ever = max(0, self.ever - n)
        self.timer = "progress"
        return n

    def poll_into(self, now_ms, t_us, buf, limit=-1):
        room = len(buf) if limit < 0 else min(limit, len(buf))
        out = bytearray()
        if self.timer == "progress" or self.timer is None:
            self.timer = now_ms
        if self.last_hb is None or now_ms - self.last_hb >= 1000:
            self.last_hb = now_ms
            out += frames.encode({"type": HEARTBEAT, "seq": self.next_seq(),
                                  "boot_id": self.boot_id, "t_us": t_us,
                                  "backlog": min(len(self.held), 0xFFFF),
                                  "dropped": self.dropped})
        if self.held and self.cursor and now_ms - self.timer >= RETRY_MS:
            self.cursor = 0
        while self.cursor < len(self.held):
            f = self.held[self.cursor]
            if len(out) + len(f) > room:
                break
            if self.cursor == 0:
                self.timer = now_ms
            out += f
            self.sent_bytes += len(f)
            if self.cursor < self.ever:
                self.resent_bytes += len(f)
            else:
                self.ever = self.cursor + 1
            self.cursor += 1
        buf[:len(out)] = out
        return len(out)


class V1Host:
    """Accepts only the next seq, drops anything else silently, ACKs after accepting or a duplicate."""

    def __init__(self):
        self.reader = frames.FrameReader()
        self.boot_id = None
        self.expect = 0
        self.journal = []        # (entry, now)

    def feed(self, data, now):
        """Bytes to write back after reading `data` at host time `now` (seconds)."""
        ack = False
        for f in self.reader.feed(data):
            t = f["type"]
            if t == HEARTBEAT:
                if f["boot_id"] != self.boot_id:
                    self.boot_id = f["boot_id"]
                    self.expect = (f["seq"] - f["backlog"]) & 0xFFFF
                continue
            if t == HELLO and f["boot_id"] != self.boot_id and f["seq"] == 0:
                self.boot_id = f["boot_id"]
                self.expect = 0
            if t not in (HELLO, EVENT) or self.boot_id is None:
                continue
            d = (f["seq"] - self.expect) & 0xFFFF
            if d == 0:
                self.expect = (self.expect + 1) & 0xFFFF
                if t == EVENT:
                    self.journal.append(({"seq": f["seq"], "t_us": f["t_us"]}, now))
                ack = True
            elif d >= 0x8000:
                ack = True
        if not ack:
            return b""
        return frames.encode({"type": ACK, "seq": 0, "boot_id": self.boot_id,
                              "ack": (self.expect - 1) & 0xFFFF})
