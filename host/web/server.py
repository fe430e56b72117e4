"""Bar-TV scoreboard: a tiny stdlib HTTP server pushing the table state.

`GET /` the page, `GET /state` the last state as JSON, `GET /events` a
Server-Sent Events stream: one `data:` line of `{"now": <server wall time>,
"state": {...}}` per state (the first at once), so the page can count the
shot clock down without trusting the TV's own clock. The daemon calls
`publish(state, events)` from any thread. Each envelope also carries `"log"`, the last game
events of the match in play (what was said, in both languages: the pages' shot log). With
`play` (host/web/play.py) the same server also serves the phone page `/play` and its command
API `/api/...`, and each envelope also carries `"qr"`, a tag that changes whenever the QR
code's token does, so the TV page redraws its QR code without a reload. `GET
/vocabulary.json` gives the referee's words (rules/messages.vocabulary: fouls, decision
options, pockets, games, groups, break rules, in English and Russian) that the pages show.

Every route answers only under the table's own names (`host_allowed`: DNS rebinding),
and every client is bounded in what it can make the server spend: connections and
streams (per address and in all), the time and bytes of a request head and body.
"""

import http.client
import io
import ipaddress
import json
import logging
import mimetypes
import os
import re
import select
import socket
import threading
import time
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from shared_rules.rules.messages import vocabulary

log = logging.getLogger("billiards.web")

STATIC_DIR = os.path.dirname(os.path.abspath(__file__))
STATIC_FILES = {"/": "index.html", "/index.html": "index.html",
                "/tv.css": "tv.css", "/tv.js": "tv.js", "/live.js": "live.js",
                "/tablemap.js": "tablemap.js"}      # the table as the camera sees it (issue 18)
KEEPALIVE_S = 15.0
# A bar's Wi-Fi is open to strangers: every connection holds a thread, so they are bounded.
MAX_CONNECTIONS = 64       # at once; past it a short 503 is written and the socket closed
MAX_PER_CLIENT = 16        # per address (a browser opens at most 6 per host)
MAX_STREAMS = 40           # /events streams at once (each phone and TV holds one); oldest gives way
STREAMS_PER_CLIENT = 3     # a phone that slept and came back replaces its oldest stream
CHECK_S = 2.0              # a stream looks this often whether its client closed it
STREAM_MAX_S = 300.0       # a stream ends after this; EventSource reconnects by itself
HEAD_S = 10.0              # request line and headers (or a kept-alive idle) within this, or closed
MAX_HEAD = 16 * 1024       # request line and headers in all (http.server bounds only each line)
BODY_S = 5.0               # a request body arrives within this, or the connection is closed
LOCAL_SUFFIXES = (".local", ".lan", ".home.arpa", ".internal", ".localdomain")
# Pages that show the table: our own scripts and styles only, no other site may frame them.
TV_HEADERS = {"Content-Security-Policy": "default-src 'self'; img-src 'self' data:; "
              "frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
              "X-Frame-Options": "DENY", "Referrer-Policy": "no-referrer",
              "X-Content-Type-Options": "nosniff"}
HOST_HEADER = re.compile(r"^(?:\[([0-9a-f:.]+)\]|([a-z0-9.\-]+))(?::[0-9]{1,5})?$")
VOCABULARY = json.dumps(vocabulary(), ensure_ascii=False, sort_keys=True)
LOG_SIZE = 30              # game events the envelope's shot log keeps (the match in play's)
QUIET_EVENTS = ("shot",)   # "Anna is shooting": said at every shot, no news in a log


def host_allowed(host, own=()):
    """DNS rebinding: a web page on the internet, opened by a phone on the bar's Wi-Fi, can point
    its own domain at this server and read it as its own site. Such a Host is a public name, so
    only these are served: IP literals, `localhost`, single-label and local names (.local, .lan,
    .home.arpa, .internal, .localdomain) and the names in `own` (--play-url's host). A missing
    Host (HTTP/1.0) is a direct client, not a browser. Anything else that is not exactly a name
    or a bracketed IPv6 address with an optional port (`evil.example#.local`,
    `[::1].evil.example`) is refused."""
    host = (host or "").strip().lower()
    if not host:
        return True
    m = HOST_HEADER.match(host)
    if not m:
        return False
    if m.group(1) is not None:                     # [IPv6]
        try:
            return ipaddress.ip_address(m.group(1)).version == 6
        except ValueError:
            return False
    name = m.group(2)
    try:
        ipaddress.ip_address(name)
        return True
    except ValueError:
        pass
    name = name.rstrip(".")
    if not name or name.startswith(".") or ".." in name:
        return False
    return name in own or "." not in name or name.endswith(LOCAL_SUFFIXES)


def _client_ip(address):
    """The ip_address of a client (an IPv4-mapped IPv6 one as IPv4), or None."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return None
    mapped = getattr(ip, "ipv4_mapped", None)
    return ip if mapped is None else mapped


def client_in(address, networks):
    """True if the client address is in one of `networks` (ip_network)."""
    ip = _client_ip(address)
    return ip is not None and any(ip.version == n.version and ip in n for n in networks)


def is_local_client(address):
    """True for a client on this machine or on a private network (loopback, RFC 1918, link-local,
    carrier-grade NAT, IPv6 ULA): what a bar TV on the venue LAN is, and the internet is not."""
    ip = _client_ip(address)
    return ip is not None and not ip.is_global and not ip.is_multicast


def url_host(url):
    """(the host name of an http(s) URL,) or () (the Host a browser sends for it, port aside)."""
    m = re.match(r"^[a-z]+://(\[[^\]]*\]|[^/:?#]+)", (url or "").strip().lower())
    return (m.group(1).strip("[]"),) if m else ()


class _Hub:
    """The last state and a version number that SSE streams wait on."""

    def __init__(self):
        self.cond = threading.Condition()
        self.version = 0
        self.log = deque(maxlen=LOG_SIZE)      # {"event", "player", "text", "wall"}, oldest first
        self.log_json = "[]"
        self.match = None
        self.state_json = "null"
        self.state = None          # the same state as a dict (read, never changed, by the routes)
        self.closed = False
        self.streams = []         # [client, ended, kept]: oldest first; kept: a TV's

    def open_stream(self, client, kept=False):
        """A slot for a new /events stream. A client at STREAMS_PER_CLIENT gives up its oldest
        (a phone that slept left it behind). At MAX_STREAMS the address holding the most streams
        gives up its oldest (most likely a phone gone to sleep; a live page reconnects by itself
        after `retry`), so many addresses opening streams take each other's, not the TV's; a
        `kept` stream (a TV's address, --tv-address) gives way only when all are kept."""
        with self.cond:
            mine = [s for s in self.streams if s[0] == client]
            victim = mine[0] if len(mine) >= STREAMS_PER_CLIENT else (
                self._crowded() if len(self.streams) >= MAX_STREAMS else None)
            if victim is not None:
                victim[1] = True
                self.streams.remove(victim)
                self.cond.notify_all()
            slot = [client, False, kept]
            self.streams.append(slot)
            return slot

    def _crowded(self):
        """The oldest stream of the address holding the most, a TV's last of all."""
        pool = [s for s in self.streams if not s[2]] or self.streams
        count = {}
        for s in pool:
            count[s[0]] = count.get(s[0], 0) + 1
        most = max(count.values())
        return next(s for s in pool if count[s[0]] == most)

    def close_stream(self, slot):
        with self.cond:
            if slot in self.streams:
                self.streams.remove(slot)

    def publish(self, state, events=()):
        text = json.dumps(state, ensure_ascii=False, separators=(",", ":"))
        with self.cond:
            self._note(state, events)
            self.state_json = text
            self.state = state
            self.version += 1
            self.cond.notify_all()

    def _note(self, state, events):
        """The shot log: a new match begins a new one; each event that says something joins it."""
        match = (state or {}).get("match") if isinstance(state, dict) else None
        match = match.get("id") if isinstance(match, dict) else None
        if match != self.match:
            self.match = match
            self.log.clear()
        now = time.time()
        for e in events or ():
            text = e.get("text") if isinstance(e, dict) else None
            if isinstance(text, dict) and e.get("event") not in QUIET_EVENTS and text.get("en"):
                self.log.append({"event": e.get("event"), "player": e.get("player"),
                                 "text": {"en": text.get("en"), "ru": text.get("ru") or text.get("en")},
                                 "wall": round(now, 3)})
        self.log_json = json.dumps(list(self.log), ensure_ascii=False, separators=(",", ":"))

    def close(self):
        with self.cond:
            self.closed = True
            self.cond.notify_all()


def _envelope(state_json, qr=None, log_json="[]"):
    if qr is None:
        return '{"now":%.3f,"state":%s,"log":%s}' % (time.time(), state_json, log_json)
    return '{"now":%.3f,"state":%s,"log":%s,"qr":%s}' % (time.time(), state_json, log_json, json.dumps(qr))


class _HandlerBase(BaseHTTPRequestHandler):
    server_version = "BilliardsTV/1"
    protocol_version = "HTTP/1.1"
    timeout = 60       # a client that stops sending (or reading) frees its thread
    disable_nagle_algorithm = True   # headers and body are two writes: no 40 ms delayed-ACK stall

    def log_message(self, fmt, *args):     # quiet: the daemon logs what matters
        pass

    def _send(self, code, body, ctype, extra=None):
        """One whole answer. Every answer says nosniff (a JSON or stream answer is never taken
        for a page); a refused request that left its body unread says `Connection: close`. A
        client that went away meanwhile is not an error: the connection just ends."""
        data = body.encode("utf-8") if isinstance(body, str) else body
        try:
            self.send_response(code)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Cache-Control", "no-cache")
            extra = dict(extra or {})
            extra.setdefault("X-Content-Type-Options", "nosniff")
            if self.close_connection:
                extra.setdefault("Connection", "close")
            for k, v in extra.items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def is_tv(self):
        """True if this client may see the table's token: this machine (its address is the one
        it reached us at: a kiosk browser on the host, by any of its addresses) or --tv-address."""
        try:
            here = self.connection.getsockname()[0]
        except OSError:
            here = None
        return self.client_address[0] == here or self.server.is_tv(self.client_address[0])

    def _host_refused(self):
        """421 if the Host is not one of the table's own names (see host_allowed)."""
        if host_allowed(self.headers.get("Host"), self.server.own_hosts):
            return False
        self.close_connection = True
        text = ("this page is served only under the table's own address (its IP address or local "
                "name)")
        path = self.path.split("?", 1)[0]
        if path.startswith("/api/") or path.endswith(".json"):
            self._send(421, json.dumps({"ok": False, "error": text}), "application/json; charset=utf-8")
        else:
            self._send(421, text + "\n", "text/plain; charset=utf-8")
        return True

    def read_body(self, n):
        """The request's body of `n` bytes (n <= a route's maximum), or None: it did not all come
        within BODY_S, or the connection was evicted for a client that asked for something (the
        server counts a connection waiting for its body as waiting, like one waiting for its
        head). Either way the connection is closed after the answer."""
        if n <= 0:
            return b""
        self._deadline(BODY_S)
        self.server.waiting(self.connection, self.client_address[0], True)
        try:
            data = self.rfile.read(n)
        except (OSError, ValueError):
            data = None
        finally:
            self.server.waiting(self.connection, self.client_address[0], False)
            self._deadline(None)
        if data is None or len(data) < n:
            self.close_connection = True
            return None
        return data

    def _deadline(self, seconds):
        """Reads from now on end within `seconds` in all (None: the handler's timeout per read)."""

    def do_GET(self):
        if self._host_refused():
            return
        path = self.path.split("?", 1)[0]
        hub = self.server.hub
        for page in self.server.pages:      # other modules' pages (host/web/venue.py)
            if page(self, path):
                return
        play = self.server.play
        if play is not None and play.get(self, path):
            return
        if path == "/state":
            with hub.cond:
                body = hub.state_json
            self._send(200, body, "application/json; charset=utf-8")
        elif path == "/vocabulary.json":
            self._send(200, VOCABULARY, "application/json; charset=utf-8")
        elif path == "/events":
            self._stream(hub)
        elif path in STATIC_FILES:
            name = STATIC_FILES[path]
            extra = TV_HEADERS if name.endswith(".html") else None
            try:
                with open(os.path.join(self.server.static_dir, name), "rb") as f:
                    data = f.read()
            except OSError:
                self._send(404, "not found\n", "text/plain; charset=utf-8")
                return
            ctype = mimetypes.guess_type(name)[0] or "application/octet-stream"
            if ctype.startswith("text/") or ctype.endswith("javascript"):
                ctype += "; charset=utf-8"
            self._send(200, data, ctype, extra)
        else:
            self._send(404, "not found\n", "text/plain; charset=utf-8")

    def do_POST(self):
        if self._host_refused():
            return
        path = self.path.split("?", 1)[0]
        play = self.server.play
        if play is not None and play.post(self, path):
            return
        self.close_connection = True
        self._send(404, "not found\n", "text/plain; charset=utf-8")

    def _stream(self, hub):
        slot = hub.open_stream(self.client_address[0], kept=self.is_tv())
        try:
            self._stream_to(hub, slot)
        finally:
            hub.close_stream(slot)

    def _gone(self):
        """True if the client closed its end (a stream's client never sends anything)."""
        try:
            r, _, _ = select.select([self.connection], [], [], 0)
            return bool(r) and self.connection.recv(1, socket.MSG_PEEK) == b""
        except (OSError, ValueError):
            return True

    def _qr_tag(self):
        play = self.server.play
        return play.qr_tag(self) if play is not None else None

    def _stream_to(self, hub, slot):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        seen = -1
        qr = None
        end = time.monotonic() + STREAM_MAX_S
        wrote = time.monotonic()
        try:
            self.wfile.write(b"retry: 2000\n\n")
            while True:
                with hub.cond:
                    now = time.monotonic()
                    if hub.version == seen and not hub.closed and not slot[1] and now < end:
                        hub.cond.wait(min(CHECK_S, end - now))
                    if hub.closed or slot[1] or time.monotonic() >= end:
                        return
                    fresh = hub.version != seen
                    seen = hub.version
                    state_json = hub.state_json
                    log_json = hub.log_json
                tag = self._qr_tag()             # a rotated token (even by `billiards token`)
                if fresh or tag != qr:
                    qr = tag
                    msg = "data: %s\n\n" % _envelope(state_json, qr, log_json)
                elif time.monotonic() - wrote >= KEEPALIVE_S:
                    msg = ": keepalive\n\n"
                elif self._gone():
                    return
                else:
                    continue
                self.wfile.write(msg.encode("utf-8"))
                self.wfile.flush()
                wrote = time.monotonic()
        except (BrokenPipeError, ConnectionResetError, OSError):
            return


class HeadTooLarge(http.client.LineTooLong):
    """A request head past MAX_HEAD bytes (http.server answers a LineTooLong from the headers
    with 431; one from the request line is answered 414 here)."""


class _TimedReader(io.RawIOBase):
    """The connection's raw reader with one deadline for a request's line and headers, and
    another for its body: a client sending a byte now and then (slowloris, or a body that trickles)
    or idling on a kept-alive connection is cut off at HEAD_S or BODY_S, not held for the socket
    timeout per byte."""

    def __init__(self, sock):
        self._sock = sock
        self.deadline = None

    def readable(self):
        return True

    def readinto(self, buf):
        if self.deadline is not None:
            left = self.deadline - time.monotonic()
            if left <= 0:
                raise socket.timeout("request too slow")
            self._sock.settimeout(left)
        return self._sock.recv_into(buf)


class _BoundedReader(io.BufferedReader):
    """The buffered reader with a budget for the request head: http.server reads the request line
    and each header with readline, bounding each line (64 KiB) and their count (100) but not
    their sum (6.4 MB, and several times that once parsed). While `head_left` is set, a line
    may take only what is left of MAX_HEAD; past it, HeadTooLarge."""
    head_left = None

    def readline(self, limit=-1):
        if self.head_left is None:
            return super().readline(limit)
        cap = self.head_left + 1
        line = super().readline(cap if limit is None or limit < 0 else min(limit, cap))
        self.head_left -= len(line)
        if self.head_left < 0:
            raise HeadTooLarge("request head over %d bytes" % MAX_HEAD)
        return line


class _Handler(_HandlerBase):
    def setup(self):
        super().setup()
        self._timed = _TimedReader(self.connection)
        self.rfile = _BoundedReader(self._timed)

    def _deadline(self, seconds):
        if seconds is None:
            self._timed.deadline = None
            self.connection.settimeout(self.timeout)
        else:
            self._timed.deadline = time.monotonic() + seconds

    def handle_one_request(self):
        self._deadline(HEAD_S)
        self.rfile.head_left = MAX_HEAD
        self.server.waiting(self.connection, self.client_address[0], True)
        try:
            super().handle_one_request()
        except socket.timeout:
            self.close_connection = True
        except HeadTooLarge:                  # the request line itself (headers: parse_request's 431)
            self.close_connection = True
            self.requestline = self.request_version = self.command = ""
            self.send_error(414)
        finally:
            self.rfile.head_left = None
            self.server.waiting(self.connection, self.client_address[0], False)

    def parse_request(self):
        ok = super().parse_request()
        self.rfile.head_left = None                # the head is in: the body has its own bounds
        self.server.waiting(self.connection, self.client_address[0], False)
        self._deadline(None)
        return ok


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    local_only = False          # `--http-bind lan`: refuse clients from public addresses
    request_queue_size = 64
    own_hosts = ()              # Host names served besides IP addresses and local names
    tv_networks = ()            # who sees the token: ip_network list (--tv-address)

    def is_tv(self, address):
        return client_in(address, self.tv_networks)

    def verify_request(self, request, client_address):
        """socketserver calls this before any byte is read; False closes the connection."""
        return not self.local_only or is_local_client(client_address[0])

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._conn_lock = threading.Lock()
        self._open = {}            # client address -> connections being served
        self._idle = {}            # socket -> client address, of connections waiting on their
                                   # client: for a request head, or for the body after it

    def process_request(self, request, client_address):
        """A thread per connection, within MAX_CONNECTIONS and MAX_PER_CLIENT. At a cap, the
        oldest connection still waiting on its client (for a request, or for the body of one;
        the client's own first) is closed to make room: a phone that left a socket open, or a
        body that trickles, gives way to one that asks now. With none waiting, a short 503 from
        this (accepting) thread, which never waits on the client."""
        client = client_address[0]
        with self._conn_lock:
            total = sum(self._open.values())
            mine = self._open.get(client, 0)
            busy = total >= MAX_CONNECTIONS or mine >= MAX_PER_CLIENT
            if busy and total < 2 * MAX_CONNECTIONS:   # evicted threads may still be ending
                victim = self._oldest_idle(client if mine >= MAX_PER_CLIENT else None)
                if victim is not None:
                    del self._idle[victim]
                    self._cut(victim)
                    busy = False
            if not busy:
                self._open[client] = mine + 1
        if busy:
            self._refuse(request)
            return
        try:
            super().process_request(request, client_address)
        except Exception:
            self._release(client)
            raise

    def _oldest_idle(self, client=None):
        for sock, who in self._idle.items():      # insertion order: oldest first
            if client is None or who == client:
                return sock
        return None

    @staticmethod
    def _cut(sock):
        try:
            sock.shutdown(socket.SHUT_RDWR)       # its thread's read returns at once; it ends
        except OSError:
            pass

    def waiting(self, sock, client, idle):
        """A handler waits on its client on `sock` (idle: a request head, or a body) or not."""
        with self._conn_lock:
            if idle:
                self._idle[sock] = client
            else:
                self._idle.pop(sock, None)

    def process_request_thread(self, request, client_address):
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._release(client_address[0])

    def _release(self, client):
        with self._conn_lock:
            n = self._open.get(client, 0) - 1
            if n > 0:
                self._open[client] = n
            else:
                self._open.pop(client, None)

    def connections(self):
        with self._conn_lock:
            return sum(self._open.values())

    def _refuse(self, request):
        try:
            request.setblocking(False)
            request.send(b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\n"
                         b"Content-Length: 14\r\nRetry-After: 5\r\nConnection: close\r\n\r\n"
                         b"server busy.\r\n")
        except OSError:
            pass
        self.shutdown_request(request)

    def handle_error(self, request, client_address):
        """A request that failed is logged (one line, no traceback on the console); the
        connection is closed, the server goes on."""
        import sys
        log.warning("http: a request from %s failed: %r", client_address[0], sys.exc_info()[1])


class ScoreboardServer:
    """The TV page for one table. `publish(state, events)` is thread-safe."""

    def __init__(self, host="0.0.0.0", port=8080, static_dir=STATIC_DIR, play=None, local_only=False,
                 tv=None, own_hosts=()):
        """`tv`: the addresses or networks (ip_network) of the TV pages besides this machine's
        own, which alone see the token and whose streams others cannot end; `own_hosts`: Host
        names served besides IP addresses and local names (default: --play-url's, from `play`)."""
        self._httpd = _Server((host, port), _Handler)
        self._httpd.local_only = local_only
        self._httpd.tv_networks = tuple(tv or ())
        own = set(h.lower() for h in own_hosts)
        if play is not None and getattr(play, "base_url", None):
            own.update(url_host(play.base_url) or ())
        self._httpd.own_hosts = frozenset(own)
        self._httpd.hub = _Hub()
        self._httpd.play = play         # host/web/play.PlayRoutes: the phone page and its API
        self._httpd.static_dir = static_dir
        self._httpd.pages = []
        self._thread = None

    def add_page(self, page):
        """page(handler, path) -> True if it answered the GET."""
        self._httpd.pages.append(page)
        return self

    @property
    def port(self):
        """The port bound (useful with port 0)."""
        return self._httpd.server_address[1]

    @property
    def url(self):
        host = self._httpd.server_address[0]
        if host in ("0.0.0.0", "::"):
            host = "127.0.0.1"
        return "http://%s:%d/" % (host, self.port)

    def publish(self, state, events=()):
        self._httpd.hub.publish(state, events)

    def start(self):
        if self._thread is None:
            self._thread = threading.Thread(target=self._httpd.serve_forever,
                                            name="tv-page", daemon=True)
            self._thread.start()
        return self

    def stop(self):
        self._httpd.hub.close()
        if self._thread is not None:
            self._httpd.shutdown()
            self._thread.join(5)
            self._thread = None
        self._httpd.server_close()
