"""A match played on a running daemon (fake board on a pty, real mosquitto) is recorded live in
SQLite, announced retained on billiards/<table>/match, equal to a rebuild from the journal, and
shown by /history, `billiards history` and /venue."""
import base64
import json
import os
import subprocess
import sys
import time
import urllib.request

import pytest

from host import history
from tests.host.harness import ROOT, DaemonProc, FakeBoard, PtyLink, free_port, wait_for
from tests.venue import match_script

pytestmark = pytest.mark.slow


def get(port, path):
    with urllib.request.urlopen("http://127.0.0.1:%d%s" % (port, path), timeout=5) as r:
        return r.read().decode("utf-8")


def result_of(sub, table, n):
    """The n-th cmd/result message of the table (waits for it)."""
    topic = "billiards/%s/cmd/result" % table
    return json.loads(wait_for(lambda: len(sub.of(topic)) > n and sub.of(topic)[n], 10,
                               what="cmd/result #%d" % n))


def play_shot(board, sub, table, step):
    before = sub.state(table)
    key = (before["rack"], before["shot"])
    for kind, index, value in match_script.board_events(step):
        board.push(kind, index, value)
        time.sleep(0.02)
    wait_for(lambda: (lambda s: not s["shot_open"] and (s["rack"], s["shot"]) != key)(sub.state(table)),
             10, what="the shot judged")


def play_match(board, sub, table):
    n = 0
    for st in match_script.steps():
        if st[0] == "cmd":
            sub.publish("billiards/%s/cmd/%s" % (table, st[1]), json.dumps(st[2]))
            assert result_of(sub, table, n)["ok"]
            n += 1
        else:
            play_shot(board, sub, table, st)


@pytest.mark.parametrize("segment", [None, 40], ids=["one-file", "segments-of-40"])
def test_a_match_played_live_is_recorded_announced_and_equal_to_the_rebuild(tmp_path, broker, subscriber,
                                                                               segment):
    link = PtyLink(tmp_path / "ttyT1")
    board = FakeBoard(link, boot_id=0x51, features=0x0D)
    jdir = tmp_path / "journal"
    http = free_port()
    extra = ["--http", str(http)] + (["--journal-segment-entries", str(segment)] if segment else [])
    d = DaemonProc(link.path, broker.url, "t1", jdir, extra=extra).start()
    # another table on the same broker, seen only through its retained messages
    subscriber.client.publish("billiards/t2/state", json.dumps(
        {"table": "t2", "game": "eight-ball", "phase": "play", "shooter": 1, "winner": None,
         "players": [{"name": "Cleo", "score": 0}, {"name": "Dan", "score": 0}]}), qos=1, retain=True)
    subscriber.client.publish("billiards/t2/status", "offline", qos=1, retain=True)
    try:
        wait_for(lambda: (subscriber.state("t1") or {}).get("link", {}).get("state") == "up", 20,
                 what="link up")
        play_match(board, subscriber, "t1")
        s = subscriber.state("t1")
        assert s["winner"] == 0 and [p["score"] for p in s["players"]] == [2, 0]
        raw = wait_for(lambda: subscriber.last.get("billiards/t1/match"), 10, what="the match message")
        announced = json.loads(raw)
        assert announced["winner_name"] == "Anna" and announced["score"] == [2, 0]

        live = json.loads(get(http, "/history.json"))
        assert live["matches"] == [announced]
        assert live["players"][0] == {"name": "Anna", "matches": 1, "wins": 1, "losses": 0, "high_run": 9,
                                      "break_and_runs": 1, "pocketed": 18, "fouls": 0}
        assert live["players"][1] == {"name": "Bob", "matches": 1, "wins": 0, "losses": 1, "high_run": 0,
                                      "break_and_runs": 0, "pocketed": 0, "fouls": 1}
        page = get(http, "/history")
        assert "<td>Anna</td><td>1</td><td>1</td><td>0</td><td>9</td><td>1</td><td>18</td><td>0</td>" in page

        venue = wait_for(lambda: (lambda v: v["t1"]["last_match"] and v)(json.loads(get(http, "/venue.json"))),
                         5, what="the venue sees the match message")
        assert set(venue) == {"t1", "t2"}
        assert venue["t1"]["online"] and venue["t1"]["winner"] == "Anna"
        # Issue 17: never a loopback address, which no phone can follow (the broker is on this machine)
        from host.web.access import lan_address
        assert venue["t1"]["play"] == "http://%s:%d/play" % (lan_address(), http)
        assert venue["t1"]["last_match"] == announced
        assert not venue["t2"]["online"] and venue["t2"]["shooter"] == "Dan"
        assert venue["t2"]["play"] is None          # t2 never said where its pages are
        html = get(http, "/venue")
        assert 'data-table="t1"' in html and 'data-table="t2"' in html and "Play on your phone" in html
        # t1's QR code is its play link without a token (issue 16: /venue is for everyone, the
        # token for the players at the table, from its TV); the TV (this machine) still has its own
        assert "/play/qr.svg" not in html
        from host.web.play import qr_svg
        drawn = base64.b64encode(qr_svg(venue["t1"]["play"]).encode()).decode()
        assert '<img src="data:image/svg+xml;base64,%s"' % drawn in html
        qr = urllib.request.urlopen("http://127.0.0.1:%d/play/qr.svg" % http, timeout=5)
        assert qr.headers["Content-Type"].startswith("image/svg+xml") and b"<svg" in qr.read()
    finally:
        board.stop()
        d.stop()
        link.close()
        subscriber.client.publish("billiards/t2/state", "", qos=1, retain=True)

    # A fresh subscriber gets the last result retained.
    from tests.host.harness import Subscriber
    late = Subscriber(broker.port, topics=("billiards/t1/match",))
    try:
        assert json.loads(wait_for(lambda: late.last.get("billiards/t1/match"), 5, what="retained")) == announced
    finally:
        late.close()

    if segment:       # the match was journaled across several files
        from host.journal import table_files
        assert len(table_files(str(jdir / "t1.jsonl"))) >= 4
    # Rebuilt from the journal alone: the same database, and the CLI prints the page's figures.
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    rebuilt = tmp_path / "rebuilt.sqlite3"
    out = subprocess.run([sys.executable, "-m", "host.cli", "history", "--journal", str(jdir),
                          "--history-db", str(rebuilt), "--rebuild", "--json"],
                         cwd=str(ROOT), env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == live
    db_live = history.HistoryDB(history.default_db(str(jdir)))
    db_re = history.HistoryDB(str(rebuilt))
    try:
        q = "SELECT table_id, started, ended, game, race_to, target, games, winner, record FROM matches"
        assert db_live.db.execute(q).fetchall() == db_re.db.execute(q).fetchall()
        q = "SELECT idx, name, score, won, pocketed, fouls, breaks, legal_breaks, high_run, break_and_runs" \
            " FROM match_players ORDER BY idx"
        assert db_live.db.execute(q).fetchall() == db_re.db.execute(q).fetchall()
    finally:
        db_live.close()
        db_re.close()
    text = subprocess.run([sys.executable, "-m", "host.cli", "history", "--journal", str(jdir)],
                          cwd=str(ROOT), env=env, capture_output=True, text=True, timeout=60).stdout
    assert text == history.render_text(live)
    print(text)
