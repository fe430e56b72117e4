"""Link writes as the real ports do them (issue 8), next to vboard.fakemachine's FakeUART and
FakeUSB, which take every byte at once. The real ports do not; these model each port's
write from its MicroPython source, on a FakeTime `clock`: the line carries 10 bits a byte
at `baudrate`, and a write that would wait records how long (`blocked_us`,
`longest_block_us`): on a board the whole main loop waits that long.
"""
from vboard.fakemachine import FakeUART, FakeUSB


class _Line:
    """Bytes queued in a port, leaving at the line rate as the clock moves; the host end."""

    def _init_line(self, clock, baudrate, capacity):
        self.clock = clock
        self.byte_us = 10000000 // baudrate
        self.capacity = capacity
        self.queue = bytearray()
        self.out = bytearray()
        self.at = clock.us
        self.blocked_us = 0
        self.longest_block_us = 0

    def _move(self):
        n = (self.clock.us - self.at) // self.byte_us
        if n > 0:
            self.at += n * self.byte_us
            self.out.extend(self.queue[:n])
            self.queue = self.queue[n:]        # (MicroPython's bytearray has no slice del)
        if not self.queue:
            self.at = self.clock.us

    def _block(self, us):
        self.blocked_us += us
        if us > self.longest_block_us:
            self.longest_block_us = us

    def host_read(self):
        self._move()
        d = bytes(self.out)
        self.out = bytearray()
        return d


class Rp2UART(_Line, FakeUART):
    """machine.UART on rp2 (ports/rp2/machine_uart.c, machine_uart_write): bytes go into a
    TX ring buffer of `txbuf` bytes (plus the 32-byte hardware FIFO); with timeout=0 a
    write returns at once with the count that fitted, and None (EAGAIN) if none did.
    Longer timeouts wait for room byte by byte. Streams take write(buf, off, max_len)
    (py/stream.c). `txdone()` is True once every byte is on the line."""

    HW_FIFO = 32

    def __init__(self, clock, id=0, baudrate=115200, txbuf=256, timeout=0, **kw):
        FakeUART.__init__(self, id, baudrate=baudrate, txbuf=txbuf, timeout=timeout, **kw)
        self._init_line(clock, baudrate, max(txbuf, 32) + self.HW_FIFO)

    def write(self, buf, off=0, max_len=-1):
        self._move()
        n = len(buf) - off if max_len < 0 else min(max_len, len(buf) - off)
        free = self.capacity - len(self.queue)
        k = n if n <= free else free
        if k < n and self.timeout:
            self._block((n - k) * self.byte_us)      # waits for room as bytes leave
            k = n
        self.queue.extend(bytes(buf[off:off + k]))
        return k if k else None

    def txdone(self):
        self._move()
        return not self.queue


class UsbCdcStdio(_Line, FakeUSB):
    """sys.stdout on rp2 USB CDC (shared/tinyusb/mp_usbd_cdc.c, mp_usbd_cdc_tx_strn): writes
    go in chunks of 64 bytes (CFG_TUD_CDC_EP_BUFSIZE) into a 256-byte TX FIFO; with the
    port open (`connected`) and a chunk bigger than the free room, it waits up to 500 ms
    (MICROPY_HW_USB_CDC_TX_TIMEOUT) for the host to read, then writes what fits and stops
    at a full FIFO: the count returned is partial. Poll says writable while the FIFO has
    room, or always when nothing is connected (mp_usbd_cdc_poll_interfaces). The host
    reads only while `host_reading`; USB itself is fast, so bytes read leave at once."""

    FIFO = 256
    CHUNK = 64
    TIMEOUT_US = 500000

    def __init__(self, clock, size=256):
        FakeUSB.__init__(self, size)
        self._init_line(clock, 12000000, self.FIFO)
        self.connected = True
        self.host_reading = True
        usb = self

        class Out:
            def write(self, buf, off=0, max_len=-1):
                return usb._tx(buf, off, max_len)
        self.stdout = Out()

    def _move(self):
        if self.host_reading or not self.connected:
            self.out.extend(self.queue)
            self.queue = bytearray()
            if not self.connected:
                self.out = bytearray()        # nobody there: the FIFO keeps the latest only

    def _tx(self, buf, off, max_len):
        self._move()
        n = len(buf) - off if max_len < 0 else min(max_len, len(buf) - off)
        i = 0
        while i < n:
            c = min(n - i, self.CHUNK)
            if self.connected:
                free = self.FIFO - len(self.queue)
                if c > free:
                    self._block(self.TIMEOUT_US)
                    self._move()
                    free = self.FIFO - len(self.queue)
                c = min(c, free)
                if c == 0:
                    break
            self.queue.extend(bytes(buf[off + i:off + i + c]))
            i += c
        self._move()
        return i

    def writable(self):
        self._move()
        return not self.connected or len(self.queue) < self.FIFO


class Esp32Uart0Stdio(_Line, FakeUSB):
    """sys.stdout on an ESP32 with the REPL on UART0 (ports/esp32/uart.c,
    uart_stdout_tx_strn): the loop pushes bytes into the 128-byte hardware FIFO and yields
    a tick until every byte is in, so a write returns only when all but the last 128
    bytes are on the line (about 78 ms for 1 KB at 115200). Poll always says writable
    (ports/esp32/mphalport.c, mp_hal_stdio_poll with the UART REPL)."""

    HW_FIFO = 128

    def __init__(self, clock, baudrate=115200, size=256):
        FakeUSB.__init__(self, size)
        self._init_line(clock, baudrate, self.HW_FIFO)
        line = self

        class Out:
            def write(self, buf, off=0, max_len=-1):
                line._move()
                n = len(buf) - off if max_len < 0 else min(max_len, len(buf) - off)
                over = len(line.queue) + n - line.HW_FIFO
                if over > 0:
                    line._block(over * line.byte_us)
                line.queue.extend(bytes(buf[off:off + n]))
                return n
        self.stdout = Out()

    def writable(self):
        return True
