"""Receiver state machine of CONTRACT section 1: which board frames to accept, drop or re-ACK.

Pure: no I/O and no clock. The caller passes the host's monotonic time in
seconds wherever time matters, and does the journaling and ACK writing itself.
"""
from shared_rules.link.names import HELLO, EVENT, HEARTBEAT

ACCEPT = "accept"          # new reliable frame, in order: journal it, then ACK
DUPLICATE = "duplicate"    # seen before: drop, ACK again
DROP = "drop"              # out of order or unusable: drop silently
INFO = "info"              # HEARTBEAT (or similar): updates link health only

HALF = 0x8000


def seq_diff(seq, expect):
    """Signed distance from `expect` to `seq` modulo 65536 (negative means behind)."""
    d = (seq - expect) & 0xFFFF
    return d - 0x10000 if d >= HALF else d


class Session:
    """Tracks the board's boot_id and the next expected seq; decides what each frame means."""

    def __init__(self):
        self.boot_id = None      # None until a HELLO, HEARTBEAT or journal tells us
        self.expect = 0          # next reliable seq expected for boot_id
        self.hello = None        # last HELLO entry seen (pockets, rails, features, name)
        self.dropped = 0         # board's count of events lost to a full buffer
        self.backlog = 0
        self.offset_us = None    # board t_us minus host monotonic microseconds
        self.last_heartbeat = None
        self.last_frame = None
        self.counts = {ACCEPT: 0, DUPLICATE: 0, DROP: 0, INFO: 0}
        self.gaps = 0            # times the board no longer held what we expected

    # --- journal replay -------------------------------------------------

    def restore(self, entry):
        """Fold one journal entry so a restarted host carries on where it stopped."""
        src = entry.get("src")
        if src == "hello":
            self.boot_id = entry.get("boot_id")
            self.expect = (entry.get("seq", 0) + 1) & 0xFFFF
            self.hello = entry
        elif src == "board":
            if entry.get("boot_id") != self.boot_id:
                self.hello = None
            self.boot_id = entry.get("boot_id")
            self.expect = (entry.get("seq", 0) + 1) & 0xFFFF

    # --- live frames ----------------------------------------------------

    def ack_seq(self):
        """The seq to acknowledge: the last one accepted for boot_id (None if nothing yet)."""
        if self.boot_id is None:
            return None
        return (self.expect - 1) & 0xFFFF

    def on_frame(self, frame, now, wall=None):
        """Decision for one decoded frame: {"action", "entry" (journal entry or None), "reason"}."""
        self.last_frame = now
        t = frame.get("type")
        if t == HEARTBEAT:
            return self._heartbeat(frame, now)
        if t == HELLO:
            return self._hello(frame, wall)
        if t == EVENT:
            return self._event(frame, wall)
        return self._out(DROP, None, "not a board frame")

    def _out(self, action, entry, reason):
        self.counts[action] = self.counts.get(action, 0) + 1
        return {"action": action, "entry": entry, "reason": reason}

    def _reliable(self, seq):
        """ACCEPT, DUPLICATE or DROP for a reliable seq under the current boot_id."""
        d = seq_diff(seq, self.expect)
        if d == 0:
            return ACCEPT
        if d < 0:
            return DUPLICATE
        return DROP

    def _hello(self, f, wall):
        if f["boot_id"] != self.boot_id:
            if f["seq"] != 0:
                return self._out(DROP, None, "HELLO of a new boot with seq != 0")
            # A board reset: a new sequence starts at 0 with this HELLO.
            self.boot_id = f["boot_id"]
            self.expect = 0
            self.offset_us = None
            self.dropped = 0
        verdict = self._reliable(f["seq"])
        if verdict != ACCEPT:
            return self._out(verdict, None, "HELLO seen before" if verdict == DUPLICATE else "gap")
        self.expect = (f["seq"] + 1) & 0xFFFF
        entry = {"src": "hello", "boot_id": f["boot_id"], "seq": f["seq"], "t_us": 0,
                 "proto": f["proto"], "fw": [f["fw_major"], f["fw_minor"]],
                 "pockets": f["pockets"], "rails": f["rails"], "features": f["features"],
                 "name": f["name"], "wall": wall}
        self.hello = entry
        return self._out(ACCEPT, entry, "hello")

    def _event(self, f, wall):
        if self.boot_id is None:
            return self._out(DROP, None, "boot_id unknown: waiting for HELLO or HEARTBEAT")
        verdict = self._reliable(f["seq"])
        if verdict != ACCEPT:
            return self._out(verdict, None, "seen before" if verdict == DUPLICATE else "out of order")
        self.expect = (f["seq"] + 1) & 0xFFFF
        entry = {"src": "board", "boot_id": self.boot_id, "seq": f["seq"], "t_us": f["t_us"],
                 "kind": f["kind"], "index": f["index"], "value": f["value"],
                 "flags": f["flags"], "wall": wall}
        return self._out(ACCEPT, entry, "event")

    def _heartbeat(self, f, now):
        oldest = (f["seq"] - f["backlog"]) & 0xFFFF
        reason = "heartbeat"
        if f["boot_id"] != self.boot_id:
            # No record of this boot (new journal, or a reset while we were away):
            # expect the oldest frame the board still holds.
            self.boot_id = f["boot_id"]
            self.expect = oldest
            self.hello = None
            reason = "learned boot_id from heartbeat"
        elif seq_diff(oldest, self.expect) > 0:
            # The board no longer holds what we expect; waiting would stall forever.
            self.expect = oldest
            self.gaps += 1
            reason = "gap: board no longer holds the expected seq"
        self.dropped = f["dropped"]
        self.backlog = f["backlog"]
        self.offset_us = f["t_us"] - int(now * 1000000)
        self.last_heartbeat = now
        return self._out(INFO, None, reason)

    # --- what the rest of the daemon asks --------------------------------

    def board_time(self, now):
        """Best estimate of the board's t_us at host time `now`, or None before any HEARTBEAT."""
        if self.offset_us is None:
            return None
        return int(now * 1000000) + self.offset_us

    def has_motion_sensor(self):
        """True only if the board's HELLO announced a motion sensor (features bit2)."""
        return self.hello is not None and bool(self.hello.get("features", 0) & 4)
