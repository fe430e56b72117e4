"""The daemon's loop joins its parts and decides nothing itself (issue 15, ARCHITECTURE.md): a board
entry is read by the link that made it, the recorded table and the referee, never by the loop."""
import os
import sys

from host.daemon import Daemon
from host.link import session as session_mod
from shared_rules.link import frames as codec
from shared_rules.link.names import EVENT, HELLO, MOTION, POCKET, RAIL

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class Watched(dict):
    """A journal entry that notes the file of every function reading it."""
    readers = []

    def _note(self):
        self.readers.append(os.path.relpath(sys._getframe(2).f_code.co_filename, ROOT))

    def get(self, *a):
        self._note()
        return dict.get(self, *a)

    def __getitem__(self, k):
        self._note()
        return dict.__getitem__(self, k)

    def __contains__(self, k):
        self._note()
        return dict.__contains__(self, k)


def event(seq, t_us, kind, index, value):
    return codec.encode({"type": EVENT, "seq": seq, "t_us": t_us, "kind": kind, "index": index,
                         "value": value, "flags": 0})


def watch_board_entries(monkeypatch):
    """Every board entry the link's session makes is Watched from here on: who reads it is noted."""
    real = session_mod.Session.on_frame

    def on_frame(self, f, now, wall=None):
        d = real(self, f, now, wall)
        if d.get("entry") is not None:
            d["entry"] = Watched(d["entry"])
        return d
    monkeypatch.setattr(session_mod.Session, "on_frame", on_frame)
    Watched.readers = []


def test_the_loop_never_reads_a_board_entry(tmp_path, monkeypatch):
    watch_board_entries(monkeypatch)
    clock = [100.0]
    d = Daemon("tp", "loop://", journal_dir=str(tmp_path / "journal"), outputs=[], quiet_s=3.0,
               clock=lambda: clock[0])
    d.start_journal()
    frames = [codec.encode({"type": HELLO, "seq": 0, "boot_id": 5, "proto": 1, "fw_major": 1, "fw_minor": 2,
                            "pockets": 6, "rails": 6, "features": 0x01, "name": "p"})]   # no motion sensor
    frames += [event(1, 1000000, RAIL, 0, 3000), event(2, 1100000, RAIL, 1, 3000), event(3, 1200000, POCKET, 2, 3)]
    for f in frames:
        d.handle_bytes(f, clock[0])
    d._changed([])                      # as Daemon.step does after a read
    assert d.state["shot_open"] is True
    readers = set(Watched.readers)
    assert "host/daemon.py" not in readers, readers
    assert readers <= {"host/link/table_link.py", "host/recorded.py", "shared_rules/rules/referee.py",
                       "shared_rules/rules/commands.py"}, readers
    # The quiet time still counts from the last ball or rail the board reported (no motion sensor).
    clock[0] += 2.9
    d._auto_end_shot(clock[0])
    assert d.referee.state()["shot_open"] is True
    clock[0] += 0.2
    d._auto_end_shot(clock[0])
    assert d.referee.state()["shot_open"] is False and d.referee.state()["shot"] == 1
    d.close()


def test_a_motion_board_entry_is_read_by_the_same_parts(tmp_path, monkeypatch):
    """With a motion sensor the shot is the board's to end; still nothing in the loop reads an entry."""
    watch_board_entries(monkeypatch)
    d = Daemon("tq", "loop://", journal_dir=str(tmp_path / "journal"), outputs=[])
    d.start_journal()
    d.handle_bytes(codec.encode({"type": HELLO, "seq": 0, "boot_id": 6, "proto": 1, "fw_major": 1,
                                 "fw_minor": 2, "pockets": 6, "rails": 6, "features": 0x0D, "name": "q"}), 0.0)
    for i, (k, idx, v) in enumerate([(MOTION, 0, 1), (RAIL, 0, 3000), (RAIL, 1, 3000), (RAIL, 2, 3000),
                                     (RAIL, 3, 3000), (MOTION, 0, 0)]):
        d.handle_bytes(event(i + 1, 1000000 + 100000 * i, k, idx, v), 0.0)
    assert d.referee.state()["shot"] == 1
    assert "host/daemon.py" not in set(Watched.readers), set(Watched.readers)
    d.close()
