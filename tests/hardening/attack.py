"""What a phone on the bar's Wi-Fi can send, for the tests of issue 16: raw HTTP from chosen
loopback source addresses (127.x.y.z stand for phones; the daemon's own machine is 127.0.0.1),
and a crowd of connections that keep coming back when the server lets them go. Every loop is
bounded in count."""
import socket
import threading
import time


def status_of(answer):
    parts = (answer or b"").split(b"\r\n", 1)[0].split()
    return int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else None


def headers_of(answer):
    head = (answer or b"").split(b"\r\n\r\n", 1)[0].decode("latin-1").split("\r\n")[1:]
    return {k.strip().lower(): v.strip() for k, _, v in (h.partition(":") for h in head)}


def connect(port, src="127.0.0.1", timeout=10.0):
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout, source_address=(src, 0))
    return s


def ask(port, request, src="127.0.0.1", timeout=10.0):
    """Send `request`, return the answer's bytes up to the end of its head (b"" if the server
    closed without one or refused the connection, None if it said nothing within `timeout`)."""
    try:
        s = connect(port, src, timeout)
    except OSError:
        return b""
    try:
        s.sendall(request)
        out = b""
        while b"\r\n\r\n" not in out:
            chunk = s.recv(65536)
            if not chunk:
                break
            out += chunk
        return out
    except socket.timeout:
        return None
    except OSError:
        return b""
    finally:
        s.close()


def whole(port, request, src="127.0.0.1", timeout=10.0):
    """Send `request` (ending in Connection: close), return everything until the server closes."""
    s = connect(port, src, timeout)
    try:
        s.sendall(request)
        out = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                return out
            out += chunk
    finally:
        s.close()


def get(port, path, host="x", src="127.0.0.1"):
    return ask(port, b"GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n"
               % (path.encode(), host.encode()), src)


def closed_by_server(s, timeout):
    """True if the server closes `s` within `timeout` (whatever it answers first)."""
    s.settimeout(timeout)
    try:
        while True:
            if not s.recv(65536):
                return True
    except socket.timeout:
        return False
    except OSError:
        return True


class Crowd:
    """`n` connections from `addresses` (round robin), each opened `rounds` times at most: it
    sends `opening`, then waits for the server to answer or let it go, then opens again."""

    def __init__(self, port, addresses, n, opening, rounds=3, hold=1.0):
        self.port, self.addresses, self.opening, self.rounds, self.hold = port, addresses, opening, rounds, hold
        self.answers = []
        self.socks = []
        self.lock = threading.Lock()
        self.threads = [threading.Thread(target=self._one, args=(i,), daemon=True) for i in range(n)]

    def _one(self, i):
        for _ in range(self.rounds):
            try:
                s = connect(self.port, self.addresses[i % len(self.addresses)], timeout=self.hold)
            except OSError:
                continue
            with self.lock:
                self.socks.append(s)
            try:
                s.sendall(self.opening)
                got = s.recv(4096)
            except OSError:
                got = None
            with self.lock:
                self.answers.append(status_of(got))
            s.close()

    def start(self):
        for t in self.threads:
            t.start()
        return self

    def join(self, timeout=60):
        end = time.monotonic() + timeout
        for t in self.threads:
            t.join(max(0.1, end - time.monotonic()))


def hold(port, src, n, data=b""):
    """`n` connections from `src` that sent `data` and stay open (the caller closes them)."""
    socks = []
    for _ in range(n):
        s = connect(port, src, timeout=5)
        if data:
            s.sendall(data)
        socks.append(s)
    return socks


def rss_peak_mb(pid):
    """The process's peak resident memory so far (VmHWM), in MB."""
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024.0
    return 0.0
