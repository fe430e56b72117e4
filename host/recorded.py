"""The recorded table: the journal and the referee as one, disk before memory.

Board entries are made durable first (append, one fsync for a batch), then the link
acknowledges them, then they are judged (`take`). A command is judged first, with the
referee's snapshot as the way back, and kept only if the journal took it (`command`): a
refused or unrecorded command leaves nothing behind. The journal's health (disk full, write
failed) is this part's fault to report.

Segments: the journal begins a new file, headed by the table as it stood, before every entry
that changes the match in play (the referee says which: a new game from any source, a
decision or a button, or the undo of one) and when a file reaches its size; start-up folds
the current file through the one fold (host/fold.py).
"""
import logging
import time

from host.fold import Fold, restore
from host.journal import JournalError, encode, HEAD
from shared_rules.link.names import BUTTON
from shared_rules.rules.messages import refusal

log = logging.getLogger("billiards")


class RecordedTable:
    def __init__(self, journal, referee):
        self.journal = journal
        self.referee = referee
        self.fault = None               # the journal's fault of state.faults, or None

    # --- start-up -----------------------------------------------------------

    def open(self, link=None, observers=()):
        """Fold the current segment into the referee (and the link's session); roll a segment that
        outgrew its size. Returns the number of entries folded."""
        def on_head(head):
            self.referee.adopt_match_start(head.get("match_started"))   # heads before match identities
            if link is not None:
                link.restore_head(head.get("link") or {})

        def on_entry(entry, res):
            if link is not None:
                link.restore(entry)

        fold = Fold(self.referee, on_head, [on_entry] + list(observers))
        try:
            n = self.journal.open(fold.feed)
        except OSError as e:        # e.g. a full disk when the file must be created: a fault, not a crash
            self._failed(JournalError(self.journal.path, e))
            return 0
        if self.journal.truncated:
            log.warning("journal %s: cut a torn last line (%d bytes)", self.journal.path, self.journal.truncated)
        if self.journal.needs_roll():      # e.g. a long journal of the single-file days
            self.roll(self.referee.snapshot(), link)
        return n

    # --- segments -------------------------------------------------------------

    def head(self, referee_snapshot, link=None, was=None):
        """The first line of a new segment: where the table stood before it. `was`: the match and
        shot of `referee_snapshot` ({"match", "shot_open"}) when the referee has already moved
        past it (a command is judged before it is journaled); by default the referee's own."""
        if was is None:
            was = self.standing()
        lh = link.head() if link is not None else {"boot_id": None, "expect": 0, "hello": None}
        lh["shot_open"] = was["shot_open"]
        return {"src": HEAD, "table": self.referee.table, "referee": referee_snapshot, "wall": time.time(),
                "match_started": was["match"]["started"], "link": lh}

    def standing(self):
        """What a head says of the table besides its snapshot: the match in play, a shot open."""
        return {"match": self.referee.match(), "shot_open": self.referee.shot_open()}

    def roll(self, referee_snapshot, link=None, was=None):
        """Begin a new journal segment; False (and a fault) if the disk would not have it."""
        try:
            self.journal.roll(self.head(referee_snapshot, link, was))
        except JournalError as e:
            self._failed(e)
            return False
        log.info("journal: new segment %s", self.journal.path)
        return True

    # --- board entries ----------------------------------------------------------

    def take(self, entries, link, now, mark):
        """Board entries: durable, acknowledged, then judged, run by run; a run begins at each
        button (which may change the match: the segment then rolls before it). A run the disk
        refuses is neither acknowledged nor judged, nor is anything after it: the link expects
        it again. Returns (the entries judged, their events)."""
        judged, events = [], []
        for run in runs_at_buttons(entries):
            if self.journal.entries and (self.journal.needs_roll() or self.referee.changes_match(run[0])):
                self.roll(self.referee.snapshot(), link)
            for e in run:
                self.journal.append(e)
            if not self.sync():     # not on disk: not ACKed, not judged; the board sends it again
                link.expect_again(run[0], mark, judged)
                break
            link.acknowledge(now)
            for e in run:
                res = self.referee.apply(e)
                if isinstance(res, dict):
                    events.extend(res.get("events") or [])
            judged.extend(run)
        return judged, events

    # --- commands ---------------------------------------------------------------

    def command(self, entry, link=None):
        """Judge a command entry; journal it only if the referee accepted it, and keep it only if
        the journal took it (disk before memory). Returns the referee's answer."""
        try:
            line = encode(entry)
        except ValueError as e:
            return refusal("host.cannot_journal", (e,))
        before = self.referee.snapshot()
        was = self.standing()
        match = was["match"]
        try:
            res = self.referee.apply(entry)
        except Exception as e:   # the referee must not raise; if it does, refuse, never crash
            restore(self.referee, before)
            res = refusal("host.internal", (e,))
        if not isinstance(res, dict):
            res = refusal("host.internal", ("bad referee answer",))
        if res.get("ok"):
            new_match = self.referee.match()["id"] != match["id"] or self.referee.match()["started"] != match["started"]
            if not self._journal_command(line, before, was, new_match, link):
                restore(self.referee, before)
                res = refusal("host.not_recorded", (self.fault["text"],))
        return res

    def _journal_command(self, line, before, was, new_match, link):
        """Write an accepted command durably; one that changed the match begins a new segment,
        headed by the table as it stood before it (`before`; `was`: its match and shot, which the
        head names, not the ones the command left)."""
        if self.journal.entries and (new_match or self.journal.needs_roll()):
            self.roll(before, link, was)      # if the disk refuses a new file, the old segment goes on
        self.journal.append_line(line)
        return self.sync()

    # --- the journal's health ------------------------------------------------------

    def sync(self):
        """fsync what was appended; False (and the journal fault) if the disk refused it."""
        try:
            self.journal.sync()
        except JournalError as e:
            self._failed(e)
            return False
        if self.fault is not None:
            self.fault = None
            log.warning("journal writable again: %s", self.journal.path)
        return True

    def _failed(self, err):
        code = "disk_full" if err.disk_full else "write_failed"
        text = ("journal disk full: cannot write %s; the board keeps its events until there is room"
                % err.path if err.disk_full else "journal write failed: %s" % err)
        fault = {"sensor": None, "what": "journal", "fault": code, "text": text}
        if self.fault != fault:
            self.fault = fault
            log.error(text)

    def close(self):
        self.journal.close()


def runs_at_buttons(entries):
    """`entries` cut into runs, each button press beginning one (most batches are one run)."""
    runs = []
    for e in entries:
        if not runs or (e.get("src") == "board" and e.get("kind") == BUTTON):
            runs.append([])
        runs[-1].append(e)
    return runs
