"""The phone page (`/play`) and its command API, mounted on the TV page server.

GET  /play, /play.js, /play.css   the page (static; the token is read from the URL fragment)
GET  /play/qr.svg                  QR code of the play URL with the token (for the TV page)
GET  /play/sticker                 a printable sticker with that QR code
GET  /api/token                    200 if the bearer token is this table's (the page checks it)
POST /api/cmd/<name>               a referee command; JSON body; answer {"cmd","ok","error","id"}
POST /api/token/rotate             a new token (the old one stops working); {"token","url"}

The token reaches only the TV: /play/qr.svg, /play/sticker and a rotation answer only this
machine and the addresses of `--tv-address` (403 for others), and the QR code is rate limited
per address (drawing one costs CPU). Once the state names its match (`state["match"]["id"]`)
the QR code carries that match's own token (host/web/access.py); a phone holding the token of
the match before (or after, for an undone new game) still plays, and every answer it gets
carries the current match's token (`"token"`), so phones at the table follow a new match
without scanning again while a photo of an older QR code is worthless.

Every /api request: rate limited per client address (429), then `Authorization: Bearer
<token>` (missing 401, wrong 403), then the body (at most MAX_BODY bytes, within BODY_S). A
refused request never reads its body: it is answered and the connection closed. A command is
not judged here: `submit(name, body_bytes)` hands it to the daemon's thread
(Daemon.request_command) and waits, so it takes exactly the path of an MQTT command and is
answered on …/cmd/result too.
"""
import collections
import hashlib
import html
import ipaddress
import json
import os
import re
import threading
import time
import urllib.parse

from host.command_input import answer, check_name
from host.web.access import RateLimiter, lan_address, match_id, play_url
from shared_rules.rules.messages import refusal
from host.web.server import LOCAL_SUFFIXES, TV_HEADERS, host_allowed  # noqa: F401 (LOCAL_SUFFIXES: API)

STATIC_DIR = os.path.dirname(os.path.abspath(__file__))
STATIC = {"/play": ("play.html", "text/html; charset=utf-8"),
          "/play.js": ("play.js", "text/javascript; charset=utf-8"),
          "/play.css": ("play.css", "text/css; charset=utf-8")}
MAX_BODY = 4096
ROTATE_EVERY_S = 30.0      # a token rotation over the API at most this often
# The page holds the token: only our own scripts run, nothing is fetched from elsewhere, and no
# other site may frame it (a hidden frame could steal taps). The TV page's policy is the same.
PAGE_HEADERS = TV_HEADERS
# The sticker page: an inline style, no script at all.
STICKER_HEADERS = dict(PAGE_HEADERS, **{"Content-Security-Policy": "default-src 'none'; "
                       "style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; "
                       "form-action 'none'"})
TV_ONLY = ("this page carries the table's access token and is shown only on the TV (this "
           "machine, or an address given with --tv-address): scan the QR code on the TV")


_DRAWN = collections.OrderedDict()     # (text, border) -> svg, the last QR_KEEP drawn
_DRAWN_LOCK = threading.Lock()
QR_KEEP = 32


def qr_svg(text, border=2):
    """A scalable SVG QR code (segno: pure Python, no dependencies, well tested; error level M
    survives a scuffed sticker). Drawing one takes milliseconds of CPU, so the last ones drawn
    are kept: the TV's reloads and /venue's refreshes draw nothing new."""
    key = (text, border)
    with _DRAWN_LOCK:
        if key in _DRAWN:
            _DRAWN.move_to_end(key)
            return _DRAWN[key]
    import io
    import segno
    out = io.BytesIO()
    segno.make(text, error="m", boost_error=False).save(
        out, kind="svg", border=border, omitsize=True, xmldecl=False, svgns=True,
        dark="#000", light="#fff", title="QR code")
    svg = out.getvalue().decode("utf-8")
    with _DRAWN_LOCK:
        _DRAWN[key] = svg
        while len(_DRAWN) > QR_KEEP:
            _DRAWN.popitem(last=False)
    return svg


def qr_drawn(text, border=2):
    """True if qr_svg(text) would draw nothing new."""
    with _DRAWN_LOCK:
        return (text, border) in _DRAWN


class PlayRoutes:
    """Routes of the phone page; `get`/`post` return True when they answered the request."""

    def __init__(self, table, tokens, submit, base_url=None, limiter=None, static_dir=STATIC_DIR,
                 qr_limiter=None, venue_url=None):
        self.table = table
        # The venue service's pages (docs/tournament.md): "Join the queue" leads to its
        # /queue/<table>. Given, or BILLIARDS_VENUE_URL (the table's service env file).
        self.venue_url = venue_url if venue_url is not None else os.environ.get("BILLIARDS_VENUE_URL")
        self.tokens = tokens
        self.submit = submit
        self.base_url = base_url
        self.limiter = limiter or RateLimiter()
        self.qr_limiter = qr_limiter or RateLimiter(rate=2.0, burst=10)
        self.static_dir = static_dir
        self._rotated_at = None
        self._rotate_lock = threading.Lock()

    # ------------------------------------------------------------ helpers
    def base_for(self, req):
        """The address phones should use: --play-url if given, else the Host the page was loaded
        from, unless that is this machine's loopback (a TV on the host itself): then its LAN address."""
        if self.base_url:
            return self.base_url.rstrip("/")
        host = req.headers.get("Host") or ""
        port = req.server.server_address[1]
        name = host.rsplit(":", 1)[0].strip("[]") if host else ""
        loopback = name in ("", "localhost")
        if not loopback:
            try:
                loopback = ipaddress.ip_address(name).is_loopback or ipaddress.ip_address(name).is_unspecified
            except ValueError:
                pass
        if loopback or len(host) > 100 or not re.match(r"^[A-Za-z0-9.\-:\[\]]+$", host):
            return "http://%s:%d" % (lan_address(), port)
        return "http://" + host

    def host_ok(self, req):
        """The Host is one of the table's own names (server.host_allowed; the server checks it for
        every route before any route sees the request)."""
        return host_allowed(req.headers.get("Host"), req.server.own_hosts)

    def match(self, req):
        """The id of the match in play (from the last state the server was given), or None."""
        return match_id(req.server.hub.state)

    def qr_tag(self, req):
        """A short tag of the token the QR code carries: it changes when that token does (a new
        match, a rotation, even by `billiards token --rotate`) and tells nothing about it."""
        token = self.tokens.play(self.match(req))
        return hashlib.sha256(b"qr " + token.encode("ascii")).hexdigest()[:12]

    @staticmethod
    def _json(req, code, obj, extra=None):
        req._send(code, json.dumps(obj, ensure_ascii=False), "application/json; charset=utf-8",
                  extra)

    def _bearer(self, req):
        h = req.headers.get("Authorization")
        if h is None:
            return None
        parts = h.strip().split(None, 1)
        if len(parts) == 2 and parts[0].lower() == "bearer":
            return parts[1].strip()
        return ""

    def _refuse(self, req, code, obj, extra=None):
        """Answer without reading the body: a refused client's bytes are never waited for. If it
        announced one, the connection closes after the answer (its unread body would otherwise
        be taken for the next request)."""
        if self._length(req) != 0:
            req.close_connection = True
        self._json(req, code, obj, extra)

    def _gate(self, req):
        """Rate limit, then the token. True if the request may go on (else it was answered)."""
        client = req.client_address[0]
        if not self.limiter.allow(client):
            self._refuse(req, 429, {"ok": False, "error": "too many requests; wait a moment"},
                         {"Retry-After": str(self.limiter.retry_after(client))})
            return False
        token = self._bearer(req)
        if token is None:
            self._refuse(req, 401, {"ok": False, "error": "this needs the table's access token: "
                                    "scan the QR code on the table"},
                         {"WWW-Authenticate": 'Bearer realm="table %s"' % self.table})
            return False
        if not self.tokens.check(token, self.match(req)):
            self._refuse(req, 403, {"ok": False, "error": "this access token is not valid for "
                                    "table %s (it may have been changed, or a new match has "
                                    "begun): scan the table's QR code again" % self.table})
            return False
        return True

    def _length(self, req):
        if req.headers.get("Transfer-Encoding"):
            return -1          # only Content-Length bodies: a chunked one would desynchronise the stream
        try:
            n = int(req.headers.get("Content-Length") or 0)
        except ValueError:
            return -1
        return n

    def _body(self, req):
        """The request body, or None after answering 411/413/408."""
        n = self._length(req)
        if n < 0:
            req.close_connection = True
            self._json(req, 411, {"ok": False, "error": "send the body with a Content-Length"})
            return None
        if n > MAX_BODY:
            req.close_connection = True
            self._json(req, 413, {"ok": False, "error": "body too large (at most %d bytes)" % MAX_BODY})
            return None
        body = req.read_body(n)
        if body is None:
            self._json(req, 408, {"ok": False, "error": "the request's body did not arrive in time"})
        return body

    def _tv_only(self, req, url):
        """True (after a 403 or a 429) unless this client is a TV, within its rate of QR codes
        drawn (one already drawn for `url` costs nothing and is not counted)."""
        client = req.client_address[0]
        if not req.is_tv():
            self._refuse(req, 403, {"ok": False, "error": TV_ONLY})
            return True
        if not qr_drawn(url) and not self.qr_limiter.allow(client):
            self._refuse(req, 429, {"ok": False, "error": "too many requests; wait a moment"},
                         {"Retry-After": str(self.qr_limiter.retry_after(client))})
            return True
        return False

    # ------------------------------------------------------------- routes
    def get(self, req, path):
        if path in STATIC:
            name, ctype = STATIC[path]
            try:
                with open(os.path.join(self.static_dir, name), "rb") as f:
                    data = f.read()
            except OSError:
                return False
            req._send(200, data, ctype, PAGE_HEADERS)
            return True
        if path == "/play/qr.svg":
            url = play_url(self.base_for(req), self.tokens.play(self.match(req)))
            if not self._tv_only(req, url):
                req._send(200, qr_svg(url), "image/svg+xml; charset=utf-8", STICKER_HEADERS)
            return True
        if path == "/play/sticker":
            if not self._tv_only(req, self.sticker_url(req)):
                req._send(200, self.sticker(req), "text/html; charset=utf-8", STICKER_HEADERS)
            return True
        if path == "/play/queue":
            self._queue(req)
            return True
        if path == "/api/token":
            if self._gate(req):
                self._json(req, 200, {"ok": True, "table": self.table})
            return True
        return False

    def post(self, req, path):
        if path.startswith("/api/cmd/"):
            if not self._gate(req):
                return True
            name = path[len("/api/cmd/"):]
            body = self._body(req)
            if body is None:
                return True
            if check_name(name) is not None:
                self._json(req, 404, {"cmd": None, "ok": False, "error": "no such command", "id": None})
                return True
            result = self.submit(name, body)
            if result is None:
                self._json(req, 503, answer(name, refusal("host.no_answer")))
                return True
            after = self.match(req)
            if self.tokens.stale(self._bearer(req), after):     # a new match began: its token
                result = dict(result, token=self.tokens.play(after))
            self._json(req, 200, result)
            return True
        if path == "/api/token/rotate":
            if self._gate(req) and not self._rotate_refused(req):
                token = self.tokens.rotate()
                self._json(req, 200, {"ok": True, "token": token,
                                      "url": play_url(self.base_for(req), token)})
            return True
        return False

    def _queue(self, req):
        """The winner-stays-on queue of this table lives on the venue service: send the phone there."""
        url = self.venue_url if isinstance(self.venue_url, str) and re.match(r"^https?://[^\s\"<>]+$",
                                                                            self.venue_url or "") else None
        if url is None:
            req._send(404, "This table has no queue: the venue service is not set up "
                      "(BILLIARDS_VENUE_URL, docs/tournament.md).\n", "text/plain; charset=utf-8")
            return
        req._send(303, "", "text/plain; charset=utf-8",
                  {"Location": "%s/queue/%s" % (url.rstrip("/"), urllib.parse.quote(self.table))})

    def _rotate_refused(self, req):
        """A rotation over the API: from the TV only (who sees the new token anyway; a phone
        that rotated would keep the new token and lock the others out for as long as it
        liked), and at most once every ROTATE_EVERY_S. True (after answering) if refused."""
        if not req.is_tv():
            self._refuse(req, 403, {"ok": False, "error": "the token is rotated from the TV (this "
                                    "machine or --tv-address) or with `billiards token --rotate`"})
            return True
        with self._rotate_lock:
            now = time.monotonic()
            wait = None if self._rotated_at is None else self._rotated_at + ROTATE_EVERY_S - now
            if wait is not None and wait > 0:
                self._refuse(req, 429, {"ok": False, "error": "the token was rotated a moment ago"},
                             {"Retry-After": str(int(wait) + 1)})
                return True
            self._rotated_at = now
        if self._length(req) != 0:
            req.close_connection = True               # its body (none is needed) stays unread
        return False

    def sticker_url(self, req):
        return play_url(self.base_for(req), self.tokens.current())

    def sticker(self, req):
        """A printable table sticker: the QR code, the table's name, how to use it, in two
        languages. It carries the table token (a printed code outlives any one match)."""
        t = html.escape(self.table)
        return STICKER % {"table": t, "qr": qr_svg(self.sticker_url(req)),
                          "short": html.escape(play_url(self.base_for(req)))}


STICKER = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Table %(table)s: scan to play</title>
<style>
  @page { size: A6; margin: 8mm; }
  body { font-family: system-ui, sans-serif; margin: 0; display: flex; justify-content: center; }
  .sticker { width: 90mm; border: 1.5mm solid #0a5d2c; border-radius: 6mm; padding: 6mm;
             text-align: center; margin: 8mm auto; }
  h1 { margin: 0 0 2mm; font-size: 9mm; }
  .qr svg { width: 70mm; height: 70mm; display: block; margin: 3mm auto; }
  p { margin: 1mm 0; font-size: 4.2mm; }
  .url { font-family: monospace; font-size: 3mm; color: #444; word-break: break-all; }
  @media print { .sticker { margin: 0 auto; } }
</style></head>
<body><div class="sticker" id="sticker">
  <h1>Table %(table)s</h1>
  <div class="qr">%(qr)s</div>
  <p><b>Scan to play</b>: score, calls, fouls and choices from your phone.</p>
  <p lang="ru"><b>Сканируйте, чтобы играть</b>: счёт, заказы, фолы и выбор с телефона.</p>
  <p class="url">%(short)s</p>
</div></body></html>
"""
