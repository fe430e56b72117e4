"""Firmware numbers under the MicroPython unix port (run by CPython, or directly under MicroPython).

    .venv/bin/python tests/bench/bench_firmware.py

Prints: events per second the firmware main loop frames (sensor edge -> event
on the wire), the share of a 115200-baud UART a break-like burst (60 events in
one second) takes, and the heap the board uses.
"""
import sys

if sys.implementation.name != "micropython":
    import os
    import pathlib
    import subprocess
    root = pathlib.Path(__file__).resolve().parents[2]
    exe = pathlib.Path(sys.executable).parent / "micropython"
    env = dict(os.environ)
    env["MICROPYPATH"] = ".frozen:%s:%s" % (root, root / "firmware")
    sys.exit(subprocess.call([str(exe), "-X", "heapsize=192K", __file__], env=env, cwd=str(root)))

import gc
import time
import micropython

from tests.firmware.rig import Rig

UART_BYTES_PER_S = 115200 // 10


def throughput():
    r = Rig()
    r.run_ms(10)
    n = 0
    t0 = time.ticks_us()
    for k in range(3000):
        r.impact(k % 6, 2000 + k)
        r.time.advance_us(31000 // 6 + 1)     # each rail sees impacts 31 ms apart
        r.step()
        r.time.advance_us(1000)
        r.step()
    dt = time.ticks_diff(time.ticks_us(), t0)
    n = r.next_expected - 1               # events the host took in order (HELLO excluded)
    return n, dt


def burst():
    r = Rig()
    r.run_ms(100)
    b0 = r.wire_bytes
    for k in range(60):                  # 60 events in one second: impacts, balls, motion
        if k % 10 == 9:
            r.show_colour(k % 6, [(5000, 3000, 1000, 500)])
            r.beam(k % 6, True)
            r.run_ms(8)
            r.beam(k % 6, False)
            r.run_ms(8)
        else:
            r.impact(k % 6, 3000 + k)
            r.run_ms(16)
    r.run_ms(1000 - 60 * 16)
    return r.wire_bytes - b0, len(r.events())


gc.collect()
free0 = gc.mem_free()
alloc0 = gc.mem_alloc()
n, dt = throughput()
print("events framed per second (edge -> event on the wire, host on this machine): %d" %
      (n * 1000000 // dt))
b, ne = burst()
print("break burst: %d events, %d bytes on the wire in 1 s = %.1f%% of a 115200-baud UART" %
      (ne, b, 100.0 * b / UART_BYTES_PER_S))
from tableboard.board import Board
from vboard.fakemachine import FakeMachine, FakeTime
from tests.firmware.rig import load_cfg
gc.collect()
a0 = gc.mem_alloc()
board = Board(load_cfg("pico.json"), FakeMachine(), FakeTime(), boot_id=1)
gc.collect()
print("heap of one Board (pico.json: 6 pockets with colour, 6 rails, sender for 256 events): %d bytes"
      % (gc.mem_alloc() - a0))
print("heap after: mem_alloc %d, mem_free %d (heap 192K)" % (gc.mem_alloc(), gc.mem_free()))
micropython.mem_info()
