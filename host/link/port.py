"""Thin serial I/O shell: open by URL, read, write; on failure mark down and reopen with backoff."""
import serial


class Port:
    """A serial port (or pty, socket://, loop://) that survives being unplugged."""

    MIN_BACKOFF = 0.1
    MAX_BACKOFF = 2.0

    def __init__(self, url, baudrate=115200, read_timeout=0.05, opener=None):
        self.url = url
        self.baudrate = baudrate
        self.read_timeout = read_timeout
        self.opener = opener or serial.serial_for_url
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
