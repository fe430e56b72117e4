"""Pocket lamps driven by LIGHTS: bit n = pocket n lamp, bit 8 ball in hand, bit 9 foul; mode 1 blinks.

`CONFIG` declares the configuration's `lamps` (on GPIOs, a 74HC595 chain or an MCP23017);
`build` makes them for the Board.
"""
from tableboard import schema, expanders
from tableboard.wiring import bit_map

CONFIG = (("lamps", "obj", None, (
    ("pins", "pins", None, "out"),           # one GPIO per lamp (null: not fitted)
    ("shift_out", "obj", None, expanders.SHIFT_OUT),
    ("mcp23017", "obj", None, expanders.mcp23017(0x21)),
    ("order", "order", None, None),          # chain bit of each lamp (none: lamp n = bit n)
    (None, "one_of", ("pins", "shift_out", "mcp23017")),
)),)

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


def _writer(board, c):
    """write(mask) of lamps on a 74HC595 chain, an MCP23017 or GPIOs, in lamp order."""
    order = c["order"] if c["order"] is not None else list(range(10))
    s = c["shift_out"]
    if s:
        so = expanders.ShiftOut(board.machine, s["latch"], s["clock"], s["data"], s["bits"])
        remap = bit_map(order)

        def write_lamps(m):
            so.write(remap(m))
    elif c["mcp23017"]:
        s = c["mcp23017"]
        ex = expanders.MCP23017(board.wiring.bus(s["i2c"]), s["addr"], False)
        remap = bit_map(order)

        def write_lamps(m):
            ex.write(remap(m))
    else:
        P = board.machine.Pin
        lp = [P(n, P.OUT, value=0) if n is not None else None for n in c["pins"]]

        def write_lamps(m):
            for n in range(len(lp)):
                if lp[n] is not None:
                    lp[n].value((m >> n) & 1)
    return write_lamps


def build(board, cfg):
    """The pocket lamps, if the configuration has them (LIGHTS drives them)."""
    c = schema.get(cfg, CONFIG, "lamps")
    if not c:
        return 0
    board.lamps = Lamps(_writer(board, c))
    return 0
