"""Old and new peers over a noisy line (issue 8), on simulated time: the wire format is
unchanged, so a contract v1 board into the new daemon and the new board into a
contract v1 host must both deliver every event exactly once, in order.

1 % of bytes corrupted, 1 % of frames dropped and 1 % duplicated, both ways, at
115200 baud (tests/link/noisy.py); the v1 peers are tests/link/v1.py.
"""
from shared_rules.link.sender import Sender
from tests.link import noisy
from tests.link.v1 import V1Board, V1Host

BOOT = 0x1A7E0008
FAULTS = (0.01, 0.01, 0.01)


def delivered_once_in_order(r):
    return (r["journaled"] == r["offered"] and r["lost_full_buffer"] == 0
            and r["doubled"] == 0 and r["reordered"] == 0 and r["missing"] == 0)


def test_new_board_into_new_daemon_keeps_up_with_200_events_a_second():
    r = noisy.run(Sender(BOOT), noisy.DaemonHost(), noisy.offered(rate=200, seconds=10), FAULTS)
    assert delivered_once_in_order(r), r
    assert r["events_per_s"] > 190


def test_a_break_burst_reaches_the_journal_within_two_seconds():
    r = noisy.run(Sender(BOOT), noisy.DaemonHost(), noisy.offered(bursts=4), FAULTS)
    assert delivered_once_in_order(r), r
    assert r["delay_ms"]["max"] < 2000, r


def test_old_board_into_new_daemon():
    """A v1 board ignores the duplicate ACKs (stale to it) and keeps its 250 ms go-back-N."""
    r = noisy.run(V1Board(BOOT), noisy.DaemonHost(), noisy.offered(rate=10, seconds=10), FAULTS)
    assert delivered_once_in_order(r), r


def test_new_board_into_old_host():
    """A v1 host drops frames after a gap silently and re-ACKs duplicates only: the new board
    falls back on its timer (never above the contract's 250 ms) and loses nothing."""
    r = noisy.run(Sender(BOOT), V1Host(), noisy.offered(rate=10, seconds=10), FAULTS)
    assert delivered_once_in_order(r), r


def test_clean_line_needs_no_retransmission():
    r = noisy.run(Sender(BOOT), noisy.DaemonHost(), noisy.offered(rate=200, seconds=3), (0, 0, 0))
    assert delivered_once_in_order(r) and r["retransmit_share"] == 0, r
