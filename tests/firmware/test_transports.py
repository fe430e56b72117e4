"""The board's real main loop (app.main) over the USB stdio and UART transports.

The link runs over fake pipes (vboard.fakemachine FakeUSB / FakeUART) whose far end
is the host here, speaking the host codec; the clock is the fake one, stepped a
millisecond at a time, and the loop's sleeps wait on it instead of real time.

Plain test functions: pytest collects them under CPython; under MicroPython
`run(globals())` runs them with a 192K heap (tests/firmware/test_on_micropython.py).
"""
import asyncio

from shared_rules.link import frames
from shared_rules.link.frames import FrameReader
from shared_rules.link.names import HELLO, EVENT, HEARTBEAT, ACK, LIGHTS, POCKET

from tests.firmware.rig import Rig, load_table
from vboard.balls import readings
from tableboard import app, transport
from vboard.fakemachine import FakeUSB

BOOT = 0x5EED0001
UART_LINK = {"uart": 1, "tx": 4, "rx": 5, "baud": 115200}
TABLE = load_table()


def fake_sleep(clock):
    """asyncio's sleep_ms on the fake clock: yields to the other tasks until the clock got there."""
    async def sleep_ms(ms):
        wake = clock.us + ms * 1000
        while clock.us < wake:
            await asyncio.sleep(0)
    return sleep_ms


class Host:
    """The board on a fake machine, its main loop, and the host at the other end of `kind`."""

    def __init__(self, kind):
        self.rig = Rig(boot_id=BOOT)
        self.board = self.rig.board
        self.time = self.rig.time
        if kind == "uart":
            self.link = app.open_link(self.rig.m, UART_LINK, self.rig.time)
            self.end = self.rig.m.uarts[1]
        else:
            self.end = FakeUSB()
            self.link = transport.Stdio(self.end.stdin, self.end.stdout, self.end.ready,
                                        self.end.writable)
        self.reader = FrameReader()
        self.got = []            # (ms, frame) as the host read them, in order
        self.acking = True
        self.next_expected = 0
        self.world = None        # called every ms with the time in ms: the test's table

    def ms(self):
        return self.time.us // 1000

    def send(self, data):
        self.end.host_write(data)

    def ack(self, upto):
        self.send(frames.encode({"type": ACK, "seq": 0, "boot_id": BOOT, "ack": upto & 0xFFFF}))

    def _hear(self):
        data = self.end.host_read()
        if not data:
            return
        now = self.ms()
        for f in self.reader.feed(data):
            self.got.append((now, f))
            if f["type"] in (HELLO, EVENT) and f["seq"] == self.next_expected:
                self.next_expected += 1
                if self.acking:
                    self.ack(f["seq"])

    def run(self, ms):
        """The main loop for `ms` of fake time; the host listens (and ACKs) every millisecond."""
        async def go():
            task = asyncio.create_task(app.main(self.board, self.link,
                                                sleep_ms=fake_sleep(self.time)))
            await asyncio.sleep(0)
            self._hear()
            for _ in range(ms):
                self.time.advance_ms(1)
                if self.world is not None:
                    self.world(self.ms())
                await asyncio.sleep(0)
                await asyncio.sleep(0)
                self._hear()
            task.cancel()
            try:
                await task
            except asyncio.CancelledError:
                pass
            await asyncio.sleep(0)
        asyncio.run(go())

    def frames(self, ftype=None):
        return [f for _, f in self.got if ftype is None or f["type"] == ftype]

    def times_of(self, ftype, seq):
        return [t for t, f in self.got if f["type"] == ftype and f["seq"] == seq]


def roll_at(h, pocket, at_ms, ball=5, block_ms=25):
    """The world: `ball` blocks `pocket`'s beam from `at_ms` for `block_ms`, its colour in view."""
    h.rig.show_colour(pocket, readings(ball, TABLE))

    def world(now):
        if now == at_ms:
            h.rig.beam(pocket, True)
        elif now == at_ms + block_ms:
            h.rig.beam(pocket, False)
    h.world = world


def reliable(h):
    return [f for f in h.frames() if f["type"] in (HELLO, EVENT)]


def no_wait(h):
    """Nothing the board read asked for bytes that had not come (on a board that read waits)."""
    return getattr(h.end, "blocks", 0) == 0 and getattr(h.end, "stalls", 0) == 0


# --- HELLO first -------------------------------------------------------------------------

def hello_first(kind):
    h = Host(kind)
    h.run(20)
    fs = h.frames()
    assert fs, "nothing came over " + kind
    # The first reliable frame is HELLO, seq 0; only the first heartbeat (which says the
    # next seq is 1 and one frame is held) comes with it.
    rel = reliable(h)
    assert rel[0]["type"] == HELLO and rel[0]["seq"] == 0 and rel[0]["boot_id"] == BOOT
    assert rel[0]["name"] == h.board.cfg["name"] and len(rel) == 1
    assert sorted(f["type"] for f in fs) == [HELLO, HEARTBEAT]
    hb = h.frames(HEARTBEAT)[0]
    assert hb["seq"] == 1 and hb["backlog"] == 1
    assert h.times_of(HELLO, 0) == [0]            # out on the loop's first pass


def test_usb_hello_goes_out_first_with_seq_0():
    hello_first("usb")


def test_uart_hello_goes_out_first_with_seq_0():
    hello_first("uart")


def test_uart_is_opened_from_the_board_config_with_no_read_timeout():
    h = Host("uart")
    u = h.end
    assert u.id == 1 and u.baudrate == 115200 and u.timeout == 0
    assert u.tx.id == 4 and u.rx.id == 5


# --- a sensor edge becomes an EVENT -----------------------------------------------------

def edge_is_event(kind):
    h = Host(kind)
    roll_at(h, 3, 100)
    h.run(200)
    ev = h.frames(EVENT)
    assert len(ev) == 1, ev
    e = ev[0]
    assert e["kind"] == POCKET and e["index"] == 3 and e["value"] == 5 and e["seq"] == 1
    # The event's board time is the edge's (100 ms in), and it reached the host soon after.
    assert 99000 <= e["t_us"] <= 101000, e["t_us"]
    got = h.times_of(EVENT, 1)[0]
    assert 100 < got <= 125 + 40, got
    assert no_wait(h)


def test_usb_a_ball_through_a_pocket_reaches_the_host_as_an_event():
    edge_is_event("usb")


def test_uart_a_ball_through_a_pocket_reaches_the_host_as_an_event():
    edge_is_event("uart")


# --- ACK frees the sender; no ACK means retransmission after 250 ms ---------------------

def ack_frees(kind):
    h = Host(kind)
    roll_at(h, 1, 50)
    h.run(1200)
    assert h.board.sender.backlog() == 0
    # Each reliable frame came exactly once: the ACKs written into the pipe reached the sender.
    assert [f["seq"] for f in reliable(h)] == [0, 1]
    assert len(h.frames(HEARTBEAT)) >= 2
    assert no_wait(h)


def test_usb_an_ack_from_the_host_frees_what_it_covers():
    ack_frees("usb")


def test_uart_an_ack_from_the_host_frees_what_it_covers():
    ack_frees("uart")


def resend_without_ack(kind):
    h = Host(kind)
    h.acking = False
    h.run(600)
    t = h.times_of(HELLO, 0)
    assert len(t) >= 3, t
    # Not before 250 ms without ACK progress, and not much later (the loop writes every 5 ms).
    assert 250 <= t[1] - t[0] <= 260, t
    assert 250 <= t[2] - t[1] <= 260, t
    assert h.board.sender.backlog() == 1
    # The host ACKs now: the resending stops.
    h.ack(0)
    h.run(1000)
    assert len(h.times_of(HELLO, 0)) == len(t)
    assert h.board.sender.backlog() == 0


def test_usb_with_no_ack_frames_go_again_after_250_ms():
    resend_without_ack("usb")


def test_uart_with_no_ack_frames_go_again_after_250_ms():
    resend_without_ack("uart")


# --- LIGHTS drives the lamps ---------------------------------------------------------------

def lamp_levels(h):
    pins = h.board.cfg["lamps"]["pins"]
    v = 0
    for n in range(len(pins)):
        if pins[n] is not None and h.rig.m.pin(pins[n]).level:
            v |= 1 << n
    return v


def lights(kind):
    h = Host(kind)
    h.run(20)
    assert lamp_levels(h) == 0
    h.send(frames.encode({"type": LIGHTS, "seq": 0, "mask": 0b1100000101, "mode": 0}))
    h.run(20)
    assert lamp_levels(h) == 0b1100000101
    h.send(frames.encode({"type": LIGHTS, "seq": 0, "mask": 0b10, "mode": 0}))
    h.run(20)
    assert lamp_levels(h) == 0b10


def test_usb_lights_from_the_host_drive_the_lamps():
    lights("usb")


def test_uart_lights_from_the_host_drive_the_lamps():
    lights("uart")


# --- garbage from the host ---------------------------------------------------------------

GARBAGE = (b"\x03\x03\x04" + b"\x00" + b"\x05\xff\x17\x42\x00" + bytes(range(1, 200)) + b"\x00"
           + b"\x00\x00" + b"\x02\x01\x00")


def garbage(kind):
    h = Host(kind)
    h.acking = False
    h.run(20)
    before = h.board.reader.error_count()
    h.send(GARBAGE)
    h.run(20)
    assert h.board.reader.error_count() >= before + 3
    assert h.board.sender.backlog() == 1          # garbage acknowledged nothing
    assert lamp_levels(h) == 0                    # and lit nothing
    # The link still works: a real ACK and a LIGHTS right after the garbage act.
    h.ack(0)
    h.send(frames.encode({"type": LIGHTS, "seq": 0, "mask": 1, "mode": 0}))
    roll_at(h, 0, h.ms() + 10)
    h.acking = True
    h.run(200)
    assert lamp_levels(h) == 1
    assert [f["index"] for f in h.frames(EVENT)] == [0]
    assert h.board.sender.backlog() == 0
    assert no_wait(h)


def test_usb_garbage_from_the_host_is_counted_and_harmless():
    garbage("usb")


def test_uart_garbage_from_the_host_is_counted_and_harmless():
    garbage("uart")


# --- a silent host ----------------------------------------------------------------------

def silent(kind):
    h = Host(kind)
    h.acking = False
    # Half an ACK, then nothing: a read that waited for a full buffer would hang here.
    a = frames.encode({"type": ACK, "seq": 0, "boot_id": BOOT, "ack": 0})
    h.send(a[:5])
    roll_at(h, 4, 1500)
    h.run(2000)
    assert no_wait(h)
    assert h.board.t >= 1999000                   # the sensors were stepped all along
    assert len(h.frames(HEARTBEAT)) >= 2
    got = h.times_of(EVENT, 1)
    assert got and got[0] < 1600, got             # the ball was seen while the host was silent
    # The rest of the ACK completes it.
    h.send(a[5:])
    h.run(20)
    assert h.board.sender.backlog() == 1          # HELLO freed, the event still held
    assert no_wait(h)


def test_usb_the_loop_goes_on_while_the_host_is_silent():
    silent("usb")


def test_uart_the_loop_goes_on_while_the_host_is_silent():
    silent("uart")


# --- the fakes behave like the hardware where it matters --------------------------------

def test_fake_usb_counts_a_read_that_would_wait_on_a_board():
    u = FakeUSB()
    u.host_write(b"abc")
    buf = bytearray(64)
    assert u.stdin.readinto(buf) == 3 and u.blocks == 1     # read(64) on a board waits for 64
    link = transport.Stdio(u.stdin, u.stdout, u.ready, u.writable)
    u.host_write(b"defg")
    assert link.readinto(buf) == 4 and bytes(buf[:4]) == b"defg" and u.blocks == 1
    assert link.readinto(buf) == 0 and u.blocks == 1


def test_uart_transport_reads_only_what_arrived_and_keeps_the_rest():
    h = Host("uart")
    h.send(b"0123456789")
    buf = bytearray(4)
    assert h.link.readinto(buf) == 4 and bytes(buf) == b"0123"
    assert h.link.readinto(buf) == 4 and bytes(buf) == b"4567"
    assert h.link.readinto(buf) == 2 and bytes(buf[:2]) == b"89"
    assert h.link.readinto(buf) == 0
    assert h.end.stalls == 0


if __name__ == "__main__":
    from tests.firmware.mptest import run
    run(globals())
