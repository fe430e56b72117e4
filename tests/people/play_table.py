"""A table for the phone-page tests: a private mosquitto (fixture `broker`), a board on a pty,
the daemon as a subprocess with `--http`, an MQTT subscriber, and HTTP helpers for /api."""
import json
import os
import subprocess
import sys
import urllib.error
import urllib.request

from shared_rules.link.names import MOTION, POCKET, RAIL
from tests.host.harness import ROOT, DaemonProc, FakeBoard, PtyLink, Subscriber, free_port, wait_for


class Table:
    def __init__(self, tmp_path, broker, table="t1", players="Anna,Bob", extra=(), play_url=True):
        self.table = table
        self.journal = tmp_path / "journal"
        self.sub = Subscriber(broker.port)
        self.link = PtyLink(tmp_path / ("tty" + table))
        self.board = FakeBoard(self.link)
        self.port = free_port()
        self.base = "http://127.0.0.1:%d" % self.port
        self.daemon = DaemonProc(self.link.path, broker.url, table, self.journal,
                                 extra=["--http", str(self.port), "--players", players]
                                 + (["--play-url", self.base] if play_url else []) + list(extra)).start()
        wait_for(lambda: (self.state() or {}).get("link", {}).get("state") == "up", 20, what="link up")
        wait_for(self._http_up, 10, what="http up")

    def _http_up(self):
        try:
            return urllib.request.urlopen(self.base + "/state", timeout=1).status == 200
        except (OSError, urllib.error.URLError):
            return False

    def state(self):
        return self.sub.state(self.table)

    def token(self):
        with open(os.path.join(str(self.journal), "%s.token" % self.table)) as f:
            return f.read().strip()

    def play_token(self):
        """The token the TV's QR code carries: the match's own once the state names its match."""
        from host.web.access import match_id, match_token
        m = match_id(self.state())
        return self.token() if m is None else match_token(self.token(), m)

    def journal_lines(self):
        path = os.path.join(str(self.journal), "%s.jsonl" % self.table)
        if not os.path.exists(path):
            return []
        with open(path, "rb") as f:
            return [l for l in f.read().split(b"\n") if l.strip()]

    def all_journal_lines(self):
        """The archived segments' lines (host/journal.py: a new game closes the segment into
        `<table>/NNNNNN.jsonl[.gz]`), oldest first, then the current segment's."""
        import gzip
        folder = os.path.join(str(self.journal), self.table)
        out = []
        for name in sorted(os.listdir(folder)) if os.path.isdir(folder) else ():
            if name.endswith(".jsonl"):
                name += ".gz" if not os.path.exists(os.path.join(folder, name)) else ""
            if name.endswith(".jsonl") or name.endswith(".jsonl.gz"):
                opener = gzip.open if name.endswith(".gz") else open    # (compressed meanwhile)
                with opener(os.path.join(folder, name), "rb") as f:
                    out.extend(l for l in f.read().split(b"\n") if l.strip())
        return out + self.journal_lines()

    def results(self):
        return [json.loads(p) for p in self.sub.of("billiards/%s/cmd/result" % self.table)]

    def shot(self, n, rails=2, pocketed=()):
        """One shot as the board reports it: motion, rail hits, drops, still; waits until shot n
        is judged or the referee asks what the sensors could not tell (`needs`)."""
        self.board.push(MOTION, 0, 1)
        for r in range(rails):
            self.board.push(RAIL, r % 6, 20000)
        for pocket, ball in pocketed:
            self.board.push(POCKET, pocket, ball)
        self.board.push(MOTION, 0, 0)
        def judged():
            s = self.state() or {}
            return not s.get("shot_open") and (s.get("shot") == n or s.get("needs")) and s
        return wait_for(judged, 10, what="shot %d judged (or a question asked)" % n)

    def close(self):
        self.daemon.stop()
        self.board.stop()
        self.link.close()
        self.sub.close()


def post(base, path, body=None, token=None, raw=None, headers=None):
    """(status, headers, parsed JSON body) of a POST; errors are answers, not exceptions."""
    data = raw if raw is not None else json.dumps(body if body is not None else {}).encode()
    h = {"Content-Type": "application/json"}
    if token is not None:
        h["Authorization"] = "Bearer " + token
    h.update(headers or {})
    req = urllib.request.Request(base + path, data=data, headers=h, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, dict(r.headers), json.loads(r.read() or b"null")
    except urllib.error.HTTPError as e:
        text = e.read()
        try:
            parsed = json.loads(text)
        except ValueError:
            parsed = text.decode("utf-8", "replace")
        return e.code, dict(e.headers), parsed


def cli(*args):
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, "-m", "host.cli"] + list(args), cwd=str(ROOT), env=env,
                          capture_output=True, text=True, timeout=60)
