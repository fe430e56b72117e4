"""The bed sensor reduced to moving / still, with hysteresis.

Activity is the distance of the reading from a slowly tracked rest level (a
piezo envelope rests near 0, an analog accelerometer near its bias). Moving
starts at `high`; it ends when activity stays under `low` for `still_us`.
"""
from shared_rules.link.names import MOTION

from tableboard import clock


class Motion:
    def __init__(self, read, emit, high=3000, low=1500, still_us=1500000, rest=None, track=64):
        self.read = read
        self.emit = emit
        self.high = high
        self.low = low
        self.still_us = still_us
        self.rest = rest
        self.track = track
        self.moving = False
        self.quiet_since = 0

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
