"""The daemon survives a crash, a broker restart, an unplugged port and board resets."""
import json
import os
import random
import time

import pytest

from shared_rules.link.names import POCKET, RAIL, MOTION
from tests.host.harness import (DaemonProc, FakeBoard, PtyLink, Subscriber, wait_for,
                                journal_lines, without_link, raw_hello, raw_event,
                                raw_heartbeat)

pytestmark = pytest.mark.slow


def shots(seed, n):
    """n plausible shots as (kind, index, value) lists, never pocketing a ball twice or the 8."""
    r = random.Random(seed)
    balls = [b for b in range(1, 16) if b != 8]
    r.shuffle(balls)
    out = []
    for i in range(n):
        ev = [(MOTION, 0, 1)] + [(RAIL, r.randrange(6), 2000) for _ in range(5 if i == 0 else r.randint(0, 3))]
        if balls and r.random() < 0.5:
            ev.append((POCKET, r.randrange(6), balls.pop()))
        if r.random() < 0.1:
            ev.append((POCKET, r.randrange(6), 0))
        ev.append((MOTION, 0, 0))
        out.append(ev)
    return out


def expected_state(table, entries):
    """The state an uninterrupted run reaches: the journal's entries folded through the referee."""
    from host.fold import new_referee
    ref = new_referee(table)
    for e in entries:
        ref.apply(e)
    s = ref.state()
    s["table"] = table
    return s


def test_kill_9_mid_stream_loses_and_doubles_nothing(tmp_path, broker, subscriber):
    link = PtyLink(tmp_path / "ttyTABLE")
    board = FakeBoard(link, boot_id=0xC0FFEE01)
    jdir = tmp_path / "journal"
    jpath = os.path.join(str(jdir), "t2.jsonl")
    d = DaemonProc(link.path, broker.url, "t2", jdir).start()
    plan = shots(2, 24)
    pushed = []
    try:
        for i, shot in enumerate(plan):
            for k, idx, v in shot:
                board.push(k, idx, v)
                pushed.append((k, idx, v))
                time.sleep(0.01)
            if i == 8:
                # Mid-stream: some events acknowledged, some in flight, some not sent yet.
                d.kill9()
                for shot2 in plan[9:12]:
                    for k, idx, v in shot2:
                        board.push(k, idx, v)
                        pushed.append((k, idx, v))
                time.sleep(0.6)   # the board retransmits into nothing
                d = DaemonProc(link.path, broker.url, "t2", jdir).start()
                plan_rest = plan[12:]
                break
        for shot in plan_rest:
            for k, idx, v in shot:
                board.push(k, idx, v)
                pushed.append((k, idx, v))
                time.sleep(0.01)
        wait_for(lambda: board.backlog() == 0, 20, what="every frame acknowledged")
        entries = journal_lines(jpath)
        keys = [(e["boot_id"], e["seq"]) for e in entries if e["src"] in ("hello", "board")]
        assert keys == [(0xC0FFEE01, s) for s in range(len(pushed) + 1)], "each frame exactly once"
        got = [(e["kind"], e["index"], e["value"]) for e in entries if e["src"] == "board"]
        assert got == pushed
        want = expected_state("t2", entries)
        assert want["shot"] == len(plan)

        def matches():
            s = subscriber.state("t2")
            return s is not None and without_link(s) == without_link(want)
        wait_for(matches, 10, what="published state equal to an uninterrupted run")
        # ... and a from-scratch replay of the journal agrees.
        import subprocess, sys
        out = subprocess.run([sys.executable, "-m", "host.cli", "replay", jpath],
                             capture_output=True, text=True, check=True)
        replayed = json.loads(out.stdout)
        assert without_link(replayed) == without_link(want)
    finally:
        board.stop()
        d.stop()
        link.close()


def test_broker_restart_brings_retained_state_back(tmp_path, broker):
    link = PtyLink(tmp_path / "ttyTABLE")
    board = FakeBoard(link, boot_id=0xB3)
    d = DaemonProc(link.path, broker.url, "t3", tmp_path / "journal").start()
    sub = Subscriber(broker.port)
    try:
        for k, idx, v in shots(3, 1)[0]:
            board.push(k, idx, v)
        wait_for(lambda: (sub.state("t3") or {}).get("shot") == 1, 15, what="first shot")
        before = sub.state("t3")
        sub.close()
        broker.stop()                  # no persistence: the retained state is gone with it
        time.sleep(1.0)
        broker.start()
        t0 = time.monotonic()
        sub = Subscriber(broker.port)
        wait_for(lambda: sub.state("t3") is not None and
                 sub.last.get("billiards/t3/status") == "online", 10,
                 what="retained state after the broker restart")
        print("state back %.2f s after the broker listened" % (time.monotonic() - t0))
        assert without_link(sub.state("t3")) == without_link(before)
        # And the table kept being read: a shot played after the restart arrives.
        for k, idx, v in shots(4, 2)[1]:
            board.push(k, idx, v)
        wait_for(lambda: sub.state("t3")["shot"] == 2, 10, what="shot after broker restart")
    finally:
        sub.close()
        board.stop()
        d.stop()
        link.close()


def test_serial_port_vanishes_and_comes_back(tmp_path, broker, subscriber):
    link = PtyLink(tmp_path / "ttyTABLE")
    board = FakeBoard(link, boot_id=0xB4)
    jdir = tmp_path / "journal"
    d = DaemonProc(link.path, broker.url, "t4", jdir).start()
    try:
        wait_for(lambda: (subscriber.state("t4") or {}).get("link", {}).get("state") == "up",
                 15, what="link up")
        board.paused = True
        link.close()                                 # unplugged
        wait_for(lambda: subscriber.state("t4")["link"]["state"] == "down", 10,
                 what="link down")
        # Events happen while unplugged; the board holds them.
        for k, idx, v in shots(5, 1)[0]:
            board.push(k, idx, v)
        time.sleep(0.5)
        link.open()                                  # plugged in again: a new pty, same path
        board.paused = False
        wait_for(lambda: subscriber.state("t4")["link"]["state"] == "up", 10,
                 what="link up again")
        wait_for(lambda: subscriber.state("t4")["shot"] == 1, 10, what="held events arrive")
        for k, idx, v in shots(6, 2)[1]:
            board.push(k, idx, v)
        wait_for(lambda: subscriber.state("t4")["shot"] == 2, 10, what="new events arrive")
        assert d.proc.poll() is None
        states = [json.loads(s)["link"]["state"] for s in subscriber.of("billiards/t4/state")]
        assert "down" in states and states[-1] == "up"
    finally:
        board.stop()
        d.stop()
        link.close()


def test_board_reset_and_unknown_board(tmp_path, broker, subscriber):
    link = PtyLink(tmp_path / "ttyTABLE")
    board = FakeBoard(link, boot_id=0xAAAA0001)
    jdir = tmp_path / "journal"
    jpath = os.path.join(str(jdir), "t5.jsonl")
    d = DaemonProc(link.path, broker.url, "t5", jdir).start()
    try:
        for k, idx, v in shots(7, 1)[0]:
            board.push(k, idx, v)
        wait_for(lambda: (subscriber.state("t5") or {}).get("shot") == 1, 15, what="shot 1")
        # Reset: new boot_id, HELLO is seq 0 again, a new sequence is accepted.
        board.reset(0xBBBB0002)
        for k, idx, v in shots(8, 2)[1]:
            board.push(k, idx, v)
        wait_for(lambda: subscriber.state("t5")["shot"] == 2, 10, what="shot after reset")
        wait_for(lambda: board.backlog() == 0, 5, what="acknowledged")
        hellos = [e["boot_id"] for e in journal_lines(jpath) if e["src"] == "hello"]
        assert hellos == [0xAAAA0001, 0xBBBB0002]
        d.stop()

        # A board the host has no record of: reset while the host was down, and its HELLO
        # and first events were acknowledged by someone else. The host learns the boot
        # from HEARTBEAT and expects seq - backlog.
        board.paused = True
        board.reset(0xCCCC0003)
        extra = shots(9, 3)[2]
        first = [(MOTION, 0, 1), (RAIL, 1, 100)]
        for k, idx, v in first:
            board.push(k, idx, v)
        with board.lock:
            board.sender.on_ack(0xCCCC0003, 2)       # HELLO + 2 events gone elsewhere
        for k, idx, v in extra[1:]:
            board.push(k, idx, v)
        n_before = len(journal_lines(jpath))
        d = DaemonProc(link.path, broker.url, "t5", jdir).start()
        time.sleep(1.0)
        board.paused = False
        wait_for(lambda: board.backlog() == 0, 10, what="unknown board acknowledged")
        new = journal_lines(jpath)[n_before:]
        keys = [(e["boot_id"], e["seq"]) for e in new if e["src"] == "board"]
        assert keys == [(0xCCCC0003, s) for s in range(3, 3 + len(extra) - 1)]
    finally:
        board.stop()
        d.stop()
        link.close()


def test_raw_heartbeat_sets_expectation_and_dropped(tmp_path, broker, subscriber):
    """Learn from HEARTBEAT with raw frames: frames before seq - backlog are not expected."""
    link = PtyLink(tmp_path / "ttyTABLE")
    d = DaemonProc(link.path, broker.url, "t5b", tmp_path / "journal").start()
    try:
        wait_for(lambda: subscriber.state("t5b"), 15, what="first state")
        boot = 0xDD01
        # Board says: next seq 10, 3 unacknowledged (7, 8, 9), 4 events lost to a full buffer.
        link.write(raw_heartbeat(boot, 10, 5000000, 3, dropped=4))
        link.write(raw_event(6, 4000000, POCKET, 0, 1))     # older than the oldest held: dropped
        link.write(raw_event(7, 4100000, MOTION, 0, 1))
        acks = []

        def got_ack():
            acks.extend(f["ack"] for f in link.read_frames() if f["type"] == 0x81)
            return 7 in acks
        wait_for(got_ack, 10, what="ACK 7")
        board = [e for e in journal_lines(os.path.join(str(tmp_path / "journal"), "t5b.jsonl"))
                 if e["src"] == "board"]
        assert [(e["boot_id"], e["seq"]) for e in board] == [(boot, 7)]
        wait_for(lambda: subscriber.state("t5b")["link"]["dropped"] == 4, 5, what="dropped")
        assert 1 in subscriber.state("t5b")["on_table"]
    finally:
        d.stop()
        link.close()
