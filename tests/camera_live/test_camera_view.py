"""What people see of the camera (issue 18): the installer's calibration view (/camera, TV
addresses only, bounded), the table as the camera sees it on the TV and phone pages, and the
camera's entities in Home Assistant."""
import json
import os
import urllib.error
import urllib.request

import pytest

from host.camera.edge import CameraEdge
from host.camera.geometry import Table
from host.web.camera_view import CameraView
from host.web.server import ScoreboardServer
from tests.camera.synth import ToyCamera
from tests.camera_live.rig import Clock

TABLE = Table.named("9ft")
BALLS = {0: (640, 600), 1: (1900, 640), 5: (1500, 300), 9: (2100, 1000)}


@pytest.fixture(scope="module")
def edge():
    """An edge that has seen a second of a still table (the toy camera), asked for its view."""
    cam = ToyCamera(TABLE, size=(320, 180), seed=5)
    still = {b: (x, y, 0.0, 0.0) for b, (x, y) in BALLS.items()}
    clock = Clock(0.0)
    e = CameraEdge("toy", lambda item: True, corners=cam.corners_px, table="9ft", clock=clock)
    e.fps = 30.0
    e.want_view()
    for i in range(40):
        clock.now = i / 30.0
        e.frame(clock.now, cam.frame([still]))
    return e


class Request:
    """What a CameraView reads of the server's request handler, and what it answers."""

    def __init__(self, tv=True, client="192.168.1.50"):
        self.client_address = (client, 50000)
        self.tv = tv
        self.sent = []
        self.close_connection = False

    def is_tv(self):
        return self.tv

    def _send(self, code, body, ctype, extra=None):
        self.sent.append((code, body, ctype, extra or {}))


def ask(view, path, **kw):
    req = Request(**kw)
    assert view(req, path) is True
    return req.sent[-1]


def test_the_view_shows_the_table_and_balls_it_found(edge):
    view = CameraView(edge)
    code, body, ctype, headers = ask(view, "/camera.jpg")
    assert code == 200 and ctype == "image/jpeg" and body[:2] == b"\xff\xd8"
    code, body, ctype, _ = ask(view, "/camera.json")
    found = json.loads(body)
    assert found["state"] == "online" and len(found["corners_px"]) == 4
    # Every ball is drawn where it lies; a ball the analyser has named wears its own number.
    assert len(found["balls"]) == len(BALLS)
    for ball, (x, y) in BALLS.items():
        near = [b for b in found["balls"] if abs(b["mm"][0] - x) < 40 and abs(b["mm"][1] - y) < 40]
        assert len(near) == 1 and near[0]["ball"] in (ball, None), (ball, found["balls"])
    code, body, ctype, headers = ask(view, "/camera")
    assert code == 200 and "camera.js" in body and "frame-ancestors 'none'" in headers["Content-Security-Policy"]
    assert view(Request(), "/play") is False, "other routes are not the view's"


def test_only_the_tv_sees_the_picture(edge):
    view = CameraView(edge)
    for path in ("/camera", "/camera.jpg", "/camera.json"):
        code, body, _, _ = ask(view, path, tv=False)
        assert code == 403 and "TV" in body


def test_a_client_asking_too_often_is_refused_and_pictures_are_drawn_at_most_twice_a_second(edge, monkeypatch):
    import host.web.camera_view as cv
    drawn = []
    real = cv.draw
    monkeypatch.setattr(cv, "draw", lambda frame, overlay: drawn.append(1) or real(frame, overlay))
    view = CameraView(edge, clock=lambda: 0.0)
    codes = [ask(view, "/camera.jpg")[0] for _ in range(40)]
    assert codes.count(200) == cv.BURST and set(codes[cv.BURST:]) == {429}
    assert len(drawn) == 1, "one picture drawn for every client within DRAW_EVERY_S"
    assert ask(view, "/camera.jpg", client="192.168.1.51")[0] == 200, "another TV is not held back"


def test_no_picture_yet_is_said():
    view = CameraView(CameraEdge("none", lambda item: True, clock=lambda: 0.0))
    assert ask(view, "/camera.jpg")[0] == 503
    assert json.loads(ask(view, "/camera.json")[1])["state"] == "offline"


def test_the_pages_carry_the_camera_s_table():
    server = ScoreboardServer("127.0.0.1", 0).start()
    try:
        for page in ("", "index.html"):
            html = urllib.request.urlopen(server.url + page, timeout=5).read().decode()
            assert 'id="camtable"' in html and "tablemap.js" in html
        js = urllib.request.urlopen(server.url + "tablemap.js", timeout=5)
        assert js.status == 200 and b"BilliardsTable" in js.read()
        assert b"BilliardsTable.draw" in urllib.request.urlopen(server.url + "live.js", timeout=5).read()
    finally:
        server.stop()
    from host.web.server import STATIC_DIR
    with open(os.path.join(STATIC_DIR, "play.html"), encoding="utf-8") as f:
        phone = f.read()
    assert 'id="camtable"' in phone and "tablemap.js" in phone


CAM_STATE = {"table": "t1", "shot": 3, "phase": "play", "on_table": [1, 5, 9], "players": [],
             "camera": {"state": "online", "faults": [], "waiting": False, "table_mm": [2540.0, 1270.0],
                        "balls": {"0": [640.0, 600.0], "1": [1900.0, 640.0], "5": [1500.0, 300.0],
                                  "9": [2100.0, 1000.0], "3": [100.0, 100.0]},
                        "last_shot": {"shot": 7, "first_contact": {"ball": 5, "confidence": 0.97},
                                      "railed": {"balls": [5], "confidence": {"0": 0.9, "5": 0.93}},
                                      "break_railed": None, "pocketed": [], "used": ["first_contact", "rail"],
                                      "unsure": [], "fallback": None}}}


@pytest.mark.slow
@pytest.mark.skipif(not os.path.exists("/usr/bin/chromium"), reason="needs Debian's chromium")
def test_the_tv_page_draws_the_balls_where_the_camera_saw_them(tmp_path):
    from tests.people.cdp import Browser
    server = ScoreboardServer("127.0.0.1", 0).start()
    browser = Browser(str(tmp_path / "profile"))
    try:
        server.publish(dict(CAM_STATE))
        browser.open(server.url)
        browser.wait_for("!document.getElementById('camtable').hidden")
        drawn = json.loads(browser.eval(
            "JSON.stringify([...document.querySelectorAll('#camtable circle')].map(c => "
            "[+c.getAttribute('cx'), +c.getAttribute('cy'), +c.getAttribute('r')]))"))
        balls = sorted((x, y) for x, y, r in drawn if r < 40)
        assert balls == sorted([(640, 600), (1900, 640), (1500, 300), (2100, 1000)]), \
            "the balls on the table, where the camera saw them (the 3 is not on the table)"
        server.publish(dict(CAM_STATE, camera=None, shot=4))
        browser.wait_for("document.getElementById('camtable').hidden")
    finally:
        browser.close()
        server.stop()


def render(template, state):
    import jinja2
    from jinja2.sandbox import ImmutableSandboxedEnvironment
    env = ImmutableSandboxedEnvironment(undefined=jinja2.StrictUndefined)
    return env.from_string(template).render(value=json.dumps(state), value_json=state).strip()


def test_home_assistant_shows_the_camera_and_the_last_shot_as_it_saw_it():
    pytest.importorskip("jinja2")
    from host.outputs.ha_discovery import HADiscovery
    cfg = dict((t.split("/")[3], json.loads(p)) for t, p, _ in HADiscovery("t1").on_connect())
    shows = dict((o, render(cfg[o]["value_template"], CAM_STATE))
                 for o in ("camera", "camera_fault", "first_contact", "railed_after_contact"))
    assert shows == {"camera": "online", "camera_fault": "OFF", "first_contact": "5", "railed_after_contact": "5"}
    attrs = json.loads(render(cfg["first_contact"]["json_attributes_template"], CAM_STATE))
    assert attrs["first_contact"]["confidence"] == 0.97 and attrs["used"] == ["first_contact", "rail"]
    faulty = dict(CAM_STATE, camera=dict(CAM_STATE["camera"], state="fault", faults=["camera_moved"]))
    assert render(cfg["camera_fault"]["value_template"], faulty) == "ON"
    assert json.loads(render(cfg["camera"]["json_attributes_template"], faulty))["faults"] == ["camera_moved"]
    assert render(cfg["camera"]["value_template"], dict(CAM_STATE, camera=None)) == "none"
    assert "camera" in cfg["events"]["event_types"]
