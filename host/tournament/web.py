"""The venue service's HTTP edge: routes to host/tournament/pages.py and director.py.

Reuses the table daemon's hardened server (host/web/server.py: bounded connections per client
and in all, request heads within 10 s, `--http-bind lan` serving only private networks).
Public pages: `/`, `/tournament/<id>` (TV bracket) and `.json`, `/ratings`, `/player/<name>`,
`/league/<id>`, `/queue/<table>` (GET the page, POST `name=` to join), `/events` (the service's
change number, for the TV bracket's `/tournament.js`). The director's pages
`/director...` need the director's token (`billiards venue token`), given once to
`POST /director/login` (an HttpOnly, SameSite=Strict cookie then carries it) or as
`Authorization: Bearer`; the token is never written into any page.
"""
import json
import os
import re
import urllib.parse

from host.tournament import model, pages, director, races, ratings as ratings_mod, seeding
from host.web import server as web_server
from host.web.access import RateLimiter, TokenStore, lan_address

COOKIE = "billiards_director"
MAX_BODY = 8192
PAGE_HEADERS = {"Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; "
                "frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
                "X-Frame-Options": "DENY", "Referrer-Policy": "no-referrer", "X-Content-Type-Options": "nosniff"}
HTML = "text/html; charset=utf-8"
# The TV bracket's one script (ours, from this server) and its /events stream; nothing else.
TV_PAGE_HEADERS = dict(PAGE_HEADERS, **{"Content-Security-Policy": PAGE_HEADERS["Content-Security-Policy"]
                                        + "; script-src 'self'; connect-src 'self'"})
LIVE_JS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "live.js")


class VenuePages:
    def __init__(self, service, tokens, base_url, lang="en", limiter=None):
        self.svc = service
        self.tokens = tokens
        self.base_url = base_url.rstrip("/")
        self.lang = lang
        self.limiter = limiter or RateLimiter(rate=2.0, burst=10)
        self.hub = web_server._Hub()          # /events: the TV bracket's change number
        self.live = 0
        self.hub.publish({"version": self.live})

    def changed(self):
        """A service listener: every change of the service is a new number on /events (the
        table daemon's bounded SSE streams: at most 40 at once, 3 per address, 5 min each)."""
        self.live += 1
        self.hub.publish({"version": self.live})

    # ------------------------------------------------------------------ helpers
    def _lang(self, query):
        v = urllib.parse.parse_qs(query).get("lang", [self.lang])[0]
        return v if v in ("en", "ru") else self.lang

    @staticmethod
    def _html(req, code, text, extra=None):
        h = dict(PAGE_HEADERS)
        h.update(extra or {})          # (TV_PAGE_HEADERS: the bracket's own policy)
        req._send(code, text, HTML, h)

    @staticmethod
    def _json(req, code, obj):
        req._send(code, json.dumps(obj, ensure_ascii=False), "application/json; charset=utf-8")

    def _redirect(self, req, where, extra=None):
        h = {"Location": where}
        h.update(extra or {})
        req._send(303, "", "text/plain; charset=utf-8", h)

    def _director_ok(self, req):
        given = None
        auth = req.headers.get("Authorization") or ""
        if auth.lower().startswith("bearer "):
            given = auth[7:].strip()
        else:
            for part in (req.headers.get("Cookie") or "").split(";"):
                k, _, v = part.strip().partition("=")
                if k == COOKIE:
                    given = v
        return bool(given) and self.tokens.check(given)

    def _form(self, req):
        try:
            n = int(req.headers.get("Content-Length") or 0)
        except ValueError:
            n = -1
        if n < 0 or n > MAX_BODY or req.headers.get("Transfer-Encoding"):
            req.close_connection = True
            return None
        raw = req.rfile.read(n) if n else b""
        if "json" in (req.headers.get("Content-Type") or ""):
            try:
                obj = json.loads(raw or b"{}")
                return {str(k): str(v) for k, v in obj.items()} if isinstance(obj, dict) else None
            except ValueError:
                return None
        return {k: v[0] for k, v in urllib.parse.parse_qs(raw.decode("utf-8", "replace")).items()}

    def _same_origin(self, req):
        """A browser's POST from another site (CSRF) is refused: browsers say where a request
        comes from in Sec-Fetch-Site, else in Origin (which is `null` under our no-referrer
        policy). A script (no such headers) carries the token itself."""
        site = req.headers.get("Sec-Fetch-Site")
        if site is not None:
            return site in ("same-origin", "none")
        origin = req.headers.get("Origin")
        if origin is None or origin == "null":
            return True
        return urllib.parse.urlsplit(origin).netloc == (req.headers.get("Host") or "")

    # ------------------------------------------------------------------ GET
    def get(self, req, path, query):
        lang = self._lang(query)
        svc = self.svc
        if path == "/":
            with svc.lock:
                shows = [model.show(svc.store.tournament(i)) for i in svc.store.ids()]
                now = svc.now()
                leagues = svc.store.leagues()
            self._html(req, 200, pages.index(shows, now, leagues, lang))
            return True
        m = re.match(r"^/tournament/(\d{1,9})(\.json)?$", path)
        if m:
            with svc.lock:
                t = svc.store.tournament(int(m.group(1)))
                shown = model.show(t) if t else None
                now = svc.now()
            if shown is None:
                self._html(req, 404, pages.page("?", "<h1>404</h1>", lang))
            elif m.group(2):
                self._json(req, 200, shown)
            else:
                url = "%s/tournament/%d" % (self.base_url, shown["id"])
                self._html(req, 200, pages.tournament_tv(shown, now, lang, _qr(url), url, self.live),
                           TV_PAGE_HEADERS)
            return True
        if path == "/events":
            req._stream(self.hub)
            return True
        if path == "/tournament.js":
            with open(LIVE_JS, "rb") as f:
                req._send(200, f.read(), "text/javascript; charset=utf-8",
                          {"X-Content-Type-Options": "nosniff", "Cache-Control": "no-cache"})
            return True
        if path == "/ratings":
            self._html(req, 200, pages.ratings_page(ratings_mod.table(svc.ratings()), lang))
            return True
        m = re.match(r"^/player/(.{1,200})$", path)
        if m:
            person = svc.ratings().get(urllib.parse.unquote(m.group(1)))
            if person is None:
                self._html(req, 404, pages.page("?", "<h1>404</h1>", lang))
            else:
                self._html(req, 200, pages.player_page(person, lang))
            return True
        m = re.match(r"^/league/([A-Za-z0-9_-]{1,40})(\.json)?$", path)
        if m:
            key = m.group(1)
            lg = svc.league(int(key) if key.isdigit() else key)      # its id here, or its slug
            if lg is None:
                self._html(req, 404, pages.page("?", "<h1>404</h1>", lang))
            elif m.group(2):
                self._json(req, 200, lg)
            else:
                self._html(req, 200, pages.league_page(lg, lang))
            return True
        m = re.match(r"^/queue/([A-Za-z0-9_-]{1,32})$", path)
        if m:
            qs = urllib.parse.parse_qs(query)
            self._html(req, 200, pages.queue_page(m.group(1), svc.store.queue(m.group(1)), lang,
                                                  qs.get("msg", [None])[0], bool(qs.get("bad"))))
            return True
        if path == "/now.json":
            self._json(req, 200, svc.now())
            return True
        if path.startswith("/director"):
            return self._director_get(req, path, query, lang)
        return False

    def _director_get(self, req, path, query, lang):
        if not self._director_ok(req):
            self._html(req, 200 if path == "/director" else 403, director.login(lang))
            return True
        qs = urllib.parse.parse_qs(query)
        msg, bad = qs.get("msg", [None])[0], bool(qs.get("bad"))
        svc = self.svc
        if path == "/director":
            with svc.lock:
                shows = [model.show(svc.store.tournament(i)) for i in svc.store.ids()]
                lines = svc.store.log_lines(30)
            self._html(req, 200, director.dashboard(shows, lines, lang, msg, bad))
            return True
        m = re.match(r"^/director/tournament/(\d{1,9})$", path)
        if m:
            t = svc.store.tournament(int(m.group(1)))
            if t is None:
                self._html(req, 404, pages.page("?", "<h1>404</h1>", lang))
            else:
                tables = sorted(set(t["tables"]) | set(svc.views))
                self._html(req, 200, director.tournament(model.show(t), tables, lang, msg, bad))
            return True
        return False

    # ------------------------------------------------------------------ POST
    def post(self, req, path, query):
        lang = self._lang(query)
        client = req.client_address[0]
        if not self.limiter.allow(client):
            req.close_connection = True
            req._send(429, "too many requests; wait a moment\n", "text/plain; charset=utf-8",
                      {"Retry-After": str(self.limiter.retry_after(client))})
            return True
        form = self._form(req)
        if form is None or not self._same_origin(req):
            req._send(400, "bad request\n", "text/plain; charset=utf-8")
            return True
        m = re.match(r"^/queue/([A-Za-z0-9_-]{1,32})$", path)
        if m:
            table = m.group(1)
            try:
                self.svc.join_queue(table, form.get("name", ""))
                msg = {"msg": pages.T[lang]["joined"]}
            except ValueError as err:
                msg = {"msg": str(err), "bad": "1"}
            if lang == "ru":
                msg["lang"] = "ru"
            self._redirect(req, "/queue/%s?%s" % (table, urllib.parse.urlencode(msg)))
            return True
        if path == "/director/login":
            if self.tokens.check(form.get("token", "").strip()):
                cookie = "%s=%s; HttpOnly; SameSite=Strict; Path=/director" % (COOKIE, form["token"].strip())
                self._redirect(req, "/director" + ("?lang=ru" if lang == "ru" else ""), {"Set-Cookie": cookie})
            else:
                self._html(req, 403, director.login(lang, "?"))
            return True
        if path == "/director/logout":
            self._redirect(req, "/director", {"Set-Cookie": "%s=; Max-Age=0; Path=/director" % COOKIE})
            return True
        if path.startswith("/director/"):
            if not self._director_ok(req):
                self._html(req, 403, director.login(lang))
                return True
            ok, msg, where = self._director_action(path[len("/director/"):], form)
            if "json" in (req.headers.get("Accept") or ""):
                self._json(req, 200 if ok else 400, {"ok": ok, "message": msg})
                return True
            params = {"msg": msg}
            if not ok:
                params["bad"] = "1"
            if lang == "ru":
                params["lang"] = "ru"
            self._redirect(req, "%s?%s" % (where, urllib.parse.urlencode(params)))
            return True
        return False

    def _director_action(self, action, form):
        """(ok, message, page to go back to)."""
        svc = self.svc
        try:
            tid = int(form.get("id", "0") or 0)
        except ValueError:
            return False, "no such tournament", "/director"
        back = "/director/tournament/%d" % tid if tid else "/director"
        try:
            if action == "create":
                from host.tournament.cli import create
                args = _Args(name=form.get("name", "").strip()[:60] or "Tournament", game=form.get("game", "nine-ball"),
                             format=form.get("format", "single"), race=int(form.get("race") or 0),
                             race_final=int(form["race_final"]) if form.get("race_final") else None,
                             round_race="", players=form.get("players", ""), tables=form.get("tables", ""),
                             seed=form.get("seed", "hand"), seed_number=None, groups=int(form.get("groups") or 2),
                             advance=int(form.get("advance") or 2), league=None,
                             winner_breaks=form.get("winner_breaks") == "on",
                             handicap=races.HANDICAP_STEP if form.get("handicap") == "on" else None)
                with svc.lock:
                    tid = create(args, svc.store)
                svc.changed()
                return True, "tournament %d created" % tid, "/director/tournament/%d" % tid
            t = svc.store.tournament(tid)
            if t is None:
                return False, "no such tournament", "/director"
            if action == "seed":
                names = seeding.told_apart(seeding.clean_names(form.get("players", "")))
                if sorted(n.casefold() for n in names) != sorted(n.casefold() for n in t["players"]):
                    return False, "give the same players, in the new order", back
                svc.store.set_players(tid, names)
                return True, "seeded", back
            if action == "start":
                ok = svc.store.start(tid)
                with svc.lock:
                    svc.step()
                    svc.changed()
                return ok, "started" if ok else "already started", back
            if action in ("report", "walkover"):
                score = None
                if form.get("score"):
                    mm = re.match(r"^\s*(\d{1,4})\s*[-:]\s*(\d{1,4})\s*$", form["score"])
                    if not mm:
                        return False, "a score is X-Y, e.g. 3-1", back
                    score = [int(mm.group(1)), int(mm.group(2))]
                ok, msg = svc.report(tid, form.get("match", ""), form.get("winner", ""), score,
                                     "walkover" if action == "walkover" else "correction")
                return ok, msg, back
            if action == "move":
                ok, msg = svc.move(tid, form.get("match", ""), form.get("table", ""))
                return ok, msg, back
            if action == "reopen":
                ok, msg = svc.reopen(tid, form.get("match", ""))
                return ok, msg, back
        except (ValueError, KeyError) as err:
            return False, str(err), back
        return False, "unknown action", back


class _Args:
    def __init__(self, **kw):
        self.__dict__.update(kw)


def _qr(text):
    try:
        from host.web.play import qr_svg
        return qr_svg(text)
    except Exception:
        return None


class _Handler(web_server._Handler):
    def do_GET(self):
        path, _, query = self.path.partition("?")
        if not self.server.venue_pages.get(self, path, query):
            self._send(404, "not found\n", "text/plain; charset=utf-8")

    def do_POST(self):
        path, _, query = self.path.partition("?")
        if not self.server.venue_pages.post(self, path, query):
            self.close_connection = True
            self._send(404, "not found\n", "text/plain; charset=utf-8")


class PagesServer:
    def __init__(self, pages_obj, host, port, local_only):
        import threading
        self.httpd = web_server._Server((host, port), _Handler)
        self.httpd.local_only = local_only
        self.httpd.venue_pages = pages_obj
        self.httpd.hub = pages_obj.hub        # the table daemon's SSE streams, for /events
        self.httpd.play = None
        self.base_url = pages_obj.base_url
        self.thread = threading.Thread(target=self.httpd.serve_forever, name="venue-pages", daemon=True)

    def start(self):
        self.thread.start()
        return self

    def stop(self):
        self.httpd.hub.close()                # open /events streams end
        self.httpd.shutdown()
        self.thread.join(5)
        self.httpd.server_close()


def start_pages(service, port, bind="lan", public_url=None, lang="en", db_path=None):
    host = "0.0.0.0" if bind == "lan" else bind
    tokens = TokenStore(os.path.dirname(os.path.abspath(db_path or service.store.path)), "director")
    tokens.current()                       # made now, so `billiards venue token` prints the same one
    base = public_url or "http://%s:%d" % (lan_address() if bind in ("lan", "0.0.0.0") else bind, port)
    pages_obj = VenuePages(service, tokens, base, lang)
    service.listeners.append(pages_obj.changed)
    server = PagesServer(pages_obj, host, port, bind == "lan").start()
    return server
