"""End to end: fake board on a pty -> daemon subprocess -> real mosquitto -> subscriber."""
import json
import os

import pytest

from shared_rules.link.names import POCKET, RAIL, MOTION
from tests.host.harness import (DaemonProc, PtyLink, raw_hello, raw_event, wait_for,
                                journal_lines)

pytestmark = pytest.mark.slow
BOOT = 0xB0070001


def break_shot(seq0, t0, balls):
    """Raw frames of a break: motion, four rails, the given balls pocketed, motion stops."""
    out = []
    seq = seq0
    items = [(MOTION, 0, 1)] + [(RAIL, r, 3000) for r in range(4)] + \
            [(POCKET, 2, b) for b in balls] + [(MOTION, 0, 0)]
    for i, (k, idx, v) in enumerate(items):
        out.append(raw_event(seq, t0 + i * 100000, k, idx, v))
        seq += 1
    return out, seq


def acked(link, seq, timeout=10):
    """Wait until the daemon acknowledged `seq` (reading the pty ourselves)."""
    seen = []

    def got():
        for f in link.read_frames():
            if f["type"] == 0x81:
                seen.append(f["ack"])
        return seq in seen
    wait_for(got, timeout, what="ACK %d" % seq)
    return seen


def test_events_reach_state_and_duplicates_change_nothing(tmp_path, broker, subscriber):
    link = PtyLink(tmp_path / "ttyTABLE")
    jdir = tmp_path / "journal"
    d = DaemonProc(link.path, broker.url, "t1", jdir).start()
    try:
        wait_for(lambda: subscriber.last.get("billiards/t1/status") == "online", 15,
                 what="status online")
        first = wait_for(lambda: subscriber.state("t1"), 10, what="first state")
        assert set(first["on_table"]) == set(range(1, 16))

        frames_, nxt = break_shot(1, 1000000, [3, 5])
        link.write(raw_hello(BOOT))
        for f in frames_:
            link.write(f)
        acked(link, nxt - 1)

        def judged():
            s = subscriber.state("t1")
            return s if s and s["shot"] == 1 else None
        s1 = wait_for(judged, 10, what="the break judged")
        assert set(s1["on_table"]) == set(range(1, 16)) - {3, 5}
        assert sorted(s1["last_shot"]["pocketed"]) == [3, 5]
        assert s1["link"]["state"] == "up"
        jpath = os.path.join(str(jdir), "t1.jsonl")
        lines_before = len(journal_lines(jpath))
        state_msgs = len(subscriber.of("billiards/t1/state"))

        # Replays of old frames (a ball pocketed again, a whole shot again) and a frame from the future.
        link.write(frames_[5])                       # POCKET 3 again (duplicate)
        link.write(raw_hello(BOOT))                  # HELLO again
        for f in frames_:
            link.write(f)                            # the whole shot again
        link.write(raw_event(nxt + 3, 9000000, POCKET, 1, 9))   # out of order: seq gap
        # The daemon re-acknowledges duplicates; wait for that to be sure it read them all.
        link.write(frames_[0])
        acked(link, nxt - 1)
        import time
        time.sleep(0.5)
        assert len(journal_lines(jpath)) == lines_before
        s2 = subscriber.state("t1")
        s2.pop("link"); s1.pop("link")
        assert s2 == s1
        assert 9 in s2["on_table"]
        # The gap frame was dropped, so the real next frame is still accepted.
        link.write(raw_event(nxt, 9100000, MOTION, 0, 1))
        acked(link, nxt)
        wait_for(lambda: len(journal_lines(jpath)) == lines_before + 1, 5, what="journaled")
        entries = journal_lines(jpath)
        keys = [(e["boot_id"], e["seq"]) for e in entries if e["src"] in ("board", "hello")]
        assert len(keys) == len(set(keys))
        assert keys == [(BOOT, i) for i in range(nxt + 1)]
        assert len(subscriber.of("billiards/t1/state")) >= state_msgs

        # Corrupt frames are counted and dropped: garbage, a flipped CRC, an overlong run.
        good = raw_event(nxt + 1, 9200000, POCKET, 1, 10)
        bad = bytearray(good)
        bad[3] ^= 0x40
        link.write(b"\x13\x37garbage\x00" + bytes(bad) + b"\x01" * 100 + b"\x00")
        wait_for(lambda: subscriber.state("t1")["link"]["corrupt"] >= 3, 5, what="corrupt counted")
        assert len(journal_lines(jpath)) == lines_before + 1
        assert 10 in subscriber.state("t1")["on_table"]
    finally:
        rc = d.stop()
        link.close()
    assert rc == 0, d.output()
    assert subscriber.last.get("billiards/t1/status") == "offline"


def test_malformed_commands_answered_and_change_nothing(tmp_path, broker, subscriber):
    link = PtyLink(tmp_path / "ttyTABLE")
    jdir = tmp_path / "journal"
    d = DaemonProc(link.path, broker.url, "t6", jdir).start()
    try:
        wait_for(lambda: subscriber.state("t6"), 15, what="first state")
        jpath = os.path.join(str(jdir), "t6.jsonl")
        before = subscriber.state("t6")
        lines = len(journal_lines(jpath))
        bad = [("call", b"{not json"), ("call", b"[1, 2]"), ("call", b"\"text\""),
               ("no_such_command", b"{}"), ("call", b'{"ball": 99, "pocket": "nowhere", "id": 7}'),
               ("choose", b'{"option": "rerack"}'), ("call", b"\xff\xfe")]
        for name, payload in bad:
            subscriber.publish("billiards/t6/cmd/" + name, payload)
        results = wait_for(lambda: (lambda r: r if len(r) >= len(bad) else None)(
            subscriber.of("billiards/t6/cmd/result")), 10, what="all results")
        results = [json.loads(r) for r in results]
        assert [r["cmd"] for r in results] == [n for n, _ in bad]
        for r in results:
            assert r["ok"] is False
            assert isinstance(r["error"], str) and len(r["error"]) > 5
        assert results[4]["id"] == 7
        assert "JSON" in results[0]["error"]
        assert "object" in results[1]["error"]
        assert len(journal_lines(jpath)) == lines
        after = subscriber.state("t6")
        assert after == before
        # A good command is answered ok, journaled and changes the state.
        subscriber.publish("billiards/t6/cmd/new_game",
                          b'{"game": "nine-ball", "players": ["Anna", "Bob"], "id": "x"}')
        wait_for(lambda: len(subscriber.of("billiards/t6/cmd/result")) > len(bad), 10,
                 what="good result")
        good = json.loads(subscriber.of("billiards/t6/cmd/result")[-1])
        assert good == {"cmd": "new_game", "ok": True, "error": None, "id": "x"}
        assert len(journal_lines(jpath)) == lines + 1
        wait_for(lambda: subscriber.state("t6")["game"] == "nine-ball", 5, what="state after it")
        assert subscriber.state("t6")["players"][1]["name"] == "Bob"
    finally:
        rc = d.stop()
        link.close()
    assert rc == 0, d.output()
