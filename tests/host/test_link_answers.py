"""The daemon's side of the link under noise (issue 8): it speaks only to a board it has
heard since the port opened, and answers every gap or corrupt frame at once with a
duplicate ACK (an ACK of what it has), so the board need not wait out its timer.

In-process daemon on a fake pyserial object (the Port's opener), on a fake clock.
"""
from host.daemon import Daemon, LINK_TIMEOUT_S
from host.link.port import Port
from shared_rules.link import frames
from shared_rules.link.names import ACK, LIGHTS, RAIL
from tests.host.harness import raw_hello, raw_event, raw_heartbeat, journal_lines
from tests.link.noisy import FakeSerial

BOOT = 0x5EED0008


class Rig:
    def __init__(self, tmp_path):
        self.now = 100.0
        self.sers = []
        self.d = Daemon("t8", "fake://", journal_dir=str(tmp_path), outputs=[],
                        clock=lambda: self.now)
        self.d.port = Port("fake://", opener=self._open)
        self.d.start_journal()
        self.path = tmp_path / "t8.jsonl"

    def _open(self, url, **kw):
        self.sers.append(FakeSerial())
        return self.sers[-1]

    def board(self, *wire):
        self.d.port.poll_open(self.now)
        for w in wire:
            self.sers[-1].inbox += w
        self.d.step()

    def tick(self, dt):
        self.now += dt
        self.d.step()

    def sent(self):
        """Frames the daemon wrote since the last call."""
        s = self.sers[-1]
        out = frames.FrameReader().feed(bytes(s.sent))
        s.sent.clear()
        return out

    def acks(self):
        return [f["ack"] for f in self.sent() if f["type"] == ACK]

    def journaled(self):
        return [e["seq"] for e in journal_lines(self.path) if e["src"] == "board"]


def test_nothing_is_sent_before_the_board_is_heard(tmp_path):
    r = Rig(tmp_path)
    r.board()
    for _ in range(30):                     # 3 s of a port open to a board still booting
        r.tick(0.1)
    assert r.sers[-1].sent == b""           # no LIGHTS (they may hold 0x03, Ctrl-C) and no ACK
    r.board(raw_hello(BOOT))
    got = r.sent()
    assert [f["type"] for f in got] == [ACK, LIGHTS] and got[0]["ack"] == 0


def test_silence_after_the_link_goes_down_and_after_a_reopen(tmp_path):
    r = Rig(tmp_path)
    r.board(raw_hello(BOOT))
    r.sent()
    r.tick(LINK_TIMEOUT_S + 0.1)            # the board stopped talking: it may be rebooting
    r.sent()
    for _ in range(20):
        r.tick(0.1)
    assert r.sent() == []
    r.d.port.close()                        # unplugged and plugged in again: a new boot
    r.board()
    for _ in range(20):
        r.tick(0.1)
    assert r.sent() == []
    r.board(raw_heartbeat(BOOT, 1, 9000000, 0))
    assert [f["type"] for f in r.sent()] == [LIGHTS]


def test_an_event_from_a_known_boot_counts_as_heard(tmp_path):
    """A restarted host: the board resends without HELLO or HEARTBEAT and must get its ACK."""
    r = Rig(tmp_path)
    r.board(raw_hello(BOOT), raw_event(1, 10, RAIL, 0, 100))
    r.d.close()
    r2 = Rig(tmp_path)
    r2.board(raw_event(1, 10, RAIL, 0, 100))
    assert r2.acks() == [1]


def test_a_gap_is_answered_at_once_with_a_duplicate_ack(tmp_path):
    r = Rig(tmp_path)
    r.board(raw_hello(BOOT), raw_event(1, 10, RAIL, 0, 100))
    assert r.acks() == [1]
    r.board(raw_event(3, 30, RAIL, 0, 300))            # 2 lost on the wire
    assert r.acks() == [1]
    r.board(raw_event(4, 40, RAIL, 0, 400))
    assert r.acks() == [1]
    assert r.journaled() == [1]                         # 3 and 4 dropped, as the contract says
    r.board(raw_event(2, 20, RAIL, 0, 200), raw_event(3, 30, RAIL, 0, 300),
            raw_event(4, 40, RAIL, 0, 400))
    assert r.acks() == [4]
    assert r.journaled() == [1, 2, 3, 4]
    assert r.d.counts["out_of_order"] == 2


def test_a_corrupt_frame_is_answered_at_once(tmp_path):
    r = Rig(tmp_path)
    r.board(raw_hello(BOOT), raw_event(1, 10, RAIL, 0, 100))
    r.acks()
    bad = bytearray(raw_event(2, 20, RAIL, 0, 200))
    bad[5] ^= 0x40
    r.board(bytes(bad))
    assert r.acks() == [1] and r.d.counts["corrupt"] == 1
