"""A board and a host over a noisy serial line, on simulated time.

- `Wire`: one direction of a 115200-baud 8N1 line through a fault proxy that
  corrupts bytes, drops and duplicates whole frames (the proxy of issue 8).
- The board: the firmware's own `Sender` (or a contract v1 board) stepped like
  `tableboard.app.serve`: every TX_MS it reads what arrived, then writes only
  what its UART accepts now (room = a shallow TX queue minus what is still
  queued), so a frame's timer starts when it leaves.
- The host: the real `Daemon` (session, journal with fsync, referee, ACK and
  LIGHTS) on a fake serial port and a fake clock, or a contract v1 host. Its
  ACKs leave HOST_DELAY_US after the bytes that caused them (the fsync).

Used by tests/link/test_interop.py and tests/bench/bench_link_noise.py.
"""
import collections
import os
import random
import tempfile

from shared_rules.link.frames import FrameReader
from shared_rules.link.names import ACK, RAIL, MOTION
from shared_rules.link.sender import Sender

TX_MS = 5                # tableboard.app.serve's pass
TX_QUEUE = 64            # bytes the board lets wait in its UART (tableboard.transport.Uart)
HOST_DELAY_US = 2000     # journal append + fsync before the ACK


class MissingOnlySender(Sender):
    """The alternative the benchmark measures: on a duplicate ACK, resend only the missing frame.

    Pays only if the host keeps what it received after a gap; a contract host does not.
    """

    def _fast(self, now, held, buf, o, room):
        if not self._fast_due(now, held):
            return 0
        n = self._put(0, buf, o, room)
        if n:
            self._timer = now
            self.resent_bytes += n
        return n


class Wire:
    """One direction: bytes take 10 bit times each; the proxy damages frames as they pass."""

    def __init__(self, rng, baud=115200, corrupt=0.0, drop=0.0, dup=0.0):
        self.rng = rng
        self.byte_us = 10e6 / baud
        self.corrupt = corrupt
        self.drop = drop
        self.dup = dup
        self.free_at = 0.0
        self.q = collections.deque()
        self.partial = bytearray()
        self.bytes = 0

    def queued(self, now_us):
        """Bytes written but not yet on the line at `now_us`."""
        return max(0.0, (self.free_at - now_us) / self.byte_us)

    def send(self, data, now_us):
        self.partial += data
        while True:
            i = self.partial.find(0)
            if i < 0:
                return
            frame = bytes(self.partial[:i + 1])
            del self.partial[:i + 1]
            r = self.rng.random()
            if r < self.drop:
                continue
            for _ in range(2 if r < self.drop + self.dup else 1):
                self._emit(frame, now_us)

    def _emit(self, frame, now_us):
        if self.corrupt:
            b = bytearray(frame)
            for k in range(len(b)):
                if self.rng.random() < self.corrupt:
                    b[k] ^= self.rng.randrange(1, 256)
            frame = bytes(b)
        t = max(self.free_at, now_us) + len(frame) * self.byte_us
        self.free_at = t
        self.bytes += len(frame)
        self.q.append((t, frame))

    def recv(self, now_us):
        out = bytearray()
        q = self.q
        while q and q[0][0] <= now_us:
            out += q.popleft()[1]
        return bytes(out)


class FakeSerial:
    """What serial.serial_for_url returns, reduced to what host.link.port.Port uses."""

    def __init__(self):
        self.inbox = bytearray()
        self.sent = bytearray()

    @property
    def in_waiting(self):
        return len(self.inbox)

    def read(self, n):
        d = bytes(self.inbox[:n])
        del self.inbox[:n]
        return d

    def write(self, data):
        self.sent += data
        return len(data)

    def close(self):
        pass


class DaemonHost:
    """The real daemon on a fake serial port; `feed` returns what it wrote back."""

    def __init__(self, workdir=None):
        from host.daemon import Daemon
        from host.link.port import Port
        self.now = 0.0
        self.ser = FakeSerial()
        self.journal = []
        base = "/dev/shm" if os.path.isdir("/dev/shm") else None
        self.dir = workdir or tempfile.mkdtemp(prefix="noisy_", dir=base)
        self.d = Daemon("noisy", "fake://", journal_dir=self.dir, outputs=[],
                        clock=lambda: self.now)
        self.d.port = Port("fake://", opener=lambda url, **kw: self.ser)
        self.d.start_journal()
        self.d.port.poll_open(0.0)
        append = self.d.journal.append

        def journal_append(entry):
            if entry.get("src") == "board":
                self.journal.append((entry, self.now))
            append(entry)
        self.d.journal.append = journal_append

    def feed(self, data, now):
        self.now = now
        self.ser.inbox += data
        self.d.step()
        out = bytes(self.ser.sent)
        self.ser.sent.clear()
        return out

    def close(self):
        self.d.close()


class Board:
    """A sender stepped like tableboard.app.serve, with the ACKs it reads."""

    def __init__(self, sender, boot_id):
        self.sender = sender
        self.boot_id = boot_id
        self.reader = FrameReader()
        self.buf = bytearray(1024)
        self.mv = memoryview(self.buf)

    def serve(self, now_us, data, up):
        for f in self.reader.feed(data):
            if f["type"] == ACK:
                self.sender.on_ack(f["boot_id"], f["ack"])
        room = TX_QUEUE - int(up.queued(now_us) + 0.999)
        if room > 0:
            n = self.sender.poll_into(now_us // 1000, now_us, self.mv[:room])
            if n:
                up.send(self.buf[:n], now_us)


def offered(rate=200, seconds=60.0, bursts=0, burst_every_s=5.0, burst_size=60):
    """(t_us, kind, index, value) the sensors report: a steady rate, or separate bursts of shots."""
    out = []
    if bursts:
        for b in range(bursts):
            t0 = int(b * burst_every_s * 1e6) + 100000
            for i in range(burst_size):
                out.append(t0 + int(i * 1e6 / burst_size))
    else:
        n = int(rate * seconds)
        out = [100000 + int(i * 1e6 / rate) for i in range(n)]
    events = []
    for i, t in enumerate(out):
        k = i % 5
        kind, value = (MOTION, 1) if k == 0 else (MOTION, 0) if k == 4 else (RAIL, 1000 + i % 60000)
        events.append((t, kind, k % 6, value))
    return events


def run(sender, host, events, faults=(0.0, 0.0, 0.0), seed=8, boot_id=0xB00C0008,
        drain_s=30.0, baud=115200):
    """Push `events` at their times through board -> wire -> host -> wire -> board; returns stats."""
    rng = random.Random(seed)
    corrupt, drop, dup = faults
    up = Wire(rng, baud, corrupt, drop, dup)
    down = Wire(rng, baud, corrupt, drop, dup)
    board = Board(sender, boot_id)
    pushed = {}
    i = 0
    now = 0
    end = (events[-1][0] if events else 0) + int(drain_s * 1e6)
    step = 1000
    last_host = -10 ** 9
    while now <= end:
        while i < len(events) and events[i][0] <= now:
            t, kind, index, value = events[i]
            seq = sender.next_seq()
            if sender.push_event(t, kind, index, value):
                pushed[t] = seq
            i += 1
        if now % (TX_MS * 1000) == 0:
            board.serve(now, down.recv(now), up)
        data = up.recv(now)
        if data or now - last_host >= 50000:
            last_host = now
            back = host.feed(data, now / 1e6)
            if back:
                down.send(back, now + HOST_DELAY_US)
        if i >= len(events) and len(host.journal) >= len(pushed) and sender.backlog() == 0:
            break
        now += step
    return stats(events, pushed, host.journal, sender, up, now)


def stats(events, pushed, journal, sender, up, end_us):
    """What a user would notice: loss, doubles, order, delay to the journal, throughput."""
    delays = []
    seen = set()
    doubled = 0
    reordered = 0
    last = -1
    for e, at in journal:
        t = e["t_us"]
        if t in seen:
            doubled += 1
            continue
        seen.add(t)
        if t < last:
            reordered += 1
        last = t
        delays.append(at * 1e6 - t)
    delays.sort()
    first = events[0][0] if events else 0
    last_at = journal[-1][1] * 1e6 if journal else first
    span = max(1e-6, (last_at - first) / 1e6)
    sent = sender.sent_bytes or 1

    def pct(p):
        return delays[min(len(delays) - 1, int(len(delays) * p))] / 1000 if delays else None
    return {"offered": len(events), "journaled": len(seen), "lost_full_buffer": sender.dropped,
            "missing": len(pushed) - len(seen), "doubled": doubled, "reordered": reordered,
            "events_per_s": len(seen) / span, "span_s": span,
            "retransmit_share": sender.resent_bytes / sent, "wire_bytes": up.bytes,
            "delay_ms": {"median": pct(0.5), "p99": pct(0.99), "max": pct(1.0) if delays else None},
            "end_s": end_us / 1e6}
