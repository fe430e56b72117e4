"""The daemon's HTTP server as a careless or hostile client on the bar's Wi-Fi meets it, against a
running daemon (board on a pty, private mosquitto, headless Chromium).

Names and retained messages from other publishers are shown as text on every page; odd requests
(traversal, odd methods, huge or many headers, no Host, pipelining, Expect) are answered, not
obeyed; idle, slow and sleeping clients cannot take every thread; a page served under a foreign
Host name (DNS rebinding) does not carry the token. Through all of it the daemon lives and its
state and journal do not change.
"""
import json
import os
import socket
import time
import urllib.request

import pytest

from cdp import CHROMIUM, Browser
from play_table import Table, post
from tests.host.harness import wait_for

pytestmark = pytest.mark.slow

XSS_NAME = "<img src=x onerror=top.__x=1>"          # 29 characters: a valid player name
XSS_TABLE_NAME = "<script>top.__x=2</script>"
LONG_NAME = "<b>" + "W" * 25 + "</b>"               # 32 characters, the longest name, and markup


@pytest.fixture
def table(tmp_path, broker):
    t = Table(tmp_path, broker)
    yield t
    t.close()


def raw(port, data, src="127.0.0.1", timeout=5.0, wait_close=True):
    """Send bytes, return everything the server answered until it closed (or `timeout`)."""
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout, source_address=(src, 0))
    try:
        s.sendall(data)
        out = b""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                chunk = s.recv(65536)
            except socket.timeout:
                break
            if not chunk:
                break
            out += chunk
            if not wait_close and b"\r\n\r\n" in out:
                break
        return out
    finally:
        s.close()


def status(answer):
    line = answer.split(b"\r\n", 1)[0].split()
    return int(line[1]) if len(line) > 1 and line[1].isdigit() else None


def get(table, path, headers=None):
    req = urllib.request.Request(table.base + path, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, dict(r.headers), r.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read().decode("utf-8", "replace")


def snapshot(table):
    return table.state(), table.journal_lines()


def alive_and_unchanged(table, before):
    assert table.daemon.proc.poll() is None, "the daemon died"
    code, _, _ = get(table, "/state")
    assert code == 200
    time.sleep(0.3)
    assert snapshot(table) == before


def retain(table, topic, payload):
    table.sub.client.publish(topic, payload, qos=1, retain=True).wait_for_publish(5)


@pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="needs chromium")
def test_hostile_names_and_retained_messages_are_shown_as_text(table, tmp_path):
    token = table.token()
    code, _, res = post(table.base, "/api/cmd/new_game",
                        {"game": "nine-ball", "players": [XSS_NAME, "Bob"]}, token=token)
    assert code == 200 and res["ok"], res
    code, _, res = post(table.base, "/api/cmd/rename", {"player": 1, "name": LONG_NAME},
                        token=token)
    assert code == 200 and res["ok"], res
    wait_for(lambda: (table.state() or {}).get("players", [{}])[0].get("name") == XSS_NAME, 5,
             what="hostile name in the state")
    # Another publisher on the broker forges a whole table: its name, players, page links.
    retain(table, "billiards/evil/info", json.dumps({
        "name": XSS_TABLE_NAME, "url": "javascript:top.__x=3//",
        "play": "javascript:top.__x=4//"}))
    retain(table, "billiards/evil/state", json.dumps({
        "game": "<i>g</i>", "phase": "\"><svg onload=top.__x=5>", "shooter": 0,
        "players": [{"name": XSS_NAME, "score": "<b>9</b>"}, {"name": "x" * 5000, "score": 1}]}))
    retain(table, "billiards/evil/status", "online")
    retain(table, "billiards/ev<i>l/status", "online")
    wait_for(lambda: "evil" in get(table, "/venue.json")[2] and "ev<i>l" in get(table, "/venue.json")[2], 5,
             what="both forged tables on /venue")

    code, headers, page = get(table, "/venue")
    assert code == 200
    assert "script-src" not in headers["Content-Security-Policy"]        # default-src 'none': no script
    assert "<img src=x" not in page and "<script>" not in page and "<svg" not in page
    assert "javascript:" not in page and "x" * 100 not in page          # a 5000-character name is cut
    assert "&lt;img src=x onerror=top.__x=1&gt;" in page
    assert "ev&lt;i&gt;l" in page
    venue = json.loads(get(table, "/venue.json")[2])
    assert venue["evil"]["tv"] is None and venue["evil"]["play"] is None
    assert venue["evil"]["score"] == [None, 1]

    b = Browser(str(tmp_path / "profile"))
    try:
        for path, size, shows in (("/", (1280, 720), XSS_NAME), ("/play#t=" + token, (390, 844), XSS_NAME),
                                  ("/venue", (1280, 720), XSS_TABLE_NAME),
                                  ("/play/sticker", (600, 800), "Table t1")):
            b.open(table.base + path, width=size[0], height=size[1], mobile=size[0] < 500)
            b.wait_for("document.body && document.body.innerText.includes(%s)" % json.dumps(shows))
            time.sleep(0.5)                       # an onerror or onload would have run by now
            assert b.eval("typeof top.__x") == "undefined", path
            assert b.eval("document.querySelectorAll('img[src=x], script:not([src]), svg[onload]').length") == 0
            # The longest names neither widen the page nor push the score off it.
            assert b.eval("document.documentElement.scrollWidth") <= size[0], path
        b.open(table.base + "/", width=1280, height=720)
        b.wait_for("document.getElementById('name1').textContent === %s" % json.dumps(LONG_NAME))
        box = b.eval("JSON.stringify(['name1', 'score1', 'p1'].map(id => "
                     "document.getElementById(id).getBoundingClientRect().right))")
        name_right, score_right, card_right = json.loads(box)
        assert name_right <= card_right and score_right <= card_right
    finally:
        b.close()


def test_odd_requests_are_answered_not_obeyed(table):
    port = table.port
    before = snapshot(table)
    for path in ("/../../../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/..%2f..%2fetc/passwd",
                 "//etc/passwd", "/etc/passwd", "/tv.js%00.html", "/play.js/../../server.py",
                 "/server.py", "/__init__.py", "/" + "a" * 8000):
        ans = raw(port, b"GET " + path.encode() + b" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        assert status(ans) == 404, (path, ans[:80])
        assert b"root:" not in ans and b"import" not in ans
    assert status(raw(port, b"GET /" + b"a" * 70000 + b" HTTP/1.1\r\nHost: x\r\n\r\n")) == 414
    assert status(raw(port, b"GET /tv.js\x00 HTTP/1.1\r\nHost: x\r\n\r\n")) in (400, 404)
    for method in (b"PUT", b"DELETE", b"OPTIONS", b"TRACE", b"PATCH", b"CONNECT", b"BREW"):
        ans = raw(port, method + b" /api/cmd/new_game HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
        assert status(ans) == 501, (method, ans[:80])
    head = raw(port, b"HEAD / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    assert status(head) in (200, 501) and b"<html" not in head
    big = b"GET /state HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 70000 + b"\r\n\r\n"
    assert status(raw(port, big)) == 431
    many = b"GET /state HTTP/1.1\r\nHost: x\r\n" + b"".join(b"X-%d: 1\r\n" % i for i in range(200)) + b"\r\n"
    assert status(raw(port, many)) == 431
    ans = raw(port, b"GET /state HTTP/1.0\r\n\r\n")                      # HTTP/1.0, no Host
    assert status(ans) == 200 and b"\"table\"" in ans
    two = raw(port, b"GET /state HTTP/1.1\r\nHost: x\r\n\r\nGET /tv.css HTTP/1.1\r\nHost: x\r\n"
              b"Connection: close\r\n\r\n")                               # pipelined
    assert two.count(b"HTTP/1.1 200") == 2
    # Expect: 100-continue with a wrong token, and a body announced far too large: no command.
    body = json.dumps({"game": "eight-ball", "players": ["Eve", "Mal"]}).encode()
    ans = raw(port, b"POST /api/cmd/new_game HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + b"A" * 32 +
              b"\r\nExpect: 100-continue\r\nContent-Length: %d\r\n\r\n" % len(body) + body)
    assert b" 403 " in ans
    ans = raw(port, b"POST /api/cmd/new_game HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " +
              table.token().encode() + b"\r\nContent-Length: 999999999\r\n\r\n" + body)
    assert status(ans) == 413
    ans = raw(port, b"POST /api/cmd/new_game HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " +
              table.token().encode() + b"\r\nContent-Length: -5\r\n\r\n" + body)
    assert status(ans) == 411
    ans = raw(port, b"POST /api/cmd/new_game HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " +
              table.token().encode() + b"\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n")
    assert status(ans) == 411
    assert status(raw(port, b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + os.urandom(200))) in (400, None)
    assert status(raw(port, b"\r\n\r\n\r\n", timeout=2)) in (400, None)
    alive_and_unchanged(table, before)


def test_a_foreign_host_name_gets_no_token_but_the_tables_own_names_do(table):
    """DNS rebinding: evil.example pointed at the table reads it as its own site."""
    token = table.token()
    before = snapshot(table)
    for host in ("evil.example", "evil.example:%d" % table.port, "192.168.1.20.nip.io"):
        for path in ("/play/qr.svg", "/play/sticker"):
            code, _, body = get(table, path, {"Host": host})
            assert code == 421 and "<svg" not in body, (host, path)
        code, _, res = post(table.base, "/api/cmd/new_game", {"game": "eight-ball"}, token=token,
                            headers={"Host": host})
        assert code == 421
        code, _, _ = post(table.base, "/api/token/rotate", token=token, headers={"Host": host})
        assert code == 421
    alive_and_unchanged(table, before)
    assert table.token() == token
    for host in ("127.0.0.1:%d" % table.port, "192.168.1.20:8080", "[fe80::1]:8080", "pooltable",
                 "pool.local", "bar.lan:8080", "localhost"):
        code, headers, body = get(table, "/play/qr.svg", {"Host": host})
        assert code == 200 and "<svg" in body, host
        assert headers["X-Content-Type-Options"] == "nosniff"
    code, headers, _ = get(table, "/")
    assert "frame-ancestors 'none'" in headers["Content-Security-Policy"]
    assert headers["Referrer-Policy"] == "no-referrer"


def _hold(port, src, n, data=b""):
    socks = []
    for _ in range(n):
        s = socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(src, 0))
        if data:
            s.sendall(data)
        socks.append(s)
    return socks


def _closed_by_server(s, timeout):
    s.settimeout(timeout)
    try:
        while True:
            chunk = s.recv(65536)
            if not chunk:
                return True
    except socket.timeout:
        return False
    except OSError:
        return True


def _streaming(socks, timeout=10):
    """Wait until every stream in `socks` has its first event (the server has taken it)."""
    for s in socks:
        _first_event(s, timeout)


def _first_event(s, timeout):
    """What a stream sent up to its first event (less if the server closed it first)."""
    s.settimeout(timeout)
    got = b""
    while b"data:" not in got:
        chunk = s.recv(65536)
        if not chunk:
            break
        got += chunk
    return got


def _open_count(socks):
    return sum(1 for s in socks if not _closed_by_server(s, 0.05))


def test_idle_slow_and_sleeping_clients_cannot_take_every_thread(table):
    from host.web import server
    port = table.port
    token = table.token()
    get_state = b"GET /state HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    ev = b"GET /events HTTP/1.1\r\nHost: x\r\n\r\n"
    held = []
    try:
        # One client's idle connections: at its cap its oldest idle one gives way to a request.
        idle = _hold(port, "127.0.0.2", server.MAX_PER_CLIENT)
        time.sleep(0.3)
        assert status(raw(port, get_state, src="127.0.0.2")) == 200
        time.sleep(0.3)
        assert _open_count(idle) == len(idle) - 1
        held += idle
        # Idle sockets from many addresses fill the server: a phone that asks is still served.
        crowd = []
        for i in range(server.MAX_CONNECTIONS):
            crowd += _hold(port, "127.0.3.%d" % (i + 1), 1)
        time.sleep(0.3)
        assert status(raw(port, get_state, src="127.0.4.1")) == 200
        held += crowd
        # Slowloris: a header byte every second is cut off at HEAD_S, not held for ever.
        slow = socket.create_connection(("127.0.0.1", port), source_address=("127.0.0.3", 0))
        slow.sendall(b"GET /state HTTP/1.1\r\n")
        t0 = time.monotonic()
        cut = False
        while time.monotonic() - t0 < server.HEAD_S + 5:
            try:
                slow.sendall(b"X")
            except OSError:
                cut = True
                break
            if _closed_by_server(slow, 1.0):
                cut = True
                break
        assert cut and time.monotonic() - t0 < server.HEAD_S + 3
        slow.close()
        # Every idle socket of the crowd was cut by HEAD_S too.
        assert _open_count(held) == 0
        # Phones that went to sleep with /events open: a client's oldest stream gives way ...
        streams = _hold(port, "127.0.0.4", server.STREAMS_PER_CLIENT, ev)
        _streaming(streams)                 # each one served (a loaded machine takes its time)
        streams += _hold(port, "127.0.0.4", 1, ev)
        # Served first (a loaded machine takes its time), so its slot is taken before asking.
        assert _first_event(streams[-1], 30).startswith(b"HTTP/1.1 200")
        assert _closed_by_server(streams[0], 10)
        # ... and at MAX_STREAMS the oldest of all: a phone opening the page now gets it live.
        for i in range(server.MAX_STREAMS):
            streams += _hold(port, "127.0.1.%d" % (i + 1), 1, ev)
        time.sleep(0.5)
        assert _open_count(streams) == server.MAX_STREAMS
        late = _hold(port, "127.0.2.1", 1, ev)[0]
        late.settimeout(3)
        got = b""
        while b"data:" not in got:
            got += late.recv(65536)
        assert got.startswith(b"HTTP/1.1 200")
        held += streams + [late]
        # A client closing its stream frees its thread within CHECK_S, not at the next keepalive.
        late.close()
        # Every other thread held by token holders' bodies that never come (issue 16): a body
        # being waited for gives way like an idle connection, so a phone that asks is served.
        body_wait = (b"POST /api/cmd/lag HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + token.encode()
                     + b"\r\nContent-Length: 100\r\n\r\n{")
        waits = []
        for i in range(server.MAX_CONNECTIONS - server.MAX_STREAMS):
            waits += _hold(port, "127.0.5.%d" % (1 + i // 10), 1, body_wait)
        held += waits
        time.sleep(0.5)
        assert status(raw(port, get_state, src="127.0.4.2", timeout=3, wait_close=False)) == 200
        assert _open_count(waits) == len(waits) - 1
        assert table.daemon.proc.poll() is None
        # The daemon's own loop is unaffected: a command over MQTT is still judged at once.
        table.sub.publish("billiards/t1/cmd/new_game", json.dumps({"game": "eight-ball", "id": "m1"}))
        wait_for(lambda: table.results() and table.results()[-1]["id"] == "m1", 5, what="MQTT command")
        assert table.results()[-1]["ok"]
    finally:
        for s in held:
            s.close()
    # Once they are gone, phones are served again.
    time.sleep(server.CHECK_S + 1)
    code, _, res = post(table.base, "/api/cmd/new_game", {"game": "nine-ball", "id": "h1"}, token=token)
    assert code == 200 and res["ok"], res
    wait_for(lambda: (table.state() or {}).get("game") == "nine-ball", 5, what="nine-ball")
    assert table.daemon.proc.poll() is None


def test_token_stays_out_of_logs_and_pages_and_the_rate_limit_holds_under_many_connections(table):
    import threading
    token = table.token()
    before = snapshot(table)
    # 40 connections at once from one address with guessed tokens: the bucket (12 at once,
    # then 4 a second) is shared by all of them, not per connection.
    codes = []
    lock = threading.Lock()

    def guess(i):
        code, _, _ = post(table.base, "/api/cmd/new_game", {"game": "eight-ball"},
                          token="guess%027d" % i)
        with lock:
            codes.append(code)
    t0 = time.monotonic()
    threads = [threading.Thread(target=guess, args=(i,)) for i in range(40)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(20)
    took = time.monotonic() - t0
    assert len(codes) == 40 and set(codes) <= {403, 429}
    assert codes.count(403) <= 12 + int(4 * took) + 1, (codes.count(403), took)
    assert codes.count(429) >= 40 - 12 - int(4 * took) - 1
    # The token appears in none of what a client without it can read, nor in the daemon's log.
    for path in ("/state", "/venue", "/venue.json", "/history", "/history.json", "/", "/play",
                 "/nowhere", "/api/token"):
        code, headers, body = get(table, path)
        assert token not in body and token not in json.dumps(headers), path
    ev = raw(table.port, b"GET /events HTTP/1.1\r\nHost: x\r\n\r\n", timeout=1)
    assert b"data:" in ev and token.encode() not in ev
    assert status(raw(table.port, b"POST /api/cmd/new_game HTTP/1.1\r\nHost: evil.example\r\n"
                      b"Authorization: Bearer " + token.encode() + b"\r\nContent-Length: 2\r\n\r\n{}")) == 421
    alive_and_unchanged(table, before)
    with open(table.daemon.log, "rb") as f:
        assert token.encode() not in f.read()


def test_history_rows_with_markup_in_names_are_text(table, tmp_path):
    """A season's names reach /history from the journals through SQLite (host/history.py): a
    name that is markup stays text there too, in a page that runs no script."""
    from host import history
    player = {"score": 5, "won": True, "pocketed": 8, "fouls": 0, "breaks": 1, "legal_breaks": 1,
              "high_run": 8, "break_and_runs": 1}
    rec = {"table": "t1", "started": 1.0, "ended": 100.0, "game": "eight-ball", "race_to": 5,
           "target": None, "games": 9, "winner": 0, "winner_name": XSS_NAME, "score": [5, 4],
           "players": [dict(player, name=XSS_NAME), dict(player, name=LONG_NAME, won=False, score=4)]}
    db = history.HistoryDB(history.default_db(str(table.journal)))
    try:
        db.upsert(rec)
    finally:
        db.close()
    code, headers, page = get(table, "/history")
    assert code == 200 and "script-src" not in headers["Content-Security-Policy"]
    assert "<img src=x" not in page and "<b>WWW" not in page
    assert "&lt;img src=x onerror=top.__x=1&gt;" in page and "&lt;b&gt;" + "W" * 25 in page
    assert json.loads(get(table, "/history.json")[2])["matches"][0]["winner_name"] == XSS_NAME
    if not os.path.exists(CHROMIUM):
        return
    b = Browser(str(tmp_path / "profile"))
    try:       # on a phone: the page keeps the screen's width, each cell stays on one line
        b.open(table.base + "/history", width=390, height=844, mobile=True)
        b.wait_for("!!document.querySelector('td')")
        assert b.eval("typeof top.__x") == "undefined"
        assert b.eval("document.documentElement.scrollWidth") <= 390
        assert b.eval("Math.max(...[...document.querySelectorAll('td')].map("
                      "td => td.getBoundingClientRect().height))") < 40
    finally:
        b.close()


def test_a_host_too_long_for_a_qr_code_gets_the_tables_own_address(tmp_path):
    """Without --play-url the QR code names the Host the page was loaded from; one too long
    for any QR code (a single label passes the rebinding check) used to fail the request."""
    from host.web.access import TokenStore
    from host.web.play import PlayRoutes
    from host.web.server import ScoreboardServer
    play = PlayRoutes("t1", TokenStore(str(tmp_path), "t1"), lambda name, body: None)
    srv = ScoreboardServer(host="127.0.0.1", port=0, play=play).start()
    try:
        class T:
            base = srv.url.rstrip("/")
        for path in ("/play/qr.svg", "/play/sticker"):
            code, _, body = get(T, path, {"Host": "a" * 3000})
            assert code == 200 and "<svg" in body, path
    finally:
        srv.stop()
