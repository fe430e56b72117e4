"""The simulated board's I/O: a pty pair, the shared reliable sender, a thread.

The daemon opens the pty's slave path like any serial port; bytes go through
the same codec (`shared_rules.link.frames`) and sender (`shared_rules.link.sender`)
as on real hardware, so HELLO, HEARTBEAT, ACK and retransmission are all real.
"""
import os
import random
import threading
import time
import tty

from shared_rules.link import frames
from shared_rules.link.names import ACK, FEATURE_BALL_ID, FEATURE_MOTION
from shared_rules.link.sender import Sender
from host.sim.play import TablePlay


class SimTable:
    def __init__(self, speed=1.0, seed=None, features=FEATURE_BALL_ID | FEATURE_MOTION,
                 name="sim-table"):
        self.speed = max(0.01, float(speed))
        self.play = TablePlay(seed)
        boot = random.Random(seed).getrandbits(32) if seed is not None else \
            int.from_bytes(os.urandom(4), "little")
        self.sender = Sender(boot, hello={"fw_major": 1, "fw_minor": 0, "pockets": 6,
                                          "rails": 6, "features": features, "name": name})
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)
        os.set_blocking(self.master, False)
        self.url = os.ttyname(self.slave)
        self.reader = frames.FrameReader()
        self._stop = threading.Event()
        self._t0 = time.monotonic()
        self._thread = threading.Thread(target=self._run, name="sim-table", daemon=True)
        self._pending = []       # [(due_monotonic, kind, index, value, flags)]
        self._next_shot = self._t0 + 2.0 / self.speed
        self.events_sent = 0

    def start(self):
        self._thread.start()
        return self

    def _t_us(self, now):
        return int((now - self._t0) * 1000000)

    def _schedule(self, now):
        if self._pending or now < self._next_shot:
            return
        events, pause = self.play.next_shot()
        for t, kind, index, value, flags in events:
            self._pending.append((now + t / self.speed, kind, index, value, flags))
        last = events[-1][0] if events else 0.0
        self._next_shot = now + (last + pause) / self.speed

    def _run(self):
        out = b""
        while not self._stop.is_set():
            now = time.monotonic()
            try:
                data = os.read(self.master, 4096)
            except (BlockingIOError, InterruptedError):
                data = b""
            except OSError:
                data = b""
            for f in self.reader.feed(data):
                if f.get("type") == ACK:
                    self.sender.on_ack(f["boot_id"], f["ack"])
            self._schedule(now)
            while self._pending and self._pending[0][0] <= now:
                _, kind, index, value, flags = self._pending.pop(0)
                self.sender.push_event(self._t_us(now), kind, index, value, flags)
                self.events_sent += 1
            out += self.sender.poll(int(now * 1000), self._t_us(now))
            if out:
                try:
                    n = os.write(self.master, out)
                    out = out[n:]
                except (BlockingIOError, InterruptedError):
                    pass
                except OSError:
                    out = b""
                if len(out) > 65536:
                    out = b""        # nobody reads: the sender will send it again
            time.sleep(0.01)

    def stop(self):
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(2)
        for fd in (self.master, self.slave):
            try:
                os.close(fd)
            except OSError:
                pass


def start_simulated_table(speed=1.0, seed=None):
    return SimTable(speed=speed, seed=seed).start()
