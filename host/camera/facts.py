"""What the camera says about one shot: `CameraFacts`, with its two plain forms.

* `cli_record(facts)`: the offline analyser's JSON object (docs/camera.md, "The CLI"):
  {"t_start", "t_end", "first_contact", "railed_after_contact",
   "object_balls_railed_on_break", "pocketed", "rest_mm", "start_mm", "second_contact",
   "second_contact_after_ms", "head_end"}.
* `live_dict(facts)`: what the daemon journals and the referee reads, every fact with a
  confidence (docs/camera.md, "Live facts").

A plain record (a dict underneath), so it journals as JSON and replays the same.
`add_start(facts, paths, fps, id_conf)` adds where the balls lay when the shot began (the referee's
"where does a ball lie" clauses: ball in hand behind the head string), from the same paths.
"""
import math
from statistics import median

START_SPAN_S = 0.25      # a ball's start: its median place over this long before the stroke
                         # (shots.SETTLED_S: the cue ball lay still this long before it went)
STALE_S = 1.0            # unseen then: its last place up to this long before, less surely
STILL_MM = 3.0           # the scatter of a resting ball's centre (noise ~1 mm)
GAP_FRAMES = 3           # the cue ball unseen longer than this on its way: its reach is a guess

CLOCKS = ("video", "host")


class CameraFacts:
    """One shot as the camera saw it.

    t_start / t_end: the cue ball's first motion and the moment every ball was still,
    in seconds on `clock` ("video": from the start of a file; "host": time.monotonic()
    of the daemon's host, for a live source). Balls are ints, 0 the cue ball.
    Each fact carries a confidence in 0..1 (how sure, not how likely to be a foul).
    """

    __slots__ = ("t_start", "t_end", "clock", "first_contact", "first_contact_conf",
                 "contact_t", "railed", "railed_conf", "is_break", "break_railed",
                 "break_conf", "pocketed", "pocketed_conf", "rest", "rest_conf",
                 "identity_conf", "lost", "notes", "start", "start_conf", "cue_reach",
                 "cue_reach_conf", "second_contact", "second_after", "second_conf", "head_end",
                 "first_identity_conf", "first_may_be", "way_change", "passed_by", "others_change")

    def __init__(self, t_start, t_end, clock="video"):
        self.t_start = float(t_start)
        self.t_end = float(t_end)
        self.clock = clock if clock in CLOCKS else "video"
        self.first_contact = None          # ball or None (no ball touched)
        self.first_contact_conf = 0.0
        self.contact_t = None              # when, on the same clock
        self.railed = []                   # balls on a cushion after the first contact
        self.railed_conf = {}              # ball -> confidence that it did (or did not) rail
        self.is_break = False
        self.break_railed = None           # object balls on a cushion during a break
        self.break_conf = 0.0
        self.pocketed = []
        self.pocketed_conf = {}
        self.rest = {}                     # ball -> (x, y) mm
        self.rest_conf = {}
        self.identity_conf = 1.0           # the least sure ball identity of those used
        self.first_identity_conf = None    # ... of the first contact's ball
        self.first_may_be = None           # the balls it may be (its own among them), if known
        self.lost = []                     # balls out of sight when the shot ended
        self.notes = []                    # short words on what lowered a confidence
        self.start = {}                    # ball -> (x, y) mm where it lay when the cue ball moved
        self.start_conf = {}
        self.cue_reach = None              # the cue ball's farthest x (mm from the head cushion)
        self.cue_reach_conf = 0.0          # between its first motion and the first contact
        self.second_contact = None         # the next object ball the cue ball touched, or None
        self.second_after = None           # ... this long (s) after the first contact
        self.second_conf = 0.0
        self.way_change = None             # host/camera/way.py: the change on the cue ball's way
        self.passed_by = []                # (x, y) of balls its line passed within a few mm, unmoved
        self.others_change = None          # way.elsewhere_change: the change away from the balls followed
        self.head_end = None               # {"image_side", "found_by", "confidence"}: the frame's
                                           # head end in the picture (host/camera/ends.py)


def _r(v, nd=3):
    return None if v is None else round(float(v), nd)


def cli_record(f):
    """The CLI's JSON object for one shot (docs/camera.md): plain values, no confidences."""
    return {
        "t_start": _r(f.t_start),
        "t_end": _r(f.t_end),
        "first_contact": f.first_contact,
        "railed_after_contact": sorted(f.railed),
        "object_balls_railed_on_break": f.break_railed if f.is_break else None,
        "pocketed": sorted(f.pocketed),
        "rest_mm": {str(b): [_r(p[0], 1), _r(p[1], 1)] for b, p in sorted(f.rest.items())},
        "start_mm": {str(b): [_r(p[0], 1), _r(p[1], 1)] for b, p in sorted(f.start.items())},
        "second_contact": f.second_contact,
        "second_contact_after_ms": _ms(f.second_after) if f.second_contact is not None else None,
        "head_end": None if f.head_end is None else dict(f.head_end),
    }


def live_dict(f):
    """The live record: each fact with its confidence, as the referee will read it.

    {"t_start", "t_end", "clock",
     "first_contact": {"ball": 3 | None, "confidence": 0.97, "t": s | None,
                       "identity_confidence": 0.93 | None,
                       "may_be": [3, 11] | None (the balls it may be: every verdict that is
                                  the same for all of them stands; None: unknown)},
     "railed_after_contact": {"balls": [0, 3], "confidence": {"0": 0.99, "3": 0.9, ...}},
     "break": None | {"object_balls_railed": 5, "confidence": 0.95},
     "pocketed": {"balls": [3], "confidence": {"3": 0.99}},
     "rest_mm": {"3": {"x": 812.0, "y": 301.5, "confidence": 0.95}, ...},
     "identity_confidence": 0.9, "lost": [balls out of sight], "notes": [...],
     "start_mm": {"0": {"x": 402.0, "y": 610.5, "confidence": 0.95}, ...},
     "cue_reach_mm": None | {"x": 1210.4, "confidence": 0.95},
     "second_contact": None | {"ball": 11, "after_ms": 6.5, "confidence": 0.99},
     "way_clear": {"confidence": 0.97}: how sure nothing the camera does not follow left the
                  cue ball's way before its first contact (host/camera/way.py; 0: not known),
     "others_still": {"confidence": 0.95}: ... that nothing it does not follow moved anywhere}
    """
    return {
        "t_start": _r(f.t_start), "t_end": _r(f.t_end), "clock": f.clock,
        "first_contact": {"ball": f.first_contact, "confidence": _r(f.first_contact_conf),
                          "t": _r(f.contact_t), "identity_confidence": _r(f.first_identity_conf),
                          "may_be": None if f.first_may_be is None else list(f.first_may_be)},
        "railed_after_contact": {"balls": sorted(f.railed),
                                 "confidence": {str(b): _r(c) for b, c in sorted(f.railed_conf.items())}},
        "break": ({"object_balls_railed": f.break_railed, "confidence": _r(f.break_conf)}
                  if f.is_break else None),
        "pocketed": {"balls": sorted(f.pocketed),
                     "confidence": {str(b): _r(c) for b, c in sorted(f.pocketed_conf.items())}},
        "rest_mm": {str(b): {"x": _r(p[0], 1), "y": _r(p[1], 1),
                             "confidence": _r(f.rest_conf.get(b, 0.0))}
                    for b, p in sorted(f.rest.items())},
        "identity_confidence": _r(f.identity_conf),
        "lost": sorted(f.lost),
        "notes": list(f.notes),
        "start_mm": {str(b): {"x": _r(p[0], 1), "y": _r(p[1], 1),
                              "confidence": _r(f.start_conf.get(b, 0.0))}
                     for b, p in sorted(f.start.items())},
        "cue_reach_mm": (None if f.cue_reach is None
                         else {"x": _r(f.cue_reach, 1), "confidence": _r(f.cue_reach_conf)}),
        "second_contact": (None if f.second_contact is None
                           else {"ball": f.second_contact, "after_ms": _ms(f.second_after),
                                 "confidence": _r(f.second_conf)}),
        "way_clear": {"confidence": _r(way_clear(f.way_change))},
        "others_still": {"confidence": _r(way_clear(f.others_change))},
    }


def way_clear(change):
    """The confidence that nothing left a place, from `way.way_change`'s (or
    `way.elsewhere_change`'s) measure."""
    from host.camera.way import clear_confidence
    return clear_confidence(change)


def _ms(seconds):
    return None if seconds is None else round(float(seconds) * 1000.0, 1)


def set_second_contact(f, found):
    """Enter `shots.second_contact`'s answer, (ball, after_s, confidence) or None, on `f`."""
    if found is None:
        f.second_contact, f.second_after, f.second_conf = None, None, 0.0
    else:
        f.second_contact, f.second_after, f.second_conf = int(found[0]), float(found[1]), float(found[2])
    return f


def sure(margin, scale):
    """A confidence from a decision's margin: 0.5 at the threshold, -> 1 far from it."""
    return 0.5 + 0.5 * (1.0 - math.exp(-abs(margin) / scale))


# ------------------------------------------------------------------ where the balls lay
def start_place(path, t_start):
    """(x, y, confidence) of a ball before the stroke, or None if it was not seen then.

    Its median place over START_SPAN_S before `t_start`: a ball seen there often and still
    is sure (0.95); seen once or twice, or scattered (a hand near it, a flickering centre),
    less; seen only earlier (up to STALE_S, under the player's arm since) 0.7: it may have
    been moved meanwhile."""
    t, x, y = path.t, path.x, path.y
    sel = [k for k in range(len(t)) if t_start - START_SPAN_S <= t[k] <= t_start]
    stale = False
    if not sel:
        sel = [k for k in range(len(t)) if t_start - STALE_S <= t[k] <= t_start][-3:]
        stale = True
    if not sel:
        return None
    mx, my = float(median([x[k] for k in sel])), float(median([y[k] for k in sel]))
    scatter = float(median([math.hypot(x[k] - mx, y[k] - my) for k in sel]))
    if stale:
        conf = 0.7
    elif len(sel) >= 3:
        conf = 0.95 if scatter <= STILL_MM else 0.5 + 0.45 * math.exp(-(scatter - STILL_MM) / STILL_MM)
    else:
        conf = 0.8
    return mx, my, conf


UNSEEN_LAY_CONF = 0.8     # an object ball's start from before and after an unseen stroke
SAME_PLACE_MM = 12.0      # a still ball's seen centre back this near where it lay (shots.RETURN_MM)


def lay_unseen(path, unnamed, t_start):
    """(x, y, UNSEEN_LAY_CONF) of an object ball unseen at the stroke that lay still in the
    same place before it and after (within SAME_PLACE_MM), or None. Its own track may hold
    both (a player's arm over it while aiming), or its number went to a track seen only after
    the stroke and the one that saw it before has none (a rack's black 8 whose track split in
    two): a track with no number that lay there, and was not seen anywhere else after the
    stroke. Only a ball that did not move in the shot at all: it was
    not met, first or later (a ball first seen after the stroke is never named first, so one
    that moved must stay unseen to the referee: it may have been the first, unseen)."""
    after = _still_place(path, t_start, first=True)
    if after is None or _strayed(path, after, t_start):
        return None             # (a ball that moved in the shot may have been met first, unseen)
    for p in [path] + list(unnamed):
        before = _still_place(p, t_start, first=False)
        if before is None or math.hypot(before[0] - after[0], before[1] - after[1]) > SAME_PLACE_MM:
            continue
        if p is not path and _strayed(p, before, t_start):
            continue
        return before[0], before[1], UNSEEN_LAY_CONF
    return None


def _strayed(path, place, t_start):
    """Seen after `t_start` farther than SAME_PLACE_MM from `place` more than STRAY_SIGHTINGS
    times (a centroid pulled aside by the arm it comes out from under is not a ball moving)."""
    return sum(1 for k in range(len(path.t)) if path.t[k] > t_start and
               math.hypot(path.x[k] - place[0], path.y[k] - place[1]) > SAME_PLACE_MM) > STRAY_SIGHTINGS


STRAY_SIGHTINGS = 3      # sightings astray a still ball may have (its centroid pulled by an arm)
PLACE_SIGHTINGS = 5      # a still place: the median of this many sightings, most of them near it


def _still_place(path, t_start, first):
    """The median of a path's first PLACE_SIGHTINGS sightings after `t_start` (`first`) or its
    last before it, if three or more and 60 % of them lie within 2 STILL_MM of it; else None."""
    ks = [k for k in range(len(path.t)) if (path.t[k] > t_start if first else path.t[k] <= t_start)]
    ks = ks[:PLACE_SIGHTINGS] if first else ks[-PLACE_SIGHTINGS:]
    if len(ks) < 3:
        return None
    mx, my = float(median([path.x[k] for k in ks])), float(median([path.y[k] for k in ks]))
    near = sum(1 for k in ks if math.hypot(path.x[k] - mx, path.y[k] - my) <= 2 * STILL_MM)
    if near < 3 or near < 0.6 * len(ks):
        return None
    return mx, my


def cue_reach(path, t_start, t_until, fps):
    """(farthest x, confidence) of the cue ball from its first motion to `t_until` (the first
    contact, or the shot's end when it touched nothing), or None if unseen then. Sure when it
    was seen all the way (no gap over GAP_FRAMES frames): unseen, it may have gone farther."""
    ks = [k for k in range(len(path.t)) if t_start <= path.t[k] <= t_until]
    if not ks:
        return None
    far = max(float(path.x[k]) for k in ks)
    ts = [t_start] + [float(path.t[k]) for k in ks] + [t_until]
    gap = max(ts[i + 1] - ts[i] for i in range(len(ts) - 1))
    return far, (0.95 if gap <= GAP_FRAMES / float(fps) else 0.6)


def add_start(f, paths, fps, id_conf=None, unnamed=()):
    """Where each ball lay when the shot began (`f.start`, `f.start_conf`), and how far the
    cue ball went before its first contact (`f.cue_reach`). paths: {ball: path with t, x, y};
    id_conf: {ball: identity confidence}, which bounds an object ball's (the cue ball is the
    ball that was struck: its identity is the stroke's); unnamed: the paths of tracks with no
    number (an object ball unseen at the stroke may have lain in one: `lay_unseen`)."""
    for b, p in sorted(paths.items()):
        got = start_place(p, f.t_start)
        if got is None and b != 0:
            got = lay_unseen(p, unnamed, f.t_start)
        if got is None:
            continue
        conf = got[2] if b == 0 or not id_conf else min(got[2], id_conf.get(b, 1.0))
        f.start[b] = (got[0], got[1])
        f.start_conf[b] = conf
    cue = paths.get(0)
    if cue is not None:
        until = f.contact_t if f.contact_t is not None else f.t_end
        got = cue_reach(cue, f.t_start, until, fps)
        if got is not None:
            f.cue_reach, f.cue_reach_conf = got
    return f
