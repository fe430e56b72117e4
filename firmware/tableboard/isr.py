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

    def take_lost(self):
        n = self.idx[LOST]
        self.idx[LOST] = 0
        return n

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
