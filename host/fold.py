"""The one fold over a table's journal: start-up, `billiards replay` and the venue history read
the journal through it, so a file's head means one thing everywhere.

A journal file may begin with a head (`{"src": "snapshot", "referee": ..., "link": ...}`): the
state everything before it folded into. A head met before any entry is where the fold starts
(the referee is restored from it); a head met after entries (the next file of the same table)
only repeats what the fold already holds, and is passed over. Every other entry goes to the
referee's `apply`, and the fold's observers hear each entry with the referee's answer.
"""
from host.journal import HEAD, open_segment, scan


class Fold:
    """Feeds journal entries to a referee, heads included; `observers` hear (entry, answer)."""

    def __init__(self, referee, on_head=None, observers=()):
        self.referee = referee
        self.on_head = on_head
        self.observers = list(observers)
        self.head = None            # the head the fold started from, if any
        self.fed = 0                # entries folded (heads not counted)

    def feed(self, entry):
        """Fold one entry; the referee's answer, or None for a head."""
        if entry.get("src") == HEAD:
            if self.fed == 0 and self.head is None:
                self.head = entry
                restore(self.referee, entry["referee"])
                if self.on_head is not None:
                    self.on_head(entry)
            return None
        self.fed += 1
        res = self.referee.apply(entry)
        for observe in self.observers:
            observe(entry, res)
        return res

    def feed_file(self, path):
        """Fold a journal file, compressed or not, tolerating a torn last line."""
        with open_segment(path) as f:
            scan(f, self.feed)
        return self


def restore(referee, snapshot):
    """`referee` made what `snapshot` was taken of; it keeps its own table name and settings."""
    table, defaults = referee.table, referee.defaults
    referee.restore(snapshot)
    referee.table, referee.defaults = table, defaults


def fold_files(paths, referee, on_head=None, observers=()):
    """Fold the files of one table, oldest first, into `referee`; the Fold (its `head`, `fed`)."""
    fold = Fold(referee, on_head, observers)
    for p in paths:
        fold.feed_file(p)
    return fold


def head_table(head):
    """The table a head was written for (heads before issue 15 keep it inside the snapshot)."""
    if not head:
        return None
    if head.get("table"):
        return head["table"]
    fields = (head.get("referee") or {}).get("fields") or {}
    return fields.get("table")


def new_referee(table, settings=None):
    """The referee of shared_rules (imported late so `billiards --help` stays fast)."""
    from shared_rules.rules.referee import Referee
    return Referee(table, settings)
