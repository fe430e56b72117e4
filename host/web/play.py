"""The phone page (`/play`) and its command API, mounted on the TV page server.

GET  /play, /play.js, /play.css   the page (static; the token is read from the URL fragment)
GET  /play/qr.svg                  QR code of the play URL with the token (for the TV page)
GET  /play/sticker                 a printable sticker with that QR code
GET  /api/token                    200 if the bearer token is this table's (the page checks it)
POST /api/cmd/<name>               a referee command; JSON body; answer {"cmd","ok","error","id"}
POST /api/token/rotate             a new token (the old one stops working); {"token","url"}

Every /api request: rate limited per client address (429), then `Authorization: Bearer
<token>` (missing 401, wrong 403), then the body (at most MAX_BODY bytes). A command is not
judged here: `submit(name, body_bytes)` hands it to the daemon's thread (Daemon.request_command)
and waits, so it takes exactly the path of an MQTT command and is answered on …/cmd/result too.
"""
import html
import ipaddress
import json
import os
import re

from host.web.access import RateLimiter, lan_address, play_url
from host.web.server import TV_HEADERS

STATIC_DIR = os.path.dirname(os.path.abspath(__file__))
STATIC = {"/play": ("play.html", "text/html; charset=utf-8"),
          "/play.js": ("play.js", "text/javascript; charset=utf-8"),
          "/play.css": ("play.css", "text/css; charset=utf-8")}
MAX_BODY = 4096
LOCAL_SUFFIXES = (".local", ".lan", ".home.arpa", ".internal", ".localdomain")
COMMAND_NAME = re.compile(r"^[a-z_]{1,32}$")
# The page holds the token: only our own scripts run, nothing is fetched from elsewhere, and no
# other site may frame it (a hidden frame could steal taps). The TV page's policy is the same.
PAGE_HEADERS = TV_HEADERS
# The sticker page: an inline style, no script at all.
STICKER_HEADERS = dict(PAGE_HEADERS, **{"Content-Security-Policy": "default-src 'none'; "
                       "style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; "
                       "form-action 'none'"})


def qr_svg(text, border=2):
    """A scalable SVG QR code (segno: pure Python, no dependencies, well tested; error level M
    survives a scuffed sticker)."""
    import io
    import segno
    out = io.BytesIO()
    segno.make(text, error="m", boost_error=False).save(
        out, kind="svg", border=border, omitsize=True, xmldecl=False, svgns=True,
        dark="#000", light="#fff", title="QR code")
    return out.getvalue().decode("utf-8")


class PlayRoutes:
    """Routes of the phone page; `get`/`post` return True when they answered the request."""

    def __init__(self, table, tokens, submit, base_url=None, limiter=None, static_dir=STATIC_DIR):
        self.table = table
        self.tokens = tokens
        self.submit = submit
        self.base_url = base_url
        self.limiter = limiter or RateLimiter()
        self.static_dir = static_dir

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
        """DNS rebinding: a web page on the internet, opened by a phone on the bar's Wi-Fi, can
        point its own domain at this server and read it as its own site, QR code and token
        included. Such a Host is a public name: only IP literals, `localhost`, single-label and
        local names (.local, .lan, .home.arpa, .internal) and --play-url's host are served
        what carries the token. A missing Host (HTTP/1.0) is a direct client, not a browser."""
        host = (req.headers.get("Host") or "").strip().lower()
        if not host:
            return True
        name = host[1:host.find("]")] if host.startswith("[") else host.rsplit(":", 1)[0]
        try:
            ipaddress.ip_address(name)
            return True
        except ValueError:
            pass
        if self.base_url:
            own = re.match(r"^[a-z]+://([^/:]+)", self.base_url.lower())
            if own and own.group(1) == name:
                return True
        name = name.rstrip(".")
        return ("." not in name and bool(name)) or name.endswith(LOCAL_SUFFIXES)

    def _misdirected(self, req):
        self._drain(req)
        self._json(req, 421, {"ok": False, "error": "this page is served only under the table's "
                              "own address (its IP address or local name)"})

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

    def _gate(self, req):
        """Rate limit, then the token. True if the request may go on (else it was answered)."""
        client = req.client_address[0]
        if not self.limiter.allow(client):
            self._drain(req)
            self._json(req, 429, {"ok": False, "error": "too many requests; wait a moment"},
                       {"Retry-After": str(self.limiter.retry_after(client))})
            return False
        token = self._bearer(req)
        if token is None:
            self._drain(req)
            self._json(req, 401, {"ok": False, "error": "this needs the table's access token: "
                                  "scan the QR code on the table"},
                       {"WWW-Authenticate": 'Bearer realm="table %s"' % self.table})
            return False
        if not self.tokens.check(token):
            self._drain(req)
            self._json(req, 403, {"ok": False, "error": "this access token is not valid for table "
                                  "%s (it may have been changed): scan the table's QR code again"
                                  % self.table})
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

    def _drain(self, req):
        """Read a small body we will not use, so a kept-alive connection stays in step."""
        n = self._length(req)
        if 0 < n <= MAX_BODY:
            req.rfile.read(n)
        elif n != 0:
            req.close_connection = True

    def _body(self, req):
        """The request body, or None after answering 411/413."""
        n = self._length(req)
        if n < 0:
            req.close_connection = True
            self._json(req, 411, {"ok": False, "error": "send the body with a Content-Length"})
            return None
        if n > MAX_BODY:
            req.close_connection = True
            self._json(req, 413, {"ok": False, "error": "body too large (at most %d bytes)" % MAX_BODY})
            return None
        return req.rfile.read(n) if n else b""

    # ------------------------------------------------------------- routes
    def get(self, req, path):
        if path in ("/play/qr.svg", "/play/sticker", "/api/token") and not self.host_ok(req):
            self._misdirected(req)
            return True
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
            url = play_url(self.base_for(req), self.tokens.current())
            req._send(200, qr_svg(url), "image/svg+xml; charset=utf-8", STICKER_HEADERS)
            return True
        if path == "/play/sticker":
            req._send(200, self.sticker(req), "text/html; charset=utf-8", STICKER_HEADERS)
            return True
        if path == "/api/token":
            if self._gate(req):
                self._json(req, 200, {"ok": True, "table": self.table})
            return True
        return False

    def post(self, req, path):
        if path.startswith("/api/") and not self.host_ok(req):
            req.close_connection = True
            self._misdirected(req)
            return True
        if path.startswith("/api/cmd/"):
            if not self._gate(req):
                return True
            name = path[len("/api/cmd/"):]
            body = self._body(req)
            if body is None:
                return True
            if not COMMAND_NAME.match(name):
                self._json(req, 404, {"cmd": None, "ok": False, "error": "no such command", "id": None})
                return True
            result = self.submit(name, body)
            if result is None:
                self._json(req, 503, {"cmd": name, "ok": False, "id": None,
                                      "error": "the referee did not answer in time; try again"})
                return True
            self._json(req, 200, result)
            return True
        if path == "/api/token/rotate":
            if self._gate(req):
                self._drain(req)
                token = self.tokens.rotate()
                self._json(req, 200, {"ok": True, "token": token,
                                      "url": play_url(self.base_for(req), token)})
            return True
        return False

    def sticker(self, req):
        """A printable table sticker: the QR code, the table's name, how to use it, in two languages."""
        url = play_url(self.base_for(req), self.tokens.current())
        t = html.escape(self.table)
        return STICKER % {"table": t, "qr": qr_svg(url),
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
