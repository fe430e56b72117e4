"""The journal: torn last line tolerated, replay gives the daemon's state, daemon continues it."""
import json
import os
import time
import subprocess
import sys

import pytest

from host.journal import Journal, parse_lines, read_entries
from shared_rules.link.names import POCKET, RAIL, MOTION
from tests.host.harness import ROOT, DaemonProc, PtyLink, wait_for, journal_lines, without_link

BOOT = 77


def session_entries():
    e = [{"src": "cmd", "cmd": "new_game", "body": {"game": "eight-ball", "players": ["Anna", "Bob"]},
          "t_us": None, "wall": 1.0},
         {"src": "hello", "boot_id": BOOT, "seq": 0, "t_us": 0, "proto": 1, "fw": [1, 0],
          "pockets": 6, "rails": 6, "features": 5, "name": "x", "wall": 1.0}]
    items = [(MOTION, 0, 1)] + [(RAIL, r, 500) for r in range(5)] + [(POCKET, 3, 4), (MOTION, 0, 0)]
    for i, (k, idx, v) in enumerate(items):
        e.append({"src": "board", "boot_id": BOOT, "seq": i + 1, "t_us": 1000000 + i * 50000,
                  "kind": k, "index": idx, "value": v, "flags": 0, "wall": 2.0})
    return e


def write_journal(path, entries, torn=b""):
    with open(path, "wb") as f:
        for e in entries:
            f.write((json.dumps(e) + "\n").encode())
        f.write(torn)


def replay(path):
    out = subprocess.run([sys.executable, "-m", "host.cli", "replay", str(path)], cwd=str(ROOT),
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_torn_last_line_is_ignored_by_replay(tmp_path):
    full = tmp_path / "full.jsonl"
    torn = tmp_path / "torn.jsonl"
    entries = session_entries()
    write_journal(full, entries)
    write_journal(torn, entries, torn=b'{"src": "board", "boot_id": 77, "seq": 9, "t_')
    a, b = replay(full), replay(torn)
    assert a["players"][0]["name"] == "Anna"
    assert a["on_table"] == [x for x in range(1, 16) if x != 4]
    assert a["shot"] == 1
    a.pop("table"); b.pop("table")
    assert a == b


def test_journal_open_cuts_torn_tail_and_appends_cleanly(tmp_path):
    p = tmp_path / "t.jsonl"
    write_journal(p, session_entries(), torn=b'{"src": "cmd", "cm')
    j = Journal(str(p))
    entries = j.open()
    assert len(entries) == len(session_entries())
    assert j.truncated == len(b'{"src": "cmd", "cm')
    j.append({"src": "cmd", "cmd": "undo", "body": {}, "t_us": None, "wall": 3.0})
    j.sync()
    j.close()
    again = read_entries(str(p))
    assert again[-1]["cmd"] == "undo" and len(again) == len(entries) + 1


def test_parse_lines_skips_garbage_lines_but_keeps_the_rest():
    data = b'{"a": 1}\nnot json\n[1]\n\n{"b": 2}\n{"c"'
    entries, good, skipped = parse_lines(data)
    assert entries == [{"a": 1}, {"b": 2}]
    assert skipped == 2
    assert data[:good].endswith(b'{"b": 2}\n')


@pytest.mark.slow
def test_daemon_continues_a_torn_journal(tmp_path, broker, subscriber):
    jdir = tmp_path / "journal"
    os.makedirs(jdir)
    jpath = jdir / "t7.jsonl"
    write_journal(jpath, session_entries(), torn=b'{"src": "board", "boot_id": 77, "se')
    link = PtyLink(tmp_path / "ttyTABLE")
    d = DaemonProc(link.path, broker.url, "t7", jdir).start()
    try:
        s = wait_for(lambda: subscriber.state("t7"), 15, what="state from the journal")
        assert s["shot"] == 1 and 4 not in s["on_table"]
        assert s["players"][0]["name"] == "Anna"      # same game, not a new one
        # The torn line (seq 9) was never acknowledged; the board sends it again: accepted once.
        from tests.host.harness import raw_event
        acks = []
        sent = [0.0]

        def got():
            # Again until acknowledged, as a board does: a frame written before the daemon
            # opened its port is flushed by the open (pyserial clears the input then).
            if time.monotonic() - sent[0] > 0.5:
                link.write(raw_event(9, 3000000, MOTION, 0, 1))
                sent[0] = time.monotonic()
            acks.extend(f["ack"] for f in link.read_frames() if f["type"] == 0x81)
            return 9 in acks
        wait_for(got, 15, what="ACK 9")
        entries = journal_lines(jpath)        # every line parses
        assert [e["seq"] for e in entries if e["src"] == "board"] == list(range(1, 10))
    finally:
        d.stop()
        link.close()
