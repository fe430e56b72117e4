"""The table board: builds the sensors a board configuration names and steps them.

`machine` and `time` are passed in (the real modules on a board, fakes in tests
and on the virtual board), so everything here runs the same in all three places.
Each part of the board builds itself from its own declaration (PARTS; tableboard/schema.py),
on the chip's pins, buses and timers (tableboard/wiring.py). `step()` drains the interrupt
ring and advances every sensor to now; the link side is `link_out(buf)` (bytes to write)
and `link_in(data)` (bytes read).
"""
from shared_rules.link.frames import FrameReader
from shared_rules.link.names import ACK, LIGHTS, FAULT, FAULT_BOARD
from shared_rules.link.sender import Sender

from tableboard import VERSION, schema
from tableboard import beams, rails, motion, buttons, lamps, wiring
from tableboard.clock import Clock, LoopMeter
from tableboard.wiring import Wiring
import gc

# Importing all of the above leaves the heap in pieces (from source, as the virtual board
# runs, the compiler's garbage too): one collection now gives what comes next whole blocks.
gc.collect()

# The board's own keys: its name in HELLO, its chip, the link's buffers.
CONFIG = (
    ("name", "str", "table", 32),
    ("board", "any", None, None),            # what board this is, for people
    ("chip", "str", None, None),             # rp2040, esp32 or virtual (tableboard/chips.py)
    ("buffer", "int", 256, None),            # events held until the host acknowledges them
    ("out_size", "int", 1024, (64, 8192)),
    ("loop_report_s", "int", 10, (0, 60)),   # LOOP_RATE every n s (0: never)
)


def make_boot_id(machine, os_mod):
    """A random 32-bit boot id: os.urandom mixed with the chip's unique id."""
    b = bytearray(4)
    try:
        r = os_mod.urandom(4)
        for i in range(4):
            b[i] = r[i]
    except Exception:
        pass
    try:
        u = machine.unique_id()
        for i in range(len(u)):
            b[i & 3] ^= u[i]
    except Exception:
        pass
    v = b[0] | b[1] << 8 | b[2] << 16 | b[3] << 24
    return v or 1


# The parts in the order they are built: every input before the edges start, the rails
# before the bed sensor (whose ADC reads then keep clear of the rail sampler's interrupt).
# Each returns its HELLO feature bits.
PARTS = (beams.build_pockets, beams.build_cue, rails.build, wiring.start, motion.build,
         buttons.build, lamps.build)


class Board:
    def __init__(self, cfg, machine, time_mod, boot_id=None, os_mod=None):
        self.cfg = cfg
        self.machine = machine
        self.time = time_mod
        self.clock = Clock(time_mod.ticks_us, time_mod.ticks_diff, getattr(time_mod, "ticks_add", None))
        self.sleep_us = getattr(time_mod, "sleep_us", None) or (lambda us: None)
        self.wiring = w = Wiring(cfg, machine, time_mod, self.clock)
        self.ring = w.ring
        self.wdt = None           # fed at every step (app.start sets it)
        self.reader = FrameReader()
        self.beams = []
        self.rails = []
        self.arms = None
        self.buttons = None
        self.motion = None
        self.lamps = None
        self.isr_lost = 0
        self.t = 0
        features = 0
        try:
            for build in PARTS:
                features |= build(self, cfg)
        except Exception:
            w.release()           # no interrupt may call into a board that was never finished
            raise
        self.scan = w.scan
        self.scan_in_loop = w.scan_in_loop
        gc.collect()              # the build's garbage goes before the sender's big buffers
        me = schema.fill(cfg, CONFIG)
        if boot_id is None:
            if os_mod is None:
                import os as os_mod
            boot_id = make_boot_id(machine, os_mod)
        self.sender = Sender(boot_id, capacity=me["buffer"], hello={
            "fw_major": VERSION[0], "fw_minor": VERSION[1],
            "pockets": len(cfg.get("pockets", [])), "rails": len(cfg.get("rails", [])),
            "features": features, "name": me["name"]}, out_size=me["out_size"])
        self.out_size = me["out_size"]
        every = me["loop_report_s"]
        self.loop = LoopMeter(self.clock.raw, (every or 10) * 1000000,
                              self.sender.report_loop if every else None)
        self._ticks_us = time_mod.ticks_us
        self._add = getattr(time_mod, "ticks_add", None) or (lambda a, b: a + b)
        self._next_input = self.clock.raw
        self._next_motion = self.clock.raw
        self.channels = w.channels
        self._drain = self._on_edge
        self._uptime = self.clock.us      # bound once: making a bound method allocates

    # --- running ----------------------------------------------------------------

    def emit(self, t, kind, index, value, flags):
        """An event at raw ticks `t`: widened to 64-bit board time here, where it is framed."""
        self.sender.push_event(self.clock.at(t), kind, index, value, flags)

    def restarted(self, code, text=None):
        """Tell the host why the board restarted or cannot run (FAULT 255, codes in
        shared_rules/link/names.py), and in `text` what it knows more (FAULT_TEXT, firmware
        1.2). Returns the FAULT's seq."""
        seq = self.sender.next_seq()
        self.emit(self.clock.raw, FAULT, FAULT_BOARD, code, 0)
        if text:
            self.sender.attach_text(seq, code, text)
        return seq

    def uptime_us(self):
        return self.clock.us()

    def _on_edge(self, ch, level, raw):
        self.channels[ch].edge(level, raw)

    def step(self):
        """Advance every sensor to now; returns the raw ticks_us of now (see clock.py)."""
        t = self.clock.now()
        self.t = t
        if self.wdt is not None:
            self.wdt.feed()
        if self.scan_in_loop:
            self.scan.scan()
        self.ring.drain(self._drain)
        lost = self.ring.take_lost(self.machine)
        if lost:
            self.isr_lost += lost
            self.sender.dropped = (self.sender.dropped + lost) & 0xFFFFFFFF
        for b in self.beams:
            b.tick(t)
        for r in self.rails:
            r.tick(t)
        d = self.clock.diff
        if d(t, self._next_input) >= 0:
            self._next_input = self._add(t, 10000)
            if self.buttons is not None:
                self.buttons.poll(t)
        if self.motion is not None and d(t, self._next_motion) >= 0:
            self._next_motion = self._add(t, self.motion.every_us)
            self.motion.poll(t)
        if self.lamps is not None:
            self.lamps.tick(t)
        self.loop.passed(t, self._ticks_us())
        return t

    def link_out(self, buf, limit=-1):
        """Bytes due on the wire now, written into `buf` (at most `limit`); returns how many.

        The sender's timers run on ticks_ms (a small int at any uptime); the 64-bit board
        time is handed over as a function, made only when a HEARTBEAT is framed.
        """
        return self.sender.poll_into(self.time.ticks_ms(), self._uptime, buf, limit)

    def link_in(self, data):
        """Act on bytes from the host: ACK frees held frames, LIGHTS sets the lamps."""
        for f in self.reader.feed(data):
            t = f["type"]
            if t == ACK:
                self.sender.on_ack(f["boot_id"], f["ack"])
            elif t == LIGHTS and self.lamps is not None:
                self.lamps.set(f["mask"], f["mode"])
