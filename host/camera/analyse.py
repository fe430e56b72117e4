"""The pipeline: frames in, per-shot facts out (the same code offline and live).

    a = Analyser(corners=None, table="auto", fps=60)
    for t, frame in frames:          # t: seconds (video time, or host monotonic)
        for facts in a.feed(t, frame):
            ...                      # a CameraFacts each time a shot ends
    for facts in a.close():
        ...

Per frame: the frame is drawn top-down at `s` mm a pixel (one cv2.remap that undoes
the lens and the perspective at once), scored against the bare cloth, its ball-sized
peaks become candidates, the tracker joins them to tracks. A motion episode opens when a
ball moves and closes when every ball has been still for STILL_S; if the cue ball moved
in it, it is a shot and its facts are worked out from the tracks (shots.shot_facts).
Memory is bounded: tracks keep only the current episode's observations.
"""
import collections
import math

import numpy as np

from host.camera import appearance, detect, ends, identity, shots, tracking, way
from host.camera.facts import add_start, set_second_contact
from host.camera.geometry import BALL_R_MM, Lens, Table, View, TABLE_SIZES

MAX_EPISODE_S = 60.0     # motion this long without a still moment is cut (memory stays bounded)
STILL_S = 0.5            # every ball still this long: the shot is over
START_MM = 5.0           # a track displaced this much in MOVE_WINDOW s starts an episode
MOVE_MM = 3.0            # ... and this much keeps one going
MOVE_WINDOW = 0.1
STRUCK_MM_S = 150.0      # a struck cue ball leaves faster than this
MIN_SEEN_S = 0.4         # a track seen this long before its motion counts (a hand's edge is not)
ROLLING_SEEN_S = 0.2     # ... or this long, a track born rolling at a stroke's speed (a cue
                         # ball struck into a pocket at once is seen briefly; a hand's edge
                         # neither rolls so fast nor starts a track, not being round)
MARGIN_MM = 90.0         # drawn around the playing area (cushion tops, pocket mouths)
BEFORE_S = 0.4          # the pictures kept from before a stroke (an episode opens ~0.1 s after it)
KEEP_EVERY_S = 1.0 / 30  # ... one picture each this long (their noise averages out)
CLEAR_PICTURES = 8       # the last pictures of the table with nothing over it, kept
ABSORB_FRAMES = 45       # every so many frames, what stood still since becomes background
# The top-down drawing's scale (mm per pixel). S_MM_FINE is the default. `s_mm="auto"`
# chooses from the picture's own scale: where the camera sees the table at FINE_SOURCE_MM
# or finer (1280x720 of the whole table: 2-2.8 mm a pixel) it is drawn at S_MM_COARSE (a
# ball a disc of 11.4 px; 0.64x the pixels in every per-pixel step, where most of the
# analysis's time goes: ~1.3x the frames per CPU second), a coarser picture (640x360:
# ~4 mm a pixel) at S_MM_FINE, so the drawing is never much coarser than the picture.
# Not the default: on held-out footage it named the first contact right on 11 of 18
# shots (15 at 4 mm/px) and the railed set on 10 of 20 (12) (tests/bench/README.md,
# "Speed").
S_MM_FINE = 4.0
S_MM_COARSE = 5.0
FINE_SOURCE_MM = 3.2


_MODEL = []


def appearance_model():
    """The ball-looks model (host/data/ball_looks.json), loaded once; None where it is not
    installed (the colour shares alone then name the balls)."""
    if not _MODEL:
        try:
            _MODEL.append(appearance.Model.load())
        except (OSError, ValueError, KeyError):
            _MODEL.append(None)
    return _MODEL[0]


class Analyser:
    """Offline or live analysis of one camera (see the module's docstring)."""

    def __init__(self, corners=None, table="auto", fps=60.0, clock="video", s_mm=S_MM_FINE,
                 lens_k=None, palette=None, game=None, head=None):
        self.corners = None if corners is None else np.asarray(corners, dtype=float)
        if head is not None and head not in ends.SIDES:
            raise ValueError("head: one of %s, not %r" % (", ".join(ends.SIDES), head))
        self.head = head             # where the head end is in the image (None: found)
        self.head_end = None         # {"image_side", "found_by", "confidence"} once set up
        self.table_name = table
        self.fps = float(fps)
        self.clock = clock
        self.s_mm = None if s_mm in (None, "auto") else float(s_mm)   # None: from the picture
        self.lens_k = lens_k
        self.palette = identity.palette(palette)
        self.balls = identity.balls_of(game)  # the numbers a ball can have in this game
        self.ready = False
        self.view = None
        self.episode = None          # [t_open, t_last_motion]
        self.out = []
        self.frames = 0
        self.found = None            # what table_finder said, for the report
        self.last_t = None
        self._n_cands = -1
        self._recent = collections.deque()   # (t, ycc, occluders) of the last BEFORE_S
        self._before_shot = ()               # ... as they were when the episode opened
        self._clear = collections.deque(maxlen=CLEAR_PICTURES)   # (t, ycc): nothing over the table
        self._clear_before = ()              # ... as they were when the episode opened

    def set_game(self, game):
        """Name balls from this game's set from now on (the live table changed games)."""
        self.balls = identity.balls_of(game)

    # ---------------------------------------------------------------- set-up
    def _setup(self, frame):
        from host.camera import table_finder
        h, w = frame.shape[:2]
        self._first = frame
        found = table_finder.find_table(frame, corners=self.corners, lens_k=self.lens_k)
        self.found = found
        corners = found["corners_px"]
        lens = Lens((w, h), *found["lens_k"])
        if self.corners is not None:
            self.head_end = {"image_side": ends.head_side(corners), "found_by": "--corners",
                             "confidence": 1.0}
        elif self.head is not None:
            corners = np.asarray(ends.with_head_at(corners, self.head), dtype=float)
            self.head_end = {"image_side": self.head, "found_by": "--head", "confidence": 1.0}
        table = self._table(lens, corners)
        balls = self._learn(frame, table, lens, corners)
        if self.corners is None and self.head is None:
            decision = ends.decide(self._ends_evidence(frame, balls))
            if decision["turn"]:
                corners = np.asarray(ends.half_turn(corners), dtype=float)
                self._learn(frame, table, lens, corners)
            self.head_end = {"image_side": ends.head_side(corners), "found_by": decision["found_by"],
                             "confidence": decision["confidence"]}
        found["corners_px"] = corners
        self.ready = True

    def _learn(self, frame, table, lens, corners):
        """Set up the drawing, the bare cloth and the tracker for the table seen through
        `lens` with `corners`; returns the first frame's ball candidates."""
        import cv2
        self.view = View(table, lens, corners)
        self.table = table
        if self.s_mm is None:
            self.s_mm = drawing_scale(table, corners)
        self.geo = detect.Rectified(table, self.s_mm, MARGIN_MM)
        self.maps = self.view.rectify_maps(self.s_mm, MARGIN_MM)
        rect = cv2.remap(frame, self.maps[0], self.maps[1], cv2.INTER_LINEAR)
        self.area = self._area_mask()
        self.outside = self._outside_mask()
        ycc = detect.to_ycc(rect)
        self.smooth = detect.initial_cloth(ycc, self.geo.cloth_mask(inset_mm=0))
        bed = self.geo.cloth_mask(inset_mm=BALL_R_MM * 0.6)
        self._score0 = detect.not_cloth(ycc, self.smooth)
        balls = detect.candidates(self._score0, self.geo, bed)
        bed_open = self.geo.cloth_mask(inset_mm=0) & (255 - self._pockets_mask(110.0))
        self.cloth = detect.background(ycc, self.smooth, balls, self.geo.r_px, bed_open)
        self.tint = identity.light_tint(ycc, balls, self.geo.r_px,
                                        lambda c: self.cloth.img[int(c["row"]), int(c["col"]), 0])
        self._before = ycc
        self.tracker = tracking.Tracker(table, self.fps)
        return balls

    def _ends_evidence(self, frame, balls):
        """[(log-odds, words)] that the foot is at the far end of the finder's frame
        (host/camera/ends.py): the balls lying in the first frame, the foot spot's mark."""
        import cv2
        L, W = self.table.length, self.table.width
        pts = [(c["x"], c["y"]) for c in balls]
        gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        spots = [None if _covered(pts, x, W / 2) else spot_response(gray, self.view, x, W / 2, pts)
                 for x in (0.75 * L, 0.25 * L)]
        fills = [self._fill(ends.rack_footprint(L, W, far)) for far in (True, False)]
        return [ends.rack_evidence(fills[0], fills[1], pts, L, W), ends.spot_evidence(*spots)]

    def _fill(self, box):
        """The share of the first frame's drawing in `box` (x0, x1, y0, y1 mm) not cloth."""
        c0, r0 = self.geo.to_px(box[0], box[2])
        c1, r1 = self.geo.to_px(box[1], box[3])
        part = self._score0[max(0, int(r0)):max(0, int(r1)), max(0, int(c0)):max(0, int(c1))]
        return float(np.mean(part > detect.NOT_CLOTH)) if part.size else 0.0

    def _table(self, lens, corners):
        if self.table_name not in (None, "auto"):
            return Table.named(self.table_name)
        return Table.named(guess_table(self._first, lens, corners))

    def _pockets_mask(self, radius_mm):
        import cv2
        m = np.zeros(self.geo.shape, np.uint8)
        for px, py in self.table.pockets_mm():
            c, r = self.geo.to_px(px, py)
            cv2.circle(m, (int(round(c)), int(round(r))), int(radius_mm / self.s_mm), 255, -1)
        return m

    def _outside_mask(self):
        """Over the cushions and beyond, away from the pockets: no ball reaches there."""
        return (255 - self.geo.cloth_mask(inset_mm=-30.0)) & (255 - self._pockets_mask(110.0))

    def _area_mask(self):
        """Where ball centres can be: the bed, plus the pocket mouths."""
        return self.geo.cloth_mask(inset_mm=-12.0) | self._pockets_mask(75.0)

    # ---------------------------------------------------------------- frames
    def feed(self, t, frame):
        """One frame at time `t` (s); returns the facts of shots that ended (0 or 1)."""
        import cv2
        if frame is None or frame.ndim != 3 or frame.shape[2] != 3:
            return []
        if not self.ready:
            self._setup(frame)
        self.frames += 1
        self.last_t = t
        rect = cv2.remap(frame, self.maps[0], self.maps[1], cv2.INTER_LINEAR)
        ycc = detect.to_ycc(rect)
        score = detect.not_cloth(ycc, self.cloth)
        self.occluded = detect.occluders(score, self.geo, self.outside)
        cands = detect.candidates(score, self.geo, self.area, occluded=self.occluded,
                                  gray=ycc[..., 0], cloth_y=self.cloth.y1)
        if self.episode is not None or self.frames % 8 == 0 or len(cands) != self._n_cands:
            still = self._still_places() if self.frames % 4 else None
            looks = [None if still is not None and _at(still, c) else
                     identity.frame_looks(ycc, c["col"], c["row"], self.geo.r_px,
                                          self.cloth.img[int(c["row"]), int(c["col"]), 0], self.tint)
                     for c in cands]
        else:
            looks = [None] * len(cands)       # at rest: the looks of every 8th frame do
        self._n_cands = len(cands)
        self._keep_picture(t, ycc)
        self.tracker.step(t, cands, looks, evidence=self._evidence(frame, cands, looks))
        if self.frames % 30 == 0:
            detect.update_cloth(self.cloth, ycc, score,
                                smooth=self.smooth if self.frames % 120 == 0 else None)
        if self.frames % ABSORB_FRAMES == 0 and self.episode is None:
            detect.absorb_still(self.cloth, ycc, self._before, score, self._ball_mask())
            self._before = ycc
        return self._segment(t)

    def _keep_picture(self, t, ycc):
        """Keep this frame's top-down picture, one each KEEP_EVERY_S, for the last BEFORE_S:
        the pictures before a stroke (as they were when its episode opened) and after it
        (when the balls have stopped) are the cue ball's way before and after (`_way_clear`);
        and the last CLEAR_PICTURES with nothing over the table between shots, the whole
        table before (`_elsewhere`)."""
        if self._recent and t - self._recent[-1][0] < KEEP_EVERY_S:
            return
        self._recent.append((t, ycc, self.occluded))
        if self.occluded is None and self.episode is None:
            self._clear.append((t, ycc))
        while self._recent and self._recent[0][0] < t - BEFORE_S:
            self._recent.popleft()

    def _way_clear(self, paths, unnamed, facts):
        """`way.way_change` for this shot: the pictures before the stroke against those after
        the balls stopped, on the cue ball's way to its first contact (the whole way when it
        touched nothing), the places of the balls whose tracks moved left out
        (`way.movers_places`); None where it cannot be told."""
        cue = paths.get(0)
        t0 = facts.t_start - 1.5 / self.fps
        before = [p for p in self._before_shot if p[0] <= t0]
        after = self._after(facts)
        if cue is None or not before or not after:
            return None
        until = facts.contact_t if facts.contact_t is not None else facts.t_end
        w = cue.window(facts.t_start - 1.0 / self.fps, until + 1e-6)
        ts = [facts.t_start] + list(w.t) + [until]
        if len(w) < 2 or max(b - a for a, b in zip(ts, ts[1:])) > shots.CUE_GAP_FRAMES / self.fps:
            return None                 # unseen on the way: where it went is a guess
        places = way.movers_places(list(paths.values()) + list(unnamed), facts.t_start, facts.t_end,
                                   [q[0] for q in before + after], 3.0 / self.fps)
        return way.way_change([q[1] for q in before], [q[1] for q in after], self.geo,
                              list(zip(w.x, w.y)), places, occluded=[q[2] for q in before + after],
                              beside=facts.passed_by)

    def _after(self, facts):
        """The kept pictures since the balls stopped (the latest one when the footage ended
        sooner)."""
        return [p for p in self._recent if p[0] >= facts.t_end] or list(self._recent)[-1:]

    def _elsewhere(self, paths, unnamed, facts):
        """`way.elsewhere_change` for this shot: the last pictures of the table with nothing
        over it before the stroke against those after the balls stopped, the balls whose tracks
        moved left out; None where it cannot be told."""
        before = [p[1] for p in self._clear_before if p[0] < facts.t_start]
        after = self._after(facts)
        if not before or not after or [p for p in unnamed if not shots.stayed_put(p, facts.t_start, facts.t_end)]:
            return None         # (a track with no number moved: it may be any ball the facts do not name)
        places = way.movers_places(list(paths.values()) + list(unnamed), facts.t_start, facts.t_end,
                                   [q[0] for q in after], 3.0 / self.fps)
        return way.elsewhere_change(before, [q[1] for q in after], self.geo, places, [q[2] for q in after])

    def _evidence(self, frame, cands, looks):
        """The appearance model's log probabilities for each candidate whose looks were taken
        this frame (None for the others, and for all without a model), from the camera's own
        pixels (host/camera/appearance.py)."""
        model = appearance_model()
        want = [k for k, lk in enumerate(looks) if lk is not None]
        out = [None] * len(cands)
        if model is None or not want:
            return out
        pts = np.array([[cands[k]["x"], cands[k]["y"]] for k in want])
        centres, radii = appearance.radii_px(self.view, pts)
        if float(np.median(radii)) < appearance.MIN_RADIUS_PX:
            return out                 # too coarse a picture for the model: the colour shares do
        cloth = np.array([self.cloth.img[int(cands[k]["row"]), int(cands[k]["col"])] for k in want])
        logp = model.log_probs(appearance.features(appearance.cut_patches(frame, centres, radii), cloth, self.tint))
        for k, lp in zip(want, logp):
            out[k] = lp
        return out

    def _still_places(self):
        """(x, y) arrays of the tracks lying still (seen now, moved under 2 mm over their
        last three observations): during a shot their looks of every 4th frame do."""
        pts = [(tr.x[-1], tr.y[-1]) for tr in self.tracker.tracks
               if tr.lost_since is None and len(tr.t) >= 3 and
               abs(tr.x[-1] - tr.x[-3]) + abs(tr.y[-1] - tr.y[-3]) < 2.0]
        return np.array(pts, dtype=float).reshape(-1, 2)

    def close(self):
        """End of the footage: a shot still open is judged as it stands."""
        if self.episode is not None and self.last_t is not None:
            facts = self._judge(self.episode[0], self.episode[1], self.last_t)
            self.episode = None
            return [facts] if facts is not None else []
        return []

    def _ball_mask(self):
        import cv2
        m = np.zeros(self.geo.shape, np.uint8)
        for tr in self.tracker.tracks:
            c, r = self.geo.to_px(tr.x[-1], tr.y[-1])
            cv2.circle(m, (int(round(c)), int(round(r))), int(np.ceil(self.geo.r_px * 1.8)), 255, -1)
        return m

    # ---------------------------------------------------------------- shots
    def _moving(self, t, thr=MOVE_MM):
        """Some ball is moving: a confirmed track whose recent median place differs from
        its median place MOVE_WINDOW earlier (medians of three: a dark ball's centroid
        flickers in dim light), or a track lost while it was moving fast."""
        for tr in self.tracker.tracks:
            if tr.seen < MIN_SEEN_S * self.fps:
                continue
            if tr.lost_since is not None:
                if t - tr.lost_since < 0.3 and math.hypot(*tr.velocity()) > 100:
                    return True       # lost in motion (under an arm, into a pocket): wait
                continue
            n = len(tr.t)
            if n < 6:
                continue
            x1, y1 = _median3(tr.x, tr.y, n - 1)
            moved = []
            for window in (MOVE_WINDOW, 2.5 * MOVE_WINDOW):
                k = n - 1
                while k > 2 and tr.t[k] > t - window:
                    k -= 1
                if k < 2:
                    break
                x0, y0 = _median3(tr.x, tr.y, k)
                moved.append(math.hypot(x1 - x0, y1 - y0))
            # A rolling ball keeps going; a flickering centroid does not add up.
            if moved and moved[0] > thr and (len(moved) < 2 or moved[1] > thr):
                return True
        return False

    def _segment(self, t):
        moving = self._moving(t, MOVE_MM if self.episode is not None else START_MM)
        if self.episode is None:
            if moving:
                self.episode = [t - MOVE_WINDOW, t]
                self._before_shot = tuple(self._recent)
                self._clear_before = tuple(self._clear)
            else:
                self.tracker.trim(t - 2.0)
            return []
        if moving and t - self.episode[0] < MAX_EPISODE_S:
            self.episode[1] = t
            return []
        if moving:                      # never still (a camera on something else): bounded
            t_open = self.episode[0]
            self.episode = None
            self.tracker.trim(t - 1.0)
            facts = self._judge(t_open, t, t)
            return [facts] if facts is not None else []
        if t - self.episode[1] < STILL_S:
            return []
        t_open, t_last = self.episode
        self.episode = None
        facts = self._judge(t_open, t_last, t)
        return [facts] if facts is not None else []

    def labels(self, cue=None, exclude=(), tracks=None):
        """{track key: (ball, confidence)} from every confirmed track's looks so far;
        `cue`: the key of the track known to be the cue ball (it was stroked);
        `exclude`: keys of tracks known to be no ball (they take no number);
        `tracks`: these instead of the tracker's (a shot's, broken tracks joined)."""
        return self.labels_with_rivals(cue, exclude, tracks)[0]

    def labels_with_rivals(self, cue=None, exclude=(), tracks=None):
        """(labels, {track key: the balls it may be, or None}): identity.label_with_rivals."""
        summaries = {}
        for tr in (self.tracker.tracks if tracks is None else tracks):
            if tr.confirmed and tr.key not in exclude:
                s = tr.looks.summary()
                if s is not None:
                    s["near_occluder"] = tr.near_occluder / float(tr.seen)
                    s["seen_s"] = tr.seen / self.fps
                summaries[tr.key] = s
        return identity.label_with_rivals(summaries, self.palette, balls=self.balls,
                                          fixed={cue: 0} if cue is not None else None)

    def _stroked(self, labels, t_open, t_now, tracks=None):
        """(track, rest, onset) of the cue ball: of the white-looking tracks (the one
        labelled 0, and any mostly white: a 9, a stripe with its band down, a cue ball the
        labels got wrong), the first to leave its rest in the episode. None if none
        moved (a hand moved balls: no stroke)."""
        tracks = self.tracker.tracks if tracks is None else tracks
        best = None
        for tr in tracks:
            if not self._may_be_cue(tr, labels):
                continue
            p = shots.Path(tr.t, tr.x, tr.y)
            rest, t_from = shots.rest_at(p, t_open), t_open - 0.3
            if rest is None:            # first seen in the episode (out from under a hand)
                w = p.window(t_open, t_now)
                if len(w) < 3:
                    continue
                rest, t_from = (float(np.median(w.x[:3])), float(np.median(w.y[:3]))), float(w.t[0])
            rest, onset = _settled_onset(p, rest, t_from, tr.born[0], t_now)
            if onset is None or max(onset[1], _leaving_speed(p, rest, onset[0])) < STRUCK_MM_S:
                continue                # a cue ball lies still before it is struck, then goes
            if labels.get(tr.key, (None,))[0] != 0 and self._in_cluster(tr, rest, onset[0], tracks):
                continue                # a white stripe in the rack, not the cue ball
            # The track named the cue ball by its looks, if it was struck, before any other
            # white one (a phantom on the stick or the arm over the cue ball moves first).
            named = labels.get(tr.key, (None,))[0] == 0
            if best is None or (named and not best[3]) or \
                    (named == best[3] and onset[0] < best[2][0] - 0.5 / self.fps):
                best = (tr, rest, onset, named)
        return best[:3] if best else self._struck_from_hiding(labels, t_open, tracks)

    def _struck_from_hiding(self, labels, t_open, tracks):
        """(track, rest, onset) of a cue ball hidden by the bridge hand and the stick until
        it was struck: the track labelled 0 (or the whitest), first seen in the episode
        already rolling at a stroke's speed. Its rest is where it was first seen and its
        onset a frame before. None if there is none."""
        best = None
        for tr in tracks:
            if not self._may_be_cue(tr, labels, ROLLING_SEEN_S) or tr.born[0] < t_open or len(tr.t) < 3:
                continue
            k = tr.t.index(tr.born[0]) if tr.born[0] in tr.t else 0
            if k + 2 >= len(tr.t):
                continue
            v = math.hypot(tr.x[k + 2] - tr.x[k], tr.y[k + 2] - tr.y[k]) / max(tr.t[k + 2] - tr.t[k], 1e-6)
            if v < STRUCK_MM_S:
                continue
            onset = (tr.born[0] - 1.0 / self.fps, v)
            if best is None or onset[0] < best[2][0]:
                best = (tr, (tr.born[1], tr.born[2]), onset)
        return best

    def _may_be_cue(self, tr, labels, seen_s=MIN_SEEN_S):
        """Seen long enough (`seen_s`), and labelled the cue ball or mostly white (a 9, a
        stripe with its band down, a cue ball the labels got wrong)."""
        if tr.seen < seen_s * self.fps:
            return False
        return labels.get(tr.key, (None,))[0] == 0 or (tr.looks.summary() or {}).get("white_mid", 0) >= 0.5

    def _in_cluster(self, tr, rest, t, tracks):
        """Two or more balls touching it at `t`: a rack, not a cue ball in hand."""
        near = 0
        for other in tracks:
            if other is tr or not other.confirmed:
                continue
            p = shots.rest_at(shots.Path(other.t, other.x, other.y), t, span=0.2)
            if p is not None and math.hypot(p[0] - rest[0], p[1] - rest[1]) < 2 * BALL_R_MM + 15:
                near += 1
        return near >= 2

    def _judge(self, t_open, t_last, t_now):
        # A ball unseen for a moment in the shot and seen again is one ball, one track.
        tracks = tracking.stitched(self.tracker.tracks, t_open - 0.2, self.tracker.pockets)
        labels, rivals = self.labels_with_rivals(tracks=tracks)
        found = self._stroked(labels, t_open, t_now, tracks)
        if found is None:
            return None                 # balls moved but not the cue ball: not a stroke
        if found[0].born[0] >= t_open and found[1] == (found[0].born[1], found[0].born[2]):
            tracks, found = _leapt_from(tracks, found, self.fps)      # first seen rolling
        elif not _rolls_on(found[0], found[1], found[2][0]):
            tracks, found = _left_behind(tracks, found, self.fps)
        cue, rest, onset = found
        t_start = onset[0]
        hands = {tr.key for tr in tracks   # the stick's tip, the bridge hand
                 if tr is not cue and _born_at_stroke(tr, t_start, rest)}
        if hands or labels.get(cue.key, (None,))[0] != 0:
            # The ball that was stroked is the cue ball; the hands take no ball's number.
            labels, rivals = self.labels_with_rivals(cue=cue.key, exclude=hands, tracks=tracks)
        if self.balls == identity.GAMES["nineball"]:
            rests = {}
            for tr in tracks:
                at = shots.rest_at(shots.Path(tr.t, tr.x, tr.y), t_start)
                if tr.key in labels and at is not None:
                    rests[tr.key] = at
            labels, rivals = identity.named_by_the_rack(labels, rivals, rests)
        paths, dropped, id_conf, may_be = {}, {}, {}, {}
        for tr in tracks:
            if tr.key not in labels:
                continue
            ball, conf = labels[tr.key]
            paths[ball] = shots.Path(tr.t, tr.x, tr.y)
            id_conf[ball] = conf
            may_be[ball] = rivals.get(tr.key)
            if tr.lost_since is None or tr.lost_since < t_open - 0.2:
                continue
            if tr.dropped_at is not None:
                dropped[ball] = tr.lost_since
            elif tr.lost_since >= t_start and tracking.heading_into_pocket(tr, self.tracker.pockets) is not None:
                dropped[ball] = tr.lost_since   # lost for good at speed on its way into a pocket
        for b in paths:                 # a resting ball's track drawn off it and back
            if b != 0 and b not in dropped:
                paths[b] = shots.without_excursion(paths[b])
        t_end = _last_motion(paths, t_open, t_now, dropped)
        unnamed = [shots.Path(tr.t, tr.x, tr.y) for tr in tracks if tr.key not in labels and
                   tr.key not in hands and tr.confirmed and tr.seen >= MIN_SEEN_S * self.fps]
        facts = shots.shot_facts(paths, self.table, t_start, t_end, self.fps, dropped=dropped,
                                 clock=self.clock, id_conf=id_conf, may_be=may_be, unnamed=unnamed,
                                 balls=self.balls, t_open=t_open)
        add_start(facts, paths, self.fps, id_conf, unnamed)     # where the balls lay when it began
        way.doubt_first(facts, self._way_clear(paths, unnamed, facts))
        facts.others_change = self._elsewhere(paths, unnamed, facts)
        facts.head_end = self.head_end
        set_second_contact(facts, shots.second_contact(paths, t_start, self.fps, facts.first_contact,
                                                       facts.contact_t))
        self.tracker.trim(t_now - 1.0)
        return facts


SPOT_PATCH_MM = 45       # the foot spot is looked for this far around its place (the found
                         # corners put it within ~10 mm at 720p, ~30 mm at 360p)
SPOT_COVER_MM = BALL_R_MM + 15.0    # a ball centre this near the place hides the spot
SPOT_MASK_MM = BALL_R_MM + 30.0     # the filter's answer this near a ball is the ball's
SPOT_MAX_MM2 = 700.0     # a spot is ~15 mm across (~180 mm^2); a ball's light top is larger


def _covered(pts, x, y):
    return any(math.hypot(p[0] - x, p[1] - y) < SPOT_COVER_MM for p in pts)


def spot_response(gray, view, x, y, balls=()):
    """How strongly a small light mark (a spot, ~15 mm across) stands out of the cloth near
    table point (x, y): the best of a 15 mm box's mean less the 45 mm box's around it, over
    a patch drawn at 1 mm a pixel, in units of the cloth's noise (the patch's spread of the
    same filter), away from the `balls` (x, y) near it. A real spot is some tens; bare
    cloth a few. None when balls cover most of the patch."""
    import cv2
    n = SPOT_PATCH_MM + 30
    xs = np.arange(-n, n + 1, 1.0)
    gx, gy = np.meshgrid(xs + x, xs + y)
    px = view.mm_to_px(np.stack([gx.ravel(), gy.ravel()], axis=1))
    mx = px[:, 0].reshape(gx.shape).astype(np.float32)
    my = px[:, 1].reshape(gx.shape).astype(np.float32)
    patch = cv2.remap(gray, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
    dog = cv2.blur(patch, (15, 15)) - cv2.blur(patch, (45, 45))
    for bx, by in balls:               # a ball's edge is no spot
        dog[np.hypot(gx - bx, gy - by) < SPOT_MASK_MM] = np.nan
    inner = dog[30:-30, 30:-30]
    if np.count_nonzero(np.isfinite(inner)) < 100:
        return None
    r, c = np.unravel_index(np.nanargmax(inner), inner.shape)
    if min(r, c) < 2 or max(r, c) > inner.shape[0] - 3:
        return 0.0                     # the strongest answer at the window's edge: something
                                       # larger beside the place (a ball's flank), no mark on it
    vals = inner[np.isfinite(inner)]
    spread = float(np.median(np.abs(vals - np.median(vals)))) * 1.4826 + 0.2
    response = float(inner[r, c] - np.median(vals)) / spread
    if response >= ends.SPOT_NONE and not _on_cloth(patch[30:-30, 30:-30], r, c):
        return None                    # a ball the detector missed (a light one, an 8's white disc)
    return response


def _on_cloth(patch, r, c):
    """The light blob at (r, c) of the patch (1 mm a pixel) is a mark on the cloth: small
    (under SPOT_MAX_MM2 of pixels joined to it lighter than halfway from the patch's median
    to its light there) and ringed by cloth (12-28 mm around it as light as the patch's
    median, give or take its noise): not a ball's light top, nor the white disc of a dark
    ball's number."""
    import cv2
    p = cv2.blur(patch, (5, 5))
    base = float(np.median(p))
    top = float(p[r, c])
    if top <= base:
        return False
    mask = (p > base + 0.5 * (top - base)).astype(np.uint8)
    _, lab = cv2.connectedComponents(mask)
    if np.count_nonzero(lab == lab[r, c]) > SPOT_MAX_MM2:
        return False
    yy, xx = np.indices(p.shape)
    d = np.hypot(yy - r, xx - c)
    ring = patch[(d >= 12) & (d <= 28)]
    noise = float(np.median(np.abs(patch - np.median(patch)))) * 1.4826 + 1.0
    return bool(ring.size) and abs(float(np.median(ring)) - float(np.median(patch))) < 4 * noise


def drawing_scale(table, corners_px):
    """The top-down drawing's mm per pixel for a picture whose table corners are
    `corners_px` (in order round the table): S_MM_COARSE where the picture shows the
    table's length at FINE_SOURCE_MM a pixel or finer (the mean of its two longest
    sides), else S_MM_FINE."""
    c = np.asarray(corners_px, dtype=float).reshape(-1, 2)
    sides = sorted(float(np.hypot(*(c[i] - c[(i + 1) % len(c)]))) for i in range(len(c)))
    long_px = (sides[-1] + sides[-2]) / 2.0
    if long_px <= 0:
        return S_MM_FINE
    return S_MM_COARSE if table.length / long_px <= FINE_SOURCE_MM else S_MM_FINE


def guess_table(frame, lens, corners):
    """The table's size from its balls: balls are the same size on every table, so the
    ratio of a ball's size to the table's tells a 7, 8 or 9 ft table. Drawn as if it were
    9 ft, an isolated ball's blob (compact, ball-sized for some table) gives its radius;
    the median over the blobs picks the nearest size. No balls found: 9 ft."""
    import cv2
    nominal = Table.named("9ft")
    s = 4.0
    geo = detect.Rectified(nominal, s, 0.0)
    maps = View(nominal, lens, corners).rectify_maps(s, 0.0)
    ycc = detect.to_ycc(cv2.remap(frame, maps[0], maps[1], cv2.INTER_LINEAR))
    smooth = detect.initial_cloth(ycc, geo.cloth_mask())
    mask = (detect.not_cloth(ycc, smooth) > detect.NOT_CLOTH).astype(np.uint8)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    n, _, stats, _ = cv2.connectedComponentsWithStats(mask)
    lo = BALL_R_MM * 0.75 / s
    hi = BALL_R_MM * nominal.length / TABLE_SIZES["7ft"][0] * 1.3 / s
    radii = []
    for i in range(1, n):
        x, y, bw, bh, area = stats[i]
        r = math.sqrt(area / math.pi)
        if lo <= r <= hi and 0.75 < bw / max(bh, 1) < 1.33 and area > 0.6 * bw * bh:
            radii.append(r * s)
    if not radii:
        return "9ft"
    # A ball's blob (its shadow's edge, blur) measures ~6 % wide on rendered footage.
    length = 1.06 * nominal.length * BALL_R_MM / float(np.median(radii))
    return min(TABLE_SIZES, key=lambda k: abs(TABLE_SIZES[k][0] - length))


def _settled_onset(p, rest, t_from, t_born, t_now, tries=6):
    """(rest, onset) of the first departure from a place where the ball had lain still for
    SETTLED_S (a cue ball lies still before it is struck), or (rest, None). A track that
    began under the bridge hand can jump with the hand (or an arm's shadow) before the
    ball settles: its first "departure" is that jump, and the stroke is a later departure
    from where it then lay still (STILL_SPELL_S: it came out from under the hand late),
    which is where it was first seen: a track that rolled off and stopped elsewhere was
    a ball born rolling, not a hand's jump."""
    settled_from, need, first = t_born, shots.SETTLED_S, rest
    for _ in range(tries):
        onset = shots.motion_onset(p, rest, t_from)
        if onset is None or onset[0] - settled_from >= need:
            return rest, onset
        spell = _next_still_spell(p, onset[0] + 0.05, t_now)
        if spell is None or math.hypot(spell[0][0] - first[0], spell[0][1] - first[1]) > 2 * BALL_R_MM:
            return rest, None           # the ball itself rolled off (born rolling): no jump
        rest, settled_from = spell
        t_from, need = settled_from, STILL_SPELL_S
    return rest, None


def _leaving_speed(p, rest, t0):
    """How fast the ball went away from `rest` over the LEAVING_S after it left at `t0` (mm/s;
    0 if it was not seen then): a softly struck ball's smeared centre creeps 1-2 mm a frame
    at first at 120 fps, so the speed of its first two moving observations can read a tenth
    of the ball's (19 mm/s for a cue ball leaving at 430: the stroke was not found)."""
    w = p.window(t0 + 0.5 * LEAVING_S, t0 + LEAVING_S)
    if not len(w):
        return 0.0
    return math.hypot(w.x[-1] - rest[0], w.y[-1] - rest[1]) / max(w.t[-1] - t0, 1e-6)


LEAVING_S = 0.05         # a struck ball's speed is measured over this (3 frames at 60 fps)
STILL_SPELL_S = 0.15     # after such a jump, lying still this long before the stroke will do


def _next_still_spell(p, t0, t_now):
    """((x, y), t) of the first place after `t0` where the track lay still (within
    shots.MOVE_MM of its median, three observations at least) for STILL_SPELL_S, or None."""
    ks = np.nonzero((p.t >= t0) & (p.t <= t_now))[0]
    for k in ks:
        sel = (p.t >= p.t[k]) & (p.t <= p.t[k] + STILL_SPELL_S)
        if np.count_nonzero(sel) < 3 or p.t[sel][-1] - p.t[k] < 0.8 * STILL_SPELL_S:
            continue
        mx, my = float(np.median(p.x[sel])), float(np.median(p.y[sel]))
        if np.all(np.hypot(p.x[sel] - mx, p.y[sel] - my) <= shots.MOVE_MM):
            return (mx, my), float(p.t[k])
    return None


ROLL_ON_S = 0.4          # a track that leaves its rest and goes on straight away from it this long
ROLL_ON_DEG = 20.0       # (within this of one bearing) is a ball rolling: no stick follows through so far


def _rolls_on(tr, rest, t0):
    """The track found struck at `t0` from `rest` went on rolling straight away from it for
    ROLL_ON_S, seen all the way: it is the ball, not the stick's tip (a follow-through stops
    within a few tenths of a second, and is then drawn back) nor a hand. A stroke found so is
    not taken for a tip left behind (`_left_behind`, `_taken_over`): a soft stroke's cue ball
    rolling off at 0.4 m/s once lost its stroke to a hand's track leaping off beside it, and
    a normal one's to the tip drawn back as it was struck."""
    p = shots.Path(tr.t, tr.x, tr.y).window(t0, t0 + ROLL_ON_S)
    if len(p) < 5 or p.t[-1] - t0 < 0.9 * ROLL_ON_S:
        return False
    dx, dy = p.x - rest[0], p.y - rest[1]
    d = np.hypot(dx, dy)
    late = d[p.t >= t0 + 0.75 * ROLL_ON_S]
    if d[-1] <= 2 * BALL_R_MM or np.any(np.diff(d) < -shots.MOVE_MM) or late[-1] - late[0] < shots.GO_MM:
        return False            # (still going at the end: a follow-through has stopped by then)
    far = d > 2 * BALL_R_MM             # (the way it went: where it got to, the last sighting)
    return shots.one_way(np.arctan2(dy[far], dx[far])[::-1], math.radians(ROLL_ON_DEG))


def _left_behind(tracks, found, fps):
    """(tracks, found) with a cue ball struck out of its own track given the track it left in.

    Struck hard, the cue ball is 60-200 mm on by the next frame while the stick's tip (or
    the smear's tail) lies where it was: the tracker keeps the ball's track on the tip and
    the ball gets a new track, born rolling. The stroke is then found late, on the tip's
    track (dragged off by the follow-through), and the real cue ball is taken for the
    stick. A confirmed track born within a frame's roll of the cue ball's rest, from just
    before its track's last still sighting to 2 frames after the onset found, receding
    from the rest at a stroke's speed faster than the old track moved, is the ball: its
    track is the old one's observations up to its birth and its own; what the old track
    saw after that is a track of its own (the tip: born at the stroke, no ball)."""
    cue, rest, onset = found
    frame = 1.0 / fps
    best = None
    for b in tracks:
        if b is cue or not b.confirmed or len(b.t) < 3:
            continue
        tb = b.t[0]
        if not (onset[0] - LEAP_BEFORE_S <= tb <= onset[0] + 2 * frame + 1e-9):
            continue
        leaves = _struck_away(b, 0, rest, cue, frame, onset[1])
        if leaves is None:
            continue
        if best is None or tb < best[0].t[0]:
            best = (b,) + leaves
    if best is None:
        return _taken_over(tracks, found, fps) or (tracks, found)
    b, v, d0 = best
    return _leap_joined(tracks, cue, rest, b, v, d0, fps) or (tracks, found)


def _taken_over(tracks, found, fps):
    """(tracks, found) with a cue ball struck into the track of the stick's tip, or None.

    The tip lies a few cm behind the ball while the player lines up (its track astir then:
    practice strokes; no ball moves before a stroke); struck, the ball leaves and the tip
    follows through, so the tracker may give the ball's next places to the tip's track, the
    nearest, and the tip's to the ball's. The ball's track is then its own up to the stroke and the tip's from the
    observation that, within a frame's roll of its rest, recedes from it at a stroke's
    speed; the two tracks' other observations are the tip's."""
    cue, rest, onset = found
    frame = 1.0 / fps
    best = None
    for b in tracks:
        if b is cue or not b.confirmed or len(b.t) < 6 or not _astir_before(b, onset[0]):
            continue
        for k in range(1, len(b.t) - 2):
            if b.t[k] < onset[0] - LEAP_BEFORE_S:
                continue
            if b.t[k] > onset[0] + 2 * frame + 1e-9:
                break
            leaves = _struck_away(b, k, rest, cue, frame, onset[1])
            if leaves is None:
                continue
            if best is None or b.t[k] < best[0].t[best[1]]:
                best = (b, k) + leaves
            break
    if best is None:
        return None
    b, k, v, d0 = best
    key = max(tr.key for tr in tracks) + 1
    tip = tracking.split_at(b, k)
    ball = tracking.split_at(b, k, tail=True, key=key)
    return _leap_joined([tr for tr in tracks if tr is not b] + [tip, ball], cue, rest, ball, v, d0, fps)


def _struck_away(b, k, rest, cue, frame, cue_v):
    """(v, d0) if track `b` from its observation k on is a ball struck from `rest`: first seen
    within a frame's roll of it (d0 mm off), receding over the next two at a stroke's speed v,
    faster than the cue ball's old track went then and than it left its rest (`cue_v`, the
    onset's speed: a struck ball outruns the stick that struck it, so a track slower than
    the one found is the stick or a hand drawn back, and the one found the ball); else None."""
    d = [math.hypot(b.x[k + i] - rest[0], b.y[k + i] - rest[1]) for i in range(3)]
    if d[0] > 2 * BALL_R_MM + tracking.V_MAX * frame or not d[0] < d[1] < d[2]:
        return None
    v = (d[2] - d[0]) / max(b.t[k + 2] - b.t[k], 1e-6)
    if v < STRUCK_MM_S or v < max(cue_v, _speed_near(cue, b.t[k], b.t[k + 2])):
        return None
    return v, d[0]


def _astir_before(tr, t, span=0.5, mm=20.0):
    """`tr` moved more than `mm` in the `span` s before `t`: no ball does before a stroke
    (they lie still), the stick, the hand and the arm do."""
    pts = [(x, y) for tt, x, y in zip(tr.t, tr.x, tr.y) if t - span <= tt < t]
    if len(pts) < 2:
        return False
    x0, y0 = pts[0]
    return max(math.hypot(x - x0, y - y0) for x, y in pts) > mm


def _leap_joined(tracks, a, rest, b, v, d0, fps):
    """(tracks, found) with `a` (the cue ball's track up to the stroke, lying at `rest`)
    and `b` (its track from the leap on, born `d0` mm from the rest, leaving at `v` mm/s)
    one track; what `a` saw after `b`'s birth a track of its own. None if `a` was hardly
    seen before."""
    n = sum(1 for t in a.t if t < b.t[0])
    if n < 3:
        return None
    head = tracking.split_at(a, n)
    tail = tracking.split_at(a, n, tail=True, key=max(tr.key for tr in tracks) + 1)
    joined = tracking.joined(head, b)
    t0 = max(b.t[0] - d0 / v, head.t[-1])
    out = [tr for tr in tracks if tr is not a and tr is not b] + [joined] + ([tail] if tail else [])
    return out, (joined, rest, (t0, v))


def _leapt_from(tracks, found, fps):
    """(tracks, found) with a cue ball first seen rolling (`found` by _struck_from_hiding)
    given the track it lay in before: a confirmed track lying still (within shots.MOVE_MM
    of its median over the 0.3 s before) within a frame's roll of the rolling track's
    birth, which recedes from it at a stroke's speed. The ball was struck out of that
    track (its looks may then be the stick's tip, which it followed: it was not named);
    its rest is where it lay, not where it was first seen rolling."""
    b, _, onset = found
    frame = 1.0 / fps
    tb = b.t[0]
    best = None
    for a in tracks:
        if a is b or not a.confirmed or a.t[0] > tb - 0.3:
            continue
        p = shots.Path(a.t, a.x, a.y).window(tb - 0.3, tb - 1e-9)
        if len(p) < 3:
            continue
        rest = (float(np.median(p.x)), float(np.median(p.y)))
        if np.max(np.hypot(p.x - rest[0], p.y - rest[1])) > shots.MOVE_MM:
            continue
        d = [math.hypot(b.x[k] - rest[0], b.y[k] - rest[1]) for k in range(3)]
        if d[0] > 2 * BALL_R_MM + tracking.V_MAX * frame or not d[0] < d[1] < d[2]:
            continue
        v = (d[2] - d[0]) / max(b.t[2] - b.t[0], 1e-6)
        if v < STRUCK_MM_S:
            continue
        if best is None or d[0] < best[3]:
            best = (a, rest, v, d[0])
    if best is None:
        return tracks, found
    a, rest, v, d0 = best
    return _leap_joined(tracks, a, rest, b, v, d0, fps) or (tracks, found)


LEAP_BEFORE_S = 0.1      # a struck ball's new track born this long before its old one's onset


def _speed_near(tr, t0, t1):
    """How fast `tr` went from `t0` to `t1` (mm/s; 0 if unseen then)."""
    sel = [k for k, t in enumerate(tr.t) if t0 - 1e-9 <= t <= t1 + 1e-9]
    if len(sel) < 2:
        return 0.0
    i, j = sel[0], sel[-1]
    return math.hypot(tr.x[j] - tr.x[i], tr.y[j] - tr.y[i]) / max(tr.t[j] - tr.t[i], 1e-6)


def _born_at_stroke(tr, t_start, cue_rest):
    """A track that first appeared while the player lined up the stroke (from
    BRIDGE_S before it to just after it) within BRIDGE_MM of where the cue ball lay is
    the cue stick's tip, the bridge hand or the arm's shadow: only the cue ball is put
    down by hand then, and no object ball appears next to it."""
    t, x, y = tr.born
    return (t_start - BRIDGE_S <= t <= t_start + 0.6
            and math.hypot(x - cue_rest[0], y - cue_rest[1]) < BRIDGE_MM)


BRIDGE_S = 2.0
BRIDGE_MM = 350.0


def _at(places, c, mm=2.0):
    """A candidate within `mm` of one of `places` (an n x 2 array)."""
    if not len(places):
        return False
    d = np.abs(places[:, 0] - c["x"]) + np.abs(places[:, 1] - c["y"])
    return bool(d.min() < mm)


def _median3(xs, ys, k):
    return sorted(xs[k - 2:k + 1])[1], sorted(ys[k - 2:k + 1])[1]


def _last_motion(paths, t_open, t_now, dropped):
    """When the last ball stopped: the last observation still on its way to its rest."""
    t_end = t_open
    for b, p in paths.items():
        if b in dropped:
            t_end = max(t_end, dropped[b])
            continue
        sel = p.t >= t_open - 0.2
        if not np.any(sel):
            continue
        t, x, y = p.t[sel], p.x[sel], p.y[sel]
        fx, fy = np.median(x[-8:]), np.median(y[-8:])
        d = np.hypot(x - fx, y - fy)
        far = np.nonzero(d > 1.5)[0]
        if len(far):
            k = far[-1]
            t_end = max(t_end, float(t[min(k + 1, len(t) - 1)]))
    return t_end


def analyse_frames(frames, **kw):
    """All shots of an iterable of (t, BGR frame): a list of CameraFacts."""
    a = Analyser(**kw)
    out = []
    for t, frame in frames:
        out.extend(a.feed(t, frame))
    out.extend(a.close())
    return out, a
