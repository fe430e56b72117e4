"""The daemon's live match recorder: at each match end, the journal's current segment is folded
again (host/history), from its head, and the table's rows in SQLite are brought in line; the
match just won goes out retained on `<prefix>/<table>/match`. The head holds the match so far,
so the cost is one segment at most whatever the match's length (a long match is never read
whole). Older matches were written when they ended, from the same files, so the database
stays what a rebuild gives.

It listens to the daemon's states (a `daemon.listeners` callable) and works in its own
thread, so a long journal never delays an ACK to the board. The journal is synced before
the daemon publishes a state, so the fold sees the entry that won the match.
"""
import json
import queue
import sys
import threading

from host import history
from host.outputs.core import QuietOutput


class MatchRecorder(QuietOutput):
    def __init__(self, table, db_path, journal_paths, publish=None, prefix="billiards", settings=None):
        """journal_paths: callable -> the table's journal files; publish: callable([(topic, payload,
        retain)]) (e.g. the MQTT shell's), or None."""
        self.table = table
        self.db_path = db_path
        self.journal_paths = journal_paths
        self.publish = publish
        self.topic = "%s/%s/match" % (prefix, table)
        self.settings = settings
        self.last_winner = None
        self.synced = 0                 # syncs done (tests wait on it)
        self.last_error = None
        self.announced = None           # the last match message, sent again on every (re)connect
        self._queue = queue.Queue()
        self._thread = None
        self._cond = threading.Condition()

    def start(self, state=None):
        """Catch up with the journal (matches won while no recorder ran); then follow states."""
        self.last_winner = (state or {}).get("winner")
        self._thread = threading.Thread(target=self._run, name="match-recorder", daemon=True)
        self._thread.start()
        self._queue.put(False)
        return self

    def __call__(self, state, events):
        """A daemon listener: a winner appearing (or taken back) means the record changed."""
        w = state.get("winner") if isinstance(state, dict) else None
        if w != self.last_winner:
            self.last_winner = w
            self._queue.put(w is not None)

    # As a daemon output: the last result stays retained on the broker, also across broker
    # restarts without persistence (the match message is published from the recorder's thread).
    def on_connect(self):
        return [self.announced] if self.announced else []

    def stop(self, timeout=5.0):
        if self._thread is not None:
            self._queue.put(None)
            self._thread.join(timeout)
            self._thread = None

    def wait(self, n, timeout=10.0):
        """Block until `n` syncs are done (for tests and the CLI)."""
        with self._cond:
            return self._cond.wait_for(lambda: self.synced >= n, timeout)

    def _run(self):
        db = None
        try:
            while True:
                item = self._queue.get()
                if item is None:
                    return
                try:
                    if db is None:
                        db = history.HistoryDB(self.db_path)
                    self._sync(db, announce=item)
                except Exception as e:     # a broken database must not take the daemon down
                    self.last_error = repr(e)
                    sys.stderr.write("billiards: match history not written to %s: %s\n" % (self.db_path, e))
                with self._cond:
                    self.synced += 1
                    self._cond.notify_all()
        finally:
            if db is not None:
                db.close()

    def _sync(self, db, announce):
        paths = self.journal_paths()[-1:]       # the current segment: its head holds the match so far
        records, withdrawn = history.matches_from_journals(paths, self.table, self.settings)
        db.sync_table(self.table, records, withdrawn)
        if announce and records and self.publish is not None:
            last = max(records, key=lambda r: (r["ended"] or 0))
            self.announced = (self.topic, json.dumps(last, sort_keys=True, ensure_ascii=False), True)
            self.publish([self.announced])
