"""Rail piezos: a comparator edge starts an impact, the peak-hold gives its strength.

One event per impact: after a reported impact the rail ignores edges for
`dead_us`. The peak is read `settle_us` after the edge so the peak-hold has
charged; a peak under the rail's `threshold` is not reported (and starts no dead time).
"""
from shared_rules.link.names import RAIL


class Rail:
    def __init__(self, index, emit, read_peak, threshold=1000, dead_us=30000, settle_us=1000,
                 gain=1.0, active_level=1):
        self.index = index
        self.emit = emit
        self.read_peak = read_peak
        self.threshold = threshold
        self.dead_us = dead_us
        self.settle_us = settle_us
        self.gain = gain
        self.active_level = active_level
        self.pending = False
        self.pend_t = 0
        self.last = None
        self.impacts = 0

    def init(self, level, t):
        pass

    def edge(self, level, t):
        if level != self.active_level or self.pending:
            return
        if self.last is not None and t - self.last < self.dead_us:
            return
        self.pending = True
        self.pend_t = t

    def tick(self, t):
        if not self.pending or t - self.pend_t < self.settle_us:
            return
        self.pending = False
        v = int(self.read_peak() * self.gain)
        if v > 65535:
            v = 65535
        if v < self.threshold:
            return
        self.last = self.pend_t
        self.impacts += 1
        self.emit(self.pend_t, RAIL, self.index, v, 0)
