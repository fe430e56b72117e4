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


def test_the_match_is_the_referees_whoever_begins_it(tmp_path):
    """Issue 15: a new game from the board's long press rolls the journal and begins a match in
    the history as one from `new_game` does; a CONFIRM that re-racks inside a game does neither."""
    from host import history
    from host.journal import table_files
    from shared_rules.link.names import BUTTON, BUTTON_CONFIRM, BUTTON_NEW_GAME, LONG_PRESS, MOTION, PRESS
    d = daemon(tmp_path)
    assert d.submit_command("new_game", {"game": "eight-ball", "players": ["Anna", "Bob"]})["ok"]
    first = d.referee.state()["match"]
    seq = [0]

    def ev(kind, index, value):
        seq[0] += 1
        return codec.encode({"type": EVENT, "seq": seq[0], "t_us": 1000000 * seq[0], "kind": kind,
                             "index": index, "value": value, "flags": 0})
    d.handle_bytes(codec.encode({"type": HELLO, "seq": 0, "boot_id": 9, "proto": 1, "fw_major": 1,
                                 "fw_minor": 0, "pockets": 6, "rails": 6, "features": 13, "name": "b"}), 0.0)
    # An illegal break (no ball down, one rail): Bob chooses with CONFIRM; the table is re-racked.
    for kind, index, value in [(MOTION, 0, 1), (RAIL, 0, 3000), (MOTION, 0, 0)]:
        d.handle_bytes(ev(kind, index, value), 0.0)
    assert d.referee.state()["decision"] is not None
    segments = len(archived_segments(d.journal.path))
    d.handle_bytes(ev(BUTTON, BUTTON_CONFIRM, PRESS), 0.0)
    assert d.referee.state()["decision"] is None and d.referee.state()["match"] == first
    assert len(archived_segments(d.journal.path)) == segments, "a re-rack inside a game rolled the journal"
    # The long press: a new match, a new segment headed by the table as it stood before it.
    d.handle_bytes(ev(BUTTON, BUTTON_NEW_GAME, LONG_PRESS), 0.0)
    second = d.referee.state()["match"]
    assert second["id"] == first["id"] + 1 and second["started"] != first["started"]
    assert len(archived_segments(d.journal.path)) == segments + 1
    entries = read_entries(d.journal.path)
    assert entries[0]["src"] == "snapshot" and entries[0]["match_started"] == first["started"]
    assert entries[1]["src"] == "board" and entries[1]["kind"] == BUTTON
    # Undo of the new game: the first match is back, in a segment of its own again.
    assert d.submit_command("undo", {})["ok"] and d.referee.state()["match"] == first
    assert len(archived_segments(d.journal.path)) == segments + 2
    fold = history._MatchFold("tj")
    for path in table_files(d.journal.path):
        for e in read_entries(path):
            fold.feed(e)
    assert fold.referee.match() == first
    d.close()


def test_a_head_names_the_match_of_its_own_snapshot(tmp_path):
    """A command is judged before it is journaled, so the segment a new game begins is headed by
    the table before it: the head's match_started must be that table's match (the one that ended),
    not the match the command began; likewise for the undo that brings the old match back."""
    d = daemon(tmp_path)
    first = d.referee.match()
    assert d.submit_command("new_game", {"game": "nine-ball", "players": ["A", "B"]})["ok"]
    second = d.referee.match()
    assert second["started"] != first["started"]
    head = read_entries(d.journal.path)[0]
    assert head["src"] == "snapshot"
    assert head["referee"]["fields"]["match"]["started"] == first["started"]
    assert head["match_started"] == first["started"], "the head names the match its snapshot is not of"
    assert head["link"]["shot_open"] is False
    assert d.submit_command("undo", {})["ok"] and d.referee.match()["started"] == first["started"]
    head = read_entries(d.journal.path)[0]
    assert head["referee"]["fields"]["match"]["started"] == second["started"]
    assert head["match_started"] == second["started"]
    d.close()


def test_start_up_and_the_match_end_read_one_segment_whatever_the_matchs_length(tmp_path, monkeypatch):
    """Issue 16, finding 2: after a flood of accepted commands every start and every match end
    re-read the whole match (about 390 MB). Now a long match spread over many segments: the
    start-up and the live recorder, at its start and at the match's end, open only the current
    segment, and the record they write is the one a fold of every file gives."""
    from host import fold, history, journal
    from host.journal import table_files
    from host.recorder import MatchRecorder
    from shared_rules.link.names import MOTION, POCKET
    d = daemon(tmp_path, segment_entries=4)
    assert d.submit_command("new_game", {"game": "nine-ball", "players": ["Anna", "Bob"], "race_to": 1})["ok"]
    seq = [0]
    t = [1000000]

    def feed(daemon_, kind, index, value):
        seq[0] += 1
        t[0] += 50000
        daemon_.handle_bytes(codec.encode({"type": EVENT, "seq": seq[0], "t_us": t[0], "kind": kind,
                                           "index": index, "value": value, "flags": 0}), 0.0)
    d.handle_bytes(codec.encode({"type": HELLO, "seq": 0, "boot_id": 9, "proto": 1, "fw_major": 1,
                                 "fw_minor": 2, "pockets": 6, "rails": 6, "features": 13, "name": "b"}), 0.0)
    for shot in range(8):                                   # eight misses: a long match so far
        for kind, index, value in [(MOTION, 0, 1), (RAIL, shot % 6, 3000), (RAIL, (shot + 1) % 6, 3000),
                                   (MOTION, 0, 0)]:
            feed(d, kind, index, value)
    path = d.journal.path
    d.close()
    closed = len(archived_segments(path))
    assert closed >= 8, closed
    opened = []            # every journal file read, by any reader (they all go through scan)
    real = journal.scan

    def counted(f, *a, **kw):
        opened.append(os.path.basename(getattr(f, "name", "?")))
        return real(f, *a, **kw)
    monkeypatch.setattr(journal, "scan", counted)
    monkeypatch.setattr(fold, "scan", counted)
    again = Daemon("tj", "loop://", journal_dir=str(tmp_path / "journal"), outputs=[], segment_entries=4)
    again.start_journal()
    assert set(opened) == {"tj.jsonl"}, opened               # the start-up: the current segment only
    recorder = MatchRecorder("tj", str(tmp_path / "history.sqlite3"), lambda: table_files(path))
    del opened[:]
    recorder.start(again.state)
    assert recorder.wait(1)
    assert set(opened) == {"tj.jsonl"}, opened               # the recorder's catch-up likewise
    del opened[:]
    for kind, index, value in [(MOTION, 0, 1), (RAIL, 0, 3000), (POCKET, 0, 1), (POCKET, 1, 9), (MOTION, 0, 0)]:
        feed(again, kind, index, value)
    assert again.referee.state()["winner"] is not None
    recorder(again.table_state(), [])              # as the daemon's loop tells its listeners
    assert recorder.wait(2)
    assert set(opened) == {"tj.jsonl"}, opened               # the match's end likewise
    recorder.stop()
    monkeypatch.undo()
    db = history.HistoryDB(str(tmp_path / "history.sqlite3"))
    try:
        rows = db.records(table="tj")
    finally:
        db.close()
    full, _ = history.matches_from_journals(table_files(again.journal.path), "tj")
    assert len(full) == 1 and full[0]["winner"] is not None
    assert [r["started"] for r in rows] == [full[0]["started"]] and rows[0]["winner"] == full[0]["winner"]
    again.close()


def test_a_segment_compressed_after_it_was_listed_is_still_read(tmp_path):
    """The background thread may compress a closed segment between a reader listing it and
    opening it (a history page read while a game rolled the journal): the reader takes the .gz."""
    from host.journal import compress, read_entries
    seg = tmp_path / "000001.jsonl"
    seg.write_text('{"src": "board", "seq": 1}\n{"src": "board", "seq": 2}\n')
    listed = str(seg)
    assert compress(listed) and not seg.exists()
    assert [e["seq"] for e in read_entries(listed)] == [1, 2]
