"""The journal's and the port's own guarantees, in-process (the end-to-end ones are in test_season.py)."""
import errno
import json
import os

import pytest

from host.daemon import Daemon
from shared_rules.link import frames as codec
from shared_rules.link.names import EVENT, HELLO, RAIL
from host.journal import Journal, JournalError, archived_segments, read_entries
from host.link import port as port_mod
from host.link.port import Port


def daemon(tmp_path, **kw):
    d = Daemon("tj", "loop://", journal_dir=str(tmp_path / "journal"), outputs=[], **kw)
    d.start_journal()
    return d


def test_a_command_the_disk_refuses_changes_nothing(tmp_path):
    d = daemon(tmp_path)
    before = json.dumps(d.referee.snapshot(), sort_keys=True)
    real = d.journal.sync

    def full():
        d.journal._pending = []
        raise JournalError(d.journal.path, OSError(errno.ENOSPC, "No space left on device"))
    d.journal.sync = full
    res = d.submit_command("new_game", b'{"game": "nine-ball", "players": ["A", "B"], "id": "x1"}')
    assert res["ok"] is False and "disk full" in res["error"] and res["id"] == "x1"
    assert json.dumps(d.referee.snapshot(), sort_keys=True) == before, "the referee kept a refused command"
    faults = [f for f in d.state["faults"] if f["what"] == "journal"]
    assert faults == [{"sensor": None, "what": "journal", "fault": "disk_full",
                       "text": faults[0]["text"]}] and "disk full" in faults[0]["text"]
    d.journal.sync = real
    res = d.submit_command("new_game", {"game": "nine-ball", "players": ["A", "B"]})
    assert res["ok"] and d.state["game"] == "nine-ball"
    assert not [f for f in d.state["faults"] if f["what"] == "journal"]
    d.close()


def test_a_failed_write_is_cut_back_off_the_file(tmp_path):
    p = str(tmp_path / "t.jsonl")
    j = Journal(p)
    j.open()
    j.append({"src": "cmd", "cmd": "undo", "body": {}, "t_us": None})
    j.sync()
    size = os.path.getsize(p)
    j.append({"src": "cmd", "cmd": "undo", "body": {"note": "x" * 1000}, "t_us": None})
    real_write = os.write
    calls = []

    def half_then_full(fd, data):
        if not calls:
            calls.append(1)
            return real_write(fd, bytes(data[:100]))       # part of the line reaches the file
        raise OSError(errno.ENOSPC, "No space left on device")
    os.write = half_then_full
    try:
        with pytest.raises(JournalError) as e:
            j.sync()
    finally:
        os.write = real_write
    assert e.value.disk_full
    assert os.path.getsize(p) == size, "half a line was left in the journal"
    j.append({"src": "cmd", "cmd": "undo", "body": {}, "t_us": None})
    j.sync()
    assert len(read_entries(p)) == 2
    j.close()


def test_a_roll_cut_short_by_a_crash_is_finished_or_forgotten(tmp_path):
    p = str(tmp_path / "t.jsonl")
    line = b'{"src":"cmd","cmd":"undo","body":{},"t_us":null}\n'
    head = b'{"src":"snapshot","referee":{"referee":1,"fields":{},"refs":{}},"link":{}}\n'
    open(p, "wb").write(line)
    open(p + ".new", "wb").write(head)          # crash before the current segment was archived
    assert len(Journal(p).open()) == 1 and not os.path.exists(p + ".new")
    os.replace(p, str(tmp_path / "gone"))
    open(p + ".new", "wb").write(head)          # crash after it was archived
    j = Journal(p)
    assert j.open()[0]["src"] == "snapshot" and j.has_head and j.entries == 0


def test_segments_roll_at_a_new_game_and_at_their_size(tmp_path):
    d = daemon(tmp_path, segment_entries=5)
    for _ in range(3):
        assert d.submit_command("new_game", {"game": "nine-ball", "players": ["A", "B"]})["ok"]
    segs = archived_segments(d.journal.path)
    assert len(segs) == 3
    frames = [codec.encode({"type": HELLO, "seq": 0, "boot_id": 9, "proto": 1, "fw_major": 1,
                            "fw_minor": 0, "pockets": 6, "rails": 6, "features": 13, "name": "b"})]
    frames += [codec.encode({"type": EVENT, "seq": i, "t_us": 1000 * i, "kind": RAIL, "index": 1,
                             "value": 9, "flags": 0}) for i in range(1, 12)]
    for f in frames:
        d.handle_bytes(f, 0.0)
    d.journal.wait_tidy()
    assert len(archived_segments(d.journal.path)) == 5      # 1 + 5 + 5 entries, then the rest
    assert d.journal.entries <= 5
    assert all(p.endswith(".gz") for _n, p in archived_segments(d.journal.path))
    d.close()


def test_the_port_is_opened_exclusively_with_dtr_and_rts_set_first(monkeypatch, tmp_path):
    seen = []

    class Recorder:
        def __init__(self, url, **kw):
            seen.append(("made", url, kw))
            self._dtr = self._rts = None

        @property
        def dtr(self):
            return self._dtr

        @dtr.setter
        def dtr(self, v):
            seen.append(("dtr", v))

        @property
        def rts(self):
            return self._rts

        @rts.setter
        def rts(self, v):
            seen.append(("rts", v))

        def open(self):
            seen.append(("open",))

    monkeypatch.setattr(port_mod.serial, "serial_for_url", Recorder)
    assert Port("/dev/ttyUSB9", dtr=True, rts=False).poll_open(0.0)
    assert seen[0][2]["exclusive"] is True and seen[0][2]["do_not_open"] is True
    assert seen[1:] == [("dtr", True), ("rts", False), ("open",)]


def test_a_second_port_on_the_same_tty_is_refused(tmp_path):
    master, slave = os.openpty()
    path = os.ttyname(slave)
    a, b = Port(path), Port(path)
    try:
        assert a.poll_open(0.0)
        assert not b.poll_open(0.0)
        assert "exclusive" in b.last_error
    finally:
        a.close()
        b.close()
        os.close(master)
        os.close(slave)


def test_the_venue_history_goes_on_with_a_match_from_a_file_head(tmp_path):
    """A match outgrows its journal file: the live recorder folds only the current file, whose
    head names the match's start, and finds the same record as a fold of every file."""
    from host import history
    from host.journal import table_files
    from shared_rules.link.names import MOTION, POCKET
    d = daemon(tmp_path, segment_entries=4)
    assert d.submit_command("new_game", {"game": "nine-ball", "players": ["Anna", "Bob"], "race_to": 1})["ok"]
    started = [e for e in read_entries(d.journal.path) if e["src"] == "cmd"][-1]["wall"]
    seq = [0]

    def ev(kind, index, value, t):
        seq[0] += 1
        return codec.encode({"type": EVENT, "seq": seq[0], "t_us": t, "kind": kind, "index": index,
                             "value": value, "flags": 0})
    d.handle_bytes(codec.encode({"type": HELLO, "seq": 0, "boot_id": 9, "proto": 1, "fw_major": 1,
                                 "fw_minor": 0, "pockets": 6, "rails": 6, "features": 13, "name": "b"}), 0.0)
    t = 1000000
    for kind, index, value in [(MOTION, 0, 1)] + [(RAIL, r, 3000) for r in range(6)] + [
            (POCKET, 0, 1), (POCKET, 1, 9), (MOTION, 0, 0)]:
        t += 50000
        d.handle_bytes(ev(kind, index, value, t), 0.0)
    assert d.referee.state()["winner"] is not None
    assert len(archived_segments(d.journal.path)) >= 2
    head = read_entries(d.journal.path)[0]
    assert head["src"] == "snapshot" and head["match_started"] == started
    live, _ = history.matches_from_journals([d.journal.path], "tj")
    full, _ = history.matches_from_journals(table_files(d.journal.path), "tj")
    assert [r["started"] for r in live] == [started]
    assert live == full
    d.close()
