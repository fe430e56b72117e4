"""The board's wiring to its chip: inputs into the edge ring, I2C buses, ADCs, timers.

The Board builder asks it for what each part needs (an input pin whose edges reach a
sensor, a function reading an analog value, an I2C bus) and starts the edge sources once
every input is known: a hard interrupt per pin and a timer sampling the rail peaks (rp2),
or a timer scanning every input (ESP32, whose GPIO interrupts are only ever soft:
scheduled, read late, lost when the queue is full). `release` stops what a failed build
started, so no interrupt calls into a board that was never finished.
"""
from tableboard import schema
from tableboard.isr import EdgeRing, EdgeScan, edge_handler

# An I2C bus (i2c."0", i2c."1"): its pins and clock.
BUS = (("sda", "pin", 4, "i2c"), ("scl", "pin", 5, "i2c"), ("freq", "int", 400000, None))
CONFIG = (
    ("isr_ring", "int", 128, None),
    ("edges", "choice", "irq", ("irq", "scan")),
    ("scan_hz", "int", 1000, (1, 100000)),
    ("hard_irq", "bool", True, None),
    ("timer_id", "int", 0, None),
    ("adc_atten_db", "choice", None, (0, 2.5, 6, 11)),   # ESP32 only: see chips.py
    ("i2c", "map", None, BUS),
    ("analog_mux", "obj", None, (("select", "pins", ..., "out"),)),
)
ATTEN = {0: "ATTN_0DB", 2.5: "ATTN_2_5DB", 6: "ATTN_6DB", 11: "ATTN_11DB"}
NOT_A_RAIL = 255          # isr.EdgeScan's "not a rail"


def bit_map(order):
    """A function mapping a mask in one bit order to another: bit n of the input -> bit order[n]
    (how buttons and lamps are wired to the bits of a shift register or an expander)."""
    def remap(v):
        out = 0
        for n in range(len(order)):
            if order[n] is not None and (v >> n) & 1:
                out |= 1 << order[n]
        return out
    return remap


class Wiring:
    def __init__(self, cfg, machine, time_mod, clock):
        self.machine = machine
        self.time = time_mod
        self.clock = clock
        self.cfg = c = schema.fill(cfg, CONFIG)
        self.ring = EdgeRing(c["isr_ring"])
        self.edges = c["edges"]
        self.channels = []        # the sensor each input feeds, by channel
        self.pins = []
        self.rail_of = []         # the rail each channel arms (NOT_A_RAIL: none)
        self.timers = []
        self.scan = None
        self.scan_in_loop = False
        self._adc = {}
        self._i2c = {}
        mux = c["analog_mux"]
        P = machine.Pin
        self._mux = [P(n, P.OUT, value=0) for n in mux["select"]] if mux else None

    # --- what the parts ask for -------------------------------------------------------

    def bus(self, n):
        """I2C bus `n` as the configuration's "i2c" section wires it (made once)."""
        if n not in self._i2c:
            c = (self.cfg["i2c"] or {}).get(str(n)) or schema.fill(None, BUS)
            m = self.machine
            self._i2c[n] = m.I2C(n, scl=m.Pin(c["scl"]), sda=m.Pin(c["sda"]), freq=c["freq"])
        return self._i2c[n]

    def analog(self, spec):
        """A function reading a u16 analog value: an ADC pin number, or {"adc": pin, "mux": channel}."""
        m = self.machine
        if isinstance(spec, dict):
            pin = spec["adc"]
            ch = spec.get("mux")
        else:
            pin = spec
            ch = None
        if pin not in self._adc:
            db = self.cfg["adc_atten_db"]
            if db is None:
                self._adc[pin] = m.ADC(m.Pin(pin))
            else:                # ESP32: 0 dB (its default) reads only up to about 1 V
                A = m.ADC
                self._adc[pin] = A(m.Pin(pin), atten=getattr(A, ATTEN[db]))
        adc = self._adc[pin]
        sel = self._mux
        if ch is None or sel is None:
            return adc.read_u16

        def read():
            for k in range(len(sel)):
                sel[k].value((ch >> k) & 1)
            return adc.read_u16()
        return read

    def guarded(self, read):
        """`read` with interrupts off: the rail sampler's timer interrupt uses the same ADC
        (and mux), and must not switch it between a select and a conversion."""
        m = self.machine

        def r():
            st = m.disable_irq()
            v = read()
            m.enable_irq(st)
            return v
        return r

    def input(self, pin_no, target, pull, handler=None, rail=NOT_A_RAIL):
        """An input whose edges reach `target` (its `edge(level, raw_ticks)`) through the ring;
        `handler` replaces the ring's for a pin that does its own work in the interrupt."""
        P = self.machine.Pin
        if pull == "up":
            pin = P(pin_no, P.IN, P.PULL_UP)
        elif pull == "down":
            pin = P(pin_no, P.IN, P.PULL_DOWN)
        else:
            pin = P(pin_no, P.IN)
        ch = len(self.channels)
        self.channels.append(target)
        self.pins.append(pin)
        self.rail_of.append(rail)
        if self.edges != "scan":
            h = handler or edge_handler(self.ring, ch, self.time.ticks_us)
            # Hard only: a soft (scheduled) handler reads the level and the time late. A port
            # without hard GPIO interrupts raises TypeError here: its config must say "edges": "scan".
            pin.irq(handler=h, trigger=P.IRQ_RISING | P.IRQ_FALLING, hard=self.cfg["hard_irq"])
        # A beam blocked at power-up has no edge to tell us: take the level now.
        target.init(pin.value(), self.clock.raw)
        return pin

    def timer(self, hz, callback, hard):
        """A periodic machine.Timer calling `callback`; hard (an interrupt) where the port has it.

        None when the port has no Timer (the virtual board): callers then do the work in the loop.
        """
        T = getattr(self.machine, "Timer", None)
        if T is None:
            return None
        try:
            try:
                tm = T(mode=T.PERIODIC, freq=hz, callback=callback, hard=hard)
            except TypeError:    # ESP32: Timer(id), no hard= (its callbacks are always scheduled)
                tm = T(self.cfg["timer_id"])
                tm.init(mode=T.PERIODIC, freq=hz, callback=callback)
        except Exception:        # no usable timer: the main loop does the work, late
            return None
        self.timers.append(tm)
        return tm

    # --- once every input is known ------------------------------------------------------

    def start_edges(self, arms):
        """Start the rail sampler (`arms`, every `arms.sample_hz`) or the scan of every input."""
        if self.edges != "scan":
            if len(arms.state) and arms.sample_hz:
                arms.timer = self.timer(arms.sample_hz, arms.sample, True)
            return
        t = self.time
        hz = self.cfg["scan_hz"]
        self.scan = EdgeScan(self.ring, self.pins, t.ticks_us, t.ticks_diff, 1000000 // hz)
        self.scan.start()
        if len(arms.state):
            # The scan arms a rail at its edge and samples its peak settle_us later.
            for ch in range(len(self.rail_of)):
                if self.rail_of[ch] != NOT_A_RAIL:
                    self.scan.rail_of[ch] = self.rail_of[ch]
            self.scan.arms = arms
        arms.timer = self.timer(hz, self.scan.scan, False)
        if arms.timer is None:
            self.scan_in_loop = True

    def release(self):
        """Stop every timer and pin interrupt started so far (a build that failed half-way)."""
        for tm in self.timers:
            try:
                tm.deinit()
            except Exception:
                pass
        self.timers = []
        if self.edges != "scan":
            for p in self.pins:
                try:
                    p.irq(handler=None)
                except Exception:
                    pass


def start(board, cfg):
    """A build step (board.PARTS), once every input is known: start the edges."""
    board.wiring.start_edges(board.arms)
    return 0
