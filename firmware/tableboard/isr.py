"""Edges from interrupt handlers into a preallocated ring, drained by the main loop.

The handlers allocate nothing: they write small ints into arrays made up front
(channel, level, raw `ticks_us`) and move an index, so they are safe as hard
interrupts. A full ring drops the edge and counts it.
"""
from array import array

HEAD = 0
TAIL = 1
LOST = 2


class EdgeRing:
    def __init__(self, size=128):
        n = 1
        while n < size:
            n <<= 1
        self.size = n
        self.mask = n - 1
        self.ticks = array("L", [0] * n)
        self.chan = bytearray(n)
        self.level = bytearray(n)
        self.idx = array("H", [0, 0, 0])   # head, tail, lost

    def lost(self):
        return self.idx[LOST]

    def take_lost(self, machine=None):
        """The edges lost since the last call, read and cleared with interrupts off (else an
        interrupt between the read and the clear would lose its count)."""
        idx = self.idx
        if machine is None:
            n = idx[LOST]
            idx[LOST] = 0
            return n
        st = machine.disable_irq()
        n = idx[LOST]
        idx[LOST] = 0
        machine.enable_irq(st)
        return n

    def put(self, ch, level, t):
        """Queue one edge (from an interrupt or a scan); a full ring counts it lost."""
        idx = self.idx
        i = idx[HEAD]
        j = (i + 1) & self.mask
        if j == idx[TAIL]:
            if idx[LOST] < 65535:
                idx[LOST] += 1
            return
        self.ticks[i] = t
        self.chan[i] = ch
        self.level[i] = level
        idx[HEAD] = j

    def drain(self, fn):
        """Call fn(chan, level, raw_ticks) for every queued edge, oldest first; returns the count."""
        idx = self.idx
        m = self.mask
        n = 0
        while idx[TAIL] != idx[HEAD]:
            i = idx[TAIL]
            fn(self.chan[i], self.level[i], self.ticks[i])
            idx[TAIL] = (i + 1) & m
            n += 1
        return n


def edge_handler(ring, ch, ticks_us):
    """An interrupt handler for one pin: records (ch, pin level, ticks_us()) into `ring`.

    It closes over three names only: MicroPython allocates to call a closure with
    more than five cells plus arguments, and an interrupt handler must not allocate.
    """
    def handler(pin):
        t = ticks_us()
        r = ring
        idx = r.idx
        i = idx[0]
        j = (i + 1) & r.mask
        if j == idx[1]:
            if idx[2] < 65535:
                idx[2] += 1
            return
        r.ticks[i] = t
        r.chan[i] = ch
        r.level[i] = pin.value()
        idx[0] = j

    return handler


class EdgeScan:
    """Edges for a port without hard GPIO interrupts (ESP32): a periodic timer reads every pin
    and queues each change into the ring, with the time of the scan.

    An ESP32 timer callback is scheduled too (ports/esp32/machine_timer.c), so a scan can come
    late or, with the 8-deep scheduler queue full, not at all. A scan later than twice its
    period may have missed a pulse: each change it sees then also counts one lost edge, so
    the host's `dropped` says so instead of nothing.
    """

    def __init__(self, ring, pins, ticks_us, ticks_diff, period_us=1000):
        self.ring = ring
        self.pins = pins
        self.ticks_us = ticks_us
        self.ticks_diff = ticks_diff
        self.period_us = period_us
        self.levels = bytearray(32)
        self.last = array("L", [0, 0])     # ticks of the last scan, scans so far
        self.late = 0
        self.rail_of = bytearray(b"\xff" * 32)   # channel -> rail number (255: not a rail)
        self.arms = None                        # rails.RailArms, armed and sampled here

    def start(self):
        for ch in range(len(self.pins)):
            self.levels[ch] = self.pins[ch].value()
        self.last[0] = self.ticks_us()

    def scan(self, timer=None):
        t = self.ticks_us()
        late = self.ticks_diff(t, self.last[0]) > 2 * self.period_us and self.last[1] > 0
        self.last[0] = t
        self.last[1] = 1
        if late:
            self.late += 1
        ring = self.ring
        for ch in range(len(self.pins)):
            v = self.pins[ch].value()
            if v != self.levels[ch]:
                self.levels[ch] = v
                if late:
                    idx = ring.idx
                    if idx[LOST] < 65535:
                        idx[LOST] += 1
                ring.put(ch, v, t)
                k = self.rail_of[ch]
                if k != 255 and v == 1 and self.arms.state[k] == 0:
                    self.arms.at[k] = t
                    self.arms.state[k] = 1
        if self.arms is not None:
            self.arms.sample()
