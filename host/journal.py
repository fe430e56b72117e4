"""Append-only JSON Lines journal, one file per table: the referee's whole input, durably.

Every accepted board frame and every accepted command is one line. The daemon
acknowledges a frame to the board only after `sync()` returned, so a power cut
can lose at most a line that was never acknowledged (and the board sends it again).
"""
import json
import os


def journal_path(directory, table):
    return os.path.join(directory, table + ".jsonl")


def parse_lines(data):
    """(entries, good_length, skipped) from the file's bytes.

    A last line without its newline (a write cut short) ends the good part;
    a complete line that is not a JSON object is skipped and counted.
    """
    entries = []
    good = 0
    skipped = 0
    pos = 0
    n = len(data)
    while pos < n:
        nl = data.find(b"\n", pos)
        if nl < 0:
            break                      # torn tail: ignored, truncated on open
        line = data[pos:nl]
        pos = nl + 1
        good = pos
        if not line.strip():
            continue
        try:
            e = json.loads(line.decode("utf-8"))
        except ValueError:
            skipped += 1
            continue
        if isinstance(e, dict):
            entries.append(e)
        else:
            skipped += 1
    return entries, good, skipped


def read_entries(path):
    """Entries of a journal file, tolerating a torn last line; never writes."""
    with open(path, "rb") as f:
        return parse_lines(f.read())[0]


class Journal:
    """One table's journal file, opened for appending after its torn tail is cut away."""

    def __init__(self, path):
        self.path = path
        self.entries_at_open = []
        self.skipped = 0
        self.truncated = 0
        self._f = None
        self._dirty = False

    def open(self):
        """Read what is there (returned), cut a torn last line, and open for appending."""
        d = os.path.dirname(self.path)
        if d:
            os.makedirs(d, exist_ok=True)
        data = b""
        if os.path.exists(self.path):
            with open(self.path, "rb") as f:
                data = f.read()
        entries, good, skipped = parse_lines(data)
        self.skipped = skipped
        self._f = open(self.path, "ab")
        if good < len(data):
            self.truncated = len(data) - good
            self._f.truncate(good)
            self._f.flush()
            os.fsync(self._f.fileno())
        self.entries_at_open = entries
        return entries

    def append(self, entry):
        """Write one entry; durable only after `sync()`."""
        line = json.dumps(entry, separators=(",", ":"), ensure_ascii=False) + "\n"
        self._f.write(line.encode("utf-8"))
        self._dirty = True

    def sync(self):
        """Flush and fsync everything appended so far (one fsync for a batch)."""
        if self._dirty:
            self._f.flush()
            os.fsync(self._f.fileno())
            self._dirty = False

    def close(self):
        if self._f is not None:
            self.sync()
            self._f.close()
            self._f = None
