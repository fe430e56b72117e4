"""Thin serial I/O shell: open by URL, read, write; on failure mark down and reopen with backoff.

The port is opened exclusively (a second daemon cannot read the same board) and
with DTR and RTS set explicitly before the open (pyserial serialposix.Serial.open
applies them right after configuring the port, DTR first, then RTS). An ESP32
DevKit's auto-reset circuit pulls EN low only while RTS is asserted and DTR is
not (and IO0 low only for the reverse); Linux asserts both on open. Keeping both
asserted (the default) therefore never passes through a reset state; clearing
both would pass through "DTR off, RTS on" for a moment, which can reset it.
"""
import serial


def open_serial(url, baudrate, timeout, write_timeout, dtr=True, rts=True, exclusive=True):
    """A pyserial port for `url`, exclusive where the platform can lock it, DTR/RTS as given."""
    ser = serial.serial_for_url(url, baudrate=baudrate, timeout=timeout, write_timeout=write_timeout,
                                exclusive=exclusive, do_not_open=True)
    ser.dtr = dtr
    ser.rts = rts
    ser.open()
    return ser


class Port:
    """A serial port (or pty, socket://, loop://) that survives being unplugged."""

    MIN_BACKOFF = 0.1
    MAX_BACKOFF = 2.0

    def __init__(self, url, baudrate=115200, read_timeout=0.05, opener=None, dtr=True, rts=True,
                 exclusive=True):
        self.url = url
        self.dtr = dtr
        self.rts = rts
        self.exclusive = exclusive
        self.baudrate = baudrate
        self.read_timeout = read_timeout
        self.opener = opener
        self.ser = None
        self.backoff = self.MIN_BACKOFF
        self.next_try = 0.0
        self.opens = 0
        self.failures = 0
        self.last_error = None

    @property
    def is_open(self):
        return self.ser is not None

    def poll_open(self, now):
        """Try to (re)open if it is time; True if the port is open afterwards."""
        if self.ser is not None:
            return True
        if now < self.next_try:
            return False
        try:
            if self.opener is None:
                self.ser = open_serial(self.url, self.baudrate, self.read_timeout, 1.0, dtr=self.dtr,
                                       rts=self.rts, exclusive=self.exclusive)
            else:
                self.ser = self.opener(self.url, baudrate=self.baudrate, timeout=self.read_timeout,
                                       write_timeout=1.0)
            self.opens += 1
            self.backoff = self.MIN_BACKOFF
            self.last_error = None
            return True
        except Exception as e:
            self._failed(e, now)
            return False

    def _failed(self, e, now):
        self.last_error = str(e)
        self.failures += 1
        self.close()
        self.next_try = now + self.backoff
        self.backoff = min(self.backoff * 2, self.MAX_BACKOFF)

    def read(self, now):
        """Bytes available (waits up to read_timeout), b"" if none, None if the port just failed."""
        if self.ser is None:
            return None
        try:
            n = self.ser.in_waiting
            return self.ser.read(n if n > 0 else 1)
        except Exception as e:
            self._failed(e, now)
            return None

    def write(self, data, now):
        if self.ser is None:
            return False
        try:
            self.ser.write(data)
            return True
        except Exception as e:
            self._failed(e, now)
            return False

    def close(self):
        if self.ser is not None:
            try:
                self.ser.close()
            except Exception:
                pass
            self.ser = None
