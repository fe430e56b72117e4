"""The USB stdio transport as deployed: app.open_link's default Stdio on the real sys.stdin/stdout.

The firmware runs under the MicroPython unix port with its stdin and stdout as pipes
(as the Pico's are the USB CDC), so the real select.poll on sys.stdin.buffer and the
real stdout writes are used; only pins and sensors are fake. CPython only (it starts
the process); test_transports.py covers the same loop on a fake clock.
"""
import os
import select
import subprocess
import time

from shared_rules.link import frames
from shared_rules.link.frames import FrameReader
from shared_rules.link.names import HELLO, HEARTBEAT, ACK

from tests.conftest import ROOT, micropython_binary

BOOT = 0x0B0A0D01

DRIVER = """
import json, time, asyncio
from tableboard import app
from tableboard.board import Board
from vboard.fakemachine import FakeMachine
with open(%(cfg)r) as f:
    cfg = json.load(f)
cfg["colour_table"] = %(colours)r
m = FakeMachine()
for p in cfg["pockets"]:
    m.pin(p["beam"]).level = 1
board = Board(cfg, m, time, boot_id=%(boot)d)
asyncio.run(app.main(board, app.open_link(m, cfg.get("link", {}))))
"""


class Board:
    def __init__(self, tmp_path):
        script = tmp_path / "usb_board.py"
        script.write_text(DRIVER % {"cfg": str(ROOT / "firmware" / "boards" / "virtual.json"),
                                    "colours": str(ROOT / "firmware" / "colours.json"),
                                    "boot": BOOT})
        env = dict(os.environ)
        env["MICROPYPATH"] = ".frozen:" + str(ROOT) + ":" + str(ROOT / "firmware")
        self.err = open(tmp_path / "stderr.log", "wb")
        self.proc = subprocess.Popen([micropython_binary(), "-X", "heapsize=192K", str(script)],
                                     cwd=ROOT, env=env, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=self.err)
        self.reader = FrameReader()
        self.got = []

    def read_for(self, seconds):
        """Frames the board wrote in the next `seconds`."""
        end = time.monotonic() + seconds
        out = []
        fd = self.proc.stdout.fileno()
        while time.monotonic() < end:
            r, _, _ = select.select([fd], [], [], max(0.0, end - time.monotonic()))
            if r:
                data = os.read(fd, 4096)
                if not data:
                    break
                out.extend(self.reader.feed(data))
        self.got.extend(out)
        return out

    def read_until(self, pred, seconds=10):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            for f in self.read_for(0.1):
                if pred(f):
                    return f
        raise AssertionError("not seen in %ss; got %r" % (seconds, self.got[-5:]))

    def send(self, data):
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def stop(self):
        self.proc.kill()
        self.proc.wait(10)
        self.err.close()


def test_stdio_link_on_real_pipes_hello_resend_ack_and_a_silent_host(tmp_path):
    b = Board(tmp_path)
    try:
        h = b.read_until(lambda f: f["type"] == HELLO)
        assert h["seq"] == 0 and h["boot_id"] == BOOT
        # No ACK: HELLO comes again (every 250 ms).
        b.read_until(lambda f: f["type"] == HELLO)
        # Half an ACK and then silence: the board keeps going (heartbeats, HELLO resent).
        ack = frames.encode({"type": ACK, "seq": 0, "boot_id": BOOT, "ack": 0})
        b.send(ack[:4])
        fs = b.read_for(1.5)
        assert [f for f in fs if f["type"] == HEARTBEAT], fs
        assert len([f for f in fs if f["type"] == HELLO]) >= 3, fs
        # The rest of the ACK, after some garbage that must not hurt: HELLO is freed.
        b.send(ack[4:] + b"\x03\x03\xff\x00")
        b.read_until(lambda f: f["type"] == HEARTBEAT and f["backlog"] == 0, 5)
        fs = b.read_for(0.6)
        assert [f for f in fs if f["type"] == HELLO] == []
        assert b.proc.poll() is None
    finally:
        b.stop()
    assert (tmp_path / "stderr.log").read_bytes() == b""
