"""Match history folded from journals: the record of a match, break-and-runs, undo, rebuild, CLI."""
import json
import os
import subprocess
import sys

from host import history
from host.web.venue import render_history
from shared_rules.link.names import BUTTON, BUTTON_NEW_GAME, BUTTON_UNDO, LONG_PRESS, PRESS
from tests.venue import match_script

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _write(path, entries):
    with open(path, "w") as f:
        for e in entries:
            f.write(json.dumps(e) + "\n")


def test_the_test_match_is_one_record_with_score_stats_and_a_break_and_run():
    records, withdrawn = history.matches_from_entries(match_script.journal(), "t1")
    assert withdrawn == set()
    assert len(records) == 1
    m = records[0]
    assert (m["game"], m["race_to"], m["games"], m["score"], m["winner_name"]) == ("nine-ball", 2, 2, [2, 0], "Anna")
    assert m["started"] == 1764540001.0 and m["ended"] > m["started"]
    anna, bob = m["players"]
    assert anna == {"name": "Anna", "score": 2, "won": True, "break_and_runs": 1, "pocketed": 18, "fouls": 0,
                    "breaks": 1, "legal_breaks": 1, "high_run": 9}
    assert bob == {"name": "Bob", "score": 0, "won": False, "break_and_runs": 0, "pocketed": 0, "fouls": 1,
                   "breaks": 1, "legal_breaks": 0, "high_run": 0}


def test_a_match_not_finished_is_not_recorded():
    entries = match_script.journal()[:-4]          # the last shot (the 9) never ended
    assert history.matches_from_entries(entries, "t1")[0] == []


def _cmd(name, body=None, wall=1764549000.0):
    return {"src": "cmd", "cmd": name, "body": body or {}, "t_us": 0, "wall": wall}


def test_a_win_taken_back_by_undo_is_withdrawn_and_a_later_win_replaces_it():
    j = match_script.journal()
    last_shot = j[-4:]
    won, _ = history.matches_from_entries(j, "t1")
    undone, withdrawn = history.matches_from_entries(j + [_cmd("undo")], "t1")
    assert undone == [] and withdrawn == {won[0]["started"]}
    again, withdrawn = history.matches_from_entries(j + [_cmd("undo")] + last_shot, "t1")
    assert withdrawn == set() and [m["score"] for m in again] == [[2, 0]]


def test_the_new_game_button_starts_a_new_match_and_undo_of_a_new_game_brings_the_old_one_back():
    j = match_script.journal()
    hold = {"src": "board", "t_us": 999000000, "kind": BUTTON, "index": BUTTON_NEW_GAME, "value": LONG_PRESS,
            "flags": 0, "wall": 1764549100.0}
    records, _ = history.matches_from_entries(j + [hold], "t1")
    assert len(records) == 1          # the finished match stays; the new one has not finished
    fold = history._MatchFold("t1")
    for e in j[:9] + [hold]:          # after the break shot has ended
        fold.feed(e)
    assert fold.current["started"] == 1764549100.0
    undo = {"src": "board", "t_us": 999100000, "kind": BUTTON, "index": BUTTON_UNDO, "value": PRESS, "flags": 0,
            "wall": 1764549101.0}
    fold.feed(undo)
    assert fold.referee.state()["shot"] == 1             # the referee brought the old game back
    assert fold.current["started"] == 1764540001.0       # and so the old match is current again
    for e in j[9:]:
        fold.feed(e)
    assert [m["score"] for m in fold.result()[0]] == [[2, 0]]


def test_rebuild_writes_what_live_syncs_write_and_the_cli_prints_the_page_figures(tmp_path):
    jdir = tmp_path / "journal"
    jdir.mkdir()
    _write(jdir / "t1.jsonl", match_script.journal())
    _write(jdir / "t2.jsonl", match_script.journal(wall0=1764600000.0))
    live = tmp_path / "live.sqlite3"
    db = history.HistoryDB(str(live))
    for t in ("t1", "t2"):
        db.sync_table(t, *history.matches_from_journals([str(jdir / (t + ".jsonl"))], t))
        db.sync_table(t, *history.matches_from_journals([str(jdir / (t + ".jsonl"))], t))   # idempotent
    live_rep = history.report(db)
    db.close()
    rebuilt = tmp_path / "rebuilt.sqlite3"
    assert history.rebuild(str(rebuilt), str(jdir)) == 2
    db = history.HistoryDB(str(rebuilt))
    assert history.report(db) == live_rep
    db.close()
    assert live_rep["players"] == [
        {"name": "Anna", "matches": 2, "wins": 2, "losses": 0, "high_run": 9, "break_and_runs": 2,
         "pocketed": 36, "fouls": 0},
        {"name": "Bob", "matches": 2, "wins": 0, "losses": 2, "high_run": 0, "break_and_runs": 0,
         "pocketed": 0, "fouls": 2}]
    assert [m["table"] for m in live_rep["matches"]] == ["t2", "t1"]       # newest first

    env = dict(os.environ, PYTHONPATH=ROOT)
    out = subprocess.run([sys.executable, "-m", "host.cli", "history", "--journal", str(jdir), "--rebuild"],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "2 finished matches rebuilt" in out.stderr
    assert out.stdout == history.render_text(live_rep)
    page = render_history(live_rep)
    for row in history.player_rows(live_rep)[1:] + history.match_rows(live_rep)[1:]:
        for cell in row:
            assert ">%s<" % cell.replace("&", "&amp;") in page


def test_history_db_survives_a_journal_with_junk_lines(tmp_path):
    p = tmp_path / "t1.jsonl"
    with open(p, "w") as f:
        f.write("not json\n[1,2]\n")
        for e in match_script.journal():
            f.write(json.dumps(e) + "\n")
        f.write('{"src": "cmd", "cmd": "new_ga')        # torn tail
    records, _ = history.matches_from_journals([str(p)], "t1")
    assert [m["score"] for m in records] == [[2, 0]]


def test_the_venue_page_survives_whatever_a_client_retained():
    from host.outputs.venue import Venue, VenueWatch
    from host.web.venue import render_venue, venue_cards
    v = Venue()
    w = VenueWatch(v)
    junk = [b"\xff\xfe", b"[1, 2]", b"null", b'{"players": "Anna", "shooter": "x", "winner": true}',
            b'{"players": [1, null, {"name": 5}], "shooter": 2, "game": {"a": 1}}', b"x" * 300000]
    for i, payload in enumerate(junk):
        for kind in ("state", "info", "match", "status"):
            assert w.on_message("billiards/j%d/%s" % (i, kind), payload) == []
    w.on_message("billiards/a/b/state", b"{}")          # not a table topic
    cards = venue_cards(v.tables())
    assert "j5" not in cards                             # too big to keep
    assert cards["j4"]["players"] == ["5"] and cards["j4"]["shooter"] is None
    assert "<html" in render_venue(v.tables())
    for i in range(300):
        w.on_message("billiards/many%d/status" % i, b"online")
    assert len(v.tables()) == Venue.MAX_TABLES
