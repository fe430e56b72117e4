"""Frame sources, the camera's only I/O: a video file, a V4L2 device, an RTSP/HTTP
stream, or a Raspberry Pi camera through picamera2. Thin and bounded:

* a file is read in order, every frame, at its own pace; times are video seconds
  (frame index / fps);
* a live source is read by one thread into a one-frame mailbox: the analyser always
  gets the newest frame, frames it was too slow for are counted as dropped, and memory
  never grows. `read(timeout)` never blocks longer than `timeout`; a source that gives
  nothing for `stall_s` is reported stalled, one that fails is reopened with a back-off.
  Times are the host's time.monotonic() when the frame arrived.

`open_source("0")`, `open_source("/dev/video0")`, `open_source("rtsp://...")`,
`open_source("picamera2")` (or "picamera2:1"), `open_source("clip.mp4")`.
"""
import logging
import os
import threading
import time

log = logging.getLogger("billiards")

LIVE_PREFIXES = ("rtsp://", "rtsps://", "http://", "https://", "udp://", "tcp://")
OPEN_TIMEOUT_MS = 5000
READ_TIMEOUT_MS = 2000


class SourceError(Exception):
    pass


class FileSource:
    """Every frame of a video file, with video time (s from the start, mid-exposure
    of frame i taken as i / fps)."""

    live = False

    def __init__(self, path):
        import cv2
        if not os.path.isfile(path):
            raise SourceError("no such video file: %s" % path)
        self.cap = cv2.VideoCapture(path)
        if not self.cap.isOpened():
            raise SourceError("cannot read video %s (format not supported by OpenCV?)" % path)
        fps = self.cap.get(cv2.CAP_PROP_FPS)
        self.fps = float(fps) if fps and 1.0 <= fps <= 1000.0 else 30.0
        self.index = 0
        self.dropped = 0

    def read(self, timeout=None):
        ok, frame = self.cap.read()
        if not ok or frame is None:
            return None
        t = self.index / self.fps
        self.index += 1
        return t, frame

    def __iter__(self):
        while True:
            item = self.read()
            if item is None:
                return
            yield item

    def close(self):
        self.cap.release()


class LiveSource:
    """A camera or a stream read by a thread into a one-frame mailbox (newest wins)."""

    live = True

    def __init__(self, opener, name, stall_s=2.0, clock=time.monotonic):
        self.opener = opener          # () -> object with read() -> (ok, frame), release()
        self.name = name
        self.stall_s = float(stall_s)
        self.clock = clock
        self.fps = None
        self._cond = threading.Condition()
        self._frame = None            # (t, frame) not yet taken
        self._last_t = None
        self._started = clock()
        self.dropped = 0
        self.frames = 0
        self.failures = 0
        self.error = None
        self._stop = False
        self._thread = threading.Thread(target=self._run, name="camera-%s" % name, daemon=True)
        self._thread.start()

    def _run(self):
        backoff = 0.5
        while not self._stop:
            try:
                cap = self.opener()
            except Exception as e:            # a device gone, a stream refused: retry later
                self._fail(str(e))
                time.sleep(backoff)
                backoff = min(backoff * 2, 10.0)
                continue
            backoff = 0.5
            try:
                self.fps = self.fps or _fps_of(cap)
                while not self._stop:
                    ok, frame = cap.read()
                    if not ok or frame is None:
                        self._fail("no frame")
                        break
                    self._put(frame)
            except Exception as e:
                self._fail(str(e))
            finally:
                try:
                    cap.release()
                except Exception:
                    pass
            time.sleep(backoff)

    def _fail(self, why):
        with self._cond:
            self.failures += 1
            self.error = why

    def _put(self, frame):
        t = self.clock()
        with self._cond:
            if self._frame is not None:
                self.dropped += 1             # the analyser was slower than the camera
            self._frame = (t, frame)
            self._last_t = t
            self.frames += 1
            self.error = None
            self._cond.notify()

    def read(self, timeout=0.5):
        """The newest frame (t, frame) not yet taken, or None after `timeout` s."""
        with self._cond:
            if self._frame is None:
                self._cond.wait(timeout)
            item, self._frame = self._frame, None
            return item

    def stalled(self, now=None):
        """True when nothing arrived for stall_s (or ever, stall_s after the start)."""
        now = self.clock() if now is None else now
        with self._cond:
            last = self._last_t
        return now - (self._started if last is None else last) > self.stall_s

    def close(self):
        self._stop = True
        self._thread.join(timeout=1.0)


def _fps_of(cap):
    try:
        import cv2
        fps = cap.get(cv2.CAP_PROP_FPS)
        return float(fps) if fps and 1.0 <= fps <= 1000.0 else None
    except Exception:
        return None


# What a V4L2 camera is asked for: the picture the analyser's targets are set at (docs/camera.md).
# OpenCV's V4L2 backend opens every camera at 640x480 in its first raw format (YUYV: 30 fps at
# best, often less), whatever the camera was set to; a UVC camera gives its larger, faster modes
# in MJPEG only. The camera picks its nearest mode; the one it gave is logged.
V4L2_MODE = {"fourcc": "MJPG", "size": (1280, 720), "fps": 60}


def _cv_opener(target, api, mode=None):
    def opener():
        import cv2
        params = [cv2.CAP_PROP_OPEN_TIMEOUT_MSEC, OPEN_TIMEOUT_MS,
                  cv2.CAP_PROP_READ_TIMEOUT_MSEC, READ_TIMEOUT_MS]
        cap = cv2.VideoCapture(target, api, params) if api is not None else cv2.VideoCapture(target)
        if not cap.isOpened():
            cap.release()
            raise SourceError("cannot open %s" % (target,))
        if mode is not None:
            _ask_mode(cap, target, mode)
        return cap
    return opener


def _ask_mode(cap, target, mode):
    """Ask an open V4L2 capture for `mode` (the format first: it decides which sizes and rates
    there are), and say what it gave."""
    import cv2
    cap.set(cv2.CAP_PROP_FOURCC, cv2.VideoWriter_fourcc(*mode["fourcc"]))
    cap.set(cv2.CAP_PROP_FRAME_WIDTH, mode["size"][0])
    cap.set(cv2.CAP_PROP_FRAME_HEIGHT, mode["size"][1])
    cap.set(cv2.CAP_PROP_FPS, mode["fps"])
    got = (int(cap.get(cv2.CAP_PROP_FRAME_WIDTH)), int(cap.get(cv2.CAP_PROP_FRAME_HEIGHT)), cap.get(cv2.CAP_PROP_FPS))
    log.info("camera %s: %dx%d at %.0f fps (asked %dx%d at %d in %s)", target, got[0], got[1], got[2] or 0,
             mode["size"][0], mode["size"][1], mode["fps"], mode["fourcc"])


# picamera2 names its formats as libcamera and the kernel's DRM codes do, by the pixel as a
# little-endian word: "RGB888" is laid out B, G, R in memory (OpenCV's BGR), "BGR888" R, G, B.
# The analyser tells balls apart by colour, so swapped channels would call the 1 (yellow) a 2
# (blue).
PICAMERA2_BGR = "RGB888"


class _Picamera2Capture:
    """picamera2 (Raspberry Pi camera stack) behind the read()/release() of a capture."""

    def __init__(self, index, size=(1280, 720), fps=60):
        from picamera2 import Picamera2          # optional: only on a Raspberry Pi
        self.cam = Picamera2(index)
        cfg = self.cam.create_video_configuration(main={"size": size, "format": PICAMERA2_BGR},
                                                  controls={"FrameRate": fps})
        self.cam.configure(cfg)
        self.cam.start()

    def read(self):
        return True, self.cam.capture_array("main")

    def get(self, prop):
        return 0

    def release(self):
        self.cam.stop()
        self.cam.close()


def open_source(spec, stall_s=2.0):
    """A FileSource or LiveSource for `spec` (see the module's docstring)."""
    import cv2
    spec = str(spec)
    if spec.startswith("picamera2"):
        index = int(spec.split(":", 1)[1]) if ":" in spec else 0
        return LiveSource(lambda: _Picamera2Capture(index), spec, stall_s)
    if spec.isdigit():
        return LiveSource(_cv_opener(int(spec), cv2.CAP_V4L2, V4L2_MODE), "video" + spec, stall_s)
    if spec.startswith("/dev/"):
        return LiveSource(_cv_opener(spec, cv2.CAP_V4L2, V4L2_MODE), os.path.basename(spec), stall_s)
    if spec.lower().startswith(LIVE_PREFIXES):
        return LiveSource(_cv_opener(spec, cv2.CAP_FFMPEG), "stream", stall_s)
    return FileSource(spec)
