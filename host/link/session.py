"""Receiver state machine of CONTRACT section 1: which board frames to accept, drop or re-ACK.

Pure: no I/O and no clock. The caller passes the host's monotonic time in
seconds wherever time matters, and does the journaling and ACK writing itself.
"""
from shared_rules.link.names import HELLO, EVENT, HEARTBEAT, FAULT, FAULT_BOARD, FAULT_TEXT, LOOP_RATE
from host.logs import printable

ACCEPT = "accept"          # new reliable frame, in order: journal it, then ACK
DUPLICATE = "duplicate"    # seen before: drop, ACK again
DROP = "drop"              # out of order or unusable: drop silently
INFO = "info"              # HEARTBEAT (or similar): updates link health only

HALF = 0x8000
TEXTS_KEPT = 8           # FAULT_TEXTs waiting for their FAULT EVENT (a board sends one before each)


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
        self.texts = {}          # (boot_id, seq, value) -> a FAULT_TEXT's text, until its EVENT comes
        self.loop = None         # the board's last LOOP_RATE report (state.link.loop)

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
        if t == FAULT_TEXT:
            return self._fault_text(frame)
        if t == LOOP_RATE:
            return self._loop_rate(frame)
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
        text = self.texts.pop((self.boot_id, f["seq"], f["value"]), None)
        if text is not None and f["kind"] == FAULT and f["index"] == FAULT_BOARD:
            entry["text"] = text          # journaled with it: a replay says the same
        return self._out(ACCEPT, entry, "event")

    def _fault_text(self, f):
        """The words of the FAULT EVENT `seq` that follows (firmware 1.2+), kept until it comes;
        made printable here, before anything stores or logs them."""
        if len(self.texts) >= TEXTS_KEPT:
            self.texts.pop(next(iter(self.texts)))
        self.texts[(f["boot_id"], f["seq"], f["value"])] = printable(f.get("text") or "")[:64]
        return self._out(INFO, None, "fault text")

    def _loop_rate(self, f):
        """The board's own measure of its sensor loop (firmware 1.2+), for state.link.loop."""
        window, passes = f["window_us"], f["passes"]
        if window > 0 and passes > 0:
            self.loop = {"passes_per_s": passes * 1000000 // window, "pass_us": f["busy_us"] // passes,
                         "longest_us": f["longest_us"], "busy": round(f["busy_us"] / window, 3)}
        return self._out(INFO, None, "loop rate")

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
