"""Port models for vboard.fakemachine: what the real rp2 and esp32 ports do that the board
must survive.

Each behaviour names the MicroPython source it models. `FakeMachine(port="rp2")` is the
Pico, `FakeMachine(port="esp32")` the ESP32; `m.attach(time)` lets the fake clock drive
timers and the watchdog.
"""
from vboard.fakemachine import FakeTime


class Reset(BaseException):
    """machine.reset() and a watchdog bite never return: the board starts again from main.py.

    Not an Exception, so no `except Exception` in the firmware can swallow it."""

    def __init__(self, cause):
        self.cause = cause


PWRON_RESET = 1          # ports/rp2/modmachine.c and ports/esp32/modmachine.c: reset_cause()
HARD_RESET = 2
WDT_RESET = 3
DEEPSLEEP_RESET = 4
SOFT_RESET = 5
# The RP2040 watchdog's REASON register (pico-sdk hardware_regs/watchdog.h, at WATCHDOG_BASE
# 0x40058000 + 8): which of its two ways reset the chip. Power-on and the RUN pin clear it.
WATCHDOG_REASON = 0x40058008
REASON_TIMER = 1         # the watchdog ran out
REASON_FORCE = 2         # watchdog_reboot: machine.reset() (ports/rp2/modmachine.c)
MCU = {"rp2": "Raspberry Pi Pico with RP2040", "esp32": "Generic ESP32 module with ESP32"}
SCHEDULER_DEPTH = 8      # py/mpconfig.h MICROPY_SCHEDULER_DEPTH as the rp2 and esp32 ports build it


class FakeMicropython:
    """The `micropython` module's board-side behaviour.

    - kbd_intr(c): the interrupt character; 3 (Ctrl-C) while main.py runs, because
      shared/runtime/pyexec.c sets it before executing a file. A byte equal to it arriving
      on USB CDC clears the stdin ring buffer and schedules KeyboardInterrupt
      (shared/tinyusb/mp_usbd_cdc.c tud_cdc_rx_cb), raised at the VM's next pending check.
    - schedule(fn, arg): the scheduler queue of py/scheduler.c, SCHEDULER_DEPTH deep;
      full raises RuntimeError here, and a C caller (an ESP32 pin or timer ISR) silently
      loses the call (mp_sched_schedule returns false).
    - heap_lock/heap_unlock are the real ones when running under MicroPython.
    """

    def __init__(self):
        self.interrupt_char = 3
        self.pending = None          # an exception the VM raises at its next check
        self.queue = []
        self.lost_schedules = 0
        try:
            import micropython as real
        except ImportError:
            real = None
        self._real = real

    def kbd_intr(self, c):
        self.interrupt_char = c

    def alloc_emergency_exception_buf(self, n):
        pass

    def const(self, x):
        return x

    def heap_lock(self):
        if self._real is not None and hasattr(self._real, "heap_lock"):
            return self._real.heap_lock()

    def heap_unlock(self):
        if self._real is not None and hasattr(self._real, "heap_unlock"):
            return self._real.heap_unlock()

    def sched(self, fn, arg):
        """mp_sched_schedule: False (and the call lost) when the queue is full."""
        if len(self.queue) >= SCHEDULER_DEPTH:
            self.lost_schedules += 1
            return False
        self.queue.append((fn, arg))
        return True

    def schedule(self, fn, arg):
        if not self.sched(fn, arg):
            raise RuntimeError("schedule queue full")

    def run_scheduled(self):
        while self.queue:
            fn, arg = self.queue.pop(0)
            fn(arg)


class _WDT:
    """machine.WDT: ports/rp2/machine_wdt.c refuses a timeout over 8388 ms (24-bit counter);
    ports/esp32/machine_wdt.c takes any. Once started it cannot be stopped; a timeout without
    `feed()` resets the board (Reset with WDT_RESET at the next clock advance)."""

    def __init__(self, m, id=0, timeout=5000):
        if m.port == "rp2" and timeout > 8388:
            raise ValueError("timeout exceeds 8388")
        self.m = m
        self.timeout = timeout
        self.fed_at = m.clock.us if m.clock is not None else 0
        self.feeds = 0
        m.wdt = self

    def feed(self):
        self.feeds += 1
        self.fed_at = self.m.clock.us if self.m.clock is not None else 0


class _Timer:
    """machine.Timer. rp2 (ports/rp2/machine_timer.c): Timer(mode=, period= or freq=, callback=,
    hard=True), the callback runs as a hard interrupt. esp32 (ports/esp32/machine_timer.c):
    Timer(id) then init(mode=, period= or freq=, callback=), no `hard`: the ISR only schedules
    the callback (mp_sched_schedule), so it runs late and is lost when the queue is full."""
    ONE_SHOT = 0
    PERIODIC = 1

    def __init__(self, m, id=-1, **kw):
        self.m = m
        self.id = id
        self.callback = None
        self.period_us = 0
        self.due = None
        self.fired = 0
        if kw:
            self.init(**kw)

    def init(self, mode=1, period=-1, freq=-1, callback=None, hard=None, tick_hz=1000):
        if self.m.port == "esp32" and hard is not None:
            raise TypeError("unexpected keyword argument 'hard'")
        if self.m.port == "esp32" and self.id < 0:
            raise ValueError("ESP32 timers need an id 0-3")
        self.mode = mode
        self.period_us = 1000000 // freq if freq > 0 else period * 1000
        self.callback = callback
        self.due = (self.m.clock.us if self.m.clock is not None else 0) + self.period_us
        if self not in self.m.timers:
            self.m.timers.append(self)

    def deinit(self):
        self.due = None
        if self in self.m.timers:
            self.m.timers.remove(self)

    def _fire(self):
        self.fired += 1
        if self.mode == self.ONE_SHOT:
            self.due = None
        else:
            self.due += self.period_us
        if self.m.port == "esp32":
            self.m.mp.sched(self.callback, self)
            if not self.m.busy:              # the VM runs Python: it checks the queue soon
                self.m.mp.run_scheduled()
        else:
            self.m.interrupt_call(self.callback, self)


def port_init(m):
    """The port-model state and classes of a FakeMachine (see FakeMachine.attach)."""
    m.mp = FakeMicropython()
    # Also set in FakeMachine.__init__: wdt, timers, irq_disabled, latched (interrupts raised
    # while disabled: they fire on enable_irq), host_stream (bytes the host keeps sending, one
    # chunk per VM check), usb.
    if m.port == "rp2":             # ports/rp2/modmachine.c has only these two
        m.PWRON_RESET, m.WDT_RESET = PWRON_RESET, WDT_RESET
        m.mem32 = _Mem32(m)
    else:
        m.PWRON_RESET, m.HARD_RESET, m.WDT_RESET = PWRON_RESET, HARD_RESET, WDT_RESET
        m.DEEPSLEEP_RESET, m.SOFT_RESET = DEEPSLEEP_RESET, SOFT_RESET
    m.wdt_reason = 0

    def make_wdt(id=0, timeout=5000):
        return _WDT(m, id, timeout)

    class Timer(_Timer):
        def __init__(self, id=-1, **kw):
            _Timer.__init__(self, m, id, **kw)

    m.WDT = make_wdt
    m.Timer = Timer
    if m.port == "esp32" and not hasattr(m, "ADC_ESP32"):
        base_pin = m.Pin

        class PinESP32(base_pin):
            """ports/esp32/machine_pin.c: irq(handler=None, trigger=, wake=None), no `hard`."""

            def __new__(cls, n, mode=-1, pull=-1, value=None):
                p = base_pin.__new__(cls, n, mode, pull, value)
                p.irq = _esp32_irq(p)
                return p
        m.Pin = PinESP32

        _ADC = _ADC_BASE[0]

        class ADC(_ADC):
            """ports/esp32/machine_adc.c: attenuation 0 dB unless set, so about 1.0 V reads
            65535 (values here are set as 65535 at 3.3 V); ATTN_11DB reads up to about 3.3 V."""
            ATTN_0DB = 0
            ATTN_2_5DB = 1
            ATTN_6DB = 2
            ATTN_11DB = 3
            FULL_MV = (1000, 1340, 1860, 3300)

            def __init__(self, pin, atten=0):
                _ADC.__init__(self, m, pin)
                self._atten = atten

            def atten(self, a):
                self._atten = a

            def read_u16(self):
                v = _ADC.read_u16(self) * 3300 // self.FULL_MV[self._atten]
                return v if v < 65535 else 65535
        m.ADC = ADC
        m.ADC_ESP32 = ADC


def _esp32_irq(pin):
    def irq(handler=None, trigger=12, wake=None):
        pin.handler = handler
        pin.trigger = trigger
        pin.hard = False
    return irq


def _interrupt(m, pin):
    """A pin edge. rp2 with hard=True: the handler runs now, or when interrupts are enabled
    again; an exception in it disables that pin's IRQ (ports/rp2/machine_pin.c). Soft
    handlers (rp2 hard=False, every esp32 pin: ports/esp32/machine_pin.c
    machine_pin_isr_handler) go through the scheduler and read the pin when they run."""
    if m.mp is None:
        pin.handler(pin)
        return
    if m.irq_disabled:                  # the hardware interrupt itself waits for enable_irq
        m.latched.append((None, pin, pin))
        return
    if m.port == "esp32" or not getattr(pin, "hard", True):
        m.mp.sched(pin.handler, pin)
        if not m.busy:
            m.mp.run_scheduled()
        return
    m.interrupt_call(pin.handler, pin, pin)


def _interrupt_call(m, fn, arg, pin=None):
    if m.irq_disabled:
        m.latched.append((fn, arg, pin))
        return
    try:
        fn(arg)
    except Exception as e:
        if pin is not None:
            pin.handler = None
            print("Uncaught exception in IRQ callback handler")
        else:
            raise e


def _disable_irq(m):
    m.irq_disabled += 1
    return m.irq_disabled


def _enable_irq(m, state=None):
    m.irq_disabled = m.irq_disabled - 1 if m.irq_disabled > 0 else 0
    if not m.irq_disabled and m.latched:
        latched = m.latched
        m.latched = []
        for fn, arg, pin in latched:
            if fn is None:
                m.interrupt(pin)
            else:
                m.interrupt_call(fn, arg, pin)


def _vm_check(m):
    """What the VM does at a pending check: take the host's next bytes, raise a pending
    KeyboardInterrupt, run scheduled callbacks (unless inside a long C call)."""
    if m.host_stream is not None and m.usb is not None:
        chunk = m.host_stream()
        if chunk:
            m.usb.host_write(chunk)
    mp = m.mp
    if mp is None:
        return
    if mp.pending is not None:
        e = mp.pending
        mp.pending = None
        raise e
    if mp.queue and not m.busy:
        mp.run_scheduled()


def _run_until(m, clock, end_us):
    """Fire every timer due before `end_us`, in order, with the clock at its due time.

    A test's jump of the clock by far more than a period is a jump, not time lived through:
    a periodic timer then fires once and goes on from the end of the jump."""
    for t in m.timers:
        if t.due is not None and t.mode == t.PERIODIC and end_us - t.due > 100000 * t.period_us:
            t.due = end_us - t.period_us
    while True:
        nxt = None
        for t in m.timers:
            if t.due is not None and t.due <= end_us and (nxt is None or t.due < nxt.due):
                nxt = t
        if nxt is None:
            return
        if nxt.due > clock.us:
            clock.us = nxt.due
        nxt._fire()


def _after_advance(m, clock):
    w = m.wdt
    if w is not None and clock.us - w.fed_at > w.timeout * 1000:
        m.wdt = None
        m.cause = WDT_RESET
        m.wdt_reason = REASON_TIMER
        raise Reset(WDT_RESET)
    if not m.busy:
        m.vm_check()


def _reset(m):
    """ports/rp2/modmachine.c machine.reset() reboots through the watchdog (watchdog_reboot:
    REASON.FORCE), so the next reset_cause() is WDT_RESET; on esp32 esp_restart gives
    ESP_RST_SW, which ports/esp32/modmachine.c (since v1.13) reports as HARD_RESET."""
    if m.port == "rp2":
        m.cause = WDT_RESET
        m.wdt_reason = REASON_FORCE
    else:
        m.cause = HARD_RESET
    raise Reset(m.cause)


class _Mem32:
    """machine.mem32 on the rp2 model: only the watchdog's REASON register is there (any
    other address raises, so a test sees the firmware reading what the model does not have)."""

    def __init__(self, m):
        self.m = m

    def __getitem__(self, addr):
        if addr != WATCHDOG_REASON:
            raise ValueError("the rp2 model has no register at 0x%08x" % addr)
        return self.m.wdt_reason if self.m.cause == WDT_RESET else 0


def _reset_cause(m):
    return m.cause


_ADC_BASE = []


def install(machine_cls, adc_cls):
    """Give vboard.fakemachine's FakeMachine the port behaviour (once, at the first attach)."""
    if _ADC_BASE:
        return
    _ADC_BASE.append(adc_cls)
    machine_cls.interrupt = _interrupt
    machine_cls.interrupt_call = _interrupt_call
    machine_cls.disable_irq = _disable_irq
    machine_cls.enable_irq = _enable_irq
    machine_cls.vm_check = _vm_check
    machine_cls.run_until = _run_until
    machine_cls.after_advance = _after_advance
    machine_cls.reset = _reset
    machine_cls.reset_cause = _reset_cause


def usb_with_interrupt_char(usb, m):
    """Make a FakeUSB apply the interrupt character of `m.mp` to what the host writes, as
    shared/tinyusb/mp_usbd_cdc.c does: the byte is not stored, stdin is cleared and a
    KeyboardInterrupt is pending."""
    put = usb.rxpipe.put
    mp = m.mp

    def host_write(data):
        for b in data:
            if mp.interrupt_char >= 0 and b == mp.interrupt_char:
                usb.rxpipe.n = 0
                mp.pending = KeyboardInterrupt()
            else:
                put(bytes([b]))
    usb.host_write = host_write
    m.usb = usb
    return usb


class FakeSys:
    """A `sys` whose stdin/stdout are a FakeUSB (what `transport.Stdio()` opens on a board)."""

    def __init__(self, usb):
        import sys as real

        class Stream:
            def __init__(self, buf):
                self.buffer = buf
        self.stdin = Stream(usb.stdin)
        self.stdout = Stream(usb.stdout)
        self.platform = "rp2"
        self.print_exception = getattr(real, "print_exception", None)
        self.implementation = _Implementation(real.implementation, self)
        self.modules = real.modules


class _Implementation:
    """sys.implementation of the board: the real one's fields, and `_machine`, the board and MCU
    (py/mpconfig.h MICROPY_BANNER_MACHINE: "<board> with <MCU>")."""

    def __init__(self, real, fsys):
        self.name = real.name
        self.version = real.version
        self._mpy = getattr(real, "_mpy", 0)
        self._sys = fsys

    @property
    def _machine(self):
        return MCU.get(self._sys.platform, "")


class FakeSelect:
    """`select.poll` over a FakeUSB: readable when a byte waits; always writable (FakeUSB takes
    every byte; vboard.fakeports models ports that do not)."""
    POLLIN = 1
    POLLOUT = 4

    def __init__(self, usb):
        self.usb = usb

    def poll(self):
        usb = self.usb

        class Poll:
            def register(self, stream, flags=1):
                self.flags = flags

            def ipoll(self, timeout=-1):
                if self.flags & 4:
                    return [(usb.stdout, 4)]
                return [(usb.stdin, 1)] if usb.ready() else []
        return Poll()


class EdgeTime(FakeTime):
    """`time` at the small-int edge of the VM running the test (`bits` = 62 on the 64-bit unix
    port, whose small ints stop at 2**62 - 1; a board's stop at 2**30 - 1, which is also its
    ticks period: extmod/modtime.c MICROPY_PY_TIME_TICKS_PERIOD). Ticks wrap at 2**bits, and
    `jump` makes the board as old as a test needs without living through it: a test on the
    unix port then meets, under `micropython.heap_lock()`, the big ints a 32-bit board meets
    after 18 minutes. Nothing here makes a big int itself, except `jump`."""

    def __init__(self, bits=62, start_ticks=0):
        FakeTime.__init__(self)
        self.half = 1 << (bits - 1)
        self.mask = self.half - 1 + self.half
        self.t0 = start_ticks     # the ticks at test time 0 (`us`, which stays small)
        self.ms0 = start_ticks // 1000

    def _fwd(self, a, n):
        room = self.mask - a
        return n - room - 1 if n > room else a + n

    def jump(self, n):
        """The board has been up `n` microseconds longer (n < 2**(bits-1)); no timer fires."""
        self.t0 = self._fwd(self.t0, n)
        self.ms0 = self._fwd(self.ms0, n // 1000)

    def ticks_us(self):
        if self.machine is not None:
            self.machine.vm_check()
        return self._fwd(self.t0, self.us)

    def ticks_ms(self):
        return self._fwd(self.ms0, self.us // 1000)

    def ticks_diff(self, a, b):
        d = a - b
        if d >= self.half:
            d = d - self.half - self.half
        elif d < -self.half:
            d = d + self.half + self.half
        return d

    def ticks_add(self, a, d):
        if d >= 0:
            return self._fwd(a, d)
        s = a + d
        return s + self.half + self.half if s < 0 else s
