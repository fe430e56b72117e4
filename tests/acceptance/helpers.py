"""A table as an outsider sees it: a pty the daemon opens as --serial, MQTT in and out."""
import itertools
import json
import os
import time

from tests.host.harness import DaemonProc, PtyLink, wait_for
from tests.acceptance import wire

_ids = itertools.count(1)


class Table:
    """The daemon for one table, started exactly as CONTRACT section 3 says, plus our board end."""

    def __init__(self, tmp_path, broker, sub, table=None, extra=()):
        self.table = table or "acc%d" % next(_ids)
        self.sub = sub
        self.broker = broker
        self.base = "billiards/" + self.table
        self.link = PtyLink(tmp_path / ("tty-" + self.table))
        self.jdir = tmp_path / ("journal-" + self.table)
        self.proc = DaemonProc(self.link.path, broker.url, self.table, self.jdir, extra=extra)
        self.dec = wire.Decoder()
        self.host_frames = []       # every decoded frame the host sent, in order
        self.prefix = "billiards"
        for i, a in enumerate(extra):
            if a == "--prefix":
                self.prefix = extra[i + 1]
        self.base = self.prefix + "/" + self.table

    def start(self, wait_state=True):
        self.proc.start()
        if wait_state:
            wait_for(lambda: self.sub.last.get(self.base + "/status") == "online", 15,
                     what="status online")
            wait_for(lambda: self.state(), 10, what="first state")
            # Bytes written before the daemon opens the port are flushed, as on a real serial
            # port, so wait for the open. (LIGHTS no longer tell: the daemon sends nothing to
            # a board it has not heard since the open, issue 8.)
            wait_for(self.port_open, 5, what="the daemon to open the port")
        return self

    def port_open(self):
        """True once the daemon process holds our pty's far end open (Linux /proc)."""
        tty = os.ttyname(self.link.slave)
        fds = "/proc/%d/fd" % self.proc.proc.pid
        try:
            return any(os.readlink(os.path.join(fds, fd)) == tty for fd in os.listdir(fds))
        except OSError:
            return False

    def stop(self):
        rc = self.proc.stop()
        self.link.close()
        return rc

    # --- serial side ----------------------------------------------------

    def write(self, *frames):
        for f in frames:
            self.link.write(f)

    def pump(self):
        """Read what the host sent so far."""
        if self.link.master is None:
            return []
        out = []
        while True:
            try:
                data = os.read(self.link.master, 4096)
            except (BlockingIOError, OSError):
                break
            if not data:
                break
            out.extend(self.dec.feed(data))
        self.host_frames.extend(out)
        return out

    def acks(self):
        self.pump()
        return [f for f in self.host_frames if f["type"] == wire.ACK]

    def lights(self):
        self.pump()
        return [f for f in self.host_frames if f["type"] == wire.LIGHTS]

    def wait_ack(self, boot_id, seq, timeout=8, after=0):
        """Wait for an ACK of (boot_id, seq) among host frames after index `after`."""
        def got():
            self.pump()
            for f in self.host_frames[after:]:
                if f["type"] == wire.ACK and f.get("boot_id") == boot_id and f.get("ack") == seq:
                    return f
            return None
        return wait_for(got, timeout, what="ACK %#x/%d" % (boot_id, seq))

    def wait_lights(self, pred, after, timeout=10, what="LIGHTS"):
        """First LIGHTS frame after host frame index `after` for which pred(frame) holds."""
        def got():
            self.pump()
            for f in self.host_frames[after:]:
                if f["type"] == wire.LIGHTS and pred(f):
                    return f
            return None
        return wait_for(got, timeout, what=what)

    def mark(self):
        self.pump()
        return len(self.host_frames)

    # --- MQTT side ------------------------------------------------------

    def state(self):
        raw = self.sub.last.get(self.base + "/state")
        return json.loads(raw) if raw else None

    def wait_state(self, pred, timeout=10, what="state"):
        def ok():
            s = self.state()
            return s if s is not None and pred(s) else None
        return wait_for(ok, timeout, what=what)

    def results(self):
        return [json.loads(p) for p in self.sub.of(self.base + "/cmd/result")]

    def cmd(self, name, body=None, raw=None, timeout=8):
        """Send a command with a fresh id; return its result object."""
        cid = "c%d" % next(_ids)
        if raw is None:
            b = dict(body or {})
            b["id"] = cid
            payload = json.dumps(b)
        else:
            payload = raw
        n = len(self.results())
        self.sub.publish(self.base + "/cmd/" + name, payload)

        def answered():
            rs = self.results()[n:]
            if raw is None:
                rs = [r for r in rs if r.get("id") == cid]
            return rs[0] if rs else None
        return wait_for(answered, timeout, what="result of %s" % name)

    def events(self):
        return [json.loads(p) for p in self.sub.of(self.base + "/event")]

    def settle(self, seconds=0.3):
        time.sleep(seconds)

    def flush(self, timeout=10):
        """Return once everything the daemon published before now has arrived: it answers a
        command it refuses after those messages (one client, QoS 1: the broker keeps their
        order), however slow a loaded machine is. A refused command changes nothing."""
        r = self.cmd("no_such_command", raw="{}", timeout=timeout)
        assert r["ok"] is False, r
