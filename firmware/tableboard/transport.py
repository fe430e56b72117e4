"""The byte pipes the link runs over: USB stdio, a UART, or a TCP stream (the virtual board).

Each is a small object with the same three methods, so the main loop (app.serve)
treats them alike and a test can hand it a fake:

    readinto(buf) -> n   bytes that have already arrived, at most len(buf); 0 if none.
                         Never waits: the sensors share the loop.
    write(data)          queue bytes for the host.
    drain()              coroutine: let a buffered stream flush (a no-op for USB and UART).
"""


async def _nothing():
    return None


class Stdio:
    """USB CDC on the Pico (and the UART0 bridge on ESP32 boards): the REPL's stdin/stdout.

    On a board `sys.stdin.buffer.read(n)` waits until all n bytes came, so bytes are taken
    one at a time and only while a poll says one is waiting.
    """

    def __init__(self, stdin=None, stdout=None, ready=None):
        if stdin is None or stdout is None:
            import sys
            stdin = stdin or sys.stdin.buffer
            stdout = stdout or sys.stdout.buffer
        self.stdin = stdin
        self.stdout = stdout
        self.ready = ready if ready is not None else _poller(stdin)
        self.one = bytearray(1)

    def readinto(self, buf):
        n = 0
        one = self.one
        while n < len(buf) and self.ready():
            if not self.stdin.readinto(one):
                break
            buf[n] = one[0]
            n += 1
        return n

    def write(self, data):
        self.stdout.write(data)

    def drain(self):
        return _nothing()


def _poller(stream):
    """A function telling whether `stream` has a byte to read now, without allocating."""
    import select
    p = select.poll()
    p.register(stream, select.POLLIN)

    def ready():
        for _ in p.ipoll(0):
            return True
        return False
    return ready


class Uart:
    """A machine.UART: `any()` says how many bytes are in its receive buffer; only those are read."""

    def __init__(self, uart):
        self.uart = uart

    def readinto(self, buf):
        n = self.uart.any()
        if n <= 0:
            return 0
        if n > len(buf):
            n = len(buf)
        return self.uart.readinto(buf, n) or 0

    def write(self, data):
        self.uart.write(data)

    def drain(self):
        return _nothing()


def open_uart(machine, lc):
    """The UART a board configuration's "link" names; timeout 0 so a read never waits."""
    return machine.UART(lc.get("uart", 0), baudrate=lc.get("baud", 115200),
                        tx=machine.Pin(lc["tx"]), rx=machine.Pin(lc["rx"]),
                        txbuf=lc.get("txbuf", 1024), rxbuf=lc.get("rxbuf", 256), timeout=0)


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

    def write(self, data):
        self.writer.write(data)

    def drain(self):
        return self.writer.drain()
