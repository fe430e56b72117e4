"""Bar-TV scoreboard: a tiny stdlib HTTP server pushing the table state.

`GET /` the page, `GET /state` the last state as JSON, `GET /events` a
Server-Sent Events stream: one `data:` line of `{"now": <server wall time>,
"state": {...}}` per state (the first at once), so the page can count the
shot clock down without trusting the TV's own clock. The daemon calls
`publish(state)` from any thread. With `play` (host/web/play.py) the same
server also serves the phone page `/play` and its command API `/api/...`.
"""

import io
import ipaddress
import json
import logging
import mimetypes
import os
import select
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

log = logging.getLogger("billiards.web")

STATIC_DIR = os.path.dirname(os.path.abspath(__file__))
STATIC_FILES = {"/": "index.html", "/index.html": "index.html",
                "/tv.css": "tv.css", "/tv.js": "tv.js", "/live.js": "live.js"}
KEEPALIVE_S = 15.0
# A bar's Wi-Fi is open to strangers: every connection holds a thread, so they are bounded.
MAX_CONNECTIONS = 64       # at once; past it a short 503 is written and the socket closed
MAX_PER_CLIENT = 16        # per address (a browser opens at most 6 per host)
MAX_STREAMS = 40           # /events streams at once (each phone and TV holds one); oldest gives way
STREAMS_PER_CLIENT = 3     # a phone that slept and came back replaces its oldest stream
CHECK_S = 2.0              # a stream looks this often whether its client closed it
STREAM_MAX_S = 300.0       # a stream ends after this; EventSource reconnects by itself
HEAD_S = 10.0              # request line and headers (or a kept-alive idle) within this, or closed
# Pages that show the table: our own scripts and styles only, no other site may frame them.
TV_HEADERS = {"Content-Security-Policy": "default-src 'self'; img-src 'self' data:; "
              "frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
              "X-Frame-Options": "DENY", "Referrer-Policy": "no-referrer",
              "X-Content-Type-Options": "nosniff"}


class _Hub:
    """The last state and a version number that SSE streams wait on."""

    def __init__(self):
        self.cond = threading.Condition()
        self.version = 0
        self.state_json = "null"
        self.closed = False
        self.streams = []         # [client, ended]: oldest first

    def open_stream(self, client):
        """A slot for a new /events stream. A client at STREAMS_PER_CLIENT gives up its oldest
        (a phone that slept left it behind); at MAX_STREAMS the oldest of all gives way (most
        likely a phone gone to sleep; a live page reconnects by itself after `retry`)."""
        with self.cond:
            mine = [s for s in self.streams if s[0] == client]
            victim = mine[0] if len(mine) >= STREAMS_PER_CLIENT else (
                self.streams[0] if len(self.streams) >= MAX_STREAMS else None)
            if victim is not None:
                victim[1] = True
                self.streams.remove(victim)
                self.cond.notify_all()
            slot = [client, False]
            self.streams.append(slot)
            return slot

    def close_stream(self, slot):
        with self.cond:
            if slot in self.streams:
                self.streams.remove(slot)

    def publish(self, state):
        text = json.dumps(state, ensure_ascii=False, separators=(",", ":"))
        with self.cond:
            self.state_json = text
            self.version += 1
            self.cond.notify_all()

    def close(self):
        with self.cond:
            self.closed = True
            self.cond.notify_all()


def _envelope(state_json):
    return '{"now":%.3f,"state":%s}' % (time.time(), state_json)


class _HandlerBase(BaseHTTPRequestHandler):
    server_version = "BilliardsTV/1"
    protocol_version = "HTTP/1.1"
    timeout = 60       # a client that stops sending (or reading) frees its thread
    disable_nagle_algorithm = True   # headers and body are two writes: no 40 ms delayed-ACK stall

    def log_message(self, fmt, *args):     # quiet: the daemon logs what matters
        pass

    def _send(self, code, body, ctype, extra=None):
        data = body.encode("utf-8") if isinstance(body, str) else body
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-cache")
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
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
        elif path == "/events":
            self._stream(hub)
        elif path in STATIC_FILES:
            name = STATIC_FILES[path]
            extra = TV_HEADERS if name.endswith(".html") else {"X-Content-Type-Options": "nosniff"}
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
        path = self.path.split("?", 1)[0]
        play = self.server.play
        if play is not None and play.post(self, path):
            return
        self.close_connection = True
        self._send(404, "not found\n", "text/plain; charset=utf-8")

    def _stream(self, hub):
        slot = hub.open_stream(self.client_address[0])
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

    def _stream_to(self, hub, slot):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        seen = -1
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
                if fresh:
                    msg = "data: %s\n\n" % _envelope(state_json)
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


def is_local_client(address):
    """True for a client on this machine or on a private network (loopback, RFC 1918, link-local,
    carrier-grade NAT, IPv6 ULA): what a bar TV on the venue LAN is, and the internet is not."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return False
    if getattr(ip, "ipv4_mapped", None) is not None:
        ip = ip.ipv4_mapped
    return not ip.is_global and not ip.is_multicast


class _HeadReader(io.RawIOBase):
    """The connection's raw reader with one deadline for a request's line and headers: a client
    sending a byte now and then (slowloris) or idling on a kept-alive connection is cut off at
    HEAD_S, not held for the socket timeout per byte. Bodies read with the handler's timeout."""

    def __init__(self, sock):
        self._sock = sock
        self.deadline = None

    def readable(self):
        return True

    def readinto(self, buf):
        if self.deadline is not None:
            left = self.deadline - time.monotonic()
            if left <= 0:
                raise socket.timeout("request head too slow")
            self._sock.settimeout(left)
        return self._sock.recv_into(buf)


class _Handler(_HandlerBase):
    def setup(self):
        super().setup()
        self._head = _HeadReader(self.connection)
        self.rfile = io.BufferedReader(self._head)

    def handle_one_request(self):
        self._head.deadline = time.monotonic() + HEAD_S
        self.server.waiting(self.connection, self.client_address[0], True)
        try:
            super().handle_one_request()
        except socket.timeout:
            self.close_connection = True
        finally:
            self.server.waiting(self.connection, self.client_address[0], False)

    def parse_request(self):
        ok = super().parse_request()
        self.server.waiting(self.connection, self.client_address[0], False)
        self._head.deadline = None                 # the head is in: the body has the usual timeout
        self.connection.settimeout(self.timeout)
        return ok


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    local_only = False          # `--http-bind lan`: refuse clients from public addresses
    request_queue_size = 64

    def verify_request(self, request, client_address):
        """socketserver calls this before any byte is read; False closes the connection."""
        return not self.local_only or is_local_client(client_address[0])

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._conn_lock = threading.Lock()
        self._open = {}            # client address -> connections being served
        self._idle = {}            # socket -> client address, of connections awaiting a request

    def process_request(self, request, client_address):
        """A thread per connection, within MAX_CONNECTIONS and MAX_PER_CLIENT. At a cap, the
        oldest connection still waiting for a request (the client's own first) is closed to make
        room: a phone that left a socket open gives way to one that asks now. With none idle, a
        short 503 from this (accepting) thread, which never waits on the client."""
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
        """A handler waits for a request head on `sock` (idle) or has one (not)."""
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
    """The TV page for one table. `publish(state)` is thread-safe."""

    def __init__(self, host="0.0.0.0", port=8080, static_dir=STATIC_DIR, play=None, local_only=False):
        self._httpd = _Server((host, port), _Handler)
        self._httpd.local_only = local_only
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

    def publish(self, state):
        self._httpd.hub.publish(state)

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
