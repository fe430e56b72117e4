"""A fake `machine` and `time` for tests and the virtual board.

Tests fire pin edges (`pin.drive(level)` calls the interrupt handler like the
hardware would), set analog values (`m.set_analog(pin, value, mux=channel)`),
put a colour in front of a TCS34725 (`m.colour(bus, mux_channel).show(...)`)
and step the clock (`FakeTime.advance_us`), including across the wrap of the
30-bit `ticks_us`. `FakeUART` and `FakeUSB` are the board's link: byte pipes whose
host end a test writes into and reads from.
"""

PERIOD = 1 << 30
HALF = PERIOD >> 1


def ticks_diff(a, b):
    return ((a - b + HALF) & (PERIOD - 1)) - HALF


def ticks_add(a, d):
    return (a + d) & (PERIOD - 1)


class FakeTime:
    """`ticks_us`, `ticks_ms`, `ticks_diff`, `ticks_add` over a true clock that tests move."""

    def __init__(self, start_ticks=0):
        self.us = 0
        self.offset = start_ticks
        self.machine = None       # a FakeMachine attached with machine.attach(time): timers, WDT

    def advance_us(self, n):
        m = self.machine
        end = self.us + n
        if m is not None and m.timers:
            m.run_until(self, end)
        self.us = end
        if m is not None:
            m.after_advance(self)

    def advance_ms(self, n):
        self.advance_us(n * 1000)

    def ticks_us(self):
        if self.machine is not None:
            self.machine.vm_check()
        return (self.us + self.offset) & (PERIOD - 1)

    def ticks_ms(self):
        return (self.us // 1000 + self.offset) & (PERIOD - 1)

    # Plain functions, as on a board: firmware keeps them (tableboard.clock) without keeping
    # the clock, and so every machine and board behind it, alive.
    ticks_diff = staticmethod(ticks_diff)
    ticks_add = staticmethod(ticks_add)

    def sleep_ms(self, n):
        self.advance_us(n * 1000)

    def sleep_us(self, n):
        self.advance_us(n)


class _Pin:
    IN = 0
    OUT = 1
    OPEN_DRAIN = 2
    PULL_UP = 1
    PULL_DOWN = 2
    IRQ_FALLING = 4
    IRQ_RISING = 8

    def __init__(self, m, n):
        self.m = m
        self.id = n
        self.level = 0
        self.mode = 0
        self.pull = None
        self.handler = None
        self.trigger = 0
        self.writes = 0

    def init(self, mode=-1, pull=-1, value=None):
        if mode != -1:
            self.mode = mode
        if pull != -1:
            self.pull = pull
            if pull == self.PULL_UP:
                self.level = 1
            elif pull == self.PULL_DOWN:
                self.level = 0
        if value is not None:
            self.level = 1 if value else 0

    def value(self, v=None):
        if v is None:
            if self.m.on_read is not None:
                self.m.on_read(self)
            return self.level
        self.level = 1 if v else 0
        self.writes += 1
        if self.m.on_write is not None:
            self.m.on_write(self)

    def __call__(self, v=None):
        return self.value(v)

    def irq(self, handler=None, trigger=12, hard=False):
        self.handler = handler
        self.trigger = trigger
        self.hard = hard

    def drive(self, level):
        """The outside world sets the input level; an edge calls the handler like an interrupt."""
        level = 1 if level else 0
        old = self.level
        self.level = level
        if self.handler is None or old == level:
            return
        if (level and self.trigger & self.IRQ_RISING) or (not level and self.trigger & self.IRQ_FALLING):
            self.m.interrupt(self)


def _akey(pin, mux):
    return pin * 64 + (0 if mux is None else mux + 1)


class _ADC:
    """Analog values are set as an RP2040 reads them: 65535 at 3.3 V. A value set with a
    `tau_us` decays like a peak-hold (a diode into a capacitor with a bleed resistor)."""

    def __init__(self, m, pin):
        self.m = m
        self.pin = pin.id if isinstance(pin, _Pin) else pin

    def read_u16(self):
        ch = None
        m = self.m
        m.vm_check()
        if m.mux_select:
            ch = 0
            for k in range(len(m.mux_select)):
                ch |= m.pin(m.mux_select[k]).level << k
        m.adc_reads += 1
        # Keys are ints, not tuples: a read allocates nothing, so tests may hold the heap locked.
        key = _akey(self.pin, ch)
        v = m.analog.get(key, None)
        if v is None:
            key = _akey(self.pin, None)
            v = m.analog.get(key, 0)
        decay = m.decay.get(key)
        if decay is not None and m.clock is not None:
            import math
            t0, tau = decay
            v = int(v * math.exp(-(m.clock.us - t0) / tau))
        return v


class FakeTCS:
    """A TCS34725 that shows whatever colour a test puts in front of it."""

    def __init__(self):
        self.readings = [(0, 0, 0, 0)]
        self.k = 0
        self.alive = True
        self.regs = {}

    def show(self, readings):
        """One (c, r, g, b) or a list cycled through on successive reads (a rolling stripe)."""
        self.readings = readings if isinstance(readings, list) else [readings]
        self.k = 0

    def next(self):
        r = self.readings[self.k % len(self.readings)]
        self.k += 1
        return r


class FakeMCP:
    """An MCP23017: `inputs` is what its pins read; `output()` what the board last latched."""

    def __init__(self):
        self.inputs = 0xFFFF
        self.regs = {}

    def output(self):
        return self.regs.get(0x14, 0) | self.regs.get(0x15, 0) << 8


class _I2C:
    def __init__(self, m, n, scl=None, sda=None, freq=400000):
        # ports/rp2/machine_i2c.c, ports/esp32/machine_i2c.c: freq is an MP_ARG_INT.
        if not isinstance(freq, int):
            raise TypeError("can't convert %s to int" % type(freq).__name__)
        self.m = m
        self.n = n
        self.channel = None

    def _dev(self, addr):
        if addr in self.m.expanders:
            return self.m.expanders[addr]
        if addr != 0x29:
            raise OSError(19)
        d = self.m.tcs.get((self.n, self.channel))
        if d is None or not d.alive:
            raise OSError(19)
        return d

    def writeto(self, addr, buf):
        if addr == 0x70:
            b = buf[0]
            ch = 0
            while b > 1:
                b >>= 1
                ch += 1
            self.channel = ch
            return
        self._dev(addr)

    def writeto_mem(self, addr, reg, buf):
        d = self._dev(addr)
        for i in range(len(buf)):
            d.regs[(reg & 0x1F) + i] = buf[i]

    def readfrom_mem_into(self, addr, reg, buf):
        d = self._dev(addr)
        if isinstance(d, FakeMCP):
            v = d.inputs
            buf[0] = v & 0xFF
            buf[1] = (v >> 8) & 0xFF
            return
        c, r, g, b = self._dev(addr).next()
        v = (c, r, g, b)
        for i in range(4):
            buf[2 * i] = v[i] & 0xFF
            buf[2 * i + 1] = (v[i] >> 8) & 0xFF

    def scan(self):
        return [0x29] if self.m.tcs else []


class _Pipe:
    """Bytes in flight from the host to the board, in a receive buffer of fixed size."""

    def __init__(self, size):
        self.buf = bytearray(size)
        self.n = 0
        self.overruns = 0        # bytes lost because the buffer was full, as on the hardware

    def put(self, data):
        for b in data:
            if self.n < len(self.buf):
                self.buf[self.n] = b
                self.n += 1
            else:
                self.overruns += 1

    def take_into(self, buf, n):
        if n > self.n:
            n = self.n
        for i in range(n):
            buf[i] = self.buf[i]
        for i in range(self.n - n):
            self.buf[i] = self.buf[n + i]
        self.n -= n
        return n


class _HostEnd:
    """The host's end of a fake link: what it writes arrives in `rxpipe`, what the board wrote
    collects in `out`."""

    def host_write(self, data):
        self.rxpipe.put(data)

    def host_read(self):
        d = bytes(self.out)
        self.out = bytearray()
        return d


class FakeUART(_HostEnd):
    """A machine.UART whose far end is the test's: `host_write` feeds the board's receive buffer,
    `host_read` takes what the board wrote. A read asking for more bytes than have arrived
    counts a `stall`: the real one would wait up to `timeout` ms for them."""

    def __init__(self, id=0, baudrate=115200, tx=None, rx=None, txbuf=256, rxbuf=256,
                 timeout=None, **kw):
        self.id = id
        self.baudrate = baudrate
        self.tx = tx
        self.rx = rx
        self.txbuf = txbuf
        self.timeout = timeout
        self.rxpipe = _Pipe(rxbuf)
        self.out = bytearray()
        self.stalls = 0
        self.reads = 0

    # --- the board's end -------------------------------------------------------------

    def any(self):
        return self.rxpipe.n

    def readinto(self, buf, nbytes=None):
        self.reads += 1
        n = len(buf) if nbytes is None else nbytes
        if n > self.rxpipe.n:
            self.stalls += 1
        got = self.rxpipe.take_into(buf, n)
        return got if got else None

    def read(self, nbytes=None):
        n = self.rxpipe.n if nbytes is None else nbytes
        buf = bytearray(n)
        got = self.readinto(buf, n)
        return bytes(buf[:got]) if got else None

    def write(self, data):
        self.out.extend(data)
        return len(data)



class FakeUSB(_HostEnd):
    """USB CDC as the board sees it: `stdin`/`stdout` stand in for sys.stdin.buffer and
    sys.stdout.buffer, `ready()` for a poll of stdin. Like the real stdin a read waits until
    every byte asked for has come, so asking for more than has arrived counts a `block`
    (on a board the whole loop would hang there) and returns only what there is."""

    def __init__(self, size=256):
        self.rxpipe = _Pipe(size)
        self.out = bytearray()
        self.blocks = 0
        usb = self

        class In:
            def readinto(self, buf):
                if len(buf) > usb.rxpipe.n:
                    usb.blocks += 1
                return usb.rxpipe.take_into(buf, len(buf))

            def read(self, n):
                buf = bytearray(n)
                return bytes(buf[:self.readinto(buf)])

        class Out:
            def write(self, data):
                usb.out.extend(data)
                return len(data)

        self.stdin = In()
        self.stdout = Out()

    def ready(self):
        return self.rxpipe.n > 0

    def writable(self):
        return True


class FakeMachine:
    """Stands in for the `machine` module: Pin, ADC, I2C, UART, unique_id, with handles for tests
    (`uarts[id]` is the last UART opened on that id)."""

    def __init__(self, port="rp2"):
        m = self
        self.port = port
        self.pins = {}
        self.analog = {}
        self.decay = {}
        self.mux_select = None
        self.tcs = {}
        self.expanders = {0x20: FakeMCP(), 0x21: FakeMCP()}
        self.adc_reads = 0
        self.on_read = None
        self.on_write = None
        self.uarts = {}

        class Pin(_Pin):
            def __new__(cls, n, mode=-1, pull=-1, value=None):
                p = m.pins.get(n)
                if p is None:
                    p = _Pin(m, n)
                    m.pins[n] = p
                p.init(mode, pull, value)
                return p

        class ADC(_ADC):
            def __init__(self, pin):
                _ADC.__init__(self, m, pin)

        class I2C(_I2C):
            def __init__(self, n, scl=None, sda=None, freq=400000):
                _I2C.__init__(self, m, n, scl, sda, freq)

        class UART(FakeUART):
            def __init__(self, id=0, **kw):
                FakeUART.__init__(self, id, **kw)
                m.uarts[id] = self

        self.Pin = Pin
        self.ADC = ADC
        self.I2C = I2C
        self.UART = UART
        self.clock = None
        self.busy = False            # the main thread is inside a long C call (a blocking write)
        self.mp = None
        self.timers = []
        self.wdt = None
        self.irq_disabled = 0
        self.latched = []
        self.host_stream = None
        self.usb = None
        self.cause = 1
        if port != "rp2":
            self.attach(None)

    # Port models (rp2 vs esp32: reset, watchdog, timers, scheduler, interrupt char, ESP32 pins
    # and ADC) live in vboard/fakechip.py, loaded by `attach`: a test that wants them attaches
    # its clock; the virtual board, without them, keeps its heap for the firmware.

    def attach(self, clock):
        """Let the fake clock drive this machine's timers and watchdog (loads vboard.fakechip)."""
        from vboard import fakechip
        fakechip.install(FakeMachine, _ADC)
        fakechip.port_init(self)
        if clock is not None:
            self.clock = clock
            clock.machine = self

    def interrupt(self, pin):
        pin.handler(pin)

    def vm_check(self):
        pass

    def disable_irq(self):
        return 0

    def enable_irq(self, state=0):
        pass

    def pin(self, n):
        p = self.pins.get(n)
        if p is None:
            p = _Pin(self, n)
            self.pins[n] = p
        return p

    def set_analog(self, pin, value, mux=None, tau_us=None):
        key = _akey(pin, mux)
        self.analog[key] = value
        if tau_us is None:
            self.decay.pop(key, None)
        else:
            self.decay[key] = (self.clock.us, tau_us)

    def colour(self, bus, channel=None):
        d = self.tcs.get((bus, channel))
        if d is None:
            d = FakeTCS()
            self.tcs[(bus, channel)] = d
        return d

    def unique_id(self):
        return b"\xe6\x61\x38\x10\x23\x45\x67\x89"



# Link writes as the real ports do them (rp2 UART, rp2 USB CDC, ESP32 UART0 stdout) are
# faked in vboard/fakeports.py, imported only by the tests that need them: their code
# would cost every board test ~6 KB of a 192K heap.
