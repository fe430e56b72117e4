"""64-bit microseconds since power-up, extended from the board's wrapping `ticks_us`.

`ticks_us` wraps (every 2**30 us, about 18 minutes, on RP2040 and ESP32), so only
`ticks_diff` of two nearby readings is meaningful. `now` must be called at least
once per half period; the main loop calls it every millisecond.
"""


class Clock:
    def __init__(self, ticks_us, ticks_diff):
        self._ticks = ticks_us
        self._diff = ticks_diff
        self._last = ticks_us()
        self._total = 0

    def now(self):
        t = self._ticks()
        self._total += self._diff(t, self._last)
        self._last = t
        return self._total

    def at(self, raw):
        """64-bit time of a raw `ticks_us` reading taken recently (e.g. in an interrupt)."""
        return self._total + self._diff(raw, self._last)
