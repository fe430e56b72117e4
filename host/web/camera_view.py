"""The camera's calibration view on the TV page server (issue 18, `billiards run --camera ... --http`).

    GET /camera         the page: the camera's picture with what the analyser found drawn over it
    GET /camera.js      its script (reloads the picture and the figures every second)
    GET /camera.jpg     the latest picture, annotated: the cushion-nose outline (green), the corners
                        (HL, HR, FR, FL), the pockets, every ball it follows with its number
    GET /camera.json    the same as figures: health, corners, pockets and balls in pixels and mm

An installer sees at once whether the camera is aligned: the green line runs along the cushion
noses and each ball wears a ring with its number, or they do not (then `--camera-corners`, whose
values the page lists, or move the camera).

Only for the TV addresses (this machine and --tv-address, like /play/qr.svg): the picture shows
the room and its people, not for every phone on the bar's Wi-Fi. Bounded: each address may ask
RATE times a second (burst BURST), a picture is drawn at most every DRAW_EVERY_S whoever asks
(the others get the last one drawn), and the camera's thread takes a picture for the view only
while someone is looking (edge.want_view).
"""
import json
import threading
import time

from host.web.access import RateLimiter

DRAW_EVERY_S = 0.5
RATE = 3.0
BURST = 10
WIDTH = 960                  # the picture is scaled down to at most this width
TV_ONLY = ("the camera's picture shows the room: it is shown only on the TV (this machine or "
           "--tv-address)")
HEADERS = {"Content-Security-Policy": "default-src 'self'; img-src 'self'; frame-ancestors 'none'; "
           "base-uri 'none'; form-action 'none'", "X-Frame-Options": "DENY", "Referrer-Policy": "no-referrer",
           "Cache-Control": "no-store"}
ROUTES = ("/camera", "/camera.js", "/camera.jpg", "/camera.json")


class CameraView:
    """A page of the TV server (ScoreboardServer.add_page): view(handler, path) -> answered?"""

    def __init__(self, edge, limiter=None, clock=time.monotonic):
        self.edge = edge
        self.limiter = limiter or RateLimiter(rate=RATE, burst=BURST, max_clients=64)
        self.clock = clock
        self._lock = threading.Lock()
        self._drawn = None          # (view time, drawn at, jpeg bytes)

    def __call__(self, req, path):
        if path not in ROUTES:
            return False
        client = req.client_address[0]
        if not req.is_tv():
            req.close_connection = True
            req._send(403, TV_ONLY + "\n", "text/plain; charset=utf-8")
            return True
        if not self.limiter.allow(client):
            req.close_connection = True
            req._send(429, "too many requests; wait a moment\n", "text/plain; charset=utf-8",
                      {"Retry-After": str(self.limiter.retry_after(client))})
            return True
        if path == "/camera":
            req._send(200, PAGE, "text/html; charset=utf-8", HEADERS)
        elif path == "/camera.js":
            req._send(200, SCRIPT, "text/javascript; charset=utf-8", HEADERS)
        elif path == "/camera.json":
            view = self.edge.want_view()
            body = dict(view["overlay"], t=round(view["t"], 3)) if view else {"state": "offline", "faults": []}
            req._send(200, json.dumps(body), "application/json; charset=utf-8", HEADERS)
        else:
            jpeg = self.picture()
            if jpeg is None:
                req._send(503, "no picture from the camera yet\n", "text/plain; charset=utf-8", HEADERS)
            else:
                req._send(200, jpeg, "image/jpeg", HEADERS)
        return True

    def picture(self):
        """The latest annotated picture as JPEG bytes, drawn again at most every DRAW_EVERY_S."""
        view = self.edge.want_view()
        if view is None:
            return None
        with self._lock:
            d = self._drawn
            if d is not None and (d[0] == view["t"] or self.clock() - d[1] < DRAW_EVERY_S):
                return d[2]
            jpeg = draw(view["frame"], view["overlay"])
            self._drawn = (view["t"], self.clock(), jpeg)
            return jpeg


def draw(frame, overlay):
    """`frame` scaled to at most WIDTH wide, what the analyser found drawn over it; JPEG bytes."""
    import cv2
    import numpy as np
    h, w = frame.shape[:2]
    s = min(1.0, WIDTH / float(w))
    img = cv2.resize(frame, (int(w * s), int(h * s)), interpolation=cv2.INTER_AREA) if s < 1 else frame.copy()

    def pts(p):
        return (np.asarray(p, dtype=float) * s).round().astype(np.int32)
    green, red, white = (60, 220, 60), (40, 40, 230), (255, 255, 255)
    if overlay.get("outline_px"):
        cv2.polylines(img, [pts(overlay["outline_px"])], True, green, 2, cv2.LINE_AA)
    for (x, y), name in zip(pts(overlay.get("corners_px") or []), ("HL", "HR", "FR", "FL")):
        cv2.circle(img, (int(x), int(y)), 5, green, -1, cv2.LINE_AA)
        cv2.putText(img, name, (int(x) + 6, int(y) - 6), cv2.FONT_HERSHEY_SIMPLEX, 0.5, green, 1, cv2.LINE_AA)
    for x, y in pts(overlay.get("pockets_px") or []):
        cv2.circle(img, (int(x), int(y)), 9, green, 1, cv2.LINE_AA)
    for b in overlay.get("balls") or []:
        x, y = pts(b["px"])
        cv2.circle(img, (int(x), int(y)), 11, white if b["ball"] is not None else red, 2, cv2.LINE_AA)
        label = "?" if b["ball"] is None else str(b["ball"])
        cv2.putText(img, label, (int(x) + 10, int(y) + 16), cv2.FONT_HERSHEY_SIMPLEX, 0.5, white, 1, cv2.LINE_AA)
    status = overlay.get("state", "offline") + (": " + ", ".join(overlay["faults"]) if overlay.get("faults") else "")
    cv2.putText(img, status, (8, 20), cv2.FONT_HERSHEY_SIMPLEX, 0.6, green if status == "online" else red, 2,
                cv2.LINE_AA)
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 75])
    return buf.tobytes() if ok else None


PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Camera calibration</title>
<style>
  body { background: #111; color: #eee; font-family: system-ui, sans-serif; margin: 0; padding: 1em; }
  img { max-width: 100%; display: block; margin: 0.5em 0; background: #222; min-height: 200px; }
  #state.online { color: #6d6; } #state.fault, #state.offline { color: #f66; }
  code { color: #ffd; }
</style></head>
<body>
<h1>Camera calibration</h1>
<p>Camera: <b id="state">…</b> <span id="faults"></span></p>
<img id="cam" src="camera.jpg" alt="the camera's picture with the table and balls it found">
<p>Aligned when the <b>green line runs along the cushion noses</b> all round, the corners HL, HR, FR, FL sit
where the noses meet (HL: head end, left cushion) and every ball wears a ring with its number.
If not: move the camera, or give the corners with <code>--camera-corners "x,y x,y x,y x,y"</code>.</p>
<p>Corners now: <code id="corners">–</code></p>
<p>Balls: <span id="balls">–</span></p>
<script src="camera.js"></script>
</body></html>
"""

SCRIPT = """(function () {
  "use strict";
  function $(id) { return document.getElementById(id); }
  function refresh() {
    $("cam").src = "camera.jpg?t=" + Date.now();
    fetch("camera.json", {cache: "no-store"}).then(function (r) { return r.json(); }).then(function (v) {
      $("state").textContent = v.state || "offline";
      $("state").className = v.state || "offline";
      $("faults").textContent = (v.faults || []).join(", ");
      $("corners").textContent = v.corners_px ? v.corners_px.map(function (p) {
        return Math.round(p[0]) + "," + Math.round(p[1]); }).join(" ") : "not found";
      $("balls").textContent = (v.balls || []).map(function (b) {
        return (b.ball === null ? "?" : b.ball) + " (" + Math.round(b.mm[0]) + ", " + Math.round(b.mm[1]) + " mm)";
      }).join("; ") || "none";
    }).catch(function () { $("state").textContent = "no answer"; });
  }
  refresh();
  setInterval(refresh, 1000);
})();
"""
