"""I/O expanders: the chips that give the board more inputs and outputs than its own pins.

74HC165 shift registers read the Pico board's buttons, 74HC595 drive its lamps; an
MCP23017 on I2C does either on the ESP32 board. Each chain's wiring, as a configuration
gives it, is declared here (tableboard/schema.py) for the buttons and lamps that use it.
"""

# A 74HC165 chain (buttons.shift_in) and a 74HC595 chain (lamps.shift_out).
SHIFT_IN = (("load", "pin", ..., "out"), ("clock", "pin", ..., "out"), ("data", "pin", ..., "in"),
            ("bits", "int", 16, None))
SHIFT_OUT = (("latch", "pin", ..., "out"), ("clock", "pin", ..., "out"), ("data", "pin", ..., "out"),
             ("bits", "int", 16, None))


def mcp23017(addr):
    """An MCP23017's place (buttons.mcp23017, lamps.mcp23017): its I2C bus and address."""
    return (("i2c", "int", 0, None), ("addr", "int", addr, None))


class ShiftIn:
    """A 74HC165 chain: pulse load low, then clock `bits` bits in (first bit = input H of the last chip)."""

    def __init__(self, machine, load, clock, data, bits=16):
        P = machine.Pin
        self.load = P(load, P.OUT, value=1)
        self.clock = P(clock, P.OUT, value=0)
        self.data = P(data, P.IN)
        self.bits = bits

    def read(self):
        self.load.value(0)
        self.load.value(1)
        v = 0
        for i in range(self.bits):
            v = (v << 1) | self.data.value()
            self.clock.value(1)
            self.clock.value(0)
        return v


class ShiftOut:
    """A 74HC595 chain: shift `bits` bits out, most significant first, then latch."""

    def __init__(self, machine, latch, clock, data, bits=16):
        P = machine.Pin
        self.latch = P(latch, P.OUT, value=0)
        self.clock = P(clock, P.OUT, value=0)
        self.data = P(data, P.OUT, value=0)
        self.bits = bits

    def write(self, v):
        for i in range(self.bits - 1, -1, -1):
            self.data.value((v >> i) & 1)
            self.clock.value(1)
            self.clock.value(0)
        self.latch.value(1)
        self.latch.value(0)


class MCP23017:
    """A 16-bit I2C port expander: all sixteen pins inputs with pull-ups (buttons) or all outputs (lamps)."""

    def __init__(self, i2c, addr=0x20, inputs=True):
        self.i2c = i2c
        self.addr = addr
        self.buf = bytearray(2)
        self.ok = True
        self.bits = 16
        try:
            v = 0xFF if inputs else 0x00
            self._w(0x00, v, v)              # IODIRA, IODIRB
            if inputs:
                self._w(0x0C, 0xFF, 0xFF)    # GPPUA, GPPUB: pull-ups
        except OSError:
            self.ok = False

    def _w(self, reg, a, b):
        self.buf[0] = a
        self.buf[1] = b
        self.i2c.writeto_mem(self.addr, reg, self.buf)

    def read(self):
        try:
            self.i2c.readfrom_mem_into(self.addr, 0x12, self.buf)   # GPIOA, GPIOB
        except OSError:
            return 0xFFFF
        return self.buf[0] | self.buf[1] << 8

    def write(self, v):
        try:
            self._w(0x14, v & 0xFF, (v >> 8) & 0xFF)                 # OLATA, OLATB
        except OSError:
            pass
