"""The table's link: the board's side of the daemon, from bytes on the port to journal entries.

Klipper splits its serial side into a transport, a clock and a dispatcher; so does this:
`Port` (open, read, write, reopen), `FrameReader` (COBS, CRC), `Session` (which frames are
new, doubled or out of order; the board's clock offset), and this class, which holds them
together with what the link itself owes the board: an ACK once a batch is durable, the
LIGHTS, and silence until the board has spoken since the port opened.

It never writes the journal nor judges: `read` hands over the entries to journal, the caller
makes them durable, then calls `acknowledge` (or `rewind` if the disk refused them).
"""
import logging

from shared_rules.link import frames as codec
from shared_rules.link.names import ACK, LIGHTS, HELLO, EVENT, HEARTBEAT, FAULT_TEXT, LOOP_RATE, POCKET, RAIL
from host.link.lights import lights_for
from host.link.port import Port
from host.link.session import Session, ACCEPT, DUPLICATE, DROP

LINK_TIMEOUT_S = 3.5     # no frame for this long (HEARTBEAT is 1 s): link down
LIGHTS_EVERY_S = 1.0
BOARD_FRAMES = (HELLO, EVENT, HEARTBEAT, FAULT_TEXT, LOOP_RATE)
log = logging.getLogger("billiards")


class Batch:
    """What one read brought: the entries to journal, and whether the board is owed an ACK even
    if none of them is (a corrupt, doubled or out-of-order frame: a duplicate ACK)."""
    __slots__ = ("entries", "frames", "ack_due", "mark")

    def __init__(self, entries, frames, ack_due, mark):
        self.entries = entries
        self.frames = frames
        self.ack_due = ack_due
        self.mark = mark            # where the session stood before it: `rewind` goes back there


class TableLink:
    def __init__(self, url, dtr=True, rts=True):
        self.port = Port(url, dtr=dtr, rts=rts)
        self.reader = codec.FrameReader()
        self.session = Session()
        self.up = False
        self.heard_on = None            # port.opens when the board last spoke (see `heard`)
        self.lights_sent = None
        self.lights_at = 0.0
        self.activity = None            # host time of the last journaled ball or rail (a shot's quiet time)
        self.counts = {"accepted": 0, "duplicates": 0, "out_of_order": 0, "corrupt": 0}

    # --- start-up ---------------------------------------------------------

    def restore(self, entry):
        """A journaled board entry, folded at start-up so the session goes on where it stopped."""
        self.session.restore(entry)

    def head(self):
        """What a journal head keeps of the link (the session's place in the board's sequence)."""
        s = self.session
        return {"boot_id": s.boot_id, "expect": s.expect, "hello": s.hello}

    def restore_head(self, link):
        s = self.session
        s.boot_id = link.get("boot_id")
        s.expect = link.get("expect", 0)
        s.hello = link.get("hello")

    # --- reading ------------------------------------------------------------

    def open_port(self, now):
        """Try to (re)open a closed port; True if it is open."""
        return self.port.is_open or self.port.poll_open(now)

    def read(self, now, wall):
        """The frames waiting on the port, classified: a Batch, or None if nothing came."""
        if not self.port.is_open:
            return None
        data = self.port.read(now)
        if not data:
            return None
        return self.take(data, now, wall)

    def take(self, data, now, wall):
        """Frames in `data` (bytes off the port) as a Batch.

        A corrupt frame, a gap or a duplicate is answered at once with an ACK of what is
        journaled (a duplicate ACK), so the board resends from the missing frame without
        waiting for its timer."""
        mark = self.mark()
        before = self.reader.error_count()
        frames = self.reader.feed(data)
        corrupt = self.reader.error_count() - before
        self.counts["corrupt"] += corrupt
        ack_due = corrupt > 0
        entries = []
        for f in frames:
            if f.get("type") in BOARD_FRAMES:
                self.heard_on = self.port.opens
            d = self.session.on_frame(f, now, wall)
            if d["action"] == ACCEPT:
                entries.append(d["entry"])
            elif d["action"] == DUPLICATE:
                self.counts["duplicates"] += 1
                ack_due = True
            elif d["action"] == DROP:
                self.counts["out_of_order"] += 1
                ack_due = True
        return Batch(entries, frames, ack_due, mark)

    def mark(self):
        """Where the session stood, to `rewind` to if the journal refuses a batch."""
        s = self.session
        return (s.boot_id, s.expect, s.hello)

    def rewind(self, mark):
        """A batch was not made durable: the board will send it again, so expect it again."""
        self.session.boot_id, self.session.expect, self.session.hello = mark

    def expect_again(self, entry, mark, durable):
        """A batch's entries from `entry` on were not made durable (the ones before it, `durable`,
        were): expect them again. `mark`: where the session stood before the batch."""
        if not durable:
            self.rewind(mark)
            return
        hello = mark[2]
        for e in durable:
            if e.get("src") == "hello":
                hello = e
        self.rewind((entry.get("boot_id"), entry.get("seq"), hello))

    def accepted(self, entries, now):
        """The entries of a batch that were made durable and judged: counted, a board's start
        logged, and a ball or a rail noted as the table's last activity at `now` (a table without
        a motion sensor ends a shot after a quiet time: Daemon._auto_end_shot)."""
        self.counts["accepted"] += len(entries)
        for e in entries:
            if e.get("src") == "hello":
                log.info("board %s started (boot %s, firmware %s, features %s)", e.get("name"),
                         e.get("boot_id"), e.get("fw"), e.get("features"))
            elif e.get("src") == "board" and e.get("kind") in (POCKET, RAIL):
                self.activity = now

    # --- what the board is owed -----------------------------------------------

    def heard(self, now):
        """True once the board spoke (any good frame) since the port (re)opened and the link is up.

        Until then the daemon sends nothing: a board still booting reads its USB or UART as the
        REPL's stdin, where a 0x03 in an ACK or LIGHTS is Ctrl-C."""
        return (self.heard_on == self.port.opens and self.session.last_frame is not None
                and now - self.session.last_frame < LINK_TIMEOUT_S)

    def acknowledge(self, now):
        """ACK the last journaled frame (after the fsync: nothing acknowledged is ever lost)."""
        seq = self.session.ack_seq()
        if seq is None or not self.heard(now):
            return
        self.port.write(codec.encode({"type": ACK, "seq": 0, "boot_id": self.session.boot_id,
                                      "ack": seq}), now)

    def show_lights(self, state, now, force=False):
        """LIGHTS when they change, and again every second (a board that restarted has none)."""
        if not self.port.is_open or state is None or not self.heard(now):
            return
        lights = lights_for(state)
        if force or lights != self.lights_sent or now - self.lights_at >= LIGHTS_EVERY_S:
            if self.port.write(codec.encode({"type": LIGHTS, "seq": 0, "mask": lights[0],
                                             "mode": lights[1]}), now):
                self.lights_sent = lights
                self.lights_at = now

    # --- what the rest of the daemon asks ---------------------------------------

    def check_up(self, now):
        """Whether the link is up now; True if that changed since the last call."""
        up = (self.port.is_open and self.session.last_frame is not None
              and now - self.session.last_frame < LINK_TIMEOUT_S)
        changed = up != self.up
        self.up = up
        return changed

    def board_time(self, now):
        return self.session.board_time(now)

    def has_motion_sensor(self):
        return self.session.has_motion_sensor()

    def state(self, simulated=False):
        """`state.link` of CONTRACT section 2."""
        s = {"state": "up" if self.up else "down", "dropped": self.session.dropped,
             "corrupt": self.counts["corrupt"], "simulated": simulated}
        if self.session.loop is not None:
            s["loop"] = dict(self.session.loop)      # the board's own measure (firmware 1.2+)
        return s

    def close(self):
        self.port.close()

