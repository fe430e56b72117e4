"""Board time in two forms: raw `ticks_us` for sensor timing, 64-bit microseconds for the wire.

`ticks_us` wraps (every 2**30 us, about 18 minutes, on RP2040 and ESP32) and its
values stay small ints, so every sensor keeps its times as raw ticks and compares
them only with `diff` (the port's `ticks_diff`): nothing in the per-millisecond
path makes a big int, however long the board has been up. The time since boot is
kept as two small ints (whole SPANs and the microseconds past them) and widened to
one 64-bit number only by `at`, when an event or heartbeat is framed.

`now` must be called at least once per half period of `ticks_us`; the main loop
calls it every millisecond. A raw time is only meaningful within half a period
of now, so sensors drop the ones they no longer need.
"""

SPAN = 1 << 28


def _minus(a, b):
    return a - b


def _plus(a, b):
    return a + b


diff = _minus           # the port's ticks_diff once a Clock is made (sensors call clock.diff)
add = _plus             # and its ticks_add


class Clock:
    def __init__(self, ticks_us, ticks_diff, ticks_add=None):
        global diff, add
        diff = ticks_diff
        add = ticks_add or _plus
        self._ticks = ticks_us
        self.diff = ticks_diff
        self.raw = ticks_us()     # the ticks_us of the last `now`
        self._hi = 0              # whole SPANs since the Clock was made
        self._lo = 0              # microseconds past them, < SPAN

    def now(self):
        """The raw ticks_us of now; advances the time since boot. Allocates nothing."""
        t = self._ticks()
        d = self.diff(t, self.raw)
        self.raw = t
        lo = self._lo + d
        if lo >= SPAN:
            k = lo // SPAN
            self._hi += k
            lo -= k * SPAN
        self._lo = lo
        return t

    def at(self, raw):
        """Microseconds since boot of a raw ticks_us reading taken recently (64-bit: framing only)."""
        return self._hi * SPAN + self._lo + self.diff(raw, self.raw)

    def us(self):
        """Microseconds since boot at the last `now` (64-bit: framing only)."""
        return self._hi * SPAN + self._lo


class LoopMeter:
    """How the sensor loop really runs, measured on the board's own ticks_us: passes, the
    longest time between the starts of two, and the time spent inside them, over windows of
    `window_us`. Each closed window goes to `report(window_us, passes, longest_us, busy_us)`
    (the sender's LOOP_RATE), when given. Small ints only: a window is at most a minute."""

    def __init__(self, t, window_us, report=None):
        self.window_us = window_us
        self.report = report
        self.start = t
        self.prev = t
        self.passes = 0
        self.longest = 0
        self.busy = 0
        self.last = 0             # how long the last pass took

    def passed(self, t0, t1):
        """One pass that began at raw ticks `t0` and ended at `t1`. Allocates nothing."""
        g = diff(t0, self.prev)
        self.prev = t0
        if g > self.longest:
            self.longest = g
        self.passes += 1
        b = diff(t1, t0)
        if b > 0:
            self.busy += b
        self.last = b
        w = diff(t1, self.start)
        if w >= self.window_us:
            if self.report is not None:
                self.report(w, self.passes, self.longest, self.busy)
            self.start = t1
            self.passes = 0
            self.longest = 0
            self.busy = 0
