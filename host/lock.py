"""One daemon per table: an exclusive lock on `<journal dir>/<table>.lock`, held for the process's life.

fcntl.flock is released by the kernel when the process dies (even by kill -9), so a
stale lock file never blocks a restart. The file stays empty (tools that look for the
one journal file in the directory skip empty files); the holder's pid is found in
/proc/locks for the message.
"""
import errno
import fcntl
import os


class TableBusy(Exception):
    """Another daemon serves this table from this journal directory."""


class TableLock:
    def __init__(self, journal_dir, table):
        self.path = os.path.join(journal_dir, table + ".lock")
        self.table = table
        self.fd = None

    def acquire(self):
        """Take the lock or raise TableBusy; an OSError (e.g. a read-only disk) passes through."""
        os.makedirs(os.path.dirname(self.path) or ".", exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)      # for the daemon's user alone
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as e:
            holder = _holder_pid(fd)
            os.close(fd)
            if e.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise TableBusy("table %s is already served by another billiards daemon%s "
                                "(lock %s); stop it first" % (
                                    self.table, " (pid %s)" % holder if holder else "", self.path))
            raise
        self.fd = fd
        return self

    def release(self):
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


def _holder_pid(fd):
    """The pid holding a flock on the file of `fd`, from /proc/locks (Linux), or ""."""
    try:
        st = os.fstat(fd)
        want = "%02x:%02x:%d" % (os.major(st.st_dev), os.minor(st.st_dev), st.st_ino)
        with open("/proc/locks") as f:
            for line in f:
                parts = line.split()
                if "FLOCK" in parts and len(parts) > 5 and parts[5] == want:
                    return parts[4]
    except (OSError, ValueError):
        pass
    return ""
