"""A test rig: the real firmware Board on a fake machine and clock, with a host that ACKs.

Runs the same under MicroPython and CPython.
"""
import json
from array import array

from shared_rules.link import frames
from shared_rules.link.frames import FrameReader
from shared_rules.link.names import HELLO, EVENT, HEARTBEAT, ACK, LIGHTS

from tableboard.board import Board
from vboard.fakemachine import FakeMachine, FakeTime


MAXSEQ = 512
_T_US = array("q", [0] * MAXSEQ)
_EV = bytearray(MAXSEQ * 4)          # have, kind, index, flags
_VAL = array("H", [0] * MAXSEQ)
_SENDS = array("H", [0] * MAXSEQ)


def _firmware_dir():
    f = __file__
    i = f.rfind("tests/firmware")
    return (f[:i] if i > 0 else "") + "firmware"


FW = _firmware_dir()


def load_cfg(name="virtual.json"):
    with open(FW + "/boards/" + name) as fh:
        cfg = json.load(fh)
    cfg["colour_table"] = FW + "/colours.json"
    return cfg


def load_table():
    with open(FW + "/colours.json") as fh:
        return json.load(fh)


# Bytes the board frames a pass, as app.serve over a transport (tableboard.transport.BUDGET):
# a few frames at a time, so the host side here never holds a hundred decoded frames at once.
BUDGET = 64


class Rig:
    def __init__(self, cfg=None, start_ticks=0, boot_id=0x12345678, machine=None, clock=None,
                 ports=False):
        self.cfg = cfg or load_cfg()
        esp32 = self.cfg.get("chip") == "esp32"
        self.m = machine or FakeMachine(port="esp32" if esp32 else "rp2")
        self.time = clock or FakeTime(start_ticks)
        if ports or esp32:
            # The port models (vboard/fakechip.py): timers and the watchdog on the fake clock.
            self.m.attach(self.time)
        if self.cfg.get("analog_mux"):
            self.m.mux_select = self.cfg["analog_mux"]["select"]
        # Beams and the cue detector idle high (beam seen), unless a test set the pin already.
        idle = [p["beam"] for p in self.cfg.get("pockets", [])]
        if self.cfg.get("cue"):
            idle.append(self.cfg["cue"]["pin"])
        for n in idle:
            if n not in self.m.pins:
                self.m.pin(n).level = 1
        self.board = Board(self.cfg, self.m, self.time, boot_id=boot_id)
        self.buf = bytearray(512)     # what one step may write: keeps a 192K heap unfragmented
        self.reader = FrameReader()
        self.hellos = []
        self.hbs = []
        self.others = []              # the last few frames of other types (LOOP_RATE...)
        # Per seq, preallocated so a long test does not fragment a small heap:
        # the event as first received, and how often it came over the wire.
        # Allocated once at import and shared: only one Rig is read at a time.
        self.t_us = _T_US
        self.ev = _EV
        self.val = _VAL
        self.sends = _SENDS
        for k in range(MAXSEQ):
            _T_US[k] = 0
            _VAL[k] = 0
            _SENDS[k] = 0
        for k in range(4 * MAXSEQ):
            _EV[k] = 0
        self.mv = memoryview(self.buf)
        self.acking = True
        self.lose_acks = 0
        self.next_expected = 0
        self.boot_id = boot_id
        self.wire_bytes = 0

    # --- the world ------------------------------------------------------------------

    def pin_of_pocket(self, p):
        return self.m.pin(self.cfg["pockets"][p]["beam"])

    def beam(self, pocket, blocked):
        self.pin_of_pocket(pocket).drive(0 if blocked else 1)

    def impact(self, rail, strength, tau_us=None):
        """A ball hits `rail`: its peak-hold charges to `strength` (and bleeds with `tau_us`),
        its comparator pulses. A scanning board (ESP32) needs the pulse stretched to 2 ms."""
        rc = self.cfg["rails"][rail]
        self.m.set_analog(rc["adc"]["adc"], strength, rc["adc"]["mux"], tau_us)
        p = self.m.pin(rc["comp"])
        p.drive(1)
        if self.cfg.get("edges") == "scan":
            self.run_ms(2)
        p.drive(0)

    def show_colour(self, pocket, readings):
        cc = self.cfg["pockets"][pocket]["colour"]
        self.m.colour(cc.get("i2c", 0), cc.get("mux")).show(readings)

    # --- the host ----------------------------------------------------------------------

    def run_ms(self, ms, step_us=1000):
        n = ms * 1000 // step_us
        for _ in range(n):
            self.time.advance_us(step_us)
            self.step()

    def step(self):
        self.board.step()
        k = self.board.link_out(self.buf, BUDGET)
        if not k:
            return
        self.wire_bytes += k
        got = self.reader.feed(self.mv[:k])
        for f in got:
            t = f["type"]
            if t == HEARTBEAT:
                self.hbs.append(f)
                if len(self.hbs) > 4:
                    self.hbs.pop(0)
            elif t == HELLO:
                self.hellos.append(f)
            elif t != EVENT:
                self.others.append(f)
                if len(self.others) > 4:
                    self.others.pop(0)
            if t in (HELLO, EVENT):
                s = f["seq"] % MAXSEQ
                self.sends[s] += 1
                if t == EVENT and not self.ev[4 * s]:
                    self.t_us[s] = f["t_us"]
                    self.val[s] = f["value"]
                    self.ev[4 * s] = 1
                    self.ev[4 * s + 1] = f["kind"]
                    self.ev[4 * s + 2] = f["index"]
                    self.ev[4 * s + 3] = f["flags"]
        if not self.acking:
            return
        for f in got:
            if f["type"] in (HELLO, EVENT) and f["seq"] == self.next_expected & 0xFFFF:
                self.next_expected += 1
            elif f["type"] not in (HELLO, EVENT):
                continue
            if self.lose_acks > 0:
                self.lose_acks -= 1
                continue
            if self.next_expected:
                self.board.link_in(frames.encode({"type": ACK, "seq": 0, "boot_id": self.boot_id,
                                                  "ack": (self.next_expected - 1) & 0xFFFF}))

    def lights(self, mask, mode):
        self.board.link_in(frames.encode({"type": LIGHTS, "seq": 0, "mask": mask, "mode": mode}))

    def events(self, kind=None):
        """Events as the host keeps them: in seq order, each seq once."""
        out = []
        for k in range(MAXSEQ):
            # Filtered here, not in a second list: a long run leaves a board-sized heap
            # too fragmented for two lists of 256.
            if self.ev[4 * k] and (kind is None or self.ev[4 * k + 1] == kind):
                out.append({"seq": k, "t_us": self.t_us[k], "kind": self.ev[4 * k + 1],
                            "index": self.ev[4 * k + 2], "value": self.val[k],
                            "flags": self.ev[4 * k + 3]})
        return out

    def heartbeats(self):
        return self.hbs
