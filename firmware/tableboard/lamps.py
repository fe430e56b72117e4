"""Pocket lamps driven by LIGHTS: bit n = pocket n lamp, bit 8 ball in hand, bit 9 foul; mode 1 blinks."""

BLINK_US = 250000


class Lamps:
    def __init__(self, write, blink_us=BLINK_US):
        self.write = write        # write(mask) drives the outputs
        self.blink_us = blink_us
        self.mask = 0
        self.mode = 0
        self.out = -1

    def set(self, mask, mode):
        self.mask = mask & 0x3FF
        self.mode = 1 if mode == 1 else 0

    def tick(self, t):
        m = self.mask
        if self.mode == 1 and (t // self.blink_us) & 1:
            m = 0
        if m != self.out:
            self.out = m
            self.write(m)
