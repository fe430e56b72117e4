"""The table board: builds the sensors a board configuration names and steps them.

`machine` and `time` are passed in (the real modules on a board, fakes in tests
and on the virtual board), so everything here runs the same in all three places.
`step()` drains the interrupt ring and advances every sensor to now; the link
side is `link_out(buf)` (bytes to write) and `link_in(data)` (bytes read).
"""
from shared_rules.link.frames import FrameReader
from shared_rules.link.names import ACK, LIGHTS, CUE, POCKET
from shared_rules.link.names import FEATURE_BALL_ID, FEATURE_CUE_DETECTOR, FEATURE_MOTION
from shared_rules.link.names import FEATURE_BUTTONS, FAULT, FAULT_BOARD
from shared_rules.link.sender import Sender

from tableboard import VERSION
from tableboard.clock import Clock
from tableboard.isr import EdgeRing, EdgeScan, edge_handler
from tableboard.beams import Beam
from tableboard.rails import Rail, RailArms
from tableboard.motion import Motion
from tableboard.buttons import Buttons
from tableboard.lamps import Lamps
from tableboard import colour


def make_boot_id(machine, os_mod):
    """A random 32-bit boot id: os.urandom mixed with the chip's unique id."""
    b = bytearray(4)
    try:
        r = os_mod.urandom(4)
        for i in range(4):
            b[i] = r[i]
    except Exception:
        pass
    try:
        u = machine.unique_id()
        for i in range(len(u)):
            b[i & 3] ^= u[i]
    except Exception:
        pass
    v = b[0] | b[1] << 8 | b[2] << 16 | b[3] << 24
    return v or 1


class ShiftIn:
    """74HC165 chain: pulse load low, then clock `bits` bits in (first bit = input H of the last chip)."""

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
    """74HC595 chain: shift `bits` bits out, most significant first, then latch."""

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
    """16-bit I2C port expander: all inputs with pull-ups (buttons) or all outputs (lamps)."""

    def __init__(self, i2c, addr=0x20, inputs=True):
        self.i2c = i2c
        self.addr = addr
        self.buf = bytearray(2)
        self.ok = True
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


def _bit_map(order):
    """A function mapping a mask in one bit order to another: bit n of the input -> bit order[n]."""
    def remap(v):
        out = 0
        for n in range(len(order)):
            if order[n] is not None and (v >> n) & 1:
                out |= 1 << order[n]
        return out
    return remap


class Board:
    def __init__(self, cfg, machine, time_mod, boot_id=None, os_mod=None):
        self.cfg = cfg
        self.machine = machine
        self.time = time_mod
        self.clock = Clock(time_mod.ticks_us, time_mod.ticks_diff, getattr(time_mod, "ticks_add", None))
        self.ring = EdgeRing(cfg.get("isr_ring", 128))
        # "irq": a hard interrupt per pin (rp2); "scan": a timer samples every pin (ESP32, whose
        # GPIO interrupts are only ever soft: scheduled, read late, lost when the queue is full).
        self.edges = cfg.get("edges", "irq")
        self.scan = None
        self.scan_in_loop = False
        self._scan_pins = []
        self.wdt = None           # fed at every step (app.start sets it)
        self.arms = RailArms(len(cfg.get("rails", [])), time_mod.ticks_us, time_mod.ticks_diff)
        self.timers = []
        self.reader = FrameReader()
        self.channels = []
        self.pins = []
        self.beams = []
        self.rails = []
        self.buttons = None
        self.motion = None
        self.lamps = None
        self.isr_lost = 0
        self._adc = {}
        self._mux = None
        self._i2c = {}
        self.t = 0
        features = 0
        P = machine.Pin
        self._sleep_us = getattr(time_mod, "sleep_us", None) or (lambda us: None)
        if cfg.get("analog_mux"):
            self._mux = [P(n, P.OUT, value=0) for n in cfg["analog_mux"]["select"]]
        table = None
        if any(p.get("colour") for p in cfg.get("pockets", [])):
            table = colour.load_table(cfg.get("colour_table", "colours.json"))
        bcfg = cfg.get("beam", {})
        for i, pc in enumerate(cfg.get("pockets", [])):
            reader = None
            cc = pc.get("colour")
            if cc:
                features |= FEATURE_BALL_ID
                bus = self._bus(cc.get("i2c", 0))
                mux = (cc.get("mux_addr", 0x70), cc["mux"]) if "mux" in cc else None
                reader = colour.Reader(colour.TCS34725(bus, mux, sleep_us=self._sleep_us), table,
                                       samples=cc.get("samples", 8))
            beam = Beam(i, self._emit, kind=POCKET, blocked_level=pc.get("blocked", 0),
                        debounce_us=bcfg.get("debounce_ms", 30) * 1000,
                        min_block_us=bcfg.get("min_block_us", 1000),
                        stuck_us=bcfg.get("stuck_ms", 3000) * 1000, reader=reader)
            self.beams.append(beam)
            self._irq(pc["beam"], beam, pc.get("pull", "up"))
        cue = cfg.get("cue")
        if cue:
            features |= FEATURE_CUE_DETECTOR
            idx = cue.get("index", 255)
            beam = Beam(idx, self._emit, kind=CUE, value=1, fault_index=cue.get("fault", 32),
                        blocked_level=cue.get("active", 0),
                        debounce_us=cue.get("debounce_ms", 100) * 1000,
                        min_block_us=cue.get("min_block_us", 1000),
                        stuck_us=bcfg.get("stuck_ms", 3000) * 1000)
            self.beams.append(beam)
            self._irq(cue["pin"], beam, cue.get("pull", "up"))
        rcfg = cfg.get("rail", {})
        for i, rc in enumerate(cfg.get("rails", [])):
            rail = Rail(i, self._emit, self._analog(rc["adc"]),
                        threshold=rc.get("threshold", rcfg.get("threshold", 1000)),
                        dead_us=rc.get("dead_ms", rcfg.get("dead_ms", 30)) * 1000,
                        settle_us=rcfg.get("settle_us", 1000), gain=rc.get("gain", 1.0),
                        arms=self.arms, k=i)
            self.rails.append(rail)
            self._irq(rc["comp"], rail, None, self.arms.handler(i))
        if self.rails and self.edges == "irq" and rcfg.get("sample_hz", 2000):
            self.arms.timer = self._timer(rcfg.get("sample_hz", 2000), self.arms.sample, True)
        if self.edges == "scan":
            self.scan = EdgeScan(self.ring, self._scan_pins, time_mod.ticks_us, time_mod.ticks_diff,
                                 1000000 // cfg.get("scan_hz", 1000))
            self.scan.start()
            if self.rails:
                # The scan arms a rail at its edge and samples its peak settle_us later.
                for ch in range(len(self.channels)):
                    if isinstance(self.channels[ch], Rail):
                        self.scan.rail_of[ch] = self.channels[ch].k
                self.scan.arms = self.arms
            self.arms.timer = self._timer(cfg.get("scan_hz", 1000), self.scan.scan, False)
            if self.arms.timer is None:
                self.scan_in_loop = True
        mc = cfg.get("motion")
        if mc:
            features |= FEATURE_MOTION
            read = self._analog(mc["adc"])
            if self.arms.timer is not None and self.edges == "irq":
                read = self._guarded(read)
            self.motion = Motion(read, self._emit, high=mc.get("high", 3000),
                                 low=mc.get("low", 1500), still_us=mc.get("still_ms", 1500) * 1000)
            self._motion_every = mc.get("every_ms", 20) * 1000
        bc = cfg.get("buttons")
        if bc:
            features |= FEATURE_BUTTONS
            if "shift_in" in bc or "mcp23017" in bc:
                if "shift_in" in bc:
                    s = bc["shift_in"]
                    sh = ShiftIn(machine, s["load"], s["clock"], s["data"], s.get("bits", 16))
                else:
                    s = bc["mcp23017"]
                    sh = MCP23017(self._bus(s.get("i2c", 0)), s.get("addr", 0x20), True)
                    sh.bits = 16
                remap = _bit_map(bc.get("order", list(range(16))))
                active_low = bc.get("active_low", True)
                full = (1 << sh.bits) - 1

                def read_buttons():
                    v = sh.read()
                    return remap(v ^ full if active_low else v)
            else:
                pins = [P(n, P.IN, P.PULL_UP) if n is not None else None for n in bc["pins"]]

                def read_buttons():
                    v = 0
                    for n in range(len(pins)):
                        if pins[n] is not None and not pins[n].value():
                            v |= 1 << n
                    return v
            self.buttons = Buttons(read_buttons, self._emit, count=bc.get("count", 10),
                                   debounce_us=bc.get("debounce_ms", 20) * 1000,
                                   long_us=bc.get("long_ms", 1000) * 1000)
        lc = cfg.get("lamps")
        if lc:
            if "shift_out" in lc:
                s = lc["shift_out"]
                so = ShiftOut(machine, s["latch"], s["clock"], s["data"], s.get("bits", 16))
                remap = _bit_map(lc.get("order", list(range(10))))

                def write_lamps(m):
                    so.write(remap(m))
            elif "mcp23017" in lc:
                s = lc["mcp23017"]
                ex = MCP23017(self._bus(s.get("i2c", 0)), s.get("addr", 0x21), False)
                remap = _bit_map(lc.get("order", list(range(10))))

                def write_lamps(m):
                    ex.write(remap(m))
            else:
                lp = [P(n, P.OUT, value=0) if n is not None else None for n in lc["pins"]]

                def write_lamps(m):
                    for n in range(len(lp)):
                        if lp[n] is not None:
                            lp[n].value((m >> n) & 1)
            self.lamps = Lamps(write_lamps)
        if boot_id is None:
            if os_mod is None:
                import os as os_mod
            boot_id = make_boot_id(machine, os_mod)
        self.sender = Sender(boot_id, capacity=cfg.get("buffer", 256), hello={
            "fw_major": VERSION[0], "fw_minor": VERSION[1],
            "pockets": len(cfg.get("pockets", [])), "rails": len(cfg.get("rails", [])),
            "features": features, "name": cfg.get("name", "table")},
            out_size=cfg.get("out_size", 1024))
        self._add = getattr(time_mod, "ticks_add", None) or (lambda a, b: a + b)
        self._next_input = self.clock.raw
        self._next_motion = self.clock.raw
        self._drain = self._on_edge
        self._uptime = self.clock.us      # bound once: making a bound method allocates

    # --- building ---------------------------------------------------------------

    def _bus(self, n):
        if n not in self._i2c:
            c = self.cfg.get("i2c", {}).get(str(n), {})
            m = self.machine
            self._i2c[n] = m.I2C(n, scl=m.Pin(c.get("scl", 5)), sda=m.Pin(c.get("sda", 4)),
                                 freq=c.get("freq", 400000))
        return self._i2c[n]

    def _timer(self, hz, callback, hard):
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
                tm = T(self.cfg.get("timer_id", 0))
                tm.init(mode=T.PERIODIC, freq=hz, callback=callback)
        except Exception:        # no usable timer: the main loop does the work, late
            return None
        self.timers.append(tm)
        return tm

    def _guarded(self, read):
        """`read` with interrupts off: the rail sampler's timer interrupt uses the same ADC
        (and mux), and must not switch it between a select and a conversion."""
        m = self.machine

        def r():
            st = m.disable_irq()
            v = read()
            m.enable_irq(st)
            return v
        return r

    def _analog(self, spec):
        """A function reading a u16 analog value: an ADC pin number, or {"adc": pin, "mux": channel}."""
        m = self.machine
        if isinstance(spec, dict):
            pin = spec["adc"]
            ch = spec.get("mux")
        else:
            pin = spec
            ch = None
        if pin not in self._adc:
            db = self.cfg.get("adc_atten_db")
            if db is None:
                self._adc[pin] = m.ADC(m.Pin(pin))
            else:                # ESP32: 0 dB (its default) reads only up to about 1 V
                A = m.ADC
                at = {0: "ATTN_0DB", 2.5: "ATTN_2_5DB", 6: "ATTN_6DB", 11: "ATTN_11DB"}[db]
                self._adc[pin] = A(m.Pin(pin), atten=getattr(A, at))
        adc = self._adc[pin]
        sel = self._mux
        if ch is None or sel is None:
            return adc.read_u16

        def read():
            for k in range(len(sel)):
                sel[k].value((ch >> k) & 1)
            return adc.read_u16()
        return read

    def _irq(self, pin_no, target, pull, handler=None):
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
        if self.edges == "scan":
            self._scan_pins.append(pin)
        else:
            h = handler or edge_handler(self.ring, ch, self.time.ticks_us)
            # Hard only: a soft (scheduled) handler reads the level and the time late. A port
            # without hard GPIO interrupts raises TypeError here: its config must say "edges": "scan".
            pin.irq(handler=h, trigger=P.IRQ_RISING | P.IRQ_FALLING, hard=self.cfg.get("hard_irq", True))
        # A beam blocked at power-up has no edge to tell us: take the level now.
        target.init(pin.value(), self.clock.raw)

    # --- running ----------------------------------------------------------------

    def _emit(self, t, kind, index, value, flags):
        """An event at raw ticks `t`: widened to 64-bit board time here, where it is framed."""
        self.sender.push_event(self.clock.at(t), kind, index, value, flags)

    def restarted(self, code):
        """Tell the host why the board restarted (FAULT 255, codes in shared_rules/link/names.py)."""
        self._emit(self.clock.raw, FAULT, FAULT_BOARD, code, 0)

    def uptime_us(self):
        return self.clock.us()

    def _on_edge(self, ch, level, raw):
        self.channels[ch].edge(level, raw)

    def step(self):
        """Advance every sensor to now; returns the raw ticks_us of now (see clock.py)."""
        t = self.clock.now()
        self.t = t
        if self.wdt is not None:
            self.wdt.feed()
        if self.scan_in_loop:
            self.scan.scan()
        self.ring.drain(self._drain)
        lost = self.ring.take_lost(self.machine)
        if lost:
            self.isr_lost += lost
            self.sender.dropped = (self.sender.dropped + lost) & 0xFFFFFFFF
        for b in self.beams:
            b.tick(t)
        for r in self.rails:
            r.tick(t)
        d = self.clock.diff
        if d(t, self._next_input) >= 0:
            self._next_input = self._add(t, 10000)
            if self.buttons is not None:
                self.buttons.poll(t)
        if self.motion is not None and d(t, self._next_motion) >= 0:
            self._next_motion = self._add(t, self._motion_every)
            self.motion.poll(t)
        if self.lamps is not None:
            self.lamps.tick(t)
        return t

    def link_out(self, buf, limit=-1):
        """Bytes due on the wire now, written into `buf` (at most `limit`); returns how many.

        The sender's timers run on ticks_ms (a small int at any uptime); the 64-bit board
        time is handed over as a function, made only when a HEARTBEAT is framed.
        """
        return self.sender.poll_into(self.time.ticks_ms(), self._uptime, buf, limit)

    def link_in(self, data):
        """Act on bytes from the host: ACK frees held frames, LIGHTS sets the lamps."""
        for f in self.reader.feed(data):
            t = f["type"]
            if t == ACK:
                self.sender.on_ack(f["boot_id"], f["ack"])
            elif t == LIGHTS and self.lamps is not None:
                self.lamps.set(f["mask"], f["mode"])
