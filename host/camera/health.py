"""Is the camera fit to judge? A pure detector: small per-frame observations in, faults out.

    h = Health(fps=60)
    faults = h.observe(t, thumb)      # thumb: health.thumbnail(frame), a small grey image
    faults = h.tick(now)              # between frames: a stalled source
    # faults: [{"code": "camera_frozen", "since": t, "text": ...}, ...], the ones active now

The codes (docs/camera.md, for state.faults):
* camera_stalled: no frame for `stall_s` (unplugged, a stream that stopped);
* camera_frozen: frames keep coming but are identical (a real sensor always has noise);
* camera_dropping_frames: more than 5 % of the camera's frames missing over the last 5 s (frames
  the analyser was too slow for arrived: they do not count);
* camera_moved: the picture has shifted against the one the table was found in (the
  camera was knocked: the corners are no longer where they were);
* camera_flash: the whole picture jumped in brightness (a photo flash, the lights). A new
  level held steady for RELIT_S is the light now (a lamp switched on or off): it becomes the
  baseline and `relit` says when, so that the analyser learns the table again in that light.
Each fault stays active HOLD_S after its cause ends, so the shot it touched falls back.
"""
import numpy as np

THUMB = (96, 54)
HOLD_S = 1.0
MOVED_RESPONSE = 0.4     # phase correlation's peak for a whole-picture shift (0.8-1 when one is)
RELIT_S = 3.0            # a brightness held this long is the light now, not a flash
STEADY = 1.05            # ... within this ratio of its own median over the last RELIT_S
SAME_SCENE = 0.6         # ... and still the table: normalised correlation with the reference


def thumbnail(frame):
    """A 96x54 grey float32 picture of the frame: all the detector needs."""
    import cv2
    g = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
    return cv2.resize(g, THUMB, interpolation=cv2.INTER_AREA).astype(np.float32)


TEXT = {
    "camera_stalled": "the camera sends no pictures",
    "camera_frozen": "the camera's picture is frozen",
    "camera_dropping_frames": "the camera drops frames",
    "camera_moved": "the camera has moved: the table is not where it was",
    "camera_flash": "a flash or the lights changed the picture",
}


class Health:
    def __init__(self, fps, stall_s=2.0, frozen_s=1.0, moved_px=1.5, flash_ratio=1.35):
        self.dt = 1.0 / float(fps)
        self.stall_s = stall_s
        self.frozen_s = frozen_s
        self.moved_px = moved_px          # in thumbnail pixels (96 wide): ~13 px at 1280
        self.flash_ratio = flash_ratio
        self.ref = None                   # the thumbnail the table was found in
        self.prev = None
        self.last_t = None
        self.same_since = None
        self.times = []                   # frame times over the last 5 s
        self.levels = []                  # mean brightness, recent
        self.active = {}                  # code -> [since, until]
        self.moved_count = 0
        self.off = []                     # (t, level) of the frames off the baseline since they began
        self.relit = None                 # when the light last changed for good (a new baseline)

    def set_reference(self, thumb):
        self.ref = thumb - thumb.mean()

    def observe(self, t, thumb, skipped=0):
        """One analysed frame taken at `t`; `skipped`: frames the camera delivered since the last
        one that the analyser was too slow to take (the source's mailbox kept only the newest).
        Those did arrive: they are not the camera's drops."""
        if self.ref is None:
            self.set_reference(thumb)
        self._frozen(t, thumb)
        self._drops(t, 1 + max(0, int(skipped)))
        self._flash(t, thumb)
        self._moved(t, thumb)
        self.prev = thumb
        self.last_t = t
        return self.faults(t)

    def tick(self, now):
        if self.last_t is not None and now - self.last_t > self.stall_s:
            self._raise("camera_stalled", self.last_t, now)
        return self.faults(now)

    def faults(self, now):
        out = []
        for code, (since, until) in sorted(self.active.items()):
            if now - until <= HOLD_S:
                out.append({"code": code, "since": round(since, 3), "text": TEXT[code]})
        return out

    def _raise(self, code, since, now):
        cur = self.active.get(code)
        if cur is None or now - cur[1] > HOLD_S:
            self.active[code] = [since, now]
        else:
            cur[1] = now

    def _frozen(self, t, thumb):
        if self.prev is not None and float(np.abs(thumb - self.prev).max()) < 0.5:
            if self.same_since is None:
                self.same_since = self.last_t
            if t - self.same_since >= self.frozen_s:
                self._raise("camera_frozen", self.same_since, t)
        else:
            self.same_since = None

    def _drops(self, t, arrived):
        """More than 5 % fewer frames arrived over the last 5 s than the frame rate gives. Counted
        from what the camera delivered (`arrived`: this frame and the ones skipped before it), so
        an analyser slower than the camera is not taken for a camera that drops frames."""
        self.times.append((t, arrived))
        while self.times and self.times[0][0] < t - 5.0:
            self.times.pop(0)
        if len(self.times) < 10:
            return
        span = self.times[-1][0] - self.times[0][0]
        expected = span / self.dt + 1
        got = sum(n for _, n in self.times[1:]) + 1     # the first one's skipped came before the span
        if expected > 0 and got < 0.95 * expected:
            self._raise("camera_dropping_frames", self.times[0][0], t)

    def _flash(self, t, thumb):
        level = float(thumb.mean())
        if len(self.levels) >= 5:
            base = float(np.median(self.levels))
            if base > 1 and (level > base * self.flash_ratio or level < base / self.flash_ratio):
                self._raise("camera_flash", t, t)
                self._relit(t, level, thumb)
                return                    # a flash frame does not enter the baseline
        self.off = []
        self.levels.append(level)
        if len(self.levels) > 30:
            self.levels.pop(0)

    def _relit(self, t, level, thumb):
        """Off the baseline for RELIT_S and steady there, and still the picture the table was
        found in (a hand over the lens is steady too, but shows nothing of it): the light changed
        for good (the lamp over the table switched on after the daemon started). Without this the
        fault would last until a restart."""
        self.off.append((t, level))
        if len(self.off) > 1 and self.off[-1][0] - self.off[-2][0] > 2 * HOLD_S:
            self.off = self.off[-1:]      # frames in between were back on the baseline... or none came
        if t - self.off[0][0] < RELIT_S:
            return
        recent = [lv for tt, lv in self.off if tt >= t - RELIT_S]
        mid = float(np.median(recent))
        if mid > 0 and max(recent) <= mid * STEADY and min(recent) >= mid / STEADY and self._same_scene(thumb):
            self.levels = recent[-30:]
            self.off = []
            self.relit = t
        else:
            self.off = [(tt, lv) for tt, lv in self.off if tt >= t - RELIT_S]

    def _same_scene(self, thumb):
        """The picture shows what the reference showed, whatever the light: their normalised
        correlation (a table under another lamp ~0.9, a covered lens or a wall ~0)."""
        cur = thumb - thumb.mean()
        den = float(np.sqrt((self.ref * self.ref).sum() * (cur * cur).sum()))
        return den > 0 and float((self.ref * cur).sum()) / den >= SAME_SCENE

    def _moved(self, t, thumb):
        import cv2
        cur = thumb - thumb.mean()
        (dx, dy), response = cv2.phaseCorrelate(self.ref, cur)
        # A shifted camera moves the whole picture: a clear peak. Balls rolling move a few small
        # spots, whose weak peak (response ~0.1) is no shift of the camera.
        if response >= MOVED_RESPONSE and (abs(dx) > self.moved_px or abs(dy) > self.moved_px):
            self.moved_count += 1
            if self.moved_count >= 3:     # a passing arm is no shift of the whole picture
                self._raise("camera_moved", t, t)
        else:
            self.moved_count = 0
