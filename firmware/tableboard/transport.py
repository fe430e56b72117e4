"""The byte pipes the link runs over: USB stdio, a UART, or a TCP stream (the virtual board).

Each is a small object with the same methods, so the main loop (app.serve)
treats them alike and a test can hand it a fake:

    readinto(buf) -> n   bytes that have already arrived, at most len(buf); 0 if none.
                         Never waits: the sensors share the loop.
    room() -> n          bytes the port takes now without waiting (at most BUDGET a
                         pass): 0 while bytes it did not take earlier are still held.
    write(buf, n)        hand buf[:n] over; what the port does not accept now (a
                         partial count) is kept and written first next time, never lost.
    drain()              coroutine: let a buffered stream flush (a no-op for USB and UART).

The sender frames only `room()` bytes a pass, so what it writes leaves at once and
its retransmit timer starts when a frame leaves, not behind a deep TX queue.
"""

from tableboard import schema

BUDGET = 64        # bytes a pass (every 5 ms): 12.8 KB/s, just above 115200 baud's 11.5

# The configuration's "link": USB stdio (no "uart"), or a machine.UART and its pins.
CONFIG = (("link", "obj", None, (
    ("uart", "int", None, None),
    ("tx", "pin", ..., "out", "uart"),
    ("rx", "pin", ..., "in", "uart"),
    ("baud", "int", 115200, None),
    ("txbuf", "int", 256, None),
    ("rxbuf", "int", 256, None),
)), ("in_size", "int", 256, None))


async def _nothing():
    return None


def _write_part(stream, buf, off, n):
    """stream.write of buf[off:off + n] -> count accepted (0 for None: nothing fit).

    MicroPython streams take (buf, off, max_len) and so need no slice; elsewhere
    (CPython files in tests) a memoryview slice stands in.
    """
    try:
        k = stream.write(buf, off, n)
    except TypeError:
        k = stream.write(memoryview(buf)[off:off + n])
    return k or 0


class _Held:
    """What the port did not accept, kept in a buffer allocated once and written first next time."""

    def _init_held(self, size):
        self.held = bytearray(size)
        self.h0 = 0
        self.h1 = 0
        self.overflow = 0     # bytes beyond `size` (a caller ignoring room()): counted, not silent

    def _push(self):
        """Write what is held; True when nothing is left."""
        if self.h0 < self.h1:
            self.h0 += self._emit(self.held, self.h0, self.h1 - self.h0)
            if self.h0 < self.h1:
                return False
            self.h0 = self.h1 = 0
        return True

    def write(self, buf, n=-1):
        if n < 0:
            n = len(buf)
        k = self._emit(buf, 0, n) if self._push() else 0
        rest = n - k
        if rest > len(self.held) - self.h1:
            self.overflow += rest - (len(self.held) - self.h1)
            rest = len(self.held) - self.h1
        held = self.held
        h1 = self.h1
        for i in range(rest):
            held[h1 + i] = buf[k + i]
        self.h1 = h1 + rest
        return n

    def pending(self):
        return self.h1 - self.h0


class Stdio(_Held):
    """USB CDC on the Pico (and the UART0 bridge on ESP32 boards): the REPL's stdin/stdout.

    On a board `sys.stdin.buffer.read(n)` waits until all n bytes came, so bytes are taken
    one at a time and only while a poll says one is waiting. Writes go out only while a
    poll says stdout is writable (rp2 USB CDC: room in its TX FIFO; a write bigger than
    the room waits up to 500 ms for the host, then returns a partial count), at most
    BUDGET bytes a pass (ESP32 UART0 stdout waits until each byte is in its FIFO).
    """

    def __init__(self, stdin=None, stdout=None, ready=None, writable=None, held=1024):
        if stdin is None or stdout is None:
            import sys
            stdin = stdin or sys.stdin.buffer
            stdout = stdout or sys.stdout.buffer
        self.stdin = stdin
        self.stdout = stdout
        self.ready = ready if ready is not None else _poller(stdin)
        self.writable = writable if writable is not None else _poller(stdout, False)
        self.one = bytearray(1)
        self._init_held(held)

    def readinto(self, buf):
        n = 0
        one = self.one
        while n < len(buf) and self.ready():
            if not self.stdin.readinto(one):
                break
            buf[n] = one[0]
            n += 1
        return n

    def _emit(self, buf, off, n):
        return _write_part(self.stdout, buf, off, n)

    def room(self):
        # Poll first, held bytes too: a write into a full USB FIFO waits 500 ms.
        if not self.writable() or not self._push():
            return 0
        return BUDGET

    def drain(self):
        return _nothing()


def _poller(stream, read=True):
    """A function telling whether `stream` can be read (or written) now, without allocating."""
    import select
    p = select.poll()
    p.register(stream, select.POLLIN if read else select.POLLOUT)

    def ready():
        for _ in p.ipoll(0):
            return True
        return False
    return ready


class Uart(_Held):
    """A machine.UART: `any()` says how many bytes are in its receive buffer; only those are read.

    Writes: with timeout=0 the rp2 UART takes what fits in its TX ring buffer and returns
    that count (ports/rp2/machine_uart.c); the rest is held here and written first next
    time. `room()` lets at most `depth` bytes wait in the UART, by the line rate since
    the last write, so a frame handed over leaves within depth / (baud / 10) seconds.
    """

    def __init__(self, uart, baud=115200, clock=None, depth=BUDGET, held=1024):
        if clock is None:
            import time as clock
        self.uart = uart
        self.ticks_us = clock.ticks_us
        self.ticks_diff = clock.ticks_diff
        self.per_10ms = baud // 1000       # bytes a 10 ms at 8N1
        self.depth = depth
        self.queued = 0
        self.at = self.ticks_us()
        self._init_held(held)

    def readinto(self, buf):
        n = self.uart.any()
        if n <= 0:
            return 0
        if n > len(buf):
            n = len(buf)
        return self.uart.readinto(buf, n) or 0

    def _emit(self, buf, off, n):
        k = _write_part(self.uart, buf, off, n)
        self.queued += k
        return k

    def room(self):
        now = self.ticks_us()
        dt = self.ticks_diff(now, self.at)
        self.at = now
        if dt > 20000 or dt < 0:
            dt = 20000
        q = self.queued - dt * self.per_10ms // 10000
        self.queued = q if q > 0 else 0
        if not self._push():
            return 0
        r = self.depth - self.queued
        return r if r > 0 else 0

    def drain(self):
        return _nothing()


def open_uart(machine, lc):
    """The UART a board configuration's "link" names; timeout 0 so neither a read nor a write waits."""
    c = schema.get({"link": lc}, CONFIG, "link") or {}
    return machine.UART(c["uart"], baudrate=c["baud"], tx=machine.Pin(c["tx"]),
                        rx=machine.Pin(c["rx"]), txbuf=c["txbuf"], rxbuf=c["rxbuf"], timeout=0)


class Stream:
    """An asyncio stream pair (the virtual board's TCP connection); `pump()` collects what arrives."""

    def __init__(self, reader, writer):
        self.reader = reader
        self.writer = writer
        self.pending = b""

    async def pump(self, size=64):
        """Runs until the peer closes."""
        while True:
            d = await self.reader.read(size)
            if not d:
                return
            self.pending = self.pending + d if self.pending else d

    def readinto(self, buf):
        d = self.pending
        if not d:
            return 0
        n = len(d) if len(d) < len(buf) else len(buf)
        buf[:n] = d[:n]
        self.pending = d[n:]
        return n

    def room(self):
        return BUDGET

    def write(self, buf, n=-1):
        self.writer.write(bytes(buf if n < 0 else memoryview(buf)[:n]))
        return n

    def drain(self):
        return self.writer.drain()
