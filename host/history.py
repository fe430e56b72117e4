"""A venue that remembers: finished matches, folded from the journals only, kept in SQLite.

`matches_from_entries` is a pure fold over one table's journal entries (the same
referee the daemon runs), so the database can always be rebuilt from the
journals (`billiards history --rebuild`) and the live record is, by
construction, what a rebuild gives: the daemon's recorder re-folds the journal
when a match is won (or a win is undone) instead of trusting its own memory.

A match runs from an accepted `new_game` to the entry after which the state has
a match winner. A break-and-run: the breaker won the game (rack) and the other
player never came to the table in it (a turn taken back by `undo` does not count).
"""
import glob
import json
import os
import sqlite3

from host.journal import read_entries, table_files, HEAD
from shared_rules.link import names

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
    """Feeds entries to a referee and notes what a match record needs."""

    def __init__(self, table, settings=None):
        from host.daemon import load_referee_class
        self.table = table
        self.referee = load_referee_class()(table, settings)
        self.records = {}          # started -> the record of a won match (insertion order = finish order)
        self.withdrawn = set()     # started of matches whose win was taken back and not won again
        self.current = None        # {"started", "racks": {rack: winner-if-break-and-run}, ...}
        self.stack = []            # (match, state) saved at each new_game, for an undone new_game
        self.fed = False           # an entry other than a head has been folded

    def feed(self, e):
        if e.get("src") == HEAD:
            # A journal file's head: where the table stood. Folding from the first file it repeats
            # what came before; it is a start only for the oldest file kept (retention).
            if not self.fed:
                self.referee.restore(e["referee"])
                if e.get("match_started") is not None and self.referee.g is not None:
                    self.current = {"started": e["match_started"], "racks": {}, "visited": {}}
            return
        self.fed = True
        before = self.referee.state() if _is_new_game(e) else None
        res = self.referee.apply(e)
        if not (isinstance(res, dict) and res.get("ok")):
            return
        s = self.referee.g or {}      # read only; a full state() per entry would triple the cost
        if before is not None and any(isinstance(ev, dict) and ev.get("event") == "rerack"
                                      for ev in res.get("events") or ()):
            self.stack.append((self.current, before))
            self.current = {"started": e.get("wall"), "racks": {}, "visited": {}}
        elif _is_undo(e) and self.stack and _same_game(self.referee.state(), self.stack[-1][1]):
            self.current = self.stack.pop()[0]      # undo of a new game: the old match is back
        if self.current is None or s.get("game") is None:
            return
        self._follow_rack(s)
        key = self.current["started"]
        if s.get("winner") is not None:
            s = self.referee.state()
            if key not in self.records or self.records[key]["_state"] != s:
                self.records.pop(key, None)
                self.records[key] = {"_state": s, "ended": e.get("wall"), "racks": dict(self.current["racks"])}
                self.withdrawn.discard(key)
        elif key in self.records:
            self.records.pop(key)
            self.withdrawn.add(key)

    def _follow_rack(self, s):
        """Break-and-run bookkeeping for the rack being played."""
        rack, shot = s.get("rack"), s.get("shot") or 0
        visited = self.current["visited"]
        if rack in visited and shot < visited[rack]:
            del visited[rack]                       # the turn that passed was undone
        if (shot > 0 and s.get("shooter") != s.get("breaker") and rack not in visited
                and s.get("phase") != "over"):
            visited[rack] = shot
        racks = self.current["racks"]
        if s.get("phase") == "over" and s.get("game_winner") is not None:
            w = s["game_winner"]
            racks[rack] = w if (w == s.get("breaker") and rack not in visited) else None
        else:
            racks.pop(rack, None)

    def result(self):
        return [_record(self.table, started, r) for started, r in self.records.items()], set(self.withdrawn)


GAME_KEYS = ("game", "players", "stats", "shot", "rack", "phase", "on_table", "winner", "shooter")


def _same_game(a, b):
    """The game of state `a` is the one of state `b` (an undone new_game brought it back)."""
    return b.get("game") is not None and all(a.get(k) == b.get(k) for k in GAME_KEYS)


def _is_cmd(e, name):
    return isinstance(e, dict) and e.get("src") == "cmd" and e.get("cmd") == name


def _is_button(e, index):
    return (isinstance(e, dict) and e.get("src") == "board" and e.get("kind") == names.BUTTON
            and e.get("index") == index and e.get("value") in (names.PRESS, names.LONG_PRESS))


def _is_new_game(e):
    """A new_game command or the board's new-game button (accepted if it re-racks)."""
    return _is_cmd(e, "new_game") or _is_button(e, names.BUTTON_NEW_GAME)


def _is_undo(e):
    return _is_cmd(e, "undo") or _is_button(e, names.BUTTON_UNDO)


def _record(table, started, r):
    s = r["_state"]
    players = s.get("players") or []
    stats = s.get("stats") or [{} for _ in players]
    bnr = [0 for _ in players]
    for w in r["racks"].values():
        if w is not None and 0 <= w < len(bnr):
            bnr[w] += 1
    rows = []
    for i, p in enumerate(players):
        st = stats[i] if i < len(stats) else {}
        row = {"name": p.get("name"), "score": p.get("score"), "won": s.get("winner") == i,
               "break_and_runs": bnr[i]}
        for k in STAT_FIELDS:
            row[k] = st.get(k, 0)
        rows.append(row)
    straight = s.get("game") == "straight-pool"
    return {"table": table, "started": started, "ended": r["ended"], "game": s.get("game"),
            "race_to": None if straight else s.get("race_to"),
            "target": s.get("target") if straight else None,
            "games": s.get("rack"), "winner": s.get("winner"),
            "winner_name": players[s["winner"]]["name"] if s.get("winner") in (0, 1) else None,
            "score": [p.get("score") for p in players], "players": rows}


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
