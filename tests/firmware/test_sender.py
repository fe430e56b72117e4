"""The board side of the reliable link: seq, hold until ACK, go-back-N, heartbeat, loss count.

Plain test functions: pytest collects them under CPython; under MicroPython
`run(globals())` runs them (see mptest.py).
"""
from shared_rules.link.frames import FrameReader
from shared_rules.link.names import HELLO, EVENT, HEARTBEAT, POCKET, RAIL
from shared_rules.link.sender import Sender, cobs_into
from shared_rules.link import cobs

BOOT = 0xC0FFEE01
HELLO_INFO = {"fw_major": 1, "fw_minor": 2, "pockets": 6, "rails": 6, "features": 15,
              "name": "pico-t1"}


def frames_of(data):
    return FrameReader().feed(data)


def reliable(fs):
    return [f for f in fs if f["type"] in (HELLO, EVENT)]


def seqs(fs):
    return [f["seq"] for f in reliable(fs)]


def test_first_poll_sends_hello_seq0_and_a_heartbeat():
    s = Sender(BOOT, hello=HELLO_INFO)
    fs = frames_of(s.poll(0, 0))
    h = [f for f in fs if f["type"] == HELLO]
    assert len(h) == 1
    assert h[0]["seq"] == 0 and h[0]["boot_id"] == BOOT and h[0]["name"] == "pico-t1"
    assert h[0]["features"] == 15 and h[0]["fw_minor"] == 2 and h[0]["proto"] == 1
    hb = [f for f in fs if f["type"] == HEARTBEAT]
    assert len(hb) == 1 and hb[0]["seq"] == 1 and hb[0]["backlog"] == 1


def test_events_are_numbered_after_hello_and_carry_their_fields():
    s = Sender(BOOT, hello=HELLO_INFO)
    s.poll(0, 0)
    assert s.push_event(2 ** 40 + 5, POCKET, 3, 255, 1)
    assert s.push_event(7, RAIL, 2, 65535, 0)
    fs = reliable(frames_of(s.poll(1, 1000)))
    assert [f["seq"] for f in fs] == [1, 2]
    assert fs[0]["t_us"] == 2 ** 40 + 5 and fs[0]["kind"] == POCKET and fs[0]["index"] == 3
    assert fs[0]["value"] == 255 and fs[0]["flags"] == 1
    assert fs[1]["kind"] == RAIL and fs[1]["value"] == 65535
    assert s.backlog() == 3


def test_nothing_is_sent_twice_before_the_retry_time():
    s = Sender(BOOT)
    s.poll(0, 0)
    s.push_event(1, RAIL, 0, 10, 0)
    assert seqs(frames_of(s.poll(10, 0))) == [1]
    assert seqs(frames_of(s.poll(200, 0))) == []


def test_ack_frees_what_it_covers_and_stops_resending():
    s = Sender(BOOT)
    s.poll(0, 0)
    for i in range(3):
        s.push_event(i, RAIL, i, 100, 0)
    s.poll(5, 0)
    assert s.on_ack(BOOT, 2, 10) == 3
    assert s.backlog() == 1
    # HELLO went at 0 and was acknowledged at 10: RTO = 10 + 4 x 5 ms. Progress
    # restarts the wait; then only seq 3, still held, goes again.
    assert s.rto == 30
    assert seqs(frames_of(s.poll(39, 0))) == []
    assert seqs(frames_of(s.poll(40, 0))) == [3]


def test_lost_ack_means_go_back_n_oldest_first_after_250ms():
    s = Sender(BOOT)
    s.poll(0, 0)
    for i in range(4):
        s.push_event(i, RAIL, 0, 100 + i, 0)
    assert seqs(frames_of(s.poll(10, 0))) == [1, 2, 3, 4]
    assert seqs(frames_of(s.poll(249, 0))) == []
    assert seqs(frames_of(s.poll(250, 0))) == [0, 1, 2, 3, 4]
    assert s.retransmits == 1
    s.on_ack(BOOT, 1)
    # Progress restarts the wait: backing off would double it, but never beyond the
    # contract's 250 ms, and no sample comes from a frame sent twice (Karn's rule).
    assert s.rto == 250 and s.srtt() is None
    assert seqs(frames_of(s.poll(260, 0))) == []
    assert seqs(frames_of(s.poll(509, 0))) == []
    assert seqs(frames_of(s.poll(510, 0))) == [2, 3, 4]


def test_foreign_and_stale_acks_change_nothing():
    s = Sender(BOOT)
    s.poll(0, 0)
    s.push_event(1, RAIL, 0, 1, 0)
    s.poll(1, 0)
    assert s.on_ack(BOOT + 1, 1) == 0        # another board's boot
    assert s.on_ack(BOOT, 5) == 0            # ahead of anything sent
    assert s.backlog() == 2
    assert s.on_ack(BOOT, 0) == 1
    assert s.on_ack(BOOT, 0) == 0            # duplicate, already freed
    assert s.on_ack(BOOT, 65535) == 0        # behind the window
    assert s.backlog() == 1


def test_full_buffer_counts_loss_and_never_blocks():
    s = Sender(BOOT, capacity=256)
    s.poll(0, 0)
    s.on_ack(BOOT, 0)
    ok = 0
    for i in range(300):
        if s.push_event(i, RAIL, 0, i, 0):
            ok += 1
    assert ok == 256 and s.dropped == 44 and s.backlog() == 256
    buf = bytearray(2048)
    n = s.poll_into(2000, 0, buf)
    fs = frames_of(bytes(buf[:n]))
    hb = [f for f in fs if f["type"] == HEARTBEAT][0]
    assert hb["dropped"] == 44 and hb["backlog"] == 256 and hb["seq"] == 257
    # The held events are the first 256, none lost, in order (checked as they come, so the
    # test's own bookkeeping does not need a growing list on a board-sized heap).
    expect = [0]

    def take(decoded):
        for f in reliable(decoded):
            assert f["value"] == expect[0]
            expect[0] += 1
    take(fs)
    fs = None
    for _ in range(10):
        n = s.poll_into(2000, 0, buf)
        take(frames_of(bytes(buf[:n])))
    assert expect[0] == 256
    s.on_ack(BOOT, 256)
    assert s.backlog() == 0 and s.push_event(1, RAIL, 0, 1, 0)


def test_heartbeat_every_second_with_next_seq_backlog_and_dropped():
    s = Sender(BOOT, capacity=2)
    s.poll(0, 0)
    s.push_event(1, RAIL, 0, 1, 0)
    s.push_event(2, RAIL, 0, 1, 0)
    s.push_event(3, RAIL, 0, 1, 0)
    hbs = []
    for ms in range(0, 3001, 50):
        hbs += [f for f in frames_of(s.poll(ms, ms * 1000)) if f["type"] == HEARTBEAT]
    assert len(hbs) == 3
    assert [h["t_us"] for h in hbs] == [1000000, 2000000, 3000000]
    assert hbs[0]["seq"] == 3 and hbs[0]["backlog"] == 3 and hbs[0]["dropped"] == 1
    assert hbs[0]["boot_id"] == BOOT


def test_seq_wraps_at_65536_and_acks_still_match():
    s = Sender(BOOT, capacity=4)
    s.poll(0, 0)
    s.on_ack(BOOT, 0)
    last = 0
    for i in range(70000):
        s.push_event(i, RAIL, 0, 0, 0)
        fs = reliable(frames_of(s.poll(i, 0)))
        assert len(fs) == 1
        last = fs[0]["seq"]
        assert s.on_ack(BOOT, last) == 1
    assert last == 70000 % 65536
    assert s.dropped == 0


def test_budget_limits_bytes_per_poll_and_the_rest_follows():
    s = Sender(BOOT)
    s.poll(0, 0)
    for i in range(50):
        s.push_event(i, RAIL, 0, i, 0)
    buf = bytearray(200)
    n = s.poll_into(1, 0, buf)
    assert 0 < n <= 200
    first = seqs(frames_of(bytes(buf[:n])))
    assert first == list(range(1, 1 + len(first)))
    rest = seqs(frames_of(s.poll(2, 0)))
    assert first + rest == list(range(1, 51))


def test_cobs_into_matches_the_codec():
    for raw in (b"", b"\x00", b"\x01\x00\x02", bytes(range(1, 30)), b"\x00\x00\x05"):
        dst = bytearray(40)
        n = cobs_into(raw, len(raw), dst, 3)
        assert bytes(dst[3:3 + n]) == cobs.encode(raw) + b"\x00"


def test_board_reset_starts_over_and_old_acks_are_foreign():
    a = Sender(BOOT)
    a.poll(0, 0)
    a.push_event(1, RAIL, 0, 1, 0)
    b = Sender(BOOT ^ 0xFFFF)
    fs = frames_of(b.poll(0, 0))
    assert seqs(fs) == [0]
    assert b.on_ack(BOOT, 0) == 0 and b.backlog() == 1
    assert b.on_ack(BOOT ^ 0xFFFF, 0) == 1


# --- adaptive retransmit (issue 8): duplicate ACKs, fast retransmit, RTO from the round trip ---

def opened(now=0, rtt=5):
    """A sender whose HELLO went at `now` and was acknowledged `rtt` ms later."""
    s = Sender(BOOT)
    s.poll(now, 0)
    s.on_ack(BOOT, 0, now + rtt)
    return s


def test_duplicate_ack_goes_back_to_the_missing_frame_at_once():
    s = opened()
    for i in range(5):
        s.push_event(i, RAIL, 0, i, 0)
    assert seqs(frames_of(s.poll(10, 0))) == [1, 2, 3, 4, 5]
    # 1 was lost on the wire; the host answers 2 (which it drops) at once with an ACK
    # of 0, what it has: everything from 1 goes again now, not after the timer.
    assert s.on_ack(BOOT, 0) == 0
    assert seqs(frames_of(s.poll(11, 0))) == [1, 2, 3, 4, 5]
    assert s.fast_retransmits == 1 and s.retransmits == 0
    assert s.on_ack(BOOT, 5, 14) == 5 and s.backlog() == 0


def test_fast_retransmit_of_the_same_frame_at_most_once_per_round_trip():
    s = opened(rtt=10)                      # SRTT 10, RTTVAR 5
    for i in range(3):
        s.push_event(i, RAIL, 0, i, 0)
    s.poll(20, 0)
    s.on_ack(BOOT, 0)
    assert seqs(frames_of(s.poll(21, 0))) == [1, 2, 3]
    s.on_ack(BOOT, 0)                       # more duplicates, caused by frames 2 and 3
    assert seqs(frames_of(s.poll(25, 0))) == []
    s.on_ack(BOOT, 0)
    assert seqs(frames_of(s.poll(35, 0))) == []
    s.on_ack(BOOT, 0)                       # a round trip later: the resend was lost too
    assert seqs(frames_of(s.poll(36, 0))) == [1, 2, 3]
    s.on_ack(BOOT, 1, 40)                   # progress, then the next one is missing
    s.on_ack(BOOT, 1)
    assert seqs(frames_of(s.poll(41, 0))) == [2, 3]
    assert s.fast_retransmits == 3


def test_duplicate_ack_of_nothing_sent_or_of_another_boot_does_nothing():
    s = opened()
    s.push_event(1, RAIL, 0, 1, 0)
    s.on_ack(BOOT, 0)                       # event 1 not sent yet: nothing to resend early
    assert seqs(frames_of(s.poll(10, 0))) == [1]
    s.on_ack(BOOT + 1, 0)
    assert seqs(frames_of(s.poll(11, 0))) == []
    assert s.fast_retransmits == 0


def test_retry_timer_follows_the_measured_round_trip():
    s = opened(rtt=40)
    assert s.srtt() == 40 and s.rto == 40 + 4 * 20
    t = 100
    for i in range(30):                     # steady 8 ms round trips pull RTO down to the floor
        s.push_event(i, RAIL, 0, i, 0)
        s.poll(t, 0)
        s.on_ack(BOOT, i + 1, t + 8)
        t += 20
    assert 8 <= s.srtt() <= 9 and s.rto == 20
    s.push_event(99, RAIL, 0, 99, 0)
    assert seqs(frames_of(s.poll(t, 0))) == [31]
    assert seqs(frames_of(s.poll(t + 19, 0))) == []
    assert seqs(frames_of(s.poll(t + 20, 0))) == [31]      # not 250 ms: 20
    assert s.rto == 40                                      # and backed off, doubling
    assert seqs(frames_of(s.poll(t + 59, 0))) == []
    assert seqs(frames_of(s.poll(t + 60, 0))) == [31]
    assert s.rto == 80


def test_backoff_stops_at_rto_max_and_a_fresh_sample_resets_it():
    from shared_rules.link.sender import RTO_MAX
    s = opened(rtt=10)
    s.push_event(1, RAIL, 0, 1, 0)
    t = 10
    for _ in range(12):
        s.poll(t, 0)
        t += 2000
    assert s.rto == RTO_MAX
    s.on_ack(BOOT, 1)                       # the frame was sent many times: no sample
    assert s.rto == RTO_MAX
    s.push_event(2, RAIL, 0, 2, 0)
    s.poll(t, 0)
    s.on_ack(BOOT, 2, t + 10)
    assert s.rto < 100


def test_timers_hold_across_the_2_30_ms_wrap_without_allocating():
    import sys
    wrap = 1 << 30
    s = opened(now=wrap - 30, rtt=10)
    buf = bytearray(256)
    lock = unlock = None
    if sys.implementation.name == "micropython":
        import micropython
        lock, unlock = micropython.heap_lock, micropython.heap_unlock
    t = wrap - 20
    got = []
    for i in range(40):
        if lock:
            lock()
        try:
            s.push_event(1000 + i, RAIL, 0, i, 0)
            n = s.poll_into(t, 1000 + i, buf)
            s.on_ack(BOOT, i)              # a duplicate ACK: from frame i + 1 again
            m = s.poll_into(t + 1, 1000 + i, buf, 64)
        finally:
            if unlock:
                unlock()
        got.append(n + m)
        s.on_ack(BOOT, i + 1, t + 3)
        t = (t + 5) & (wrap - 1)           # the caller's ticks_ms wraps to 0 here
    assert s.backlog() == 0 and s.fast_retransmits == 40
    # Every event was sent twice, so none was timed (Karn): the estimate stands.
    assert s.rto == 30 and s.srtt() == 10
    assert min(got) > 0


if __name__ == "__main__":
    from tests.firmware.mptest import run
    run(globals())
