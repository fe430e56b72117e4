"""Who may play from a phone: the table's access token, and a rate limit per client.

The token lives beside the journal (`<journal>/<table>.token`, mode 0600) so that it
survives restarts, travels with the journal and is never published on MQTT. Anyone who
scans the table's QR code holds it; rotating it locks every phone out until they scan again.

Once the referee names the match in play (`state["match"]["id"]`), the TV's QR code carries
that match's own token, `match_token(table token, id)`, instead: a photo of last night's QR
code is worthless once a new match has begun. The table token itself (the sticker's, and
`billiards token`'s) stays valid until it is rotated.
"""
import base64
import hashlib
import hmac
import ipaddress
import os
import secrets
import socket
import threading
import time

TOKEN_BYTES = 24          # 192 random bits, 32 URL-safe characters


def token_path(journal_dir, table):
    return os.path.join(str(journal_dir), "%s.token" % table)


def _write_token(path, token):
    """Write atomically with mode 0600 from the first byte (no window where others can read it)."""
    d = os.path.dirname(path) or "."
    os.makedirs(d, exist_ok=True)
    tmp = "%s.%d.tmp" % (path, os.getpid())
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.fchmod(fd, 0o600)
        os.write(fd, (token + "\n").encode("ascii"))
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)


def _valid(token):
    return bool(token) and len(token) >= 16 and all(c.isalnum() or c in "-_" for c in token)


def match_token(table_token, match_id):
    """The token of one match: an HMAC of the match's id under the table token, so it says
    nothing of the table token or of any other match's, and needs no file of its own."""
    mac = hmac.new(table_token.encode("ascii"), b"billiards play token, match %d" % match_id,
                   hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac[:TOKEN_BYTES]).decode("ascii")


def match_id(state):
    """The id of the match in play from a state (`state["match"]["id"]`, an int), or None."""
    m = state.get("match") if isinstance(state, dict) else None
    i = m.get("id") if isinstance(m, dict) else None
    return i if isinstance(i, int) and not isinstance(i, bool) and i >= 0 else None


def tv_networks(spec):
    """--tv-address: addresses or networks separated by commas (192.168.1.50,
    192.168.50.0/24, fd00::5); 'any' is every client the server serves (before issue 16, the
    QR code went to all of them). Raises ValueError on anything else."""
    out = []
    for part in (spec or "").replace(" ", ",").split(","):
        if not part:
            continue
        if part == "any":
            out += [ipaddress.ip_network("0.0.0.0/0"), ipaddress.ip_network("::/0")]
        else:
            out.append(ipaddress.ip_network(part, strict=False))
    return out


class TokenStore:
    """The table's token, created on first use; re-read when the file changes, so that
    `billiards token --rotate` takes effect on a running daemon at once."""

    def __init__(self, journal_dir, table):
        self.table = table
        self.path = token_path(journal_dir, table)
        self._lock = threading.Lock()
        self._token = None
        self._stamp = None

    def _stat(self):
        try:
            st = os.stat(self.path)
        except OSError:
            return None
        return (st.st_mtime_ns, st.st_size, st.st_ino)

    def current(self):
        with self._lock:
            stamp = self._stat()
            if stamp is not None and stamp == self._stamp and self._token:
                return self._token
            token = None
            if stamp is not None:
                try:
                    with open(self.path, "r", encoding="ascii", errors="replace") as f:
                        token = f.read().strip()
                except OSError:
                    token = None
            if not _valid(token):
                token = secrets.token_urlsafe(TOKEN_BYTES)
                _write_token(self.path, token)
            self._token = token
            self._stamp = self._stat()
            return token

    def rotate(self):
        """A new token; the old one stops working."""
        with self._lock:
            token = secrets.token_urlsafe(TOKEN_BYTES)
            _write_token(self.path, token)
            self._token = token
            self._stamp = self._stat()
            return token

    def play(self, match=None):
        """The token the TV's QR code carries: the match's own (match: its id), else the table's."""
        token = self.current()
        return token if match is None else match_token(token, match)

    def check(self, given, match=None):
        """True if `given` is this table's token or, with `match` (an id), the token of that match
        or of the one just before or after it (constant-time comparisons): a phone in the match
        that a new one replaced (or an undo brought back) keeps playing, and is handed the
        current token with its next answer (`stale`); last night's is refused."""
        if not isinstance(given, str) or not given:
            return False
        given = given.encode("utf-8", "replace")
        ok = hmac.compare_digest(given, self.current().encode("ascii"))
        if match is not None:
            for m in (match - 1, match, match + 1):
                ok = hmac.compare_digest(given, self.play(m).encode("ascii")) or ok
        return ok

    def stale(self, given, match):
        """True if `given` is a match token, but not the current match's: its holder should be
        handed the current one."""
        if match is None or not isinstance(given, str):
            return False
        return given != self.current() and given != self.play(match)


class RateLimiter:
    """A token bucket per client address: `burst` requests at once, then `rate` per second.
    Bounded memory: the oldest idle clients are forgotten past `max_clients`."""

    def __init__(self, rate=4.0, burst=12, max_clients=1024, clock=time.monotonic):
        self.rate = float(rate)
        self.burst = float(burst)
        self.max_clients = max_clients
        self.clock = clock
        self._buckets = {}          # client -> [tokens, last time]
        self._lock = threading.Lock()

    def allow(self, client):
        now = self.clock()
        with self._lock:
            b = self._buckets.get(client)
            if b is None:
                if len(self._buckets) >= self.max_clients:
                    oldest = min(self._buckets, key=lambda k: self._buckets[k][1])
                    del self._buckets[oldest]
                b = self._buckets[client] = [self.burst, now]
            b[0] = min(self.burst, b[0] + (now - b[1]) * self.rate)
            b[1] = now
            if b[0] >= 1.0:
                b[0] -= 1.0
                return True
            return False

    def retry_after(self, client):
        """Whole seconds until the next request from `client` would be allowed."""
        with self._lock:
            b = self._buckets.get(client)
            missing = 1.0 - (b[0] if b else self.burst)
        return max(1, int(missing / self.rate + 0.999))


def lan_address():
    """This machine's address on the local network (the one a phone on the venue's Wi-Fi can
    reach), found by asking the kernel which source address it would route from; no packet is sent."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.connect(("192.0.2.1", 9))          # TEST-NET-1: never answered, only routed
        return s.getsockname()[0]
    except OSError:
        return "127.0.0.1"
    finally:
        s.close()


def play_url(base, token=None):
    """The phone page's URL; the token rides in the fragment, which browsers never send to a
    server, so it stays out of logs, proxies and Referer headers."""
    url = base.rstrip("/") + "/play"
    return url + ("#t=" + token if token else "")
