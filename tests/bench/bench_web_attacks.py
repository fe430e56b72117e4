"""The daemon's HTTP server under the attacks of issue 16, with the figures a bar owner cares about:
how much memory a flood of request heads costs, and how many of a TV's requests are answered while
slow request bodies hold the connections. Loopback only (127.x source addresses stand for phones);
every phase is bounded in time and count and the script stops by itself.

    .venv/bin/python tests/bench/bench_web_attacks.py [--phase heads|bodies|qr|streams|all]
                                                      [--seconds 8] [--root DIR]

`--root` runs another checkout's daemon (e.g. /work/main, before the change) for a comparison.

heads   32 connections from 16 addresses, each sending a head of 98 headers of 65,000 bytes
        (the most http.server takes line by line), again as soon as it is answered, for --seconds: the daemon's resident
        memory before, its peak (VmHWM) and 5 s after; the TV's /state answers meanwhile.
bodies  64 connections from 4 addresses, `POST /api/cmd/undo` with `Content-Length: 4096` and one
        byte every 30 s, reconnecting whenever the server lets one go; once without a token and
        once with the table's own: the share of the TV's `GET /state` (every 0.2 s) and of a phone's
        commands answered 200 during the attack.
qr      16 addresses asking /play/qr.svg as fast as they can, then this machine (a TV) asking it
        under ever new Host names (each a new QR code to draw): answers a second, daemon CPU.
streams 16 addresses opening /events 3 times each, again and again: does the TV's stream live on.
"""
import argparse
import json
import os
import pathlib
import socket
import sys
import threading
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.hardening import attack  # noqa: E402
from tests.hardening.attack import connect  # noqa: E402
from tests.host import harness  # noqa: E402
from tests.host.harness import table_with_page  # noqa: E402

TV = "127.0.9.9"
PHONE = "127.0.9.10"


def status_kb(pid, key):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return 0


def cpu_s(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def ask(port, src, request, timeout=3.0):
    """The status code of one request (0: no answer in time, -1: refused or reset)."""
    answer = attack.ask(port, request, src, timeout)
    if answer is None:
        return 0
    return attack.status_of(answer) or -1


class Watcher(threading.Thread):
    """A client asking `request` every `every` seconds; counts the answers by status."""

    def __init__(self, port, src, request, every=0.2):
        super().__init__(daemon=True)
        self.port, self.src, self.request, self.every = port, src, request, every
        self.codes = {}
        self.stop = threading.Event()

    def run(self):
        while not self.stop.is_set():
            code = ask(self.port, self.src, self.request)
            self.codes[code] = self.codes.get(code, 0) + 1
            self.stop.wait(self.every)

    def share(self):
        n = sum(self.codes.values())
        return "%d of %d answered 200 (%.0f %%) %s" % (
            self.codes.get(200, 0), n, 100.0 * self.codes.get(200, 0) / max(1, n), dict(self.codes))


class Attackers:
    """`n` connections from `addresses`, each kept open: `start(sock)` sends the opening bytes,
    `tick(sock)` runs every second; a connection the server lets go is opened again."""

    def __init__(self, port, addresses, n, start, tick=None, seconds=10.0, again_on_answer=False):
        self.port, self.addresses, self.n = port, addresses, n
        self.again_on_answer = again_on_answer
        self.start_fn, self.tick_fn, self.seconds = start, tick, seconds
        self.opened = 0
        self.threads = [threading.Thread(target=self._one, args=(i,), daemon=True) for i in range(n)]

    def _one(self, i):
        src = self.addresses[i % len(self.addresses)]
        end = time.monotonic() + self.seconds
        while time.monotonic() < end:
            try:
                s = connect(self.port, src, timeout=1.0)
                s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01" + b"\x00" * 7)  # RST: no TIME_WAIT pile
            except OSError:
                time.sleep(0.05)
                continue
            self.opened += 1
            try:
                self.start_fn(s)
                last = time.monotonic()
                while time.monotonic() < end:
                    s.settimeout(0.2)
                    try:
                        got = s.recv(65536)
                        if got == b"" or self.again_on_answer:
                            break                       # the server let it go: open another
                    except socket.timeout:
                        pass
                    if self.tick_fn and time.monotonic() - last >= 1.0:
                        last = time.monotonic()
                        self.tick_fn(s)
            except OSError:
                pass
            finally:
                s.close()

    def run(self):
        for t in self.threads:
            t.start()
        for t in self.threads:
            t.join(self.seconds + 10)


def phase_heads(port, pid, seconds):
    line = b"X-Pad-%02d: " + b"a" * 65000 + b"\r\n"
    head = b"GET /state HTTP/1.1\r\nHost: x\r\n" + b"".join(line % i for i in range(98))

    def start(s):
        s.settimeout(10)
        s.sendall(head + b"\r\n")
    time.sleep(1.0)
    before = status_kb(pid, "VmRSS")
    tv = Watcher(port, TV, b"GET /state HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    tv.start()
    peak = [before]
    done = threading.Event()

    def sample():
        while not done.is_set():
            peak[0] = max(peak[0], status_kb(pid, "VmRSS"))
            time.sleep(0.02)
    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    addresses = ["127.0.50.%d" % (i + 1) for i in range(16)]
    crowd = Attackers(port, addresses, 32, start, seconds=seconds, again_on_answer=True)
    crowd.run()
    done.set()
    tv.stop.set()
    tv.join(5)
    time.sleep(5.0)
    print("heads: 32 connections from 16 addresses, 98 headers of 65,000 bytes, for %.0f s "
          "(%d connections opened)" % (seconds, crowd.opened))
    print("  resident memory: before %.1f MB, peak %.1f MB (VmHWM %.1f MB), 5 s after %.1f MB"
          % (before / 1024, peak[0] / 1024, status_kb(pid, "VmHWM") / 1024, status_kb(pid, "VmRSS") / 1024))
    print("  the TV's /state meanwhile: %s" % tv.share())


def phase_bodies(port, pid, seconds, token):
    for label, auth in (("no token", b""), ("the table's token", b"Authorization: Bearer %s\r\n" % token)):
        head = (b"POST /api/cmd/undo HTTP/1.1\r\nHost: x\r\n" + auth
                + b"Content-Type: application/json\r\nContent-Length: 4096\r\n\r\n{")
        drips = {}

        def start(s):
            s.sendall(head)
            drips[s] = time.monotonic()

        def tick(s):
            if time.monotonic() - drips.get(s, 0) >= 30:
                drips[s] = time.monotonic()
                s.sendall(b" ")
        addresses = ["127.0.60.%d" % (i + 1) for i in range(4)]
        crowd = Attackers(port, addresses, 64, start, tick, seconds=seconds)
        tv = Watcher(port, TV, b"GET /state HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        body = json.dumps({"winner": 0}).encode()
        phone = Watcher(port, PHONE, b"POST /api/cmd/lag HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
                        + token + b"\r\nContent-Length: %d\r\nConnection: close\r\n\r\n" % len(body) + body,
                        every=1.0)
        attack = threading.Thread(target=crowd.run, daemon=True)
        attack.start()
        time.sleep(1.5)                                 # the attackers hold every slot first
        tv.start()
        phone.start()
        attack.join(seconds + 15)
        tv.stop.set()
        phone.stop.set()
        tv.join(5)
        phone.join(5)
        print("bodies (%s): 64 connections from 4 addresses, Content-Length 4096, a byte every 30 s, "
              "for %.0f s (%d connections opened)" % (label, seconds, crowd.opened))
        print("  the TV's GET /state: %s" % tv.share())
        print("  a phone's POST /api/cmd/lag: %s" % phone.share())
        time.sleep(3.0)


def phase_qr(port, pid, seconds):
    def flood(addresses, hosts):
        codes = {}
        lock = threading.Lock()
        end = time.monotonic() + seconds

        def one(src):
            i = 0
            while time.monotonic() < end:
                i += 1
                host = hosts[i % len(hosts)].encode()
                c = ask(port, src, b"GET /play/qr.svg HTTP/1.1\r\nHost: " + host +
                        b"\r\nConnection: close\r\n\r\n")
                with lock:
                    codes[c] = codes.get(c, 0) + 1
        c0, t0 = cpu_s(pid), time.monotonic()
        threads = [threading.Thread(target=one, args=(a,), daemon=True) for a in addresses]
        for t in threads:
            t.start()
        for t in threads:
            t.join(seconds + 10)
        took = time.monotonic() - t0
        return codes.get(200, 0) / took, codes, 100 * (cpu_s(pid) - c0) / took
    phones = ["127.0.70.%d" % (i + 1) for i in range(16)]
    print("qr: 16 phone addresses asking /play/qr.svg for %.0f s: %.0f QR codes a second, %s; "
          "daemon CPU %.0f %%" % ((seconds,) + flood(phones, ["x"])))
    hosts = ["pool%d.local:%d" % (i, port) for i in range(500)]
    print("qr: this machine asking it under 500 Host names (a new QR code each) for %.0f s: %.0f QR "
          "codes a second, %s; daemon CPU %.0f %%" % ((seconds,) + flood(["127.0.0.1"] * 4, hosts)))


def phase_streams(port, pid, seconds):
    tv = connect(port, TV)
    tv.sendall(b"GET /events HTTP/1.1\r\nHost: x\r\n\r\n")

    def start(s):
        s.sendall(b"GET /events HTTP/1.1\r\nHost: x\r\n\r\n")
    addresses = ["127.0.80.%d" % (i + 1) for i in range(16)]
    crowd = Attackers(port, addresses, 48, start, seconds=seconds)
    crowd.run()
    tv.settimeout(0.5)
    alive = True
    try:
        while True:
            chunk = tv.recv(65536)
            if not chunk:
                alive = False
                break
    except socket.timeout:
        pass
    except OSError:
        alive = False
    tv.close()
    print("streams: 16 addresses opening /events 3 times each for %.0f s (%d opened): the TV's "
          "stream %s" % (seconds, crowd.opened, "lives on" if alive else "was ended"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--phase", default="all", choices=("heads", "bodies", "qr", "streams", "all"))
    ap.add_argument("--seconds", type=float, default=8.0)
    ap.add_argument("--root", default=None)
    args = ap.parse_args()
    if args.root:
        harness.ROOT = pathlib.Path(args.root)
    with table_with_page("bench-attacks-") as (tmp, broker, sub, board, d, port):
        pid = d.proc.pid
        with open(os.path.join(tmp, "journal", "t1.token"), "rb") as f:
            token = f.read().strip()
        print("daemon %s" % harness.ROOT)
        if args.phase in ("heads", "all"):
            phase_heads(port, pid, args.seconds)
        if args.phase in ("bodies", "all"):
            phase_bodies(port, pid, args.seconds * 2, token)
        if args.phase in ("qr", "all"):
            phase_qr(port, pid, args.seconds)
        if args.phase in ("streams", "all"):
            phase_streams(port, pid, args.seconds)
        print("daemon alive: %s" % (d.proc.poll() is None))


if __name__ == "__main__":
    main()
