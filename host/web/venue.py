"""/venue (every table on the broker, live, with a QR code of its play link) and /history
(finished matches, per-player totals).

Plain server-rendered pages with no external assets; /venue refreshes itself every
few seconds from the retained MQTT messages the daemon keeps in a `Venue`.
`/venue.json` and `/history.json` give the same figures to scripts. The history
page shows what `billiards history` prints (host/history.report).

Both pages speak English or Russian (`?lang=ru`, else the browser's Accept-Language) and fit a
phone: /venue's cards and /history's rows as cards below 600 px, no sideways scroll. The links
and QR codes of /venue are addresses a phone can follow: a table that announced a loopback or
unspecified address (its daemon reached the broker on its own machine) is named by the
configured public URL's host (`--play-url`), else by the host the phone itself used for
/venue, never by 127.0.0.1 (a LAN page may not load a loopback address, and a phone cannot).
"""
import base64
import html
import ipaddress
import json
import logging
import re
import urllib.parse

from host import history
from shared_rules.rules.messages import vocabulary

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
body{font-family:system-ui,sans-serif;margin:1rem;background:#0b3d2e;color:#f4f1e8;overflow-wrap:break-word}
h1{font-size:1.6rem}h2{font-size:1.25rem}table{border-collapse:collapse;margin-bottom:1.5rem}
td,th{padding:.35rem .7rem;border-bottom:1px solid #2c6b55;text-align:left}
.cards{display:flex;flex-wrap:wrap;gap:1rem}.card{background:#124d3a;padding:1rem;border-radius:.6rem;
min-width:min(16rem,100%);max-width:100%;box-sizing:border-box}
.card p{margin:.4rem 0}.card a{display:inline-block;min-height:44px;line-height:44px;margin-right:1rem}
.scroll{overflow-x:auto;max-width:100%;margin-bottom:1.5rem}.scroll table{margin:0}
td,th{white-space:nowrap}.lang{float:right;min-height:44px;line-height:44px}
@media (max-width:600px){body{margin:.6rem}
.scroll{overflow:visible}.scroll table,.scroll tbody,.scroll tr,.scroll td{display:block;width:100%}
.scroll thead{display:none}.scroll tr{background:#124d3a;border-radius:.6rem;padding:.5rem .8rem;
margin-bottom:.6rem;box-sizing:border-box}.scroll td{border:0;padding:.15rem 0;overflow:hidden;
text-overflow:ellipsis}.scroll td::before{color:#a9c9b8;margin-right:.5rem}}
.off{opacity:.55}a{color:#ffd166}.qr svg,.qr img{width:9rem;height:9rem;background:#fff;padding:.3rem}
"""
# The pages' own words; game names are the referee's (rules/messages.vocabulary).
WORDS = {
    "en": {"tables": "Tables", "history": "Match history", "recent": "Recent matches", "players": "Players",
           "none": "(none yet)", "all_tables": "All tables", "no_game": "no game", "offline": " (offline)",
           "winner": "Winner: %s", "to_shoot": "To shoot: %s", "play": "Play on your phone", "tv": "TV page",
           "no_pages": "(its daemon has not said where its pages are)",
           "no_tables": "No table has been seen on the broker yet.", "other": "Русский",
           "qr": "QR code: watch %s", "between_racks": "between racks", "break": "break", "play_phase": "play",
           "decision": "decision", "over": "over",
           "match_cols": ["ended", "table", "game", "players", "score", "winner", "length"],
           "player_cols": ["player", "matches", "wins", "losses", "high run", "break-and-runs", "pocketed",
                           "fouls"]},
    "ru": {"tables": "Столы", "history": "История матчей", "recent": "Последние матчи", "players": "Игроки",
           "none": "(пока нет)", "all_tables": "Все столы", "no_game": "нет игры", "offline": " (не в сети)",
           "winner": "Победитель: %s", "to_shoot": "Бьёт: %s", "play": "Играть с телефона", "tv": "Экран стола",
           "no_pages": "(стол не сообщил адреса своих страниц)",
           "no_tables": "Пока ни один стол не появился на брокере.", "other": "English",
           "qr": "QR-код: смотреть %s", "between_racks": "между партиями", "break": "разбитие",
           "play_phase": "игра", "decision": "выбор", "over": "окончена",
           "match_cols": ["окончен", "стол", "игра", "игроки", "счёт", "победитель", "длительность"],
           "player_cols": ["игрок", "матчи", "победы", "поражения", "лучшая серия", "партии с разбоя",
                           "забито", "фолы"]},
}
GAME_NAMES = vocabulary()["games"]


def language(query, accept=None):
    """`?lang=en|ru`, else the browser's first choice between the two, else English."""
    v = urllib.parse.parse_qs(query or "").get("lang", [None])[0]
    if v in WORDS:
        return v
    for part in (accept or "").lower().split(","):
        tag = part.split(";")[0].strip()[:2]
        if tag in WORDS:
            return tag
    return "en"


def is_loopback_host(host):
    """True for a name no phone can follow to this machine: loopback, unspecified, localhost."""
    host = (host or "").strip("[]").lower()
    if host in ("", "localhost") or host.endswith(".localhost"):
        return True
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return False
    return ip.is_loopback or ip.is_unspecified


def phone_host(public_url=None, request_host=None):
    """The host name a phone reaches this machine by: the configured public URL's, else the one
    the phone used for this page, else this machine's LAN address; never a loopback one."""
    from host.web.access import lan_address
    for candidate in (urllib.parse.urlsplit(public_url).hostname if public_url else None,
                      _host_name(request_host)):
        if candidate and not is_loopback_host(candidate):
            return candidate
    return lan_address()


def _host_name(host_header):
    m = re.match(r"^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.\-]+)(?::\d+)?$", (host_header or "").strip())
    return m.group(1).strip("[]") if m else None


def reachable(url, host):
    """`url` with a loopback or unspecified host replaced by `host` (its port and path kept)."""
    if not url or not host:
        return url
    u = urllib.parse.urlsplit(url)
    if not is_loopback_host(u.hostname):
        return url
    name = "[%s]" % host if ":" in host else host
    netloc = name + (":%d" % u.port if u.port else "")
    return _url(urllib.parse.urlunsplit((u.scheme, netloc, u.path, u.query, u.fragment)))


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


def _qr_html(card, lang="en"):
    """A QR code of the table's play link without a token (it opens the phone page read-only):
    the token is for the players at the table, from its own TV, never for everyone who opens
    /venue (issue 16)."""
    svg = _qr_svg(card["play"]) if card["play"] else None
    if not svg:
        return ""
    data = base64.b64encode(svg.encode("utf-8")).decode("ascii")
    return '<div class="qr"><img src="data:image/svg+xml;base64,%s" alt="%s"></div>' % (
        data, html.escape(WORDS[lang]["qr"] % card["name"]))


def _page(title, body, refresh=None, lang="en", style=""):
    meta = '<meta http-equiv="refresh" content="%d">' % refresh if refresh else ""
    return ('<!doctype html><html lang="%s"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width,initial-scale=1">%s'
            '<title>%s</title><style>%s%s</style></head><body>%s</body></html>'
            % (lang, meta, html.escape(title), STYLE, style, body))


def _lang_link(path, lang):
    other = "ru" if lang == "en" else "en"
    return '<a class="lang" href="%s?lang=%s" lang="%s">%s</a>' % (path, other, other, WORDS[lang]["other"])


def _table_html(rows, cls=""):
    head = "".join("<th>%s</th>" % html.escape(c) for c in rows[0])
    body = "".join("<tr>%s</tr>" % "".join("<td>%s</td>" % html.escape(c) for c in r) for r in rows[1:])
    # A phone scrolls a wide table inside its box; the page itself keeps the screen's width.
    return ('<div class="scroll"><table class="%s"><thead><tr>%s</tr></thead><tbody>%s</tbody>'
            '</table></div>' % (cls, head, body))


def _card_labels(cls, header):
    """On a phone each row is a card: each cell says its column's name first (the page's own
    style, so the cells stay plain `<td>` text)."""
    return "@media (max-width:600px){%s}" % "".join(
        ".scroll table.%s td:nth-child(%d)::before{content:%s}" % (cls, i + 1, json.dumps(h + ":"))
        for i, h in enumerate(header))


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


def _card(t, v, host=None):
    s = v.get("state") if isinstance(v.get("state"), dict) else {}
    info = v.get("info") if isinstance(v.get("info"), dict) else {}
    players = [p for p in s.get("players")[:MAX_PLAYERS] if isinstance(p, dict)] \
        if isinstance(s.get("players"), list) else []
    names = [_text(p.get("name")) or "?" for p in players]

    def named(i):
        return names[i] if isinstance(i, int) and not isinstance(i, bool) and 0 <= i < len(names) else None

    play = reachable(_url(info.get("play")), host)    # unknown until the table's daemon announced its `info`
    return {
        "table": _text(t), "name": _text(info.get("name")) or _text(t), "online": v.get("status") == "online",
        "game": _text(s.get("game")), "phase": _text(s.get("phase")),
        "players": names, "score": [_score(p.get("score")) for p in players],
        "shooter": named(s.get("shooter")), "winner": named(s.get("winner")),
        "tv": reachable(_url(info.get("url")), host), "play": play,
        "between_racks": s.get("between_racks") is True,
        "last_match": v.get("match"),
    }


def venue_cards(tables, host=None):
    """{table: summary} of what /venue shows for each table (whatever a client retained there);
    `host`: the name loopback addresses are shown by (phone_host)."""
    return {t: _card(t, v, host) for t, v in tables.items()}


def _game_name(game, lang):
    return (GAME_NAMES.get(game) or {}).get(lang) or game


def _phase(c, lang):
    w = WORDS[lang]
    if c["between_racks"]:
        return w["between_racks"]
    return {"break": w["break"], "play": w["play_phase"], "decision": w["decision"],
            "over": w["over"]}.get(c["phase"], c["phase"] or "-")


def render_venue(tables, lang="en", host=None):
    w = WORDS[lang]
    cards = []
    for t, c in venue_cards(tables, host).items():
        if c["players"]:
            line = " v ".join("%s %s" % (html.escape(str(n)), html.escape("-" if s is None else str(s)))
                              for n, s in zip(c["players"], c["score"]))
        else:
            line = w["no_game"]
        status = "" if c["online"] else w["offline"]
        extra = ""
        if c["winner"]:
            extra = "<p>%s</p>" % html.escape(w["winner"] % c["winner"])
        elif c["shooter"]:
            extra = "<p>%s</p>" % html.escape(w["to_shoot"] % c["shooter"])
        qr_html = _qr_html(c, lang)
        tv = ' <a href="%s">%s</a>' % (html.escape(c["tv"]), w["tv"]) if c["tv"] else ""
        if c["play"]:
            links = '<a href="%s">%s</a>%s' % (html.escape(c["play"]), w["play"], tv)
        else:
            links = w["no_pages"]
        cards.append('<div class="card%s" data-table="%s"><h2>%s%s</h2><p>%s · %s</p><p>%s</p>%s%s'
                     '<p>%s</p></div>'
                     % ("" if c["online"] else " off", html.escape(c["table"]), html.escape(c["name"]),
                        html.escape(status), html.escape(_game_name(c["game"], lang) or "-"),
                        html.escape(_phase(c, lang)), line, extra, qr_html, links))
    body = '%s<h1>%s</h1><div class="cards">%s</div><p><a href="/history?lang=%s">%s</a></p>' % (
        _lang_link("/venue", lang), w["tables"], "".join(cards) or "<p>%s</p>" % w["no_tables"], lang,
        w["history"])
    return _page(w["tables"], body, refresh=REFRESH_S, lang=lang)


def render_history(rep, lang="en"):
    w = WORDS[lang]
    matches, players = history.match_rows(rep), history.player_rows(rep)
    matches[0], players[0] = list(w["match_cols"]), list(w["player_cols"])
    if lang != "en":            # the English cells are `billiards history`'s own
        for row in matches[1:]:
            row[2] = _game_name(row[2], lang)
    body = [_lang_link("/history", lang), "<h1>%s</h1>" % w["history"], "<h2>%s</h2>" % w["recent"]]
    body.append(_table_html(matches, "matches") if rep["matches"] else "<p>%s</p>" % w["none"])
    body.append("<h2>%s</h2>" % w["players"])
    body.append(_table_html(players, "players") if rep["players"] else "<p>%s</p>" % w["none"])
    body.append('<p><a href="/venue?lang=%s">%s</a></p>' % (lang, w["all_tables"]))
    style = _card_labels("matches", matches[0]) + _card_labels("players", players[0])
    return _page(w["history"], "".join(body), refresh=30, lang=lang, style=style)


class VenuePages:
    """A page hook for the TV page server: `pages(handler, path) -> bool` (True: answered)."""

    def __init__(self, venue=None, db_path=None, limit=20, public_url=None):
        self.venue = venue
        self.db_path = db_path
        self.limit = limit
        self.public_url = public_url        # --play-url: how phones reach this machine, if given

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
        query = handler.path.split("?", 1)[1] if "?" in handler.path else ""
        lang = language(query, handler.headers.get("Accept-Language"))
        if path in ("/venue", "/venue.json") and self.venue is not None:
            tables = self.venue.tables()
            host = phone_host(self.public_url, handler.headers.get("Host"))
            if path.endswith(".json"):
                handler._send(200, json.dumps(venue_cards(tables, host), ensure_ascii=False),
                              "application/json; charset=utf-8")
            else:
                handler._send(200, render_venue(tables, lang, host), "text/html; charset=utf-8", PAGE_HEADERS)
            return True
        if path in ("/history", "/history.json", "/history.txt") and self.db_path:
            rep = self._report()
            if path.endswith(".json"):
                handler._send(200, json.dumps(rep, ensure_ascii=False), "application/json; charset=utf-8")
            elif path.endswith(".txt"):
                handler._send(200, history.render_text(rep), "text/plain; charset=utf-8")
            else:
                handler._send(200, render_history(rep, lang), "text/html; charset=utf-8", PAGE_HEADERS)
            return True
        return False
