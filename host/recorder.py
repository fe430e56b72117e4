"""The daemon's live match recorder: at each match end, the journal is folded again (host/history)
from the file where the match began, and the table's rows in SQLite are brought in line; the
match just won goes out retained on `<prefix>/<table>/match`. Older matches were written when
they ended, from the same files, so the database stays what a rebuild gives.

It listens to the daemon's states (a `daemon.listeners` callable) and works in its own
thread, so a long journal never delays an ACK to the board. The journal is synced before
the daemon publishes a state, so the fold sees the entry that won the match.
"""
import json
import queue
import sys
import threading

from host import history
from host.journal import HEAD, open_segment
from host.outputs.core import QuietOutput


def _head_match(path):
    """`match_started` of a segment's head line (None: no head, or no match in play at it)."""
    try:
        with open_segment(path) as f:
            first = f.readline()
        e = json.loads(first) if first.endswith(b"\n") else None
    except (OSError, ValueError, EOFError):
        return None
    return e.get("match_started") if isinstance(e, dict) and e.get("src") == HEAD else None


def from_match_start(paths):
    """The table's journal files from the one where the match in play began (oldest first).

    Segments close at each new game and every `SEGMENT_ENTRIES`: the later heads of one
    match all name its start, so walking back while they do, plus the file before, folds
    that match whole, as a rebuild does (break-and-runs of its early games included)."""
    paths = list(paths)
    if len(paths) < 2:
        return paths
    named = _head_match(paths[-1])
    i = len(paths) - 1
    while i > 0 and named is not None and _head_match(paths[i - 1]) == named:
        i -= 1
    return paths[max(0, i - 1):]


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
        paths = from_match_start(self.journal_paths())
        records, withdrawn = history.matches_from_journals(paths, self.table, self.settings)
        db.sync_table(self.table, records, withdrawn)
        if announce and records and self.publish is not None:
            last = max(records, key=lambda r: (r["ended"] or 0))
            self.announced = (self.topic, json.dumps(last, sort_keys=True, ensure_ascii=False), True)
            self.publish([self.announced])
