"""The daemon's match recorder: catch-up at start, a record per won match, the retained message
sent again on reconnect, a win taken back withdrawn, and a broken database never fatal."""
import json

from host import history
from host.recorder import MatchRecorder
from tests.venue import match_script


def _write(path, entries):
    with open(path, "w") as f:
        for e in entries:
            f.write(json.dumps(e) + "\n")


def test_recorder_follows_the_journal_and_announces_each_match(tmp_path):
    j = tmp_path / "t1.jsonl"
    entries = match_script.journal()
    _write(j, entries[:-4])                       # the last shot has not ended yet
    sent = []
    rec = MatchRecorder("t1", str(tmp_path / "h.sqlite3"), lambda: [str(j)], publish=sent.extend)
    rec.start({"winner": None})
    assert rec.wait(1)
    assert rec.on_connect() == [] and sent == []
    _write(j, entries)
    rec({"winner": 0}, [])
    rec({"winner": 0}, [])                         # the same winner again: no new sync
    assert rec.wait(2)
    assert [t for t, _, r in sent] == ["billiards/t1/match"] and sent[0][2] is True
    assert json.loads(sent[0][1])["winner_name"] == "Anna"
    assert rec.on_connect() == sent                # sent again when the broker comes back
    db = history.HistoryDB(str(tmp_path / "h.sqlite3"))
    assert [m["score"] for m in db.records()] == [[2, 0]]
    _write(j, entries + [{"src": "cmd", "cmd": "undo", "body": {}, "t_us": 0, "wall": 1764550000.0}])
    rec({"winner": None}, [])
    assert rec.wait(3)
    assert db.records() == [] and len(sent) == 1   # withdrawn, nothing announced
    db.close()
    rec.stop()
    assert rec.last_error is None


def test_a_database_that_cannot_be_written_is_reported_not_fatal(tmp_path, capsys):
    j = tmp_path / "t1.jsonl"
    _write(j, match_script.journal())
    blocker = tmp_path / "notadir"
    blocker.write_text("x")
    rec = MatchRecorder("t1", str(blocker / "h.sqlite3"), lambda: [str(j)])
    rec.start()
    assert rec.wait(1)
    rec({"winner": 0}, [])                         # and it keeps listening
    assert rec.wait(2)
    rec.stop()
    assert "FileExistsError" in rec.last_error
    assert "match history not written" in capsys.readouterr().err
