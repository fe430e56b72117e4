"""A venue that remembers: finished matches, folded from the journals only, kept in SQLite.

`matches_from_entries` is the one fold (host/fold.py) over one table's journal entries (the
same referee the daemon runs), so the database can always be rebuilt from the journals
(`billiards history --rebuild`) and the live record is, by construction, what a rebuild
gives: the daemon's recorder folds the journal's current segment again when a match is won
(or a win is undone) instead of trusting its own memory. A segment's head carries the whole
match so far (the referee names the match and counts its break-and-runs), so that costs one
segment at most, however long the match.

A match runs from an accepted `new_game` to the entry after which the state has
a match winner. A break-and-run: the breaker won the game (rack) and the other
player never came to the table in it (a turn taken back by `undo` does not count).
"""
import glob
import json
import os
import sqlite3

from host.journal import read_entries, table_files

DEFAULT_NAME = os.path.join("venue", "history.sqlite3")   # a subdirectory: the journals stay alone
STAT_FIELDS = ("pocketed", "fouls", "breaks", "legal_breaks", "high_run")


def default_db(journal_dir):
    return os.path.join(journal_dir, DEFAULT_NAME)


def journal_files(journal_dir):
    """{table: [journal files, oldest first]} found in a journal directory."""
    out = {}
    for path in sorted(glob.glob(os.path.join(journal_dir, "*.jsonl"))):
        table = os.path.splitext(os.path.basename(path))[0]
        out.setdefault(table, []).extend(table_files(path))   # closed match files first
    return out


class _MatchFold:
    """The one fold (host/fold.py) over a table's journal, noting each won match's record.

    The referee names the match in play (`Referee.match()`: its id, the wall of the entry that
    began it, and of the one that won it), whoever began it and whatever undo did since; a
    record is keyed by that start, as the database is.
    """

    def __init__(self, table, settings=None):
        from host.fold import Fold, new_referee
        self.table = table
        self.referee = new_referee(table, settings)
        self.fold = Fold(self.referee, on_head=self._head, observers=[self._entry])
        self.records = {}          # started -> {"_state", "ended"} of a won match (insertion order = finish order)
        self.withdrawn = set()     # started of matches whose win was taken back and not won again

    def feed(self, e):
        self.fold.feed(e)

    @property
    def current(self):
        """The match in play, as the referee names it: {"started": wall of its first entry}."""
        return {"started": self.referee.match()["started"]}

    def _head(self, head):
        self.referee.adopt_match_start(head.get("match_started"))     # heads before match identities
        self._entry(head, {"ok": True})      # a segment may begin on a won table (rolled after the win)

    def _entry(self, e, res):
        g = self.referee.g      # read only; a full state() per entry would triple the cost
        if not (isinstance(res, dict) and res.get("ok")) or g is None:
            return
        m = self.referee.match()
        key = m["started"]
        if g["winner"] is not None:
            s = self.referee.state()
            if key not in self.records or self.records[key]["_state"] != s:
                self.records.pop(key, None)
                self.records[key] = {"_state": s, "ended": m["ended"]}
                self.withdrawn.discard(key)
        elif key in self.records:
            self.records.pop(key)
            self.withdrawn.add(key)

    def result(self):
        return [record(self.table, r["_state"], started, r["ended"]) for started, r in self.records.items()], \
            set(self.withdrawn)


def record(table, s, started=None, ended=None):
    """The history record of a won match from its state (the referee's, or the daemon's)."""
    m = s.get("match") or {}
    started = m.get("started") if started is None else started
    ended = m.get("ended") if ended is None else ended
    players = s.get("players") or []
    stats = s.get("stats") or [{} for _ in players]
    bnr = s.get("break_and_runs") or [0 for _ in players]
    rows = []
    for i, p in enumerate(players):
        st = stats[i] if i < len(stats) else {}
        row = {"name": p.get("name"), "score": p.get("score"), "won": s.get("winner") == i,
               "break_and_runs": bnr[i] if i < len(bnr) else 0}
        for k in STAT_FIELDS:
            row[k] = st.get(k, 0)
        rows.append(row)
    straight = s.get("game") == "straight-pool"
    rec = {"table": table, "started": started, "ended": ended, "game": s.get("game"),
           "race_to": None if straight else s.get("race_to"),
           "target": s.get("target") if straight else None,
           "games": s.get("rack"), "winner": s.get("winner"),
           "winner_name": players[s["winner"]]["name"] if s.get("winner") in (0, 1) else None,
           "score": _score(s, players), "players": rows}
    each = s.get("race_to_each")
    if not straight and isinstance(each, list) and len(each) == 2 and each[0] != each[1]:
        rec["race_to_each"] = list(each)        # a handicap: each player's race (race_to: the longer)
    if m.get("assignment"):
        rec["assignment"] = m["assignment"]     # the venue service's label, from its new_game
    return rec


def _score(s, players):
    """The match's score: games won (eight-ball, nine-ball, a 14.1 race of games), or the points
    of a 14.1 match of one game."""
    if s.get("game") == "straight-pool" and (s.get("race_to") or 1) > 1 and s.get("match_score"):
        return list(s["match_score"])
    return [p.get("score") for p in players]


def matches_from_entries(entries, table, settings=None):
    """(records of every won match, `started` keys of wins taken back) from a journal's entries."""
    fold = _MatchFold(table, settings)
    for e in entries:
        fold.feed(e)
    return fold.result()


def matches_from_journals(paths, table, settings=None):
    entries = []
    for p in paths:
        try:
            entries.extend(read_entries(p))
        except OSError:
            continue
    return matches_from_entries(entries, table, settings)


# ------------------------------------------------------------------ SQLite

SCHEMA = """
CREATE TABLE IF NOT EXISTS matches (
  id INTEGER PRIMARY KEY,
  table_id TEXT NOT NULL, started REAL, ended REAL, game TEXT,
  race_to INTEGER, target INTEGER, games INTEGER, winner INTEGER,
  record TEXT NOT NULL,
  UNIQUE (table_id, started));
CREATE TABLE IF NOT EXISTS match_players (
  match_id INTEGER NOT NULL REFERENCES matches(id) ON DELETE CASCADE,
  idx INTEGER NOT NULL, name TEXT NOT NULL, score INTEGER, won INTEGER,
  pocketed INTEGER, fouls INTEGER, breaks INTEGER, legal_breaks INTEGER,
  high_run INTEGER, break_and_runs INTEGER,
  PRIMARY KEY (match_id, idx));
"""


def _dumps(rec):
    return json.dumps(rec, sort_keys=True, ensure_ascii=False)


class HistoryDB:
    """The venue's match history (one file for all tables)."""

    def __init__(self, path):
        d = os.path.dirname(path)
        if d:
            os.makedirs(d, exist_ok=True)
        self.path = path
        self.db = sqlite3.connect(path, timeout=10, check_same_thread=False)
        self.db.execute("PRAGMA foreign_keys = ON")
        self.db.executescript(SCHEMA)

    def close(self):
        self.db.close()

    def upsert(self, rec):
        """Insert or replace the record of one match (a table and its start time name it)."""
        with self.db:
            self._upsert(rec)

    def _upsert(self, rec):
        self._delete(rec["table"], rec["started"])
        cur = self.db.execute(
            "INSERT INTO matches (table_id, started, ended, game, race_to, target, games, winner, record)"
            " VALUES (?,?,?,?,?,?,?,?,?)",
            (rec["table"], rec["started"], rec["ended"], rec["game"], rec["race_to"], rec["target"],
             rec["games"], rec["winner"], _dumps(rec)))
        mid = cur.lastrowid
        for i, p in enumerate(rec["players"]):
            self.db.execute(
                "INSERT INTO match_players VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                (mid, i, p["name"], p["score"], int(bool(p["won"])), p["pocketed"], p["fouls"],
                 p["breaks"], p["legal_breaks"], p["high_run"], p["break_and_runs"]))

    def _delete(self, table, started):
        self.db.execute("DELETE FROM match_players WHERE match_id IN (SELECT id FROM matches"
                        " WHERE table_id = ? AND started IS ?)", (table, started))
        self.db.execute("DELETE FROM matches WHERE table_id = ? AND started IS ?", (table, started))

    def sync_table(self, table, records, withdrawn):
        """Bring one table's rows in line with a fold of its journal (live recording): one
        transaction, and only the matches that changed are written."""
        have = dict(self.db.execute("SELECT started, record FROM matches WHERE table_id = ?", (table,)))
        with self.db:
            for rec in records:
                if have.get(rec["started"]) != _dumps(rec):
                    self._upsert(rec)
            for started in withdrawn:
                self._delete(table, started)

    def replace_all(self, by_table):
        """{table: records}: the whole database again (a rebuild), in one transaction."""
        with self.db:
            self.db.execute("DELETE FROM match_players")
            self.db.execute("DELETE FROM matches")
            for table in sorted(by_table):
                for rec in by_table[table]:
                    self._upsert(rec)

    def records(self, limit=None, table=None):
        """Match records, newest first."""
        q = "SELECT record FROM matches"
        args = []
        if table is not None:
            q += " WHERE table_id = ?"
            args.append(table)
        q += " ORDER BY ended DESC, id DESC"
        if limit:
            q += " LIMIT ?"
            args.append(int(limit))
        return [json.loads(r[0]) for r in self.db.execute(q, args)]

    def totals(self):
        """Per-player totals over every recorded match, best first."""
        rows = self.db.execute(
            "SELECT name, COUNT(*), SUM(won), SUM(1 - won), MAX(high_run), SUM(break_and_runs),"
            " SUM(pocketed), SUM(fouls) FROM match_players GROUP BY name"
            " ORDER BY SUM(won) DESC, SUM(1 - won) ASC, name")
        keys = ("name", "matches", "wins", "losses", "high_run", "break_and_runs", "pocketed", "fouls")
        return [dict(zip(keys, r)) for r in rows]


def rebuild(db_path, journal_dir, settings=None):
    """Empty the database and fill it from every journal in `journal_dir`; returns the match count."""
    by_table = {}
    for table, paths in journal_files(journal_dir).items():
        by_table[table] = matches_from_journals(paths, table, settings)[0]
    db = HistoryDB(db_path)
    try:
        db.replace_all(by_table)
    finally:
        db.close()
    return sum(len(v) for v in by_table.values())


# ------------------------------------------------------------------ report

def report(db, limit=20):
    """What /history and `billiards history` show: recent matches and per-player totals."""
    return {"matches": db.records(limit=limit), "players": db.totals()}


def _when(t):
    import time
    if not isinstance(t, (int, float)):
        return "?"
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(t))


def _duration(m):
    a, b = m.get("started"), m.get("ended")
    if not isinstance(a, (int, float)) or not isinstance(b, (int, float)):
        return "?"
    secs = max(0, int(round(b - a)))
    return "%d:%02d" % (secs // 60, secs % 60)


def match_rows(rep):
    """Rows (list of str lists) of the recent-matches table, header first."""
    rows = [["ended", "table", "game", "players", "score", "winner", "length"]]
    for m in rep["matches"]:
        names = " v ".join(p["name"] for p in m["players"])
        score = "-".join(str(s) for s in m["score"])
        each = m.get("race_to_each")
        if isinstance(each, list) and len(each) == 2:
            score += " (race %s/%s)" % (each[0], each[1])      # a handicapped match
        rows.append([_when(m["ended"]), m["table"], m["game"], names, score, m["winner_name"] or "?",
                     _duration(m)])
    return rows


def player_rows(rep):
    rows = [["player", "matches", "wins", "losses", "high run", "break-and-runs", "pocketed", "fouls"]]
    for p in rep["players"]:
        rows.append([p["name"], str(p["matches"]), str(p["wins"]), str(p["losses"]), str(p["high_run"]),
                     str(p["break_and_runs"]), str(p["pocketed"]), str(p["fouls"])])
    return rows


def _text_table(rows):
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows)


def render_text(rep):
    out = ["Recent matches", _text_table(match_rows(rep)) if rep["matches"] else "(none yet)", "",
           "Players", _text_table(player_rows(rep)) if rep["players"] else "(none yet)"]
    return "\n".join(out) + "\n"
