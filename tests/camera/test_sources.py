"""Frame sources are bounded: a slow reader gets the newest frame (never a queue), a dead
source never blocks the reader, a failing one is retried."""
import threading
import time

import numpy as np

from host.camera.sources import LiveSource, SourceError, open_source


class FakeCapture:
    """cv2.VideoCapture's read()/release() over a counter: fast, or stalling, or failing."""

    def __init__(self, mode="fast", limit=None):
        self.mode = mode
        self.n = 0
        self.limit = limit
        self.released = threading.Event()

    def read(self):
        if self.mode == "stall":
            self.released.wait(5)
            return False, None
        if self.limit is not None and self.n >= self.limit:
            return False, None
        self.n += 1
        time.sleep(0.001)
        return True, np.full((4, 4, 3), self.n % 256, np.uint8)

    def release(self):
        self.released.set()

    def get(self, prop):
        return 0


def first_frame(src, within_s=5.0):
    """The first frame a live source hands over within `within_s`, or None."""
    deadline = time.monotonic() + within_s
    item = None
    while item is None and time.monotonic() < deadline:
        item = src.read(timeout=0.5)
    return item


def test_a_slow_reader_gets_the_newest_frame_and_drops_are_counted():
    src = LiveSource(lambda: FakeCapture(), "fake")
    try:
        time.sleep(0.2)
        first = src.read(timeout=1.0)
        assert first is not None
        time.sleep(0.2)
        t, frame = src.read(timeout=1.0)
        assert t > first[0]
        assert src.dropped > 10                 # the frames in between were not queued
    finally:
        src.close()


def test_a_stalled_camera_never_blocks_and_is_reported():
    src = LiveSource(lambda: FakeCapture("stall"), "stalled", stall_s=0.3)
    try:
        t0 = time.monotonic()
        assert src.read(timeout=0.2) is None
        assert time.monotonic() - t0 < 1.0
        time.sleep(0.4)
        assert src.stalled()
    finally:
        src.close()


def test_a_camera_that_fails_to_open_is_retried():
    calls = []

    def opener():
        calls.append(1)
        if len(calls) < 3:
            raise SourceError("unplugged")
        return FakeCapture()

    src = LiveSource(opener, "flaky")
    try:
        item = first_frame(src)
        assert item is not None and len(calls) >= 3
    finally:
        src.close()


def test_open_source_picks_the_edge_by_its_name(tmp_path):
    import pytest
    with pytest.raises(SourceError):
        open_source(str(tmp_path / "missing.mp4"))


class FakePicamera2:
    """The picamera2 module's Picamera2 as far as the source uses it, looking at a red ball.
    Its arrays are laid out as picamera2 lays them out: formats named after libcamera's (DRM)
    codes, a pixel read as a little-endian word, so "RGB888" is B, G, R in memory and "BGR888"
    R, G, B (the picamera2 maintainers, raspberrypi/picamera2 issue 191; its manual's format
    table)."""

    SCENE_RGB = (200, 30, 20)          # a red ball
    ORDER = {"RGB888": (2, 1, 0), "BGR888": (0, 1, 2)}

    def __init__(self, index=0):
        self.format = None

    def create_video_configuration(self, main, controls=None):
        return {"main": dict(main), "controls": dict(controls or {})}

    def configure(self, cfg):
        self.format = cfg["main"]["format"]
        self.size = cfg["main"]["size"]

    def start(self):
        pass

    def capture_array(self, name="main"):
        w, h = self.size
        frame = np.zeros((h, w, 3), np.uint8)
        for channel, k in enumerate(self.ORDER[self.format]):
            frame[..., channel] = self.SCENE_RGB[k]
        time.sleep(0.01)
        return frame

    def stop(self):
        pass

    def close(self):
        pass


def test_a_raspberry_pi_camera_gives_frames_in_opencv_s_colour_order(monkeypatch):
    import sys
    import types
    module = types.ModuleType("picamera2")
    module.Picamera2 = FakePicamera2
    monkeypatch.setitem(sys.modules, "picamera2", module)
    src = open_source("picamera2")
    try:
        item = first_frame(src)
        assert item is not None
        b, g, r = item[1][0, 0]
        assert (r, g, b) == FakePicamera2.SCENE_RGB     # red stays red for the colour analysis
    finally:
        src.close()


class FakeV4L2Capture:
    """cv2.VideoCapture on OpenCV's V4L2 backend over a UVC camera, as far as the source uses it.
    The backend opens every camera at 640x480 in its first raw format whatever the camera was set
    to (opencv/opencv issue 24551); a UVC camera's larger and faster modes are in MJPEG only
    (opencv/opencv issue 9540, a Logitech C615's list); asked for a size, the driver takes the
    nearest of the current format's (VIDIOC_S_FMT), and for a rate the nearest at that size."""

    MODES = [("YUYV", 640, 480, 30), ("YUYV", 1280, 720, 10), ("MJPG", 640, 480, 60),
             ("MJPG", 1280, 720, 60), ("MJPG", 1920, 1080, 30)]

    def __init__(self, target, api=None, params=None):
        self.fourcc, self.w, self.h, self.fps = "YUYV", 640, 480, 30

    def isOpened(self):
        return True

    def _nearest(self, fourcc, w, h):
        return min((m for m in self.MODES if m[0] == fourcc), key=lambda m: abs(m[1] - w) + abs(m[2] - h))

    def set(self, prop, value):
        import cv2
        if prop == cv2.CAP_PROP_FOURCC:
            code = "".join(chr((int(value) >> (8 * i)) & 0xFF) for i in range(4))
            if any(m[0] == code for m in self.MODES):
                self.fourcc, _, self.w, self.h, self.fps = (code,) + self._nearest(code, self.w, self.h)
        elif prop in (cv2.CAP_PROP_FRAME_WIDTH, cv2.CAP_PROP_FRAME_HEIGHT):
            w = value if prop == cv2.CAP_PROP_FRAME_WIDTH else self.w
            h = value if prop == cv2.CAP_PROP_FRAME_HEIGHT else self.h
            _, self.w, self.h, self.fps = self._nearest(self.fourcc, w, h)
        elif prop == cv2.CAP_PROP_FPS:
            rates = [m[3] for m in self.MODES if m[:3] == (self.fourcc, self.w, self.h)]
            self.fps = min(rates, key=lambda r: abs(r - value))
        return True

    def get(self, prop):
        import cv2
        return {cv2.CAP_PROP_FRAME_WIDTH: self.w, cv2.CAP_PROP_FRAME_HEIGHT: self.h,
                cv2.CAP_PROP_FPS: self.fps}.get(prop, 0)

    def read(self):
        time.sleep(0.005)
        return True, np.zeros((self.h, self.w, 3), np.uint8)

    def release(self):
        pass


def test_a_usb_camera_is_asked_for_the_picture_the_analyser_is_measured_at(monkeypatch):
    import cv2
    monkeypatch.setattr(cv2, "VideoCapture", FakeV4L2Capture)
    src = open_source("/dev/video0")
    try:
        item = first_frame(src)
        assert item is not None
        assert item[1].shape[:2] == (720, 1280), "not OpenCV's 640x480"
        assert src.fps == 60, "MJPEG's 60 fps, not YUYV's 10 at that size"
    finally:
        src.close()
