"""The bed sensor reduced to moving / still, with hysteresis.

Activity is the distance of the reading from a slowly tracked rest level (a
piezo envelope rests near 0, an analog accelerometer near its bias). Moving
starts at `high`; it ends when activity stays under `low` for `still_us`.
`CONFIG` declares the configuration's `motion`; `build` makes it for the Board.
"""
from shared_rules.link.names import MOTION, FEATURE_MOTION

from tableboard import clock, schema

CONFIG = (("motion", "obj", None, (
    ("adc", "analog", ..., None),            # the bed sensor's envelope
    ("high", "num", 3000, None),
    ("low", "num", 1500, None),
    ("still_ms", "num", 1500, None),
    ("every_ms", "int", 20, (1, 60000)),     # how often it is read
)),)


class Motion:
    def __init__(self, read, emit, high=3000, low=1500, still_us=1500000, rest=None, track=64,
                 every_us=20000):
        self.read = read
        self.emit = emit
        self.high = high
        self.low = low
        self.still_us = still_us
        self.rest = rest
        self.track = track
        self.moving = False
        self.quiet_since = 0
        self.every_us = every_us      # the Board polls it this often

    def poll(self, t):
        x = self.read()
        if self.rest is None:
            self.rest = x
        a = x - self.rest if x >= self.rest else self.rest - x
        if not self.moving:
            # The rest level follows slow drift only while the table is still.
            self.rest += (x - self.rest) // self.track
        if a >= self.high and not self.moving:
            self.moving = True
            self.quiet_since = t
            self.emit(t, MOTION, 0, 1, 0)
        elif self.moving:
            if a >= self.low:
                self.quiet_since = t
            elif clock.diff(t, self.quiet_since) >= self.still_us:
                self.moving = False
                self.emit(t, MOTION, 0, 0, 0)


def build(board, cfg):
    """The bed sensor, if the configuration has one. Its ADC read is made with interrupts off
    when a hard timer interrupt samples the rails on the same converter."""
    m = schema.get(cfg, CONFIG, "motion")
    if not m:
        return 0
    w = board.wiring
    read = w.analog(m["adc"])
    if board.arms.timer is not None and w.edges == "irq":
        read = w.guarded(read)
    board.motion = Motion(read, board.emit, high=m["high"], low=m["low"],
                          still_us=m["still_ms"] * 1000, every_us=m["every_ms"] * 1000)
    return FEATURE_MOTION
