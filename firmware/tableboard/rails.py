"""Rail piezos: a comparator edge starts an impact, the peak-hold gives its strength.

One event per impact: after a reported impact the rail ignores edges for
`dead_us`. The peak must be read `settle_us` after the edge, when the peak-hold
has charged and before it bleeds away (tau about 20 ms), so the reading is timed
from the edge itself, not from the busy main loop:

- the edge interrupt arms the rail in `RailArms` with the raw ticks of the edge;
- a timer interrupt (`RailArms.sample`, hard on rp2) reads the peak of every armed
  rail once `settle_us` has passed, wherever the main loop is (a link write, I2C, GC);
- the main loop (`Rail.tick`) only reports what was sampled. With no timer (the
  virtual board, or a port without hard timers) it samples itself, as late as the
  loop allows.

A peak under the rail's `threshold` is not reported (and starts no dead time).
`CONFIG` declares the configuration's `rail` (every rail's settings) and `rails` (each
rail's pins, and its own threshold, dead time and gain); `build` makes them for the Board.
"""
from array import array

from shared_rules.link.names import RAIL

from tableboard import clock, schema

CONFIG = (
    ("rail", "obj", {}, (                        # every rail
        ("threshold", "num", 1000, None),
        ("dead_ms", "num", 30, None),
        ("settle_us", "int", 1000, None),
        ("sample_hz", "int", 2000, None),        # the rp2 sampler's timer (0: none)
    )),
    ("rails", "list", [], ((
        ("comp", "pin", ..., "in"),              # the comparator's output: the impact's edge
        ("adc", "analog", ..., None),            # the peak-hold, on an ADC or behind the mux
        ("threshold", "num", None, None),        # none: the "rail" section's
        ("dead_ms", "num", None, None),
        ("gain", "num", 1.0, None),
    ), 6)),
)

IDLE = 0
ARMED = 1
SAMPLED = 2


class RailArms:
    """Per rail: state, edge ticks and sampled peak, in arrays made once (safe in interrupts)."""

    def __init__(self, n, ticks_us, ticks_diff):
        self.state = bytearray(n)
        self.at = array("L", [0] * n)        # "L": a small int when read; "q" would allocate
        self.peak = array("H", [0] * n)
        self.settle = array("l", [1000] * n)
        self.reads = [None] * n
        self.ticks_us = ticks_us
        self.ticks_diff = ticks_diff
        self.timer = None
        self.sample_hz = 0

    def handler(self, k, active_level=1):
        """The comparator pin's interrupt handler for rail k: arm on the active edge.

        Three cells only, like isr.edge_handler: a bigger closure allocates when called.
        """
        arms = self

        def arm(pin):
            t = arms.ticks_us()
            if arms.state[k] == IDLE and pin.value() == active_level:
                arms.at[k] = t
                arms.state[k] = ARMED
        return arm

    def sample(self, timer=None):
        """Timer interrupt: read the peak of each rail armed at least its settle time ago."""
        now = self.ticks_us()
        state = self.state
        for k in range(len(state)):
            if state[k] == ARMED and self.ticks_diff(now, self.at[k]) >= self.settle[k]:
                v = self.reads[k]()
                self.peak[k] = v if v < 65535 else 65535
                state[k] = SAMPLED


class Rail:
    def __init__(self, index, emit, read_peak, threshold=1000, dead_us=30000, settle_us=1000,
                 gain=1.0, active_level=1, arms=None, k=0):
        self.index = index
        self.emit = emit
        self.read_peak = read_peak
        self.threshold = threshold
        self.dead_us = dead_us
        self.settle_us = settle_us
        self.gain = gain
        self.gain_q = int(gain * 1024)    # gain in 1/1024ths
        self.active_level = active_level
        self.arms = arms if arms is not None else RailArms(1, None, clock.diff)
        self.k = k
        self.arms.reads[k] = read_peak
        self.arms.settle[k] = settle_us
        self.last = None
        self.impacts = 0

    def init(self, level, t):
        pass

    def edge(self, level, t):
        """An edge from a path without the arming interrupt (a scan): arm like the interrupt would."""
        a = self.arms
        if level == self.active_level and a.state[self.k] == IDLE:
            a.at[self.k] = t
            a.state[self.k] = ARMED

    def tick(self, t):
        if self.last is not None and clock.diff(t, self.last) >= self.dead_us:
            self.last = None          # raw times expire: see clock.py
        a = self.arms
        k = self.k
        st = a.state[k]
        if st == IDLE:
            return
        t0 = a.at[k]
        if st == ARMED:
            if a.timer is not None and clock.diff(t, t0) < 4 * self.settle_us + 2000:
                return                # the timer interrupt samples it
            if clock.diff(t, t0) < self.settle_us:
                return
            v = self.read_peak()
        else:
            v = a.peak[k]
        a.state[k] = IDLE
        if self.last is not None and clock.diff(t0, self.last) < self.dead_us:
            return
        v = (v * self.gain_q) >> 10       # integer: a float would allocate at every tap
        if v > 65535:
            v = 65535
        if v < self.threshold:
            return
        self.last = t0
        self.impacts += 1
        self.emit(t0, RAIL, self.index, v, 0)


def build(board, cfg):
    """The rails a configuration names, on `board.arms` (made here, also with no rails)."""
    rails = schema.get(cfg, CONFIG, "rails")
    every = schema.get(cfg, CONFIG, "rail")
    t = board.time
    board.arms = arms = RailArms(len(rails), t.ticks_us, t.ticks_diff)
    arms.sample_hz = every["sample_hz"]
    for i in range(len(rails)):
        r = rails[i]
        threshold = every["threshold"] if r["threshold"] is None else r["threshold"]
        dead_ms = every["dead_ms"] if r["dead_ms"] is None else r["dead_ms"]
        rail = Rail(i, board.emit, board.wiring.analog(r["adc"]), threshold=threshold,
                    dead_us=dead_ms * 1000, settle_us=every["settle_us"], gain=r["gain"],
                    arms=arms, k=i)
        board.rails.append(rail)
        board.wiring.input(r["comp"], rail, None, arms.handler(i), rail=i)
    return 0
