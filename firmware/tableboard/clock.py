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
