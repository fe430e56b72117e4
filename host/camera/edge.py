"""The camera's edge in the daemon (`billiards run --camera SOURCE`): one thread that reads the
source, runs the health detector and the analyser on the host's clock, and hands the daemon's
loop what they say through its Inbox as ("camera", (what, body)) items (host/camera/desk.py):

    ("health", {"state": "online" | "offline" | "fault", "faults": [codes], "table_mm": [L, W]})
    ("facts", live_dict(facts))          one per shot, when the analyser closes it

Bounded whatever the camera does: one frame in hand (sources.LiveSource's mailbox), health sent
only when it changes (a new fault at once, anything else at most every HEALTH_EVERY_S), one
facts record per shot, one frame kept for the calibration view (and only while someone looks).
A source that cannot be opened, stops, freezes, moves, flashes or drops frames is a fault
(health.py's codes); a table the analyser cannot find is `camera_no_table`, an analysis that
raised is `camera_error`; the analyser is then made again every RETRY_S. A light that changed
for good (health.RELIT_S) has the analyser made again at once, in the new light. The thread
never dies of what the camera sends.

A video file is played at its own pace on the host's clock (frame i at the first frame's host
time + i / fps): a recorded match replayed as if live, as the end-to-end tests do.
"""
import logging
import threading
import time

log = logging.getLogger("billiards")

HEALTH_EVERY_S = 0.5
RETRY_S = 5.0
VIEW_EVERY_S = 0.5           # the calibration view's picture is taken this often...
VIEW_WANTED_S = 10.0         # ...while someone asked for it within this
FPS_FRAMES = 16              # a source that does not say its frame rate is timed over these


# The referee's game names -> the analyser's (`billiards camera analyse --game`).
ANALYSER_GAMES = {"eight-ball": "eightball", "nine-ball": "nineball", "straight-pool": "straight"}


class CameraEdge:
    def __init__(self, spec, put, corners=None, table="auto", clock=time.monotonic, stall_s=2.0,
                 open_source=None, paced=True, head=None):
        self.spec = spec
        self.put = put                  # Inbox.put: False when the daemon's queue is full
        self.corners = corners
        self.head = head                # where the head end is in the picture (None: told from it)
        self.head_seen = None           # ... as the picture told it surely once: an analyser made
                                        # again (new light, a failure) keeps it (no rack then)
        self.table = table
        self.clock = clock
        self.stall_s = stall_s
        self.paced = paced
        if open_source is None:
            from host.camera.sources import open_source
        self.open_source = open_source
        self.analyser = None
        self.detector = None            # health.Health, made at the first frame (its fps)
        self.relit = None               # the detector's last change of light acted on
        self.fps = None
        self.retry_at = None            # no analyser until then (after a failure)
        self.failure = None             # camera_no_table | camera_error, while it lasts
        self.sent = None                # the health last put: (state, faults, table_mm)
        self.sent_at = None
        self.pending = None
        self.started = None
        self.last_frame = None
        self.view = None                # {"t", "frame", "overlay"} for the calibration view
        self.view_at = None
        self.view_wanted = 0.0
        self.close_at = None            # the board said the balls stopped: close the shot watched
        self.game = None                # the analyser's name of the game on the table (set_game)
        self.counts = {"frames": 0, "skipped": 0, "shots": 0, "unsent": 0, "failures": 0}
        self._stop = threading.Event()
        self._thread = None
        self._pace0 = None
        self._times = []                # frame times, while the frame rate is not known

    # --- the thread -------------------------------------------------------------

    def start(self):
        self.started = self.clock()
        self._thread = threading.Thread(target=self.run, name="camera", daemon=True)
        self._thread.start()
        return self

    def stop(self):
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5)

    def run(self):
        """Open the source (again, with a back-off), follow it; never raises."""
        backoff = 0.5
        while not self._stop.is_set():
            src = None
            try:
                src = self.open_source(self.spec, stall_s=self.stall_s)
                backoff = 0.5
                ended = self.follow(src)
                if ended:
                    self._send_facts(self.analyser.close() if self.analyser is not None else [])
                    self._report("offline", [])     # a video file played to its end
                    self._flush()
                    return
            except Exception as e:                  # a device gone, a codec that raised
                self.counts["failures"] += 1
                if self.counts["failures"] <= 3:
                    log.warning("camera %s: %s", self.spec, e)
                self.quiet(self.clock())
            finally:
                if src is not None:
                    try:
                        src.close()
                    except Exception:
                        pass
            self._stop.wait(backoff)
            backoff = min(backoff * 2, 10.0)

    def follow(self, src):
        """Frames until the source ends (True: a file played to its end) or the edge stops."""
        seen = getattr(src, "dropped", 0)
        while not self._stop.is_set():
            item = src.read(timeout=0.2)
            if item is None:
                if not getattr(src, "live", True):
                    return True
                self.quiet(self.clock())
                continue
            t, frame = item
            if not getattr(src, "live", True):
                t = self._paced(t)
            self.fps = self.fps or getattr(src, "fps", None)
            dropped = getattr(src, "dropped", 0)
            self.frame(t, frame, skipped=dropped - seen)
            seen = dropped
        return False

    def _paced(self, t_video):
        """A file's frame on the host clock, played no faster than it was filmed."""
        if self._pace0 is None:
            self._pace0 = self.clock() - t_video
        t = self._pace0 + t_video
        wait = t - self.clock()
        if self.paced and wait > 0:
            self._stop.wait(wait)
        return t

    # --- one frame, or none -------------------------------------------------------

    def frame(self, t, frame, skipped=0):
        """One frame taken at host time `t`: the detector, the analyser, what they say.
        `skipped`: frames the camera sent since the last one that the analyser was too slow for
        (it then analyses fewer frames a second; the camera is not at fault)."""
        from host.camera.health import Health, thumbnail
        self.counts["frames"] += 1
        self.counts["skipped"] += max(0, skipped)
        self.last_frame = t
        if self.fps is None and not self._time_frames(t):
            return
        thumb = thumbnail(frame)
        if self.detector is None:
            self.detector = Health(fps=self.fps or 30.0, stall_s=self.stall_s)
        faults = [f["code"] for f in self.detector.observe(t, thumb, skipped)]
        if self.detector.relit is not None and self.detector.relit != self.relit:
            # The light changed for good: the analyser's picture of the bare table is of the old
            # light; it learns the table again now (the flash fault covers the shot meanwhile).
            self.relit = self.detector.relit
            self.analyser, self.retry_at = None, None
        shots = self._analyse(t, frame, thumb)
        if self.close_at is not None and t >= self.close_at:
            self.close_at = None
            if self.analyser is not None and self.analyser.episode is not None:
                shots = shots + self.analyser.close()
        self._report(self._state(faults), faults + ([self.failure] if self.failure else []))
        self._send_facts(shots)
        self._keep_view(t, frame)

    def _send_facts(self, shots):
        from host.camera.facts import live_dict
        for f in shots:
            self._flush()                       # health first: a fault the shot saw goes before it
            self.counts["shots"] += 1
            self._put(("facts", live_dict(f)))

    def set_game(self, game):
        """The referee's game ("nine-ball", ...): the analyser names balls from its set only (no
        11 in nine-ball). Any thread; a plain attribute swap that the next frame reads."""
        name = ANALYSER_GAMES.get(game)
        if name == self.game:
            return
        self.game = name
        if self.analyser is not None:
            self.analyser.set_game(name)

    def close_shot(self, t):
        """The board says the balls are still and the referee waits for this shot's facts: the
        analyser closes the shot it is watching at the first frame taken at host time `t` or
        later, without waiting for its own stillness (analyse.STILL_S). Any thread."""
        self.close_at = t

    def _time_frames(self, t):
        """The frame rate from the frames' times, for a source that does not say it (the analyser
        times contacts in frames, the detector counts missing ones); True once it is known."""
        self._times.append(t)
        if len(self._times) < FPS_FRAMES:
            return False
        gaps = sorted(b - a for a, b in zip(self._times, self._times[1:]))
        gap = gaps[len(gaps) // 2]
        self.fps = min(240.0, max(5.0, 1.0 / gap)) if gap > 0 else 30.0
        self._times = []
        return True

    def _analyse(self, t, frame, thumb):
        from host.camera.analyse import Analyser
        if self.analyser is None and (self.retry_at is None or t >= self.retry_at):
            self.analyser = Analyser(corners=self.corners, table=self.table, fps=self.fps or 30.0, clock="host",
                                     game=self.game, head=self.head or self.head_seen)
        if self.analyser is None:
            return []
        fresh = not self.analyser.ready
        try:
            shots = self.analyser.feed(t, frame)
        except ValueError as e:             # table_finder: no table in the picture
            return self._failed(t, "camera_no_table", e)
        except Exception as e:
            return self._failed(t, "camera_error", e)
        if fresh and self.analyser.ready:
            self.detector.set_reference(thumb)     # `camera_moved` against the picture the table was found in
            head = self.analyser.head_end
            if head is not None and head["found_by"] not in ("--head", "--corners") and \
                    not head["found_by"].startswith("assumed"):
                self.head_seen = head["image_side"]
            if head is not None:
                log.info("camera %s: the head end is at the image's %s (%s, confidence %.2f)",
                         self.spec, head["image_side"], head["found_by"], head["confidence"])
        self.failure = None
        return shots

    def _failed(self, t, code, why):
        if self.failure != code:
            log.warning("camera %s: %s", self.spec, why)
        self.failure = code
        self.analyser = None
        self.retry_at = t + RETRY_S
        return []

    def quiet(self, now):
        """No frame now: a source silent for stall_s is a stalled camera (also one that never
        sent a picture)."""
        if self.detector is not None:
            faults = [f["code"] for f in self.detector.tick(now)]
        else:
            faults = ["camera_stalled"] if self.started is not None and now - self.started > self.stall_s else []
        self._report(self._state(faults), faults + ([self.failure] if self.failure else []))
        self._flush_due(now)

    def _state(self, faults):
        if faults or self.failure:
            return "fault"
        return "online" if self.analyser is not None and self.analyser.ready else "offline"

    # --- what the daemon is told -----------------------------------------------------

    def table_mm(self):
        a = self.analyser
        if a is None or not a.ready:
            return None
        return [round(a.table.length, 1), round(a.table.width, 1)]

    def _report(self, state, faults):
        """Health as it is now: put at once if a fault is new, else at most every HEALTH_EVERY_S."""
        faults = sorted(set(faults))
        now = (state, faults, self.table_mm())
        if now == self.sent:
            self.pending = None
            return
        self.pending = now
        new_fault = self.sent is None or [c for c in faults if c not in self.sent[1]]
        if new_fault or self.sent_at is None or self.clock() - self.sent_at >= HEALTH_EVERY_S:
            self._flush()

    def _flush_due(self, now):
        if self.pending is not None and (self.sent_at is None or now - self.sent_at >= HEALTH_EVERY_S):
            self._flush()

    def _flush(self):
        if self.pending is None:
            return
        state, faults, table_mm = self.pending
        if self._put(("health", {"state": state, "faults": faults, "table_mm": table_mm})):
            self.sent, self.sent_at, self.pending = self.pending, self.clock(), None

    def _put(self, body):
        ok = self.put(("camera", body))
        if not ok:
            self.counts["unsent"] += 1           # the daemon's queue is full: its loop is behind
        return ok

    # --- the calibration view ------------------------------------------------------

    def want_view(self):
        """The latest picture with what the analyser found on it ({"t", "frame", "overlay"}), or
        None; asking keeps the view being taken for VIEW_WANTED_S (another thread may ask)."""
        self.view_wanted = self.clock() + VIEW_WANTED_S
        return self.view

    def _keep_view(self, t, frame):
        if self.clock() > self.view_wanted or (self.view_at is not None and t - self.view_at < VIEW_EVERY_S):
            return
        self.view_at = t
        self.view = {"t": t, "frame": frame, "overlay": self.overlay()}

    def overlay(self):
        """What the analyser found, in image pixels: the cushion-nose outline, the pockets, the
        balls it follows (with the number it gives them), and the health."""
        out = {"state": self.sent[0] if self.sent else "offline", "faults": list(self.sent[1]) if self.sent else [],
               "table_mm": self.table_mm(), "corners_px": None, "outline_px": None, "pockets_px": None,
               "balls": []}
        a = self.analyser
        if a is None or not a.ready:
            return out
        import numpy as np
        L, W = a.table.length, a.table.width
        edge = []
        for (x0, y0), (x1, y1) in ((((0, 0), (0, W))), ((0, W), (L, W)), ((L, W), (L, 0)), ((L, 0), (0, 0))):
            for k in range(16):
                edge.append((x0 + (x1 - x0) * k / 16.0, y0 + (y1 - y0) * k / 16.0))
        out["corners_px"] = np.asarray(a.found["corners_px"], dtype=float).reshape(4, 2).round(1).tolist()
        out["outline_px"] = a.view.mm_to_px(np.array(edge)).round(1).tolist()
        out["pockets_px"] = a.view.mm_to_px(np.array(a.table.pockets_mm(), dtype=float)).round(1).tolist()
        labels = a.labels()
        tracks = [tr for tr in a.tracker.tracks if tr.confirmed and tr.lost_since is None]
        if tracks:
            px = a.view.mm_to_px(np.array([[tr.x[-1], tr.y[-1]] for tr in tracks], dtype=float))
            for tr, p in zip(tracks, px):
                ball = labels.get(tr.key, (None,))[0]
                out["balls"].append({"ball": ball, "px": [round(float(p[0]), 1), round(float(p[1]), 1)],
                                     "mm": [round(tr.x[-1], 1), round(tr.y[-1], 1)]})
        return out
