"""The venue service's pages and command line: what a TV, a phone and the director get, the
director's token kept off every public page, languages, the /play page's way to the queue, and
docs/tournament.md naming every flag."""
import argparse
import http.client
import json
import pathlib
import re
import shlex
import urllib.parse

import pytest

from host.cli import build_parser
from host.tournament.service import VenueService
from host.tournament.store import Store
from host.tournament.web import start_pages
from tests.host.harness import free_port

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture
def site(tmp_path):
    st = Store(str(tmp_path / "venue" / "tournament.sqlite3"))
    svc = VenueService(st, lambda *a: None, discovery_prefix=None)
    port = free_port()
    web = start_pages(svc, port, "127.0.0.1", "http://127.0.0.1:%d" % port, "en", st.path)
    token = web.httpd.venue_pages.tokens.current()
    tid = st.create("Friday", "nine-ball", "double", 2, ["Anna", "Boris", "Chen", "Dasha"], ["t1", "t2"])
    try:
        yield svc, st, port, token, tid
    finally:
        web.stop()
        st.close()


def request(port, method, path, body=None, headers=None):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    h = {"Host": "127.0.0.1:%d" % port}
    h.update(headers or {})
    if isinstance(body, dict):
        body = urllib.parse.urlencode(body)
        h.setdefault("Content-Type", "application/x-www-form-urlencoded")
    c.request(method, path, body, h)
    r = c.getresponse()
    data = r.read().decode("utf-8", "replace")
    c.close()
    return r.status, dict(r.getheaders()), data


def test_the_director_token_is_on_no_public_page_and_guards_every_change(site):
    svc, st, port, token, tid = site
    for path in ("/", "/tournament/%d" % tid, "/tournament/%d.json" % tid, "/ratings", "/queue/t1",
                 "/now.json", "/director", "/director/tournament/%d" % tid):
        code, headers, body = request(port, "GET", path)
        assert token not in body and token not in json.dumps(headers), path
    assert "name=\"token\"" in request(port, "GET", "/director/tournament/%d" % tid)[2]   # the login form
    # Without the token, with a wrong one, or from another site: nothing changes.
    assert request(port, "POST", "/director/start", {"id": tid})[0] == 403
    assert request(port, "POST", "/director/start", {"id": tid}, {"Authorization": "Bearer nope-nope-nope-nope"})[0] == 403
    assert request(port, "POST", "/director/login", {"token": token}, {"Sec-Fetch-Site": "cross-site"})[0] == 400
    assert st.tournament(tid)["status"] == "waiting"
    # Logged in: a cookie for /director only, HttpOnly and SameSite=Strict; then the director starts it.
    code, headers, _ = request(port, "POST", "/director/login", {"token": token},
                               {"Origin": "http://127.0.0.1:%d" % port})
    assert code == 303 and "HttpOnly" in headers["Set-Cookie"] and "SameSite=Strict" in headers["Set-Cookie"] \
        and "Path=/director" in headers["Set-Cookie"]
    cookie = headers["Set-Cookie"].split(";")[0]
    code, headers, _ = request(port, "POST", "/director/start", {"id": tid}, {"Cookie": cookie})
    assert code == 303 and st.tournament(tid)["status"] == "running"
    page = request(port, "GET", "/director/tournament/%d" % tid, headers={"Cookie": cookie})[2]
    assert "/director/walkover" in page and "/director/move" in page and token not in page


def test_tv_page_in_both_languages_and_json_of_show(site):
    svc, st, port, token, tid = site
    st.start(tid)
    code, headers, body = request(port, "GET", "/tournament/%d" % tid)
    assert code == 200 and "Winners round 1" in body and "<svg" in body
    # Its one script is ours, from this server (it follows /events); no inline script may run.
    assert re.findall(r"<script[^>]*>", body) == ['<script src="/tournament.js">']
    assert "</script>" in body and body.count("<script") == 1
    csp = headers["Content-Security-Policy"]
    assert "default-src 'none'" in csp and "script-src 'self'" in csp and "unsafe" not in csp.split("style-src")[0]
    assert "'unsafe-inline'" not in csp.split("script-src")[1].split(";")[0]
    for path in ("/", "/ratings", "/queue/t1", "/league/1", "/director"):
        assert "<script" not in request(port, "GET", path)[2], path
    ru = request(port, "GET", "/tournament/%d?lang=ru" % tid)[2]
    assert 'lang="ru"' in ru and "Верхняя сетка, тур 1" in ru and "Девятка" in ru
    shown = json.loads(request(port, "GET", "/tournament/%d.json" % tid)[2])
    assert shown["status"] == "running" and shown["matches"][0]["players"] == ["Anna", "Dasha"]
    assert request(port, "GET", "/tournament/999")[0] == 404


def test_a_player_joins_a_tables_queue_from_a_phone(site):
    svc, st, port, token, tid = site
    code, headers, _ = request(port, "POST", "/queue/t3", {"name": "Zoe"})
    assert code == 303 and headers["Location"].startswith("/queue/t3?")
    assert st.queue("t3") == ["Zoe"]
    code, headers, _ = request(port, "POST", "/queue/t3?lang=ru", {"name": "zoe"})
    page = request(port, "GET", headers["Location"])[2]
    assert "already in the queue" in page and st.queue("t3") == ["Zoe"]
    assert "<script" not in page and "<b>Zoe</b>" not in request(port, "POST", "/queue/t3", {"name": "<b>Zoe</b>"})[2]
    assert "&lt;b&gt;" in request(port, "GET", "/queue/t3")[2]


def test_the_play_page_leads_to_the_tables_queue():
    from host.web.play import PlayRoutes

    class Req:
        def __init__(self):
            self.headers = {}
            self.sent = None

        def _send(self, code, body, ctype, extra=None):
            self.sent = (code, body, extra or {})
    routes = PlayRoutes("t1", tokens=None, submit=None, venue_url="http://192.168.1.10:8090")
    req = Req()
    assert routes.get(req, "/play/queue")
    assert req.sent[0] == 303 and req.sent[2]["Location"] == "http://192.168.1.10:8090/queue/t1"
    routes = PlayRoutes("t1", tokens=None, submit=None, venue_url="")
    req = Req()
    routes.get(req, "/play/queue")
    assert req.sent[0] == 404 and "BILLIARDS_VENUE_URL" in req.sent[1]
    assert 'href="play/queue"' in (ROOT / "host" / "web" / "play.html").read_text()


def _nested(parser):
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for top in ("venue", "tournament"):
        inner = next(a for a in sub.choices[top]._actions if isinstance(a, argparse._SubParsersAction))
        for name, p in inner.choices.items():
            yield top, name, p


def test_docs_name_every_flag_and_every_documented_command_line_parses():
    doc = (ROOT / "docs" / "tournament.md").read_text()
    missing = ["%s %s %s" % (top, name, o) for top, name, p in _nested(build_parser()) for a in p._actions
               for o in a.option_strings if o.startswith("--") and o != "--help" and o not in doc]
    assert missing == []
    found = []
    for page in [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md")):
        for line in page.read_text().splitlines():
            for m in re.finditer(r"(?:`|^\s*(?:sudo )?)(?:\S*/)?billiards ((?:venue|tournament) [^`\n#]*)", line):
                cmd = m.group(1).strip()
                if not re.search(r"[\[…|]|\.\.\.|\b[A-Z]{2,}\b", cmd):        # synopses
                    found.append(shlex.split(cmd))
    assert len(found) >= 5
    for argv in found:
        build_parser().parse_args(argv)


def test_the_tv_bracket_follows_each_change_on_events(site):
    """/events (the table daemon's bounded SSE streams) carries the service's change number; the
    TV page is rendered with the number it shows and its script loads it again at another."""
    import socket
    svc, st, port, token, tid = site
    st.start(tid)
    svc.changed()
    body = request(port, "GET", "/tournament/%d" % tid)[2]
    shown = int(re.search(r'id="live" data-version="(\d+)"', body).group(1))
    assert '<meta http-equiv="refresh" content="30">' in body       # the fallback without the stream
    code, headers, js = request(port, "GET", "/tournament.js")
    assert code == 200 and headers["Content-Type"].startswith("text/javascript") and "EventSource" in js
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.sendall(b"GET /events HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n" % port)
    got = b""

    def numbers():
        return [json.loads(l[6:])["state"]["version"] for l in got.decode().split("\n") if l.startswith("data: ")]
    while not numbers():
        got += s.recv(65536)
    assert b"text/event-stream" in got and numbers() == [shown]
    assert svc.report(tid, "W1.1", "Anna", [2, 0])[0]
    while len(numbers()) < 2:
        got += s.recv(65536)
    assert numbers()[-1] > shown
    s.close()
    body = request(port, "GET", "/tournament/%d" % tid)[2]
    assert int(re.search(r'id="live" data-version="(\d+)"', body).group(1)) >= numbers()[-1]


def test_the_tv_bracket_in_chromium_shows_a_result_without_waiting_for_its_refresh(site, tmp_path):
    import os
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "people"))
    from cdp import CHROMIUM, Browser
    if not os.path.exists(CHROMIUM):
        pytest.skip("needs chromium")
    from tests.host.harness import wait_for
    svc, st, port, token, tid = site
    st.start(tid)
    svc.changed()
    b = Browser(str(tmp_path / "chromium"))
    try:
        b.open("http://127.0.0.1:%d/tournament/%d" % (port, tid), width=1280, height=720)
        b.wait_for("document.querySelectorAll('.m[data-status=\"done\"]').length === 0 && !!document.getElementById('live')")
        assert b.eval("document.querySelector('meta[http-equiv=refresh]').content") == "30"
        assert svc.report(tid, "W1.1", "Anna", [2, 0])[0]
        # Its score is on the TV well before the page's own 30 s refresh would bring it.
        b.wait_for("!!document.querySelector('.m[data-match=\"W1.1\"][data-status=\"done\"]')", 10)
        assert "Anna" in b.eval("document.querySelector('.m[data-match=\"W1.1\"] .p.w').textContent")
    finally:
        b.close()


def test_every_page_fits_a_320_px_phone_in_both_languages(site, tmp_path):
    """The phone rule of the other pages: from 320 px up nothing scrolls sideways (a bracket
    scrolls inside its own box), with the longest names a table takes, in English and Russian,
    the director's pages too."""
    import os
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "people"))
    from cdp import CHROMIUM, Browser
    if not os.path.exists(CHROMIUM):
        pytest.skip("needs chromium")
    svc, st, port, token, _ = site
    long = ["W" * 32, "Ш" * 32, "Anna Maria Longname-Smithsonian", "Boris"]
    tid = st.create("A very long tournament name for a small phone", "nine-ball", "double", 2, long, ["t1", "t2"])
    st.start(tid)
    assert svc.report(tid, "W1.1", long[0], [2, 1])[0]
    lg = st.create_league("A league with a long, long name", 2)
    assert svc.join_queue("t1", "Q" * 32)
    base = "http://127.0.0.1:%d" % port
    pages = ["/", "/tournament/%d" % tid, "/ratings", "/player/" + urllib.parse.quote(long[0]),
             "/league/%d" % lg, "/queue/t1"]
    director = ["/director", "/director/tournament/%d" % tid]
    b = Browser(str(tmp_path / "chromium"))
    try:
        b.open(base + "/director", width=320, height=640, mobile=True)
        b.wait_for("!!document.querySelector('input[name=token]')")
        b.type_into("input[name=token]", token)
        b.eval("document.querySelector('form').submit()")
        b.wait_for("location.pathname === '/director' && !!document.querySelector('form[action^=\"/director/create\"]')")
        wide = []
        for path in pages + director:
            for lang in ("en", "ru"):
                b.open(base + path + ("&" if "?" in path else "?") + "lang=" + lang, width=320, height=640,
                       mobile=True, scale=2)
                b.wait_for("document.readyState === 'complete' && !!document.querySelector('h1')")
                w = b.eval("document.documentElement.scrollWidth")
                if w > 320:
                    wide.append((path, lang, w))
        assert wide == [], repr(wide)
    finally:
        b.close()
