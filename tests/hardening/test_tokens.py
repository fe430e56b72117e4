"""Issue 16, finding 6: the table's token reaches only the TV, the TV follows a rotation without a
reload, a phone holding the token cannot chain rotations to lock the others out, and a token
per match makes a photo of last night's QR code worthless.

Against the real daemon (board on a pty, private mosquitto, `billiards run --http`); phones are
other loopback addresses than the daemon's own 127.0.0.1 (which is "this machine": a kiosk
browser on the host, the TV). The token per match is tested on the real daemon (its state
names its match) and, for the stream's `qr` tag and the answers' token, on the same HTTP
server fed states directly.
"""
import base64
import json
import os
import re
import urllib.request

import pytest

from host.web.access import TokenStore, match_token, play_url
from host.web.play import PlayRoutes, qr_svg
from host.web.server import ScoreboardServer
from tests.hardening.attack import status_of, whole
from tests.host.harness import wait_for
from tests.people.cdp import CHROMIUM, Browser
from tests.people.play_table import Table, cli, post

pytestmark = pytest.mark.slow

PHONE = "127.0.5.5"


@pytest.fixture
def table(tmp_path, broker):
    t = Table(tmp_path, broker)
    yield t
    t.close()


def body_of(port, path, src="127.0.0.1"):
    out = whole(port, b"GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n" % path.encode(), src)
    head, _, body = out.partition(b"\r\n\r\n")
    return status_of(head), body.decode("utf-8", "replace")


def test_only_the_tv_gets_the_qr_code_and_the_sticker(table):
    """Before, any client on the LAN loaded /play/qr.svg and decoded the token."""
    token = table.token()
    for path in ("/play/qr.svg", "/play/sticker"):
        code, body = body_of(table.port, path, src=PHONE)
        assert code == 403 and token not in body and "<svg" not in body, path
        code, body = body_of(table.port, path)                       # the TV on this machine
        assert code == 200 and "<svg" in body, path
    assert body_of(table.port, "/play/qr.svg")[1] == qr_svg(play_url(table.base, table.play_token()))


def test_tv_address_names_the_tvs_on_the_lan(tmp_path, broker):
    """--tv-address: the owner's list of TV addresses (or networks) gets the QR code too."""
    t = Table(tmp_path, broker, extra=["--tv-address", "127.0.7.0/24,127.0.8.8"])
    try:
        assert body_of(t.port, "/play/qr.svg", src="127.0.7.7")[0] == 200
        assert body_of(t.port, "/play/qr.svg", src="127.0.8.8")[0] == 200
        assert body_of(t.port, "/play/qr.svg", src="127.0.8.9")[0] == 403
    finally:
        t.close()
    bad = cli("run", "--tv-address", "not-an-address", "--simulate", "--journal", str(tmp_path / "j2"))
    assert bad.returncode == 2 and "--tv-address" in bad.stderr


def test_venue_shows_no_tables_token(tmp_path, broker):
    """Before, /venue on any table listed every table's /play/qr.svg: decoding them gave working
    tokens for t1 and t2 from anywhere on the LAN. Now it shows each table's play link without a
    token (view-only), drawn by the server itself."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    t1 = Table(tmp_path / "a", broker, table="t1")
    t2 = Table(tmp_path / "b", broker, table="t2")
    try:
        tokens = (t1.token(), t2.token())

        def both_listed():
            venue = json.loads(body_of(t1.port, "/venue.json", src=PHONE)[1])
            return all(venue.get(t, {}).get("play") for t in ("t1", "t2")) and venue
        venue = wait_for(both_listed, 15, what="both tables on /venue")
        code, page = body_of(t1.port, "/venue", src=PHONE)
        assert code == 200 and "/play/qr.svg" not in page
        images = re.findall(r'src="data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)"', page)
        assert len(images) == 2
        drawn = {base64.b64decode(i).decode() for i in images}
        assert drawn == {qr_svg(venue["t1"]["play"]), qr_svg(venue["t2"]["play"])}
        for tok in tokens:
            assert tok not in page and tok not in json.dumps(venue)
            assert "#t=" not in venue["t1"]["play"] + venue["t2"]["play"]
    finally:
        t2.close()
        t1.close()


def test_a_phone_with_the_token_cannot_rotate_it_and_the_tv_only_now_and_then(table):
    """Before, a token holder chained POST /api/token/rotate (each answer carries the new token)
    and locked every other phone out. A rotation over the API is now the TV's, at most once
    every ROTATE_EVERY_S; `billiards token --rotate` is the owner's and is not limited."""
    token = table.token()
    answer = whole(table.port, b"POST /api/token/rotate HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
                   b"%s\r\nContent-Length: 0\r\nConnection: close\r\n\r\n" % token.encode(), src=PHONE)
    assert status_of(answer) == 403 and b"billiards token --rotate" in answer
    assert table.token() == token
    code, _, res = post(table.base, "/api/token/rotate", token=token)           # the TV
    assert code == 200 and res["token"] != token and table.token() == res["token"]
    code, headers, _ = post(table.base, "/api/token/rotate", token=res["token"])
    assert code == 429 and int(headers["Retry-After"]) >= 1
    assert table.token() == res["token"]
    out = cli("token", "--journal", str(table.journal), "--table", "t1", "--rotate", "--play-url", table.base)
    assert out.returncode == 0 and table.token() not in (token, res["token"])


@pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="needs chromium")
def test_the_tv_page_follows_a_rotation_without_a_reload(table, tmp_path):
    """Before, the TV loaded its QR code once and showed a dead code after a rotation until
    someone reloaded the page. Now the stream's `qr` tag changes and the page draws the new one."""
    b = Browser(str(tmp_path / "profile"))
    try:
        b.open(table.base + "/", width=1280, height=720)
        b.wait_for("document.querySelector('#playqr img').src.indexOf('?v=') > 0 && "
                   "document.querySelector('#playqr img').naturalWidth > 0")
        first = b.eval("document.querySelector('#playqr img').src")
        out = cli("token", "--journal", str(table.journal), "--table", "t1", "--rotate",
                  "--play-url", table.base)
        assert out.returncode == 0
        new = table.token()
        b.wait_for("document.querySelector('#playqr img').src !== %s && "
                   "document.querySelector('#playqr img').naturalWidth > 0" % json.dumps(first), timeout=15)
        assert b.eval("document.getElementById('playqr').hidden") is False
        shown = b.eval("document.querySelector('#playqr img').src")
        with urllib.request.urlopen(shown, timeout=5) as r:
            assert r.read().decode() == qr_svg(play_url(table.base, table.play_token()))
    finally:
        b.close()


def test_a_token_per_match_on_the_real_daemon(table):
    """The daemon's state names its match (state.match.id): the QR code carries that match's
    token; the phones of the match before still play through the next match's start and are
    handed the new token; a photo of a QR code two matches old is worthless."""
    def match():
        return ((table.state() or {}).get("match") or {}).get("id")
    first = match()
    assert first is not None
    tonight = table.play_token()
    assert tonight != table.token()
    assert body_of(table.port, "/play/qr.svg")[1] == qr_svg(play_url(table.base, tonight))
    assert post(table.base, "/api/cmd/rename", {"player": 0, "name": "Ann"}, token=tonight)[0] == 200
    table.sub.publish("billiards/t1/cmd/new_game", json.dumps({"game": "nine-ball", "players": ["A", "B"]}))
    wait_for(lambda: match() not in (None, first), 10, what="the next match")
    code, _, res = post(table.base, "/api/cmd/rename", {"player": 0, "name": "Bea"}, token=tonight)
    assert code == 200 and res["ok"] is True and res["token"] == table.play_token() != tonight, res
    second = match()
    table.sub.publish("billiards/t1/cmd/new_game", json.dumps({"game": "eight-ball", "players": ["C", "D"]}))
    wait_for(lambda: match() not in (None, second), 10, what="the match after")
    assert post(table.base, "/api/cmd/rename", {"player": 0, "name": "Cy"}, token=tonight)[0] == 403
    assert post(table.base, "/api/cmd/rename", {"player": 0, "name": "Di"}, token=table.token())[0] == 200


# --- a token per match (the HTTP server with a state that names its match) ---------------------

class MatchTable:
    """The real server and phone routes, fed states as the daemon would: `state["match"]["id"]`
    is the id the referee will publish; `new_game` begins match id + 1."""

    def __init__(self, tmp_path):
        self.tokens = TokenStore(str(tmp_path), "t1")
        self.match = 6
        self.play = PlayRoutes("t1", self.tokens, self.submit, base_url=None)
        self.server = ScoreboardServer(host="127.0.0.1", port=0, play=self.play).start()
        self.base = self.server.url.rstrip("/")
        self.play.base_url = self.base
        self.server.publish({"table": "t1", "match": {"id": self.match}})

    def submit(self, name, body):
        if name == "new_game":
            self.match += 1
            self.server.publish({"table": "t1", "match": {"id": self.match}})
        return {"cmd": name, "ok": True, "error": None, "id": None}

    def close(self):
        self.server.stop()


def test_a_token_per_match_makes_last_nights_qr_code_worthless(tmp_path):
    t = MatchTable(tmp_path)
    try:
        table_token = t.tokens.current()
        tonight = match_token(table_token, 6)
        assert body_of(t.server.port, "/play/qr.svg")[1] == qr_svg(play_url(t.base, tonight))
        assert post(t.base, "/api/cmd/lag", {"winner": 0}, token=tonight)[0] == 200
        # A new match: the phones of the match before still play, and are handed its token ...
        code, _, res = post(t.base, "/api/cmd/new_game", {}, token=tonight)
        assert code == 200 and res["token"] == match_token(table_token, 7) != tonight
        code, _, res2 = post(t.base, "/api/cmd/undo", {}, token=tonight)
        assert code == 200 and res2["token"] == res["token"]
        assert body_of(t.server.port, "/play/qr.svg")[1] == qr_svg(play_url(t.base, res["token"]))
        assert "token" not in post(t.base, "/api/cmd/undo", {}, token=res["token"])[2]
        # ... but once another match has begun, a photo of the first QR code is worthless.
        assert post(t.base, "/api/cmd/new_game", {}, token=res["token"])[0] == 200
        assert post(t.base, "/api/cmd/undo", {}, token=tonight)[0] == 403
        # ... and the table token (the printed sticker's, `billiards token`'s) still does.
        assert post(t.base, "/api/cmd/undo", {}, token=table_token)[0] == 200
        assert "token" not in post(t.base, "/api/cmd/undo", {}, token=table_token)[2]
    finally:
        t.close()


def test_the_stream_tells_the_tv_when_the_qr_code_changes(tmp_path):
    import socket
    t = MatchTable(tmp_path)
    s = socket.create_connection(("127.0.0.1", t.server.port), timeout=10)
    try:
        s.sendall(b"GET /events HTTP/1.1\r\nHost: x\r\n\r\n")

        buf = [b""]

        def next_envelope():
            while True:
                i = buf[0].find(b"data: ")
                j = buf[0].find(b"\n\n", i) if i >= 0 else -1
                if j >= 0:
                    line, buf[0] = buf[0][i + 6:j], buf[0][j + 2:]
                    return json.loads(line)
                chunk = s.recv(65536)
                assert chunk, "the stream ended"
                buf[0] += chunk
        first = next_envelope()
        assert first["state"]["match"] == {"id": 6} and re.fullmatch(r"[0-9a-f]{12}", first["qr"])
        assert t.tokens.current() not in json.dumps(first)
        post(t.base, "/api/cmd/new_game", {}, token=match_token(t.tokens.current(), 6))
        second = next_envelope()
        assert second["state"]["match"] == {"id": 7} and second["qr"] != first["qr"]
    finally:
        s.close()
        t.close()
