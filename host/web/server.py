"""Bar-TV scoreboard: a tiny stdlib HTTP server pushing the table state.

`GET /` the page, `GET /state` the last state as JSON, `GET /events` a
Server-Sent Events stream: one `data:` line of `{"now": <server wall time>,
"state": {...}}` per state (the first at once), so the page can count the
shot clock down without trusting the TV's own clock. The daemon calls
`publish(state)` from any thread. With `play` (host/web/play.py) the same
server also serves the phone page `/play` and its command API `/api/...`.
"""

import ipaddress
import json
import mimetypes
import os
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

STATIC_DIR = os.path.dirname(os.path.abspath(__file__))
STATIC_FILES = {"/": "index.html", "/index.html": "index.html",
                "/tv.css": "tv.css", "/tv.js": "tv.js", "/live.js": "live.js"}
KEEPALIVE_S = 15.0


class _Hub:
    """The last state and a version number that SSE streams wait on."""

    def __init__(self):
        self.cond = threading.Condition()
        self.version = 0
        self.state_json = "null"
        self.closed = False

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


class _Handler(BaseHTTPRequestHandler):
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
            try:
                with open(os.path.join(self.server.static_dir, name), "rb") as f:
                    data = f.read()
            except OSError:
                self._send(404, "not found\n", "text/plain; charset=utf-8")
                return
            ctype = mimetypes.guess_type(name)[0] or "application/octet-stream"
            if ctype.startswith("text/") or ctype.endswith("javascript"):
                ctype += "; charset=utf-8"
            self._send(200, data, ctype)
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
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        seen = -1
        try:
            self.wfile.write(b"retry: 2000\n\n")
            while True:
                with hub.cond:
                    if hub.version == seen and not hub.closed:
                        hub.cond.wait(KEEPALIVE_S)
                    if hub.closed:
                        return
                    fresh = hub.version != seen
                    seen = hub.version
                    state_json = hub.state_json
                if fresh:
                    msg = "data: %s\n\n" % _envelope(state_json)
                else:
                    msg = ": keepalive\n\n"
                self.wfile.write(msg.encode("utf-8"))
                self.wfile.flush()
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


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    local_only = False          # `--http-bind lan`: refuse clients from public addresses

    def verify_request(self, request, client_address):
        """socketserver calls this before any byte is read; False closes the connection."""
        return not self.local_only or is_local_client(client_address[0])


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
