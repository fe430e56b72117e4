"""Player buttons (CONTRACT buttons 0-15): debounced, a press or a long press.

`read()` returns a bitmask of pressed buttons (bit n = button n). A level must
hold `debounce_us` to count. A press shorter than `long_us` gives value 1 on
release; holding `long_us` gives value 2 at once and nothing on release. Events
carry the time the press began.
`CONFIG` declares the configuration's `buttons` (on GPIOs, a 74HC165 chain or an MCP23017);
`build` makes them for the Board.
"""
from array import array

from shared_rules.link.names import BUTTON, PRESS, LONG_PRESS, FEATURE_BUTTONS

from tableboard import clock, schema, expanders
from tableboard.wiring import bit_map

CONFIG = (("buttons", "obj", None, (
    ("pins", "pins", None, "in_pull"),       # one GPIO per button, pressed = low
    ("shift_in", "obj", None, expanders.SHIFT_IN),
    ("mcp23017", "obj", None, expanders.mcp23017(0x20)),
    ("order", "order", None, None),          # button of each chain bit (none: bit n = button n)
    ("active_low", "bool", True, None),
    ("count", "int", 10, (1, 16)),
    ("debounce_ms", "num", 20, None),
    ("long_ms", "num", 1000, None),
    (None, "one_of", ("pins", "shift_in", "mcp23017")),
)),)


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


def _chain_reader(board, b):
    """read() of buttons on a 74HC165 chain or an MCP23017, in button order."""
    s = b["shift_in"]
    if s:
        sh = expanders.ShiftIn(board.machine, s["load"], s["clock"], s["data"], s["bits"])
    else:
        s = b["mcp23017"]
        sh = expanders.MCP23017(board.wiring.bus(s["i2c"]), s["addr"], True)
    order = b["order"]
    remap = bit_map(order if order is not None else list(range(16)))
    active_low = b["active_low"]
    full = (1 << sh.bits) - 1

    def read_buttons():
        v = sh.read()
        return remap(v ^ full if active_low else v)
    return read_buttons


def _pins_reader(board, b):
    """read() of buttons each on its own GPIO (pressed = low)."""
    P = board.machine.Pin
    pins = [P(n, P.IN, P.PULL_UP) if n is not None else None for n in b["pins"]]

    def read_buttons():
        v = 0
        for n in range(len(pins)):
            if pins[n] is not None and not pins[n].value():
                v |= 1 << n
        return v
    return read_buttons


def build(board, cfg):
    """The players' buttons, if the configuration has them."""
    b = schema.get(cfg, CONFIG, "buttons")
    if not b:
        return 0
    read = _chain_reader(board, b) if b["shift_in"] or b["mcp23017"] else _pins_reader(board, b)
    board.buttons = Buttons(read, board.emit, count=b["count"], debounce_us=b["debounce_ms"] * 1000,
                            long_us=b["long_ms"] * 1000)
    return FEATURE_BUTTONS
