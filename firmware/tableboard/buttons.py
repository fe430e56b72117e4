"""Player buttons (CONTRACT buttons 0-15): debounced, a press or a long press.

`read()` returns a bitmask of pressed buttons (bit n = button n). A level must
hold `debounce_us` to count. A press shorter than `long_us` gives value 1 on
release; holding `long_us` gives value 2 at once and nothing on release. Events
carry the time the press began.
"""
from array import array

from shared_rules.link.names import BUTTON, PRESS, LONG_PRESS

from tableboard import clock


class Buttons:
    def __init__(self, read, emit, count=10, debounce_us=20000, long_us=1000000):
        self.read = read
        self.emit = emit
        self.count = count
        self.debounce_us = debounce_us
        self.long_us = long_us
        self.raw = 0
        self.raw_since = 0
        self.state = 0
        self.long_sent = 0
        self.down_at = array("L", [0] * count)   # raw ticks; "q" would allocate on every read

    def poll(self, t):
        raw = self.read() & ((1 << self.count) - 1)
        if raw != self.raw:
            self.raw = raw
            self.raw_since = t
        changed = (raw ^ self.state) if clock.diff(t, self.raw_since) >= self.debounce_us else 0
        for n in range(self.count):
            bit = 1 << n
            if changed & bit:
                if raw & bit:
                    self.state |= bit
                    self.down_at[n] = self.raw_since
                else:
                    self.state &= ~bit
                    if not self.long_sent & bit:
                        self.emit(self.down_at[n], BUTTON, n, PRESS, 0)
                    self.long_sent &= ~bit
            elif self.state & bit and not self.long_sent & bit:
                if clock.diff(t, self.down_at[n]) >= self.long_us:
                    self.long_sent |= bit
                    self.emit(self.down_at[n], BUTTON, n, LONG_PRESS, 0)
