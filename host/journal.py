"""The table's journal: the referee's whole input, durably, one segment per match.

`<dir>/<table>.jsonl` is the current segment: JSON Lines, one accepted board
frame or command per line. From the first new game on, its first line is a
head, `{"src": "snapshot", "referee": ..., "link": ...}`, the state everything
before it folded into; so start-up reads only this file, however long the
table's history. When the match changes (host/recorded.py) or the segment reaches
`segment_entries`, the segment is closed into `<dir>/<table>/NNNNNN.jsonl`
(then compressed to `.jsonl.gz` by a background thread) and a new one begins
with a head. A journal of the single-file days has no head: it is read whole
once, and closed into the archive at its next roll.

The daemon acknowledges a frame to the board only after `sync()` returned, so a
power cut can lose at most a line never acknowledged (and the board sends it
again). A failed write (full disk) is cut back off the file and raised as
JournalError, so the caller can refuse or roll back: nothing half-written stays.
"""
import errno
import gzip
import json
import os
import re
import threading

SEGMENT_ENTRIES = 8000      # a segment closes at this many entries even if the match goes on (start-up < 1 s)
HEAD = "snapshot"
ARCHIVED = re.compile(r"^(\d{6,})\.jsonl(\.gz)?$")


class JournalError(Exception):
    """The journal could not be written; nothing of the failed write is left in the file."""

    def __init__(self, path, err):
        self.path = path
        self.errno = getattr(err, "errno", None)
        self.disk_full = self.errno in (errno.ENOSPC, errno.EDQUOT)
        reason = err.strerror if getattr(err, "strerror", None) else str(err)
        super().__init__("%s: %s" % (path, reason))
        self.reason = reason


def journal_path(directory, table):
    return os.path.join(directory, table + ".jsonl")


def archive_dir(path):
    """Where the closed segments of the journal `path` (…/<table>.jsonl) are kept."""
    return path[:-len(".jsonl")] if path.endswith(".jsonl") else path + ".d"


def encode(entry):
    """One journal line; ValueError if the entry cannot be stored as UTF-8 JSON (lone surrogates, NaN)."""
    try:
        text = json.dumps(entry, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    except TypeError as e:
        raise ValueError(str(e))
    return (text + "\n").encode("utf-8")


def fsync_dir(directory):
    """Make a file's creation, rename or removal in `directory` durable."""
    fd = os.open(directory or ".", os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_all(fd, data):
    """os.write until all of `data` is written (a write may take only part of it)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def parse_lines(data):
    """(entries, good_length, skipped) from a segment's bytes (see `scan`)."""
    entries = []
    good, skipped = scan(iter(data.splitlines(keepends=True)), entries.append)
    return entries, good, skipped


def scan(lines, fold):
    """Feed every entry of `lines` (bytes, with their newlines) to `fold`; (good_length, skipped).

    A last line without its newline (a write cut short) ends the good part;
    a complete line that is not a JSON object is skipped and counted.
    """
    good = 0
    skipped = 0
    for line in lines:
        if not line.endswith(b"\n"):
            break                      # torn tail: ignored, truncated on open
        good += len(line)
        if not line.strip():
            continue
        try:
            e = json.loads(line)
        except ValueError:
            skipped += 1
            continue
        if isinstance(e, dict):
            fold(e)
        else:
            skipped += 1
    return good, skipped


def open_segment(path):
    """A segment file for reading, compressed or not. A closed segment listed plain may have been
    compressed by the background thread since (`compress` writes the .gz before it removes the
    plain file): it is then read from the .gz (a history page read while a game rolled the journal
    once failed here)."""
    if path.endswith(".gz"):
        return gzip.open(path, "rb")
    try:
        return open(path, "rb")
    except FileNotFoundError:
        if os.path.exists(path + ".gz"):
            return gzip.open(path + ".gz", "rb")
        raise


def read_entries(path):
    """Entries of a segment file (head included), tolerating a torn last line; never writes."""
    entries = []
    with open_segment(path) as f:
        scan(f, entries.append)
    return entries


def archived_segments(path):
    """[(number, file path)] of the closed segments of journal `path`, oldest first."""
    d = archive_dir(path)
    found = {}
    try:
        names = os.listdir(d)
    except OSError:
        return []
    for name in names:
        m = ARCHIVED.match(name)
        if m:
            n = int(m.group(1))
            if n not in found or name.endswith(".gz"):
                found[n] = os.path.join(d, name)
    return sorted(found.items())


def table_files(path):
    """Every file of the table whose current segment is `path`, oldest first (closed ones, then it)."""
    return [p for _n, p in archived_segments(path)] + ([path] if os.path.exists(path) else [])


def compress(path):
    """`path` -> `path`.gz, durably, then remove `path`; on any failure leave `path` as it is."""
    tmp = path + ".gz.tmp"
    try:
        with open(path, "rb") as src, open(tmp, "wb") as raw:
            with gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as z:
                while True:
                    block = src.read(1 << 20)
                    if not block:
                        break
                    z.write(block)
            raw.flush()
            os.fsync(raw.fileno())
        os.replace(tmp, path + ".gz")
        fsync_dir(os.path.dirname(path))
        os.unlink(path)
        fsync_dir(os.path.dirname(path))
        return True
    except OSError:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        return False


class Journal:
    """The current segment of one table's journal, opened for appending after its torn tail is cut."""

    def __init__(self, path, segment_entries=SEGMENT_ENTRIES, keep=None, background=True):
        self.path = path
        self.segment_entries = segment_entries
        self.keep = keep                 # closed segments kept (None: all, compressed)
        self.background = background     # compress closed segments in a thread
        self.skipped = 0
        self.truncated = 0
        self.entries = 0                 # entries in the current segment, head not counted
        self.has_head = False
        self._fd = None
        self._size = 0                   # bytes of the current segment known to be whole
        self._clean = True               # no cut-off write is left in the file
        self._pending = []
        self._tidy = None
        self._tidy_again = False
        self._tidy_lock = threading.Lock()

    # --- start-up ---------------------------------------------------------

    def open(self, fold=None):
        """Fold the current segment's entries (head first) into `fold`, cut a torn last line,
        and open for appending. Without `fold`, returns the entries as a list."""
        got = [] if fold is None else None
        d = os.path.dirname(self.path)
        if d and not os.path.isdir(d):
            os.makedirs(d, exist_ok=True)
            fsync_dir(os.path.dirname(d) or ".")
        self._finish_roll()
        counted = {"n": 0, "head": False}

        def each(e):
            if e.get("src") == HEAD and counted["n"] == 0 and not counted["head"]:
                counted["head"] = True
            else:
                counted["n"] += 1
            (got.append if fold is None else fold)(e)

        good = size = 0
        if os.path.exists(self.path):
            with open(self.path, "rb") as f:
                good, self.skipped = scan(f, each)
                size = f.seek(0, os.SEEK_END)
        self.entries = counted["n"]
        self.has_head = counted["head"]
        self._open_fd()
        if good < size:
            self.truncated = size - good
            os.ftruncate(self._fd, good)
            os.fsync(self._fd)
        self._size = good
        self.tidy()
        return got if fold is None else self.entries

    def _open_fd(self):
        created = not os.path.exists(self.path)
        self._fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        if created:
            fsync_dir(os.path.dirname(self.path))

    def _finish_roll(self):
        """A roll cut short by a crash: a finished new segment takes over, an unfinished one goes."""
        new = self.path + ".new"
        if not os.path.exists(new):
            return
        if os.path.exists(self.path):
            os.unlink(new)
        else:
            os.replace(new, self.path)
        fsync_dir(os.path.dirname(self.path))

    # --- writing ------------------------------------------------------------

    def append(self, entry):
        """Queue one entry; durable only after `sync()`. ValueError if it cannot be stored."""
        self.append_line(encode(entry))

    def append_line(self, line):
        self._pending.append(line)

    def sync(self):
        """Write and fsync everything appended so far (one fsync for a batch).

        On failure the file is cut back to what it held before, the batch is
        dropped, and JournalError is raised: the caller refuses what it carried."""
        if not self._pending:
            return
        data = b"".join(self._pending)
        n = len(self._pending)
        self._pending = []
        try:
            if self._fd is None:
                self._open_fd()
            if not self._clean:
                self._cut_back()
            if self._clean:      # what is in the file is whole (a blank line someone added included)
                self._size = os.fstat(self._fd).st_size
            _write_all(self._fd, data)
            os.fsync(self._fd)
        except OSError as e:
            self._cut_back()
            raise JournalError(self.path, e)
        self._size += len(data)
        self.entries += n

    def _cut_back(self):
        """Cut a failed write off; if even that fails, the next write cuts it first."""
        self._clean = False
        try:
            if self._fd is not None:
                os.ftruncate(self._fd, self._size)
                self._clean = True
        except OSError:
            pass

    # --- segments -------------------------------------------------------------

    def needs_roll(self):
        """True if the current segment has reached its size (the next entries begin a new one)."""
        return self.entries > 0 and self.entries >= self.segment_entries

    def roll(self, head):
        """Close the current segment into the archive and begin one headed by `head`.

        Order (crash-safe, see `_finish_roll`): new segment written and fsynced
        as .new, current renamed into the archive, .new renamed to current."""
        self.sync()
        head = dict(head, src=HEAD)
        line = encode(head)
        new = self.path + ".new"
        adir = archive_dir(self.path)
        base = os.path.dirname(self.path)
        try:
            fd = os.open(new, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            try:
                _write_all(fd, line)
                os.fsync(fd)
            finally:
                os.close(fd)
            if not os.path.isdir(adir):
                os.makedirs(adir, exist_ok=True)
                fsync_dir(base)
            segs = archived_segments(self.path)
            number = segs[-1][0] + 1 if segs else 1
            closed = os.path.join(adir, "%06d.jsonl" % number)
            os.replace(self.path, closed)
            fsync_dir(adir)
        except OSError as e:
            try:
                os.unlink(new)
            except OSError:
                pass
            raise JournalError(self.path, e)
        os.replace(new, self.path)
        fsync_dir(base)
        if self._fd is not None:
            os.close(self._fd)
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND)
        self._size = len(line)
        self.entries = 0
        self.has_head = True
        self.tidy()

    def tidy(self):
        """Compress closed segments and apply retention, in the background."""
        if not self.background:
            self._tidy_now()
            return
        with self._tidy_lock:
            self._tidy_again = True
            if self._tidy is not None and self._tidy.is_alive():
                return              # the running pass goes round once more
            self._tidy = threading.Thread(target=self._tidy_loop, name="journal-tidy", daemon=True)
            self._tidy.start()

    def _tidy_loop(self):
        while True:
            with self._tidy_lock:
                if not self._tidy_again:
                    return
                self._tidy_again = False
            self._tidy_now()

    def _tidy_now(self):
        segs = archived_segments(self.path)
        if self.keep is not None:
            drop = segs[:max(0, len(segs) - self.keep)]
            for _n, p in drop:
                try:
                    os.unlink(p)
                except OSError:
                    pass
            if drop:
                fsync_dir(archive_dir(self.path))
            segs = segs[len(drop):]
        for _n, p in segs:
            if p.endswith(".gz"):
                plain = p[:-3]
                if os.path.exists(plain):      # compressed, but a crash came before the unlink
                    try:
                        os.unlink(plain)
                    except OSError:
                        pass
            else:
                compress(p)

    def wait_tidy(self, timeout=30.0):
        t = self._tidy
        if t is not None:
            t.join(timeout)

    def close(self):
        if self._fd is not None:
            try:
                self.sync()
            except JournalError:
                pass
            os.close(self._fd)
            self._fd = None

