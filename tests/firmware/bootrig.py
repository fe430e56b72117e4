"""Boots the real firmware/main.py on the port models (vboard/fakechip.py), MicroPython only.

`boot(...)` installs the fake `machine`, `time`, `micropython`, `sys` and `select` in
sys.modules, runs main.py's source as the board would after a reset, and returns what the
host read from the fake USB CDC until the first HELLO went out (or the board stopped). The
daemon may be sending all along: `host_stream` gives its next bytes at every check point of
the VM (vboard.fakechip: bytes arriving while Ctrl-C is armed raise KeyboardInterrupt).
The host acknowledges what it reads, as the daemon does (`acking`), and the board takes
those ACKs before the power goes. Writes of files on the board's flash are counted.
"""
import os
import sys

from shared_rules.link import frames
from shared_rules.link.frames import FrameReader
from shared_rules.link.names import HELLO, EVENT, ACK

from vboard.fakemachine import FakeMachine, FakeTime, FakeUSB
from vboard import fakechip


class PowerOff(BaseException):
    """The test unplugs the board (not an Exception: nothing in the firmware catches it)."""


def _firmware_dir():
    f = __file__
    i = f.rfind("tests/firmware")
    return (f[:i] if i > 0 else "") + "firmware"


FW = _firmware_dir()
NAMES = ("machine", "time", "micropython", "sys", "select")


def workdir(cfg):
    """A fresh folder standing in for the board's flash, with `cfg` as board.json."""
    import json
    d = sys.argv[1] if len(sys.argv) > 1 else "/tmp/fw-boot"
    try:
        os.mkdir(d)
    except OSError:
        pass
    for f in ("board.json", "crash.txt"):
        try:
            os.remove(d + "/" + f)
        except OSError:
            pass
    with open(d + "/board.json", "w") as f:
        json.dump(cfg, f)
    return d


class Boot:
    """One board (a FakeMachine that survives resets, like the chip) booted again and again."""

    def __init__(self, cfg, port="rp2", platform="rp2", acking=True):
        self.cfg = cfg
        self.port = port
        self.platform = platform
        self.acking = acking
        self.dir = workdir(cfg)
        self.cause = fakechip.PWRON_RESET
        self.frames = []
        self.reset = None
        self.flash_writes = 0         # files opened for writing on the board's flash

    # The reset cause, and with it the rp2 watchdog's REASON register: a watchdog reset a
    # test sets up is the watchdog running out; machine.reset() (the fake's) sets its own.
    def _get_cause(self):
        return self._cause

    def _set_cause(self, c):
        self._cause = c
        self.wdt_reason = fakechip.REASON_TIMER if c == fakechip.WDT_RESET else 0

    cause = property(_get_cause, _set_cause)

    def boot(self, host_stream=None, pending_interrupt=False, stop=None, on_read=None):
        """Power up (or come back from a reset); returns the frames the host read.

        `stop(frames)` says when the test has seen enough (default: a HELLO went out);
        `on_read(pin)` runs at every pin read (a fault to inject)."""
        import gc
        self.machine = None           # the last boot's chip state goes, as at a reset
        self.frames = []
        gc.collect()
        m = FakeMachine(port=self.port)
        m.on_read = on_read
        clock = FakeTime()
        m.attach(clock)
        m.cause = self.cause
        m.wdt_reason = self.wdt_reason
        for p in self.cfg.get("pockets", []):
            m.pin(p["beam"]).level = 1
        usb = fakechip.usb_with_interrupt_char(FakeUSB(), m)
        m.host_stream = host_stream
        if pending_interrupt:                 # a 0x03 came while boot.py ran
            m.mp.pending = KeyboardInterrupt()
        reader = FrameReader()
        got = []
        stop = stop or (lambda fs: [f for f in fs if f["type"] == HELLO])
        write = usb.stdout.write
        host = [0, 0, 0]     # next reliable seq expected, passes left before power-off, boot_id

        def host_reads(data):
            n = write(data)
            fs = reader.feed(usb.host_read())
            got.extend(fs)
            for f in fs:
                host[2] = f.get("boot_id", host[2])
                if self.acking and f["type"] in (HELLO, EVENT) and f["seq"] == host[0]:
                    host[0] += 1
                    usb.host_write(frames.encode({"type": ACK, "seq": 0, "boot_id": host[2],
                                                  "ack": f["seq"]}))
            if stop(got):
                if not self.acking:
                    raise PowerOff()
                if not host[1]:
                    host[1] = 2  # the board reads the ACKs in its next pass: off after that
            return n
        usb.stdout.write = host_reads
        poll = fakechip.FakeSelect(usb)
        ipoll_of = poll.poll

        def polls():
            # The link's pass starts with a poll of stdin: count passes there.
            p = ipoll_of()
            ipoll = p.ipoll

            def counted(timeout=-1):
                if host[1] and p.flags & 1 and not usb.rxpipe.n:
                    host[1] -= 1
                    if not host[1]:
                        raise PowerOff()
                return ipoll(timeout)
            p.ipoll = counted
            return p
        poll.poll = polls
        fsys = fakechip.FakeSys(usb)
        fsys.platform = self.platform
        saved = {}
        for k in NAMES:
            saved[k] = sys.modules.get(k)
        sys.modules["machine"] = m
        sys.modules["time"] = clock
        sys.modules["micropython"] = m.mp
        sys.modules["sys"] = fsys
        sys.modules["select"] = poll
        import builtins
        real_open = builtins.open
        rig = self

        def flash_open(name, mode="r", *a):
            if "w" in mode or "a" in mode:
                rig.flash_writes += 1
            return real_open(name, mode, *a)
        builtins.open = flash_open
        here = os.getcwd()
        os.chdir(self.dir)
        self.reset = None
        self.machine = m
        try:
            with open(FW + "/main.py") as f:
                src = f.read()
            exec(src, {"__name__": "__main__"})
        except PowerOff:
            pass
        except fakechip.Reset as e:
            self.reset = e.cause
        finally:
            # A reset clears everything: no task of this boot may live on into the next one.
            import asyncio
            import gc
            from asyncio import core
            asyncio.new_event_loop()
            core.cur_task = None
            gc.collect()
            builtins.open = real_open
            os.chdir(here)
            for k in NAMES:
                if saved[k] is None:
                    del sys.modules[k]
                else:
                    sys.modules[k] = saved[k]
        self._cause = m.cause
        self.wdt_reason = m.wdt_reason
        self.frames = got
        return got
