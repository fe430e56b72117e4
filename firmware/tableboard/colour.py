"""Ball identity from a TCS34725-class colour sensor looking into the pocket throat.

While the ball passes, the reader takes a few samples (clear, red, green, blue).
Each sample is dark (the 8), white (cue ball, or a stripe's white band) or
coloured (with a hue). A ball is summed up by four numbers, `features`: the hue
of its coloured samples, the share of white samples (stripes show more white
than solids), the share of dark samples and the brightness of its coloured
samples against the calibrated white. `classify` finds the nearest entry of the
board's calibration table (a JSON file); a close second sets the uncertain flag,
and nothing near enough gives 255.
"""
from shared_rules.link.names import UNKNOWN_BALL, FLAG_UNCERTAIN

from tableboard import clock

# A pocket's colour sensor (pockets[n].colour): its I2C bus, its TCA9548A channel (none: the
# sensor sits on the bus itself) and the switch's address, and samples per ball.
SENSOR = (("i2c", "int", 0, None), ("mux", "int", None, None), ("mux_addr", "int", 0x70, None),
          ("samples", "int", 8, None))
CONFIG = (("colour_table", "str", "colours.json", None),)

ADDR = 0x29
CMD = 0x80
AUTO_INC = 0x20
ENABLE = 0x00
ATIME = 0x01
CONTROL = 0x0F
ID = 0x12
CDATA = 0x14
PON = 0x01
AEN = 0x02
WARMUP_US = 2400      # datasheet: 2.4 ms after PON before the ADCs may be enabled


def full_count(atime):
    """The largest clear count an integration of `atime` can give: 1024 per 2.4 ms cycle."""
    n = 1024 * (256 - atime)
    return n if n < 65535 else 65535


ATIME_DEFAULT = 0xFF
WHITE_C = full_count(ATIME_DEFAULT)   # an uncalibrated table takes full scale as white


class TCS34725:
    """Minimal driver; `mux` is an optional (address, channel) of a TCA9548A I2C switch."""

    def __init__(self, i2c, mux=None, atime=ATIME_DEFAULT, gain=1, sleep_us=None):
        self.i2c = i2c
        self.mux = mux
        self.buf = bytearray(8)
        self.one = bytearray(1)
        self.ok = False
        self.white_c = full_count(atime)
        if sleep_us is None:
            import time
            sleep_us = time.sleep_us
        try:
            self._select()
            self._w(ENABLE, PON)
            self._w(ATIME, atime)        # 0xFF: 2.4 ms integration, fast enough for a rolling ball
            self._w(CONTROL, gain)       # 1: 4x gain
            sleep_us(WARMUP_US)          # the oscillator's warm-up, counted from PON
            self._w(ENABLE, PON | AEN)
            self.ok = True
        except OSError:
            self.ok = False

    def _select(self):
        if self.mux is not None:
            self.one[0] = 1 << self.mux[1]
            self.i2c.writeto(self.mux[0], self.one)

    def _w(self, reg, v):
        self.one[0] = v
        self.i2c.writeto_mem(ADDR, CMD | reg, self.one)

    def read(self):
        """(clear, red, green, blue), or None if the sensor does not answer."""
        try:
            self._select()
            self.i2c.readfrom_mem_into(ADDR, CMD | AUTO_INC | CDATA, self.buf)
        except OSError:
            return None
        b = self.buf
        return (b[0] | b[1] << 8, b[2] | b[3] << 8, b[4] | b[5] << 8, b[6] | b[7] << 8)


def hue_of(r, g, b):
    """Hue in degrees 0..359 and saturation 0..1 of an RGB triple (any scale)."""
    mx = max(r, g, b)
    mn = min(r, g, b)
    if mx <= 0:
        return 0, 0.0
    d = mx - mn
    s = d / mx
    if d == 0:
        return 0, s
    if mx == r:
        h = 60.0 * (((g - b) / d) % 6)
    elif mx == g:
        h = 60.0 * ((b - r) / d + 2)
    else:
        h = 60.0 * ((r - g) / d + 4)
    return int(h) % 360, s


def features(samples, white_c=WHITE_C, dark=0.12, white_sat=0.18):
    """(hue or None, white share, dark share, level) of a ball from its samples, or None if empty.

    `white_c` is the clear count the calibrated white (the cue ball) gives.
    """
    import math
    n = 0
    whites = 0
    darks = 0
    sx = 0.0
    sy = 0.0
    lv = 0.0
    coloured = 0
    for s in samples:
        c, r, g, b = s
        n += 1
        if c < dark * white_c:
            darks += 1
            continue
        h, sat = hue_of(r, g, b)
        if sat < white_sat:
            whites += 1
            continue
        coloured += 1
        a = math.radians(h)
        sx += math.cos(a)
        sy += math.sin(a)
        lv += c / white_c
    if n == 0:
        return None
    hue = None
    if coloured:
        hue = int(math.degrees(math.atan2(sy, sx))) % 360
        lv = lv / coloured
    return (hue, whites / n, darks / n, lv)


def _hue_gap(a, b):
    d = abs(a - b) % 360
    return 360 - d if d > 180 else d


def distance(f, e):
    hue, white, dark, level = f
    d = abs(white - e.get("white", 0.0)) / 0.25 + abs(dark - e.get("dark", 0.0)) / 0.25
    eh = e.get("hue")
    if eh is None or hue is None:
        d += 0.0 if eh is None and hue is None else 1.5
    else:
        d += _hue_gap(hue, eh) / 25.0
        if "level" in e:
            d += abs(level - e["level"]) / 0.3
    return d


def classify(f, table, max_distance=1.5, margin=0.35):
    """(ball, flags) for features `f` against the calibration table's entries."""
    if f is None or not table:
        return UNKNOWN_BALL, FLAG_UNCERTAIN
    best = None
    bd = 1e9
    second = 1e9
    for e in table:
        d = distance(f, e)
        if d < bd:
            second = bd
            bd = d
            best = e
        elif d < second:
            second = d
    if bd > max_distance:
        return UNKNOWN_BALL, FLAG_UNCERTAIN
    flags = FLAG_UNCERTAIN if (second - bd) < margin else 0
    return best["ball"], flags


def load_table(path):
    """The calibration table from a JSON file: {"white_c": N, "balls": [{ball, hue, white, dark, level}]}."""
    import json
    try:
        with open(path) as fh:
            t = json.load(fh)
    except (OSError, ValueError):
        return None
    if not isinstance(t, dict) or not isinstance(t.get("balls"), list):
        return None
    return t


def make_reader(wiring, c, table, sleep_us):
    """The Reader of one pocket's sensor as the configuration wires it (`c`: SENSOR, filled)."""
    mux = (c["mux_addr"], c["mux"]) if c["mux"] is not None else None
    return Reader(TCS34725(wiring.bus(c["i2c"]), mux, sleep_us=sleep_us), table, samples=c["samples"])


class Reader:
    """Samples one pocket's sensor while the ball passes, then classifies it.

    `step(t, blocked)` returns None while reading, then (ball, flags, t_start, sensor_failed).
    """

    def __init__(self, sensor, table, samples=8, every_us=3000, linger_us=6000):
        self.sensor = sensor
        self.table = table
        self.samples = samples
        self.every_us = every_us
        self.linger_us = linger_us
        self.got = []
        self.busy = False
        self.t0 = 0
        self.next_t = 0
        self.failed = False

    def start(self, t):
        self.got = []
        self.busy = True
        self.failed = False
        self.t0 = t
        self.next_t = t

    def step(self, t, blocked):
        if clock.diff(t, self.next_t) >= 0 and len(self.got) < self.samples:
            s = self.sensor.read() if self.sensor is not None else None
            if s is None:
                self.failed = True
            else:
                self.got.append(s)
            self.next_t = clock.add(t, self.every_us)
        done = len(self.got) >= self.samples or self.failed
        if not done and not blocked and clock.diff(t, self.t0) >= self.linger_us + self.every_us * 2:
            done = True
        if not done:
            return None
        self.busy = False
        tab = self.table or {}
        f = features(self.got, tab.get("white_c", WHITE_C)) if self.got else None
        ball, flags = classify(f, tab.get("balls"))
        self.got = []
        return ball, flags, self.t0, self.failed
