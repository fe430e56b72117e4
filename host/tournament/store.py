"""The venue's tournaments, results, assignments, match records, queues and log in SQLite.

Every change is one transaction, committed (WAL, synchronous=FULL: on disk) before the service
announces it or acts on it, so a `kill -9` at any moment loses nothing acknowledged and a
restart does nothing twice: a result is keyed by its match, a table's match record by its key
(table and start), and an assignment by its match. The `billiards tournament` commands write
the same file; the service notices their changes through SQLite's data_version.
Default file: `venue/tournament.sqlite3` beside the daemons' history (`--db FILE`).
"""
import json
import os
import sqlite3
import threading
import time

from host.tournament import chain

SCHEMA = """
CREATE TABLE IF NOT EXISTS tournaments (
  id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL, game TEXT NOT NULL,
  format TEXT NOT NULL, race INTEGER NOT NULL, race_final INTEGER, per_round TEXT NOT NULL,
  seeding TEXT NOT NULL, tables_json TEXT NOT NULL, options TEXT NOT NULL, players TEXT NOT NULL,
  status TEXT NOT NULL, created REAL NOT NULL, started REAL, league INTEGER);
CREATE TABLE IF NOT EXISTS results (
  tournament INTEGER NOT NULL, match TEXT NOT NULL, players TEXT NOT NULL, winner INTEGER NOT NULL,
  score TEXT, how TEXT NOT NULL, table_id TEXT, at REAL NOT NULL, record_key TEXT UNIQUE,
  PRIMARY KEY (tournament, match));
CREATE TABLE IF NOT EXISTS assignments (
  tournament INTEGER NOT NULL, match TEXT NOT NULL, table_id TEXT NOT NULL, sent_at REAL NOT NULL,
  body TEXT NOT NULL, PRIMARY KEY (tournament, match));
CREATE TABLE IF NOT EXISTS records (
  key TEXT PRIMARY KEY, table_id TEXT NOT NULL, ended REAL NOT NULL, json TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS queues (table_id TEXT PRIMARY KEY, names TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS queue_games (table_id TEXT PRIMARY KEY, body TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS leagues (
  id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL, win_points INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS match_races (
  tournament INTEGER NOT NULL, match TEXT NOT NULL, races TEXT NOT NULL, PRIMARY KEY (tournament, match));
CREATE TABLE IF NOT EXISTS chain_results (
  venue TEXT NOT NULL, league TEXT NOT NULL, json TEXT NOT NULL, at REAL NOT NULL,
  PRIMARY KEY (venue, league));
CREATE TABLE IF NOT EXISTS log (
  id INTEGER PRIMARY KEY AUTOINCREMENT, at REAL NOT NULL, kind TEXT NOT NULL, text TEXT NOT NULL);
"""
LOG_KEEP = 5000


def default_db(journal_dir="journal"):
    return os.path.join(str(journal_dir), "venue", "tournament.sqlite3")


class Store:
    def __init__(self, path, clock=time.time):
        d = os.path.dirname(os.path.abspath(path))
        os.makedirs(d, exist_ok=True)
        self.path = path
        self.clock = clock
        self._lock = threading.RLock()
        self.db = sqlite3.connect(path, timeout=10, isolation_level=None, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")
        self.db.execute("PRAGMA busy_timeout=10000")
        with self._lock:
            self.db.executescript(SCHEMA)
            cols = [r[1] for r in self.db.execute("PRAGMA table_info(leagues)").fetchall()]
            if "slug" not in cols:          # a database from before leagues across venues
                self.db.execute("ALTER TABLE leagues ADD COLUMN slug TEXT")

    def close(self):
        with self._lock:
            self.db.close()

    # ------------------------------------------------------------------ plumbing
    class _Tx:
        def __init__(self, store):
            self.store = store

        def __enter__(self):
            self.store._lock.acquire()
            self.store.db.execute("BEGIN IMMEDIATE")
            return self.store.db

        def __exit__(self, kind, value, tb):
            try:
                self.store.db.execute("COMMIT" if kind is None else "ROLLBACK")
            finally:
                self.store._lock.release()
            return False

    def tx(self):
        """One transaction: committed (durably) when the block ends, rolled back on an error."""
        return Store._Tx(self)

    def _rows(self, sql, args=()):
        with self._lock:
            return self.db.execute(sql, args).fetchall()

    def data_version(self):
        """Changes by other connections (the CLI) bump this number."""
        with self._lock:
            return self.db.execute("PRAGMA data_version").fetchone()[0]

    # ------------------------------------------------------------------ tournaments
    def create(self, name, game, fmt, race, players, tables, seeding="hand", race_final=None,
               per_round=None, options=None, league=None):
        with self.tx() as c:
            cur = c.execute(
                "INSERT INTO tournaments (name, game, format, race, race_final, per_round, seeding,"
                " tables_json, options, players, status, created, league) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (name, game, fmt, race, race_final, json.dumps(per_round or {}), seeding,
                 json.dumps(list(tables)), json.dumps(options or {}), json.dumps(list(players)),
                 "waiting", self.clock(), league))
            tid = cur.lastrowid
            self._log(c, "create", "tournament %d %r created (%s, %s, %d players)" % (tid, name, fmt, game, len(players)))
            return tid

    def ids(self, status=None):
        rows = self._rows("SELECT id, status FROM tournaments ORDER BY id")
        return [r[0] for r in rows if status is None or r[1] == status]

    def tournament(self, tid):
        """The tournament as host/tournament/model.py reads it, or None."""
        with self._lock:
            r = self.db.execute("SELECT id, name, game, format, race, race_final, per_round, seeding,"
                                " tables_json, options, players, status, created, started, league"
                                " FROM tournaments WHERE id = ?", (tid,)).fetchone()
            if r is None:
                return None
            results = self.db.execute("SELECT match, players, winner, score, how, table_id, at, record_key"
                                      " FROM results WHERE tournament = ?", (tid,)).fetchall()
            assigned = self.db.execute("SELECT match, table_id, sent_at, body FROM assignments"
                                       " WHERE tournament = ?", (tid,)).fetchall()
            each = self.db.execute("SELECT match, races FROM match_races WHERE tournament = ?", (tid,)).fetchall()
        t = {"id": r[0], "name": r[1], "game": r[2], "format": r[3], "race": r[4], "race_final": r[5],
             "per_round": json.loads(r[6]), "seeding": r[7], "tables": json.loads(r[8]),
             "options": json.loads(r[9]), "players": json.loads(r[10]), "status": r[11],
             "created": r[12], "started": r[13], "league": r[14]}
        t["results"] = {m: {"players": json.loads(p), "winner": w, "score": json.loads(s) if s else None,
                            "how": how, "table": tb, "at": at, "record_key": key}
                        for m, p, w, s, how, tb, at, key in results}
        t["playing"] = {m: tb for m, tb, _at, _b in assigned}
        t["assigned"] = {m: {"table": tb, "sent_at": at, "body": json.loads(b)} for m, tb, at, b in assigned}
        t["races"] = {m: json.loads(r) for m, r in each}
        return t

    def set_players(self, tid, players):
        with self.tx() as c:
            c.execute("UPDATE tournaments SET players = ? WHERE id = ? AND status = 'waiting'",
                      (json.dumps(list(players)), tid))
            self._log(c, "seed", "tournament %d seeded: %s" % (tid, ", ".join(players)))

    def set_tables(self, tid, tables):
        with self.tx() as c:
            c.execute("UPDATE tournaments SET tables_json = ? WHERE id = ?", (json.dumps(list(tables)), tid))

    def start(self, tid):
        with self.tx() as c:
            n = c.execute("UPDATE tournaments SET status = 'running', started = ? WHERE id = ? AND"
                          " status = 'waiting'", (self.clock(), tid)).rowcount
            if n:
                self._log(c, "start", "tournament %d started" % tid)
            return bool(n)

    # ------------------------------------------------------------------ matches
    def assign(self, tid, match, table, body, sent_at=None):
        """The match is on `table` from now on (a move replaces the old table)."""
        with self.tx() as c:
            c.execute("INSERT OR REPLACE INTO assignments (tournament, match, table_id, sent_at, body)"
                      " VALUES (?,?,?,?,?)", (tid, match, table, sent_at or self.clock(), json.dumps(body)))
            each = body.get("race_to")      # a handicap's two races, kept after the result for the bracket
            if isinstance(each, list):
                c.execute("INSERT OR REPLACE INTO match_races (tournament, match, races) VALUES (?,?,?)",
                          (tid, match, json.dumps(each)))
            else:
                c.execute("DELETE FROM match_races WHERE tournament = ? AND match = ?", (tid, match))
            self._log(c, "assign", "tournament %d match %s -> table %s: %s" % (
                tid, match, table, " v ".join(body.get("players", []))))

    def unassign(self, tid, match, why):
        with self.tx() as c:
            c.execute("DELETE FROM assignments WHERE tournament = ? AND match = ?", (tid, match))
            self._log(c, "unassign", "tournament %d match %s taken off its table: %s" % (tid, match, why))

    def put_result(self, tid, match, result, record_key=None, text=None):
        """Record (or replace, for a correction) a match's result and free its table, at once.
        False if the record key was counted before (nothing changes)."""
        with self.tx() as c:
            if record_key is not None and c.execute(
                    "SELECT 1 FROM results WHERE record_key = ? AND NOT (tournament = ? AND match = ?)",
                    (record_key, tid, match)).fetchone():
                return False
            c.execute("INSERT OR REPLACE INTO results (tournament, match, players, winner, score, how,"
                      " table_id, at, record_key) VALUES (?,?,?,?,?,?,?,?,?)",
                      (tid, match, json.dumps(result["players"]), result["winner"],
                       json.dumps(result["score"]) if result.get("score") else None, result["how"],
                       result.get("table"), result.get("at") or self.clock(), record_key))
            c.execute("DELETE FROM assignments WHERE tournament = ? AND match = ?", (tid, match))
            self._log(c, "result", text or "tournament %d match %s: %s" % (tid, match, result["how"]))
            return True

    def drop_result(self, tid, match, why):
        with self.tx() as c:
            c.execute("DELETE FROM results WHERE tournament = ? AND match = ?", (tid, match))
            self._log(c, "reopen", "tournament %d match %s reopened: %s" % (tid, match, why))

    def assignments(self):
        """[(tournament, match, table, sent_at, body)] of every running tournament."""
        rows = self._rows("SELECT a.tournament, a.match, a.table_id, a.sent_at, a.body FROM assignments a"
                          " JOIN tournaments t ON t.id = a.tournament WHERE t.status = 'running'")
        return [(t, m, tb, at, json.loads(b)) for t, m, tb, at, b in rows]

    # ------------------------------------------------------------------ table match records
    def add_record(self, rec):
        """Keep a finished match (host/tournament/referee.plain) for the ratings; False if known."""
        with self.tx() as c:
            return c.execute("INSERT OR IGNORE INTO records (key, table_id, ended, json) VALUES (?,?,?,?)",
                             (rec["key"], rec["table"], rec["ended"], json.dumps(rec))).rowcount == 1

    def known_record(self, key):
        return bool(self._rows("SELECT 1 FROM records WHERE key = ?", (key,)))

    def counted_keys(self):
        return {r[0] for r in self._rows("SELECT record_key FROM results WHERE record_key IS NOT NULL")}

    def records(self):
        return [json.loads(r[0]) for r in self._rows("SELECT json FROM records ORDER BY ended")]

    def rated_matches(self):
        """Every finished match for the ratings: the tables' records, with each tournament
        match's result as the director last ruled it (a corrected score replaces the table's),
        plus the matches ruled without a table (walkovers are not rated)."""
        recs = {r["key"]: r for r in self.records()}
        out = dict(recs)
        for tid in self.ids():
            t = self.tournament(tid)
            for mid, res in t["results"].items():
                a, b = [t["players"][p] for p in res["players"]]
                key = res.get("record_key") or "t%d/%s" % (tid, mid)
                base = recs.get(key, {})
                out[key] = {"key": key, "ended": base.get("ended", res["at"]), "players": [a, b],
                            "winner": t["players"][res["winner"]], "score": res["score"],
                            "walkover": res["how"] == "walkover", "game": t["game"]}
        return list(out.values())

    # ------------------------------------------------------------------ queues, leagues, log
    def queue(self, table):
        r = self._rows("SELECT names FROM queues WHERE table_id = ?", (table,))
        return json.loads(r[0][0]) if r else []

    def queues(self):
        return {t: json.loads(n) for t, n in self._rows("SELECT table_id, names FROM queues")}

    def set_queue(self, table, names, text=None, game=None, game_over=False):
        """The table's queue; with `game`, the new_game of the two who leave it to play, kept
        (in the same transaction) until that game's record comes; `game_over`: the queue's last
        game ended and no one plays next."""
        with self.tx() as c:
            c.execute("INSERT OR REPLACE INTO queues (table_id, names) VALUES (?, ?)", (table, json.dumps(names)))
            if game is not None:
                c.execute("INSERT OR REPLACE INTO queue_games (table_id, body) VALUES (?, ?)",
                          (table, json.dumps(game)))
            elif game_over:
                c.execute("DELETE FROM queue_games WHERE table_id = ?", (table,))
            if text:
                self._log(c, "queue", text)

    def queue_games(self):
        """{table: new_game body} of the queue's games sent and not yet ended (by their record)."""
        return {t: json.loads(b) for t, b in self._rows("SELECT table_id, body FROM queue_games")}

    def create_league(self, name, win_points=1, slug=None):
        """A league; `slug` is its id across venues (default: made from its name), one per league."""
        slug = slug or chain.slug(name)
        if not chain.is_id(slug) or slug.isdigit():
            raise ValueError("a league's slug is 1 to 40 letters, digits, '-' and '_' (not only digits)")
        with self.tx() as c:
            if slug in [l["slug"] for l in self._leagues(c)]:
                raise ValueError("league %r exists already (give another --slug)" % slug)
            return c.execute("INSERT INTO leagues (name, win_points, slug) VALUES (?, ?, ?)",
                             (name, win_points, slug)).lastrowid

    def leagues(self):
        with self._lock:
            return self._leagues(self.db)

    @staticmethod
    def _leagues(c):
        """Every league; one made before slugs has the slug of its name."""
        return [{"id": i, "name": n, "win_points": w, "slug": s or chain.slug(n)} for i, n, w, s in
                c.execute("SELECT id, name, win_points, slug FROM leagues ORDER BY id").fetchall()]

    # ------------------------------------------------------------------ other venues' league results
    def put_chain_results(self, venue, league, doc, most=chain.MAX_VENUES):
        """Keep another venue's results of a league (replacing its earlier ones); False, and
        nothing kept, when the league already keeps `most` other venues and this is a new one;
        None when they are the ones kept already (nothing changes)."""
        text = json.dumps(doc, ensure_ascii=False, sort_keys=True)
        with self.tx() as c:
            old = c.execute("SELECT json FROM chain_results WHERE venue = ? AND league = ?",
                            (venue, league)).fetchone()
            if old is not None and old[0] == text:
                return None
            if old is None and c.execute("SELECT COUNT(*) FROM chain_results WHERE league = ?",
                                         (league,)).fetchone()[0] >= most:
                return False
            c.execute("INSERT OR REPLACE INTO chain_results (venue, league, json, at) VALUES (?,?,?,?)",
                      (venue, league, text, self.clock()))
            self._log(c, "league", "league %s: %d matches from venue %s" % (league, len(doc["matches"]), venue))
            return True

    def drop_chain_results(self, venue, league):
        with self.tx() as c:
            if c.execute("DELETE FROM chain_results WHERE venue = ? AND league = ?", (venue, league)).rowcount:
                self._log(c, "league", "league %s: venue %s withdrew its results" % (league, venue))

    def chain_results(self, league):
        """[(results, when kept)] of the other venues of a league, by venue."""
        return [(json.loads(j), at) for j, at in
                self._rows("SELECT json, at FROM chain_results WHERE league = ? ORDER BY venue", (league,))]

    def league_nights(self, league):
        return [r[0] for r in self._rows("SELECT id FROM tournaments WHERE league = ? ORDER BY id", (league,))]

    def _log(self, c, kind, text):
        c.execute("INSERT INTO log (at, kind, text) VALUES (?,?,?)", (self.clock(), kind, text))
        c.execute("DELETE FROM log WHERE id <= (SELECT MAX(id) FROM log) - ?", (LOG_KEEP,))

    def log(self, kind, text):
        with self.tx() as c:
            self._log(c, kind, text)

    def log_lines(self, limit=50, kind=None):
        rows = self._rows("SELECT at, kind, text FROM log ORDER BY id DESC LIMIT ?", (limit,)) if kind is None \
            else self._rows("SELECT at, kind, text FROM log WHERE kind = ? ORDER BY id DESC LIMIT ?", (kind, limit))
        return [{"at": a, "kind": k, "text": t} for a, k, t in rows]
