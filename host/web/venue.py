"""/venue (every table on the broker, live, with its QR code) and /history (finished matches,
per-player totals).

Plain server-rendered pages with no external assets; /venue refreshes itself every
few seconds from the retained MQTT messages the daemon keeps in a `Venue`.
`/venue.json` and `/history.json` give the same figures to scripts. The history
page shows what `billiards history` prints (host/history.report).
"""
import html
import json
import logging
import re

from host import history

log = logging.getLogger("billiards.web")

REFRESH_S = 5
# Any client on the broker may retain a table's state or info: what /venue shows of it is cut
# to size, and a link is only ever an http(s) address (never `javascript:` or `data:`).
MAX_TEXT = 40
MAX_PLAYERS = 8
MAX_URL = 200
WEB_URL = re.compile(r"^https?://[A-Za-z0-9.\-\[\]:]+(/[A-Za-z0-9._~/\-]*)?$")
# Server-rendered: no script runs on these pages; images may come from other tables' servers.
PAGE_HEADERS = {"Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; "
                "img-src http: https: data:; frame-ancestors 'none'; base-uri 'none'; "
                "form-action 'none'",
                "X-Frame-Options": "DENY", "Referrer-Policy": "no-referrer",
                "X-Content-Type-Options": "nosniff"}

STYLE = """
body{font-family:system-ui,sans-serif;margin:1rem;background:#0b3d2e;color:#f4f1e8}
h1{font-size:1.6rem}table{border-collapse:collapse;margin-bottom:1.5rem}
td,th{padding:.35rem .7rem;border-bottom:1px solid #2c6b55;text-align:left}
.cards{display:flex;flex-wrap:wrap;gap:1rem}.card{background:#124d3a;padding:1rem;border-radius:.6rem;
min-width:min(16rem,100%);max-width:100%;box-sizing:border-box;overflow-wrap:anywhere}
.scroll{overflow-x:auto;max-width:100%;margin-bottom:1.5rem}.scroll table{margin:0}
td,th{white-space:nowrap}
@media (max-width:600px){body{margin:.6rem}td,th{padding:.3rem .45rem;font-size:.9rem}}
.off{opacity:.55}a{color:#ffd166}.qr svg,.qr img{width:9rem;height:9rem;background:#fff;padding:.3rem}
"""


def _qr_svg(text):
    """A QR code (the phone page's generator, host/web/play.py, when installed), else None."""
    try:
        from host.web.play import qr_svg
    except ImportError:
        return None
    try:
        return qr_svg(text)
    except Exception:
        return None


def _qr_html(card):
    """Each table's own server draws its QR code (it alone holds that table's token); a table
    whose page address is unknown gets a read-only QR of its play link, if one can be drawn."""
    if card["tv"]:
        return '<div class="qr"><img src="%s" alt="QR code: play at %s"></div>' % (
            html.escape(card["tv"].rstrip("/") + "/play/qr.svg"), html.escape(card["name"]))
    svg = _qr_svg(card["play"]) if card["play"] else None
    return '<div class="qr">%s</div>' % svg if svg else ""


def _page(title, body, refresh=None):
    meta = '<meta http-equiv="refresh" content="%d">' % refresh if refresh else ""
    return ('<!doctype html><html lang="en"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width,initial-scale=1">%s'
            '<title>%s</title><style>%s</style></head><body>%s</body></html>'
            % (meta, html.escape(title), STYLE, body))


def _table_html(rows, cls=""):
    head = "".join("<th>%s</th>" % html.escape(c) for c in rows[0])
    body = "".join("<tr>%s</tr>" % "".join("<td>%s</td>" % html.escape(c) for c in r) for r in rows[1:])
    # A phone scrolls a wide table inside its box; the page itself keeps the screen's width.
    return ('<div class="scroll"><table class="%s"><thead><tr>%s</tr></thead><tbody>%s</tbody>'
            '</table></div>' % (cls, head, body))


def _text(v, limit=MAX_TEXT):
    if v is None or isinstance(v, (dict, list)):
        return None
    v = v if isinstance(v, str) else str(v)
    return v if len(v) <= limit else v[:limit - 1] + "…"


def _url(v):
    """An http(s) address a page may link to, or None."""
    return v if isinstance(v, str) and len(v) <= MAX_URL and WEB_URL.match(v) else None


def _score(v):
    return v if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def _card(t, v):
    s = v.get("state") if isinstance(v.get("state"), dict) else {}
    info = v.get("info") if isinstance(v.get("info"), dict) else {}
    players = [p for p in s.get("players")[:MAX_PLAYERS] if isinstance(p, dict)] \
        if isinstance(s.get("players"), list) else []
    names = [_text(p.get("name")) or "?" for p in players]

    def named(i):
        return names[i] if isinstance(i, int) and not isinstance(i, bool) and 0 <= i < len(names) else None

    play = _url(info.get("play"))       # unknown until the table's daemon announced its `info`
    return {
        "table": _text(t), "name": _text(info.get("name")) or _text(t), "online": v.get("status") == "online",
        "game": _text(s.get("game")), "phase": _text(s.get("phase")),
        "players": names, "score": [_score(p.get("score")) for p in players],
        "shooter": named(s.get("shooter")), "winner": named(s.get("winner")),
        "tv": _url(info.get("url")), "play": play,
        "last_match": v.get("match"),
    }


def venue_cards(tables):
    """{table: summary} of what /venue shows for each table (whatever a client retained there)."""
    return {t: _card(t, v) for t, v in tables.items()}


def render_venue(tables):
    cards = []
    for t, c in venue_cards(tables).items():
        if c["players"]:
            line = " v ".join("%s %s" % (html.escape(str(n)), html.escape("-" if s is None else str(s)))
                              for n, s in zip(c["players"], c["score"]))
        else:
            line = "no game"
        status = "" if c["online"] else " (offline)"
        extra = ""
        if c["winner"]:
            extra = "<p>Winner: %s</p>" % html.escape(c["winner"])
        elif c["shooter"]:
            extra = "<p>To shoot: %s</p>" % html.escape(c["shooter"])
        qr_html = _qr_html(c)
        tv = ' · <a href="%s">TV page</a>' % html.escape(c["tv"]) if c["tv"] else ""
        if c["play"]:
            links = '<a href="%s">Play on your phone</a>%s' % (html.escape(c["play"]), tv)
        else:
            links = "(its daemon has not said where its pages are)"
        cards.append('<div class="card%s" data-table="%s"><h2>%s%s</h2><p>%s · %s</p><p>%s</p>%s%s'
                     '<p>%s</p></div>'
                     % ("" if c["online"] else " off", html.escape(c["table"]), html.escape(c["name"]),
                        html.escape(status), html.escape(c["game"] or "-"), html.escape(c["phase"] or "-"),
                        line, extra, qr_html, links))
    body = '<h1>Tables</h1><div class="cards">%s</div><p><a href="/history">Match history</a></p>' % (
        "".join(cards) or "<p>No table has been seen on the broker yet.</p>")
    return _page("Venue", body, refresh=REFRESH_S)


def render_history(rep):
    body = ["<h1>Match history</h1>", "<h2>Recent matches</h2>"]
    body.append(_table_html(history.match_rows(rep), "matches") if rep["matches"] else "<p>(none yet)</p>")
    body.append("<h2>Players</h2>")
    body.append(_table_html(history.player_rows(rep), "players") if rep["players"] else "<p>(none yet)</p>")
    body.append('<p><a href="/venue">All tables</a></p>')
    return _page("Match history", "".join(body), refresh=30)


class VenuePages:
    """A page hook for the TV page server: `pages(handler, path) -> bool` (True: answered)."""

    def __init__(self, venue=None, db_path=None, limit=20):
        self.venue = venue
        self.db_path = db_path
        self.limit = limit

    def _report(self):
        db = history.HistoryDB(self.db_path)
        try:
            return history.report(db, self.limit)
        finally:
            db.close()

    def __call__(self, handler, path):
        if path not in ("/venue", "/venue.json", "/history", "/history.json", "/history.txt"):
            return False
        try:
            return self._answer(handler, path)
        except Exception as e:      # e.g. a history file another process holds locked too long
            log.warning("http: could not show %s: %r", path, e)     # the file's path stays in the log
            handler._send(500, "could not show %s now; try again in a moment\n" % path,
                          "text/plain; charset=utf-8")
            return True

    def _answer(self, handler, path):
        if path in ("/venue", "/venue.json") and self.venue is not None:
            tables = self.venue.tables()
            if path.endswith(".json"):
                handler._send(200, json.dumps(venue_cards(tables), ensure_ascii=False),
                              "application/json; charset=utf-8")
            else:
                handler._send(200, render_venue(tables), "text/html; charset=utf-8", PAGE_HEADERS)
            return True
        if path in ("/history", "/history.json", "/history.txt") and self.db_path:
            rep = self._report()
            if path.endswith(".json"):
                handler._send(200, json.dumps(rep, ensure_ascii=False), "application/json; charset=utf-8")
            elif path.endswith(".txt"):
                handler._send(200, history.render_text(rep), "text/plain; charset=utf-8")
            else:
                handler._send(200, render_history(rep), "text/html; charset=utf-8", PAGE_HEADERS)
            return True
        return False
