"""From ball paths to one shot's facts (pure: arrays of times and positions in, facts out).

A path is a ball's observations (t, x, y in table mm); the analyser hands over every
labelled ball's path around one motion episode. Here:

* `motion_onset`: when a ball at rest started to move (extrapolated back to zero
  displacement, so it is finer than a frame);
* `first_contact`: the first object ball the cue ball touched: the object balls that
  moved, ordered by onset, checked against the cue ball's straight path towards them
  (a break's apex barely moves, its neighbours start within the same frame: the ball the
  cue ball's line reaches first, among those that moved at all, wins a near tie);
* `cushion_hits`: when a ball met a cushion: its distance to a cushion line reaches a
  minimum that, from the straight lines of its approach and of its rebound, lies at
  the line (a ball turned by another ball turns away from it, not at a cushion); in a
  pocket's mouth, where the cushions are jaws, a sharp turn with no ball near counts;
* `shot_facts`: everything of the CLI record, with confidences.
"""
import math

import numpy as np

from host.camera.facts import SAME_PLACE_MM, CameraFacts, sure
from host.camera.geometry import BALL_R_MM

R = BALL_R_MM
MOVE_MM = 3.5            # displacement from rest that counts as motion (noise is ~1 mm)
GO_MM = 12.0             # a ball that moved goes at least this far from its rest
NUDGE_MM = 5.0           # ... or this far, if the cue ball reached it (a rack's apex)
RAIL_MM = 13.0           # a rebound's turning point within this of the cushion line (the seen
                         # centre of a ball by a cushion lies 2-7 mm inside it)
AT_REST_MM = 6.0         # moved less than this around a minimum: lying still, no hit
JAW_CHORD_MM = 12.0      # a turn in a pocket's mouth is measured over chords this long
CORNER_JAW_DEG = 25.0    # a ball dropping into a corner pocket this far across its diagonal meets a jaw,
CORNER_MISS_MM = 45.0    # ... and one on a line this far off the pocket's centre
CORNER_NEAR_MM = 150.0   # ... judged on observations this near the corner
CORNER_LINE_MM = 300.0   # ... on the line through its last observations this near it
REST_RAIL_MM = 3.0       # a ball that stops this close to a cushion line touches it
SETTLED_S = 0.25         # a first-contact ball was seen at rest this long before the stroke
CUE_GAP_FRAMES = 4       # the cue ball unseen longer than this: where it went is a guess
NEAR_MM = 60.0           # its seen path this near contact with a ball that moved: it may have
                         # touched it (a smeared, fast cue ball's centre is off by a few cm)
BREAK_CLUSTER = 8        # object balls touching in one cluster: a racked table, a break
NEAR_MISS_MM = 6.0       # a cue ball passing a ball by this margin: "no contact" at 0.82
REACH_LEAD_S = 0.15      # the cue ball within contact reach of a ball at most this before it moved
SKIRT_MM = 30.0          # a ball seen this near a cushion line with no hit found may have met it
UNSEEN_FRAMES = 2.5      # a ball unseen longer than this while moving may have met a cushion then
SEEN_NOT_RAILED = 0.9    # seen all the way, never near a cushion: it met none
UNSURE_NOT_RAILED = 0.6  # ... near one, or out of sight on the way: a person's call
LOST_RAILED = 0.6         # a ball lost by the shot's end: its cushions (or none) this sure at most
BROKEN_S = 0.25          # a ball's track unseen this long (the tracker's RECENT_S: then it relinks)
BROKEN_MM = 100.0        # ... and seen again this far from where it was lost: maybe not one ball
UNSURE_FIRST = 0.55      # a first contact guessed (the first ball to move) or contradicted by
                         # another ball's earlier motion
EARLY_FRAMES = 3.0       # ... moving this many frames before it (a rack's balls go within a few)
EARLY_GONE_MM = 30.0     # ... and this far from its rest by then (a centroid flickers ~15 mm)


class Path:
    """A ball's observations: arrays t, x, y (sorted by t)."""

    __slots__ = ("t", "x", "y")

    def __init__(self, t, x, y):
        self.t = np.asarray(t, dtype=float)
        self.x = np.asarray(x, dtype=float)
        self.y = np.asarray(y, dtype=float)

    def window(self, t0, t1):
        sel = (self.t >= t0) & (self.t <= t1)
        return Path(self.t[sel], self.x[sel], self.y[sel])

    def __len__(self):
        return len(self.t)

    def near(self, t, tol):
        """(x, y) of the observation nearest `t`, if one is within `tol` s; else None."""
        if not len(self.t):
            return None
        k = int(np.argmin(np.abs(self.t - t)))
        return (float(self.x[k]), float(self.y[k])) if abs(self.t[k] - t) <= tol else None


def rest_at(path, t, span=0.3, after=False):
    """Median position over `span` s before `t` (or after it), or None if unseen then."""
    sel = ((path.t >= t) & (path.t <= t + span)) if after else ((path.t <= t) & (path.t >= t - span))
    if not np.any(sel):
        return None
    return float(np.median(path.x[sel])), float(np.median(path.y[sel]))


def without_excursion(path):
    """The path less a trip its track made away from a ball that lay still, if the track leapt
    on the way (LEAP_MM or more between two sightings) and came back to lie where the ball lay
    (within RETURN_MM) within EXCURSION_S and stayed there: a track drawn off a ball to a ball
    rolling past, a sleeve or the stick, and back when they have gone. A ball that rolled does
    not leap, and may well come back to the millimetre: 14.1's safe break drives a rack's
    corner ball straight to the side cushion and back into its hole in the rack."""
    if not len(path) or path.t[-1] - path.t[0] < BACK_S:
        return path
    rest = rest_at(path, path.t[-1], span=BACK_S)          # where it lies at the end
    path = _without_blinks(path, rest)
    d = np.hypot(path.x - rest[0], path.y - rest[1])
    far = np.flatnonzero(d > GO_MM)
    if not len(far):
        return path
    t0, t1 = path.t[far[0]], path.t[far[-1]]
    if t1 - t0 > EXCURSION_S or path.t[-1] - t1 < BACK_S:
        return path
    before = (path.t < t0) & (path.t >= t0 - SETTLED_S)
    if np.count_nonzero(before) < 3 or np.median(d[before]) > RETURN_MM:
        return path             # it lay elsewhere before: it came here
    trip = slice(max(far[0] - 1, 0), min(far[-1] + 2, len(path.t)))
    if np.max(np.hypot(np.diff(path.x[trip]), np.diff(path.y[trip]))) < LEAP_MM:
        return path
    keep = (path.t < t0) | (path.t > t1)
    return Path(path.t[keep], path.x[keep], path.y[keep])


def _without_blinks(path, rest):
    """The path less each run of sightings away from `rest` between two at it less than
    BLINK_S apart: a track that blinks onto a neighbour for a frame or three (a black ball in
    a rack's middle, seen one frame in three) while its ball lies still. A ball that leaves
    and comes back takes longer: it must reach a cushion and return."""
    d = np.hypot(path.x - rest[0], path.y - rest[1])
    at = np.flatnonzero(d <= GO_MM)
    if len(at) < 2:
        return path
    keep = np.ones(len(path), bool)
    for a, b in zip(at[:-1], at[1:]):
        if b > a + 1 and path.t[b] - path.t[a] < BLINK_S:
            keep[a + 1:b] = False
    return path if keep.all() else Path(path.t[keep], path.x[keep], path.y[keep])


BLINK_S = 0.25           # a run away from a resting ball and back within this is no trip of it
EXCURSION_S = 4.0        # a track away from its resting ball this long at most (a bridge hand
                         # lingers after the stroke)...
RETURN_MM = SAME_PLACE_MM  # ... and back this near where the ball lay (its centroid's median: an arm's shadow pulls it aside)
BACK_S = 0.5             # ... seen there this long after: the ball never left
LEAP_MM = 100.0          # a step between two sightings no rolling ball makes (6 m/s at 60 fps)


def motion_onset(path, rest, t_from, thr=MOVE_MM, go=GO_MM):
    """When the ball left `rest` for good after `t_from`: (t0, speed mm/s) or None.

    The first observation GO_MM away that stays away (the next two as well, or the path
    ends: a ball that left does not come back within a frame) marks a real departure;
    a centroid pulled aside for one frame by a passing stick or sleeve does not; from
    there back to the last observation still within `thr` of rest is where it left,
    extrapolated to zero displacement from the first two moving observations."""
    sel = path.t >= t_from
    t, x, y = path.t[sel], path.x[sel], path.y[sel]
    if len(t) < 2 or rest is None:
        return None
    d = np.hypot(x - rest[0], y - rest[1])
    g = _lasting_departure(t, d, go, np.arctan2(y - rest[1], x - rest[0]))
    if g is None:
        return None
    k = g
    while k > 0 and d[k - 1] > thr:
        k -= 1
    # k: the first of the moving observations; k - 1 (if any) the last one at rest.
    if k + 1 < len(t) and d[k + 1] > d[k]:
        v = (d[k + 1] - d[k]) / max(t[k + 1] - t[k], 1e-6)
    else:
        v = d[k] / max(t[k] - (t[k - 1] if k > 0 else t[k] - 1.0 / 60), 1e-6)
    t0 = t[k] - d[k] / max(v, 1e-6)
    if k > 0:
        t0 = max(t0, t[k - 1])
    return float(t0), float(v)


def _lasting_departure(t, d, go, bearing):
    """Index of the first departure (`_departure` of d > go) after which the ball stays away:
    over the STAY_S after it, at least STAY_SHARE of its sightings are `go` or more from its
    rest, and (by each sighting's `bearing` from the rest, radians) they lie one way from it,
    within ONE_WAY_RAD of the first. Far from a spot lamp a dark ball's centroid flickers
    by 10-15 mm, three sightings running at times; a black ball in a rack's middle, seen one
    frame in three, has its track blink onto a neighbour on this side, then that: neither is
    a departure."""
    far = d > go
    start = 0
    while start < len(far):
        g = _departure(far[start:])
        if g is None:
            return None
        g += start
        w = (t >= t[g]) & (t <= t[g] + STAY_S)
        if np.mean(far[w]) >= STAY_SHARE and one_way(bearing[w & far]):
            return g
        start = g + 1
    return None


def one_way(bearings, within=None):
    """The bearings (radians) lie within `within` (ONE_WAY_RAD) of the first."""
    off = np.angle(np.exp(1j * (np.asarray(bearings) - bearings[0])))
    return bool(np.all(np.abs(off) <= (ONE_WAY_RAD if within is None else within)))


ONE_WAY_RAD = math.radians(60.0)   # a ball that left goes one way (a kiss may bend it a little)


STAY_S = 0.1             # a ball that left stays away this long at least...
STAY_SHARE = 0.6         # ... in this share of its sightings (a flicker: half or less)


def _departure(far, hold=3):
    """Index of the first run of `hold` True values in `far` (a shorter run that the
    path's end cuts counts), or None."""
    run = 0
    for k, f in enumerate(far.tolist()):
        run = run + 1 if f else 0
        if run == hold or (f and k == len(far) - 1):
            return k - run + 1
    return None


def _ray_entries(origin, direction, points, radius):
    """Distance along a ray to where it enters a circle of `radius` about each point
    (inf where it misses); and the miss margin (radius - closest approach)."""
    out = []
    ox, oy = origin
    dx, dy = direction
    for px, py in points:
        rx, ry = px - ox, py - oy
        along = rx * dx + ry * dy
        perp2 = rx * rx + ry * ry - along * along
        margin = radius - math.sqrt(max(perp2, 0.0))
        if along <= 0 or perp2 > radius * radius:
            out.append((math.inf, margin))
        else:
            out.append((along - math.sqrt(radius * radius - perp2), margin))
    return out


def first_contact(paths, rests, t_start, fps, unnamed=(), t_end=None, table=None):
    """(ball, confidence, t_contact or None, notes, passed: [(x, y)] of the balls the cue
    ball's line passed within its doubt that never moved).

    Candidates are the object balls that left their rest after the stroke. One the cue
    ball touched first must have been reached by it: its path (each step's straight line,
    from the velocity it came in with) comes within contact of the ball's rest at
    `t_reach`, and the ball moved then, not before (a ball that "moved" before the cue
    ball got there flickered in a rack or was someone's hand). Of those, the one reached
    first. If none qualifies and the cue ball was seen all the way, it touched nothing
    (None); if it went unseen on the way, the first to move, with a low confidence.
    `unnamed`: where balls with no number lay (they may have been met first all the same);
    `t_end`, `table`: when the balls stopped and where the cushions are (a ball alone on the
    line that never moved by then was passed)."""
    cue = paths.get(0)
    passed = []
    lying = dict(rests)
    lying.update((("unnamed", k), p) for k, p in enumerate(unnamed))
    movers, nudged = {}, {}
    for b, p in paths.items():
        if b == 0 or rests.get(b) is None or not len(p) or p.t[0] > t_start - SETTLED_S:
            continue              # only balls seen at rest before the stroke can be hit first
        on = motion_onset(p, rests[b], t_start - 0.5 / fps)
        if on is None:            # a rack's apex passes the blow on and barely moves
            on = motion_onset(p, rests[b], t_start - 0.5 / fps, go=NUDGE_MM)
            if on is not None and on[0] >= t_start - 1.0 / fps:
                nudged[b] = on
        elif on[0] >= t_start - 1.0 / fps:
            movers[b] = on
    frame = 1.0 / fps
    # The cue ball reached a ball just before it moved: an approach long before (it passed by,
    # and the ball moved when something else came) is not its contact.
    reach = {b: _reach_before(cue, rests[b], movers[b], t_start, frame) for b in movers}
    for b, on in nudged.items():  # ... so it counts only where the cue ball reached it
        r = _reach_before(cue, rests[b], on, t_start, frame, tol=3.0)
        if r is not None:
            movers[b], reach[b] = on, r
    if not movers:
        conf = _no_contact_conf(cue, rests, t_start, fps)
        if _unseen_at_stroke(paths, t_start):   # a ball the cue ball may have met unseen
            return None, min(conf, UNSURE_NOT_RAILED), None, ["a ball was out of sight at the stroke"], passed
        return None, conf, None, [], passed
    valid = {b: reach[b] for b in movers if _moved_on_reach(movers[b], reach[b], frame)}
    notes = []
    if valid:
        order = sorted(valid, key=lambda b: (valid[b], movers[b][0]))
        first = order[0]
        # Reached a frame before the next ball: 0.82; two frames: 0.93; a tie is a coin toss
        # (a smeared cue ball's centre is off by centimetres: a rack's apex and the ball behind
        # it are reached within a frame of each other at a break's speed).
        gap = (valid[order[1]] - valid[first]) if len(order) > 1 else 10 * frame
        line = _line_margin(cue, lying, first, valid[first], t_start)
        if line is not None and line[2] == "likely" and _passed_by(paths, rests, line[1], movers, t_start, t_end, table):
            # Within a few mm of the line, it never moved: the cue ball passed it (a touch
            # moves a ball centimetres at least).
            notes.append("the cue ball's line passed ball %d within a few mm; it never moved" % line[1])
            passed.append(rests[line[1]])
            line = None
        if line is not None and isinstance(line[1], tuple):
            # A ball with no number lay in the way: it was met, whichever ball it is (the
            # number is unsure, not the contact: shot_facts' hidden first ball).
            notes.append(UNNAMED_IN_THE_WAY)
            line = None
        conf = _line_conf(line, sure(gap, frame))
        if line is not None and line[1] is not None:
            notes.append("the cue ball's line met ball %d before ball %d%s" % (
                line[1], first, "" if line[2] == "sure" else " (within a few mm)"))
            if line[2] == "sure" and line[1] in movers:
                # It surely lay in the way and it moved: it is the likelier first (its onset
                # seen late: a smeared cue ball's centre lags), still a guess.
                first = line[1]
        t_first = min(valid.get(first, math.inf), movers[first][0])   # (a blocker named first: its onset)
        early = _moved_before(paths, rests, movers, first, t_first, t_start, frame)
        if early is not None:
            notes.append("ball %d moved before ball %d: the first contact is unsure" % (early, first))
            conf = min(conf, UNSURE_FIRST)
        return first, conf, movers[first][0], notes, passed
    relay = _relayed(paths, rests, movers, t_start, frame)
    if relay is not None:
        notes.append("ball %d reached, passed the blow on to %d" % relay[:2])
        return relay[0], _line_conf(_line_margin(cue, lying, relay[0], relay[2], t_start), 0.8), relay[2], notes, passed
    order = sorted(movers, key=lambda b: movers[b][0])
    if not any(_cue_came_near(cue, rests[b], t_start, movers[b][0] + 3 * frame, frame) for b in movers):
        # Seen all the way, the cue ball came nowhere near any ball that moved: it touched
        # nothing (they were moved by a hand, the stick, or a track that is no ball).
        notes.append("ball %d moved where the cue ball did not go: no contact" % order[0])
        return None, 0.7, None, notes, passed
    notes.append("no ball the cue ball reached moved: first mover %d" % order[0])
    return order[0], UNSURE_FIRST, movers[order[0]][0], notes, passed


def _line_margin(cue, rests, first, t_reach, t_start):
    """What the cue ball's own line says of `first` being the first ball it met: (margin mm,
    blocker), or None where the line cannot tell. The ball was reached at `t_reach`
    (cue_reaches); the cue ball's line then, from its last LINE_SPAN_MM of path, reaches that
    ball's contact circle `margin` mm before any other ball's, each widened by what the line's
    direction leaves unsure there (LINE_SLACK_MM plus the spread times the way to it), and its
    path before came no nearer to any other. A fast cue ball reaches a rack's apex and the
    balls behind it within a frame, so the time between cannot say which came first; 50 mm of
    line can. Where another ball lay in the way first even with its contact circle narrowed as
    much (a ball with no number, one whose track was lost: it was met, not `first`), the margin
    is that ball's (negative) and it is the blocker. A line that bends (a swerve, a cushion)
    tells nothing: None."""
    line = _approach_line(cue, t_start, t_reach)
    if line is None or rests.get(first) is None:
        return None
    origin, u, spread, before = line
    entry = _ray_entries(origin, u, [rests[first]], 2 * R)[0][0]
    if not math.isfinite(entry):
        return None
    margin, blocked = LINE_FAR_MM, None
    for b, rest in rests.items():
        if b in (0, first) or rest is None:
            continue
        doubt = LINE_SLACK_MM + spread * math.hypot(rest[0] - origin[0], rest[1] - origin[1])
        # A ball with no number blocks where it may have been in the way (its number is then
        # unsure, a cheap doubt); a numbered one only where it surely was (the contact itself
        # is then a guess).
        unnamed = isinstance(b, tuple)
        for r, kind in ((2 * R + doubt, "may" if unnamed else None), (2 * R, "likely"), (2 * R - doubt, "sure")):
            e = _ray_entries(origin, u, [rest], r)[0][0]
            if len(before[0]) and _closest(before[0], before[1], rest) <= r:
                e = 0.0
            if r > 2 * R:
                margin = min(margin, e - entry)
            if kind and e - entry < -LINE_SLACK_MM and (blocked is None or _worse(kind, blocked[2])):
                blocked = (e - entry, b, kind)
    return blocked or (margin, None, None)


def _worse(kind, than):
    order = ("may", "likely", "sure")
    return order.index(kind) > order.index(than)


def _line_conf(margin, conf):
    """A first contact's confidence `conf` (from the times) with what the cue ball's line says
    (_line_margin): as sure as the margin makes it, or a guess where another ball lay in the way
    first."""
    if margin is None:
        return conf
    if margin[2] == "sure":
        return min(conf, UNSURE_FIRST)
    if margin[2] is not None:               # it likely lay in the way: a person's call
        return min(conf, LIKELY_BLOCKED)
    return max(conf, sure(margin[0], LINE_SCALE_MM)) if margin[0] > 0 else conf


def _approach_line(cue, t_start, t_reach):
    """(origin, unit direction, direction's spread in radians, (xs, ys) of the path before the
    origin) of the cue ball's straight approach to what it met at `t_reach`: the line fitted to
    its observations over its last LINE_SPAN_MM before then (from the stroke on), or None if
    it was seen too little or its path there bends by more than LINE_BEND_MM."""
    if cue is None:
        return None
    w = cue.window(t_start - 1e-6, t_reach + 1e-6)
    if len(w) < 3:
        return None
    x, y = w.x, w.y
    k = len(x) - 1
    while k > 0 and math.hypot(x[-1] - x[k - 1], y[-1] - y[k - 1]) <= LINE_SPAN_MM:
        k -= 1
    px, py = x[k:], y[k:]
    if len(px) < 3 or math.hypot(px[-1] - px[0], py[-1] - py[0]) < LINE_MIN_MM:
        return None
    pts = np.stack([px, py], axis=1)
    m = pts.mean(axis=0)
    _, sv, vt = np.linalg.svd(pts - m, full_matrices=False)
    u = vt[0] if np.dot(vt[0], pts[-1] - pts[0]) > 0 else -vt[0]
    off = (pts - m) @ vt[1]
    if np.max(np.abs(off)) > LINE_BEND_MM:
        return None
    length = float(np.dot(pts[-1] - pts[0], u))
    spread = max(LINE_SPREAD_MIN, 2.0 * (float(np.std(off)) + 1.0) / max(length, 1.0))
    origin = (float(px[0]), float(py[0]))
    return origin, (float(u[0]), float(u[1])), spread, (x[:k + 1], y[:k + 1])


UNNAMED_IN_THE_WAY = "the cue ball's line met a ball with no number first"
LIKELY_BLOCKED = 0.8     # another ball's contact circle lay on the cue ball's line first
LINE_SPAN_MM = 400.0     # the cue ball's approach line is fitted over this much of its path
LINE_MIN_MM = 40.0       # ... at least this much of it
LINE_BEND_MM = 6.0       # ... no observation farther than this off it (else it bent: no line)
LINE_SPREAD_MIN = 0.01   # its direction unsure by at least this (radians)
LINE_SLACK_MM = 5.0      # every other ball's contact circle widened by this (the rests' noise)
LINE_SCALE_MM = 8.0      # a margin this long: 0.82 sure; twice: 0.93
LINE_FAR_MM = 100.0      # the margin where no other ball lies ahead on the line


def _none_moved(paths, unnamed, t_start, t_end):
    """Every object ball (numbered or not) was seen lying still before the stroke and is seen
    again where it lay, within STILL_AFTER_MM, once the balls have stopped: nothing touched one.
    A touch moves a ball: a cue ball at 1 m/s that overlaps its contact circle by a millimetre
    sends it off at ~190 mm/s, centimetres at least; a near miss leaves it where it was. So a
    cue ball lost under an arm as it passed a ball touched nothing if the ball never moved."""
    # A track with no number that was not seen lying still before the stroke is no ball lying
    # there (a hand, a glint): it says nothing either way.
    balls = [p for b, p in paths.items() if b != 0] + [p for p in unnamed if _lay_still(p, t_start)]
    if not balls:
        return False
    return all(stayed_put(p, t_start, t_end) for p in balls)


def _passed_by(paths, rests, b, movers, t_start, t_end, table):
    """Ball `b` (a number) lay alone (no other ball or cushion within a touch of it: nothing
    frozen to it took the blow on) and stayed where it lay all through the shot (`stayed_put`)."""
    if (isinstance(b, tuple) or b in movers or paths.get(b) is None or rests.get(b) is None
            or t_end is None or table is None):
        return False
    x, y = rests[b]
    near = [c for c, r in rests.items() if c not in (0, b) and r is not None
            and math.hypot(r[0] - x, r[1] - y) < 2 * R + FROZEN_MM]
    if near or min(x, table.length - x, y, table.width - y) < R + FROZEN_MM:
        return False
    return stayed_put(paths[b], t_start, t_end)


FROZEN_MM = 12.0         # a ball this near another ball or a cushion may pass a blow on unmoved


def stayed_put(p, t_start, t_end):
    """Seen lying still before the stroke, seen again where it lay (within STILL_AFTER_MM) once
    the balls stopped, and never went GO_MM away in between (a ball that rolled through its
    place and another that came to rest there are not one that stayed)."""
    before = rest_at(p, t_start)
    after = rest_at(p, t_end, span=1.0, after=True) or rest_at(p, t_end + 1e-6, span=0.3)
    if before is None or after is None or len(p.window(t_start - SETTLED_S, t_start)) < 3:
        return False
    if math.hypot(after[0] - before[0], after[1] - before[1]) > STILL_AFTER_MM:
        return False
    w = p.window(t_start, t_end)
    return not (len(w) and np.max(np.hypot(w.x - before[0], w.y - before[1])) > GO_MM and
                _departure(np.hypot(w.x - before[0], w.y - before[1]) > GO_MM) is not None)


def _lay_still(p, t, span=SETTLED_S):
    """Seen in most frames of the `span` before `t`, never more than MOVE_MM from its median."""
    w = p.window(t - span, t)
    if len(w) < 3 or w.t[-1] - w.t[0] < 0.6 * span:
        return False
    return bool(np.max(np.hypot(w.x - np.median(w.x), w.y - np.median(w.y))) <= MOVE_MM)


def _came_to_rest(cue, t_end, dropped):
    """The cue ball dropped, or was seen lying still when the shot ended (a shot cut short, the
    cue ball still rolling, may yet meet a ball)."""
    if dropped:
        return True
    if cue is None:
        return False
    w = cue.window(t_end - 0.2, t_end + 1.0)
    return len(w) >= 3 and bool(np.max(np.hypot(w.x - w.x[-1], w.y - w.y[-1])) <= MOVE_MM)


def _turned_by_a_ball(cue, table, t_start, t_end):
    """The cue ball's path turned, or stopped dead, away from the cushions: it met something,
    seen or not (a ball the camera does not follow moves when it is met, unseen). Its path is
    walked in chords of TURN_CHORD_MM (a gap where it went unseen is one chord); a turn of more
    than TURN_DEG between two chords, or a chord at under a third of the speed of the one before
    (a stun shot stops the cue ball dead on the ball it hits), farther than TURN_CUSHION_MM from
    every cushion line, is a ball's doing."""
    if cue is None:
        return True
    w = cue.window(t_start, t_end)
    pts = _chords(w, TURN_CHORD_MM)
    L, W = table.length, table.width
    for (t0, x0, y0), (t1, x1, y1), (t2, x2, y2) in zip(pts, pts[1:], pts[2:]):
        if min(x1, L - x1, y1, W - y1) - R < TURN_CUSHION_MM:
            continue
        ax, ay, bx, by = x1 - x0, y1 - y0, x2 - x1, y2 - y1
        na, nb = math.hypot(ax, ay), math.hypot(bx, by)
        if (ax * bx + ay * by) < na * nb * math.cos(math.radians(TURN_DEG)):
            return True
        va, vb = na / max(t1 - t0, 1e-6), nb / max(t2 - t1, 1e-6)
        if va > STUN_MM_S and vb < va / 3.0:
            return True
    return False


def _chords(p, step):
    """[(t, x, y)]: the path's observations at least `step` mm apart (from the first)."""
    out = []
    for t, x, y in zip(p.t, p.x, p.y):
        if not out or math.hypot(x - out[-1][1], y - out[-1][2]) >= step:
            out.append((float(t), float(x), float(y)))
    return out


TURN_CHORD_MM = 25.0
TURN_DEG = 15.0
TURN_CUSHION_MM = 60.0
STUN_MM_S = 300.0
NONE_MOVED = 0.95        # "no contact" when no object ball moved
STILL_AFTER_MM = 3.0     # a ball this near its place after the shot did not move (noise ~1 mm)


def _unnamed_first(unnamed, cue, t_start, t_first, fps):
    """A track with no number that lay still before the stroke, that the cue ball reached
    and that moved then, before the first contact named (`t_first`; None: no contact was
    found): a ball may have been hit first whose number went to another track of it (lost
    by its rest, seen again as a new track that took the number). The contact named may
    be the second."""
    frame = 1.0 / fps
    for p in unnamed:
        if not len(p) or p.t[0] > t_start - SETTLED_S:
            continue
        rest = rest_at(p, t_start)
        on = motion_onset(p, rest, t_start - 0.5 * frame) if rest is not None else None
        if on is None or on[0] < t_start - frame:
            continue
        r = _reach_before(cue, rest, on, t_start, frame)
        if _moved_on_reach(on, r, frame) and (t_first is None or min(on[0], r) < t_first):
            return True
    return False


def _reach_before(cue, rest, on, t_start, frame, tol=6.0):
    """When the cue ball came within contact of a ball resting at `rest` in the REACH_LEAD_S
    before it moved (`on`: its motion_onset) or just after; None if it did not."""
    return cue_reaches(cue, rest, t_start, on[0] + 3 * frame, tol=tol, t_from=on[0] - REACH_LEAD_S)


def _moved_on_reach(on, reach, frame):
    """The ball moved when the cue ball reached it (`reach`), not before."""
    return reach is not None and on[0] >= reach - 2.5 * frame


def _moved_before(paths, rests, movers, first, t_first, t_start, frame):
    """An object ball that set off before the cue ball reached `first` and it moved (`t_first`;
    more than EARLY_FRAMES frames before) where the cue ball could not have touched it (it was
    seen elsewhere, or not at all), or None. Nothing else moves an object ball before the cue ball's first contact, so the first
    ball cannot be `first`: the cue ball's track followed a hand or the stick while the real one
    went unseen, or the ball it met first was out of sight at the stroke and is first seen
    rolling already. (A ball "moving" early with the cue ball beside it is its centroid pulled
    by the passing ball or the stick, not a contact the cue ball's track missed.)"""
    cue = paths.get(0)
    t_early = t_first - EARLY_FRAMES * frame
    for b, on in movers.items():
        if b != first and on[0] < t_early and _set_off(paths[b], rests[b], on[0], t_first, frame) \
                and not _cue_beside(cue, rests[b], on[0], frame):
            return b
    for b in _unseen_at_stroke(paths, t_start):
        p = paths[b]
        if len(p) and t_start <= p.t[0] < t_first and _rolling_when_seen(p) \
                and _cue_beside(cue, (p.x[0], p.y[0]), p.t[0], frame):
            return b
    return None


def _left_before_stroke(paths, t_start, fps, t_open=None):
    """An object ball that left the place where it lay for good, more than EARLY_FRAMES frames
    before the stroke and after the episode's first motion (at most PRE_STROKE_S before the
    stroke), with no cue ball beside it, or None. Nothing moves an object ball before the
    stroke: the stroke found is not the cue ball's (a hard shot's cue ball smeared, its track
    taken by the bridge hand, and a track born at the cue ball's first cushion, where it slows,
    taken for a ball struck there)."""
    frame = 1.0 / fps
    t_from = t_start - PRE_STROKE_S if t_open is None else max(t_open - 0.1, t_start - PRE_STROKE_S)
    cue = paths.get(0)
    for b, p in paths.items():
        if b == 0 or not len(p):
            continue
        rest = rest_at(p, t_from, span=SETTLED_S)
        if rest is None or p.t[0] > t_from - SETTLED_S:
            continue                # not seen lying still then
        on = motion_onset(p, rest, t_from)
        if on is None or on[0] >= t_start - EARLY_FRAMES * frame:
            continue
        if _set_off(p, rest, on[0], min(on[0] + 0.1, p.t[-1]), frame) and _kept_going(p, rest, on[0]) \
                and not _cue_beside(cue, rest, on[0], frame):
            return b
    return None


def _kept_going(p, rest, t0, span=0.1):
    """Past its first sighting GO_MM from `rest` the ball went GO_MM farther within `span`: it
    rolled. A track that leapt from a ball to a hand or the stick beside it and stayed there
    did not."""
    w = p.window(t0, t0 + span)
    d = np.hypot(w.x - rest[0], w.y - rest[1])
    far = np.flatnonzero(d >= GO_MM)
    return bool(len(far) and np.max(d[far[0]:]) - d[far[0]] >= GO_MM)


PRE_STROKE_S = 1.0       # an object ball gone this long before the stroke found was moved by a hand


def _set_off(p, rest, t0, t, frame, span=0.1, slack=6.0):
    """A ball that set off from `rest` at `t0`: seen going away from it all through its first
    `span` (never more than `slack` mm back: a ball struck rolls straight until it meets
    something) and EARLY_GONE_MM from it in every sighting of the two frames before `t`. Not a dark ball's
    centroid flickering in a rack, nor a track on a sleeve wandering by the arm."""
    w = p.window(t0 - frame, t0 + span)
    d = np.hypot(w.x - rest[0], w.y - rest[1])
    if len(d) < 0.6 * span / frame or np.any(np.diff(d) < -slack):
        return False              # (seen in most frames of it: a track that leapt is no ball set off)
    w = p.window(t - 2 * frame, t)
    return bool(len(w) and np.min(np.hypot(w.x - rest[0], w.y - rest[1])) >= EARLY_GONE_MM)


def _cue_beside(cue, place, t, frame, reach=2 * R + NEAR_MM):
    """The cue ball was seen within `reach` of `place` about `t` (two frames either side)."""
    if cue is None or place is None:
        return False
    w = cue.window(t - 2 * frame, t + 2 * frame)
    return bool(len(w) and np.min(np.hypot(w.x - place[0], w.y - place[1])) <= reach)


def _rolling_when_seen(p, span=0.1):
    """A ball first seen already on its way: GO_MM from its first place within `span`."""
    w = p.window(p.t[0], p.t[0] + span)
    return bool(len(w) and np.max(np.hypot(w.x - w.x[0], w.y - w.y[0])) >= GO_MM)


def _unseen_at_stroke(paths, t_start):
    """The object balls not seen lying still before the stroke (first seen after it: a red
    ball on burgundy cloth in dim light, a ball under the arm): what they did then is unknown."""
    return [b for b, p in paths.items()
            if b != 0 and (not len(p) or p.t[0] > t_start - SETTLED_S)]


def _relayed(paths, rests, movers, t_start, frame):
    """(ball, mover, t) where the cue ball reached a resting ball that did not move (a
    soft break's apex, frozen in the rack, passes the blow on and stays within a mm of its
    place, below the centroid's noise) just as a ball touching it, directly or through
    touching balls, began to move: the ball reached is the one it touched. None if none."""
    cue = paths.get(0)
    if cue is None or not movers:
        return None
    t_until = max(on[0] for on in movers.values()) + 3 * frame
    best = None
    for b, p in paths.items():
        if b == 0 or b in movers or rests.get(b) is None or not len(p) or p.t[0] > t_start - SETTLED_S:
            continue
        r = cue_reaches(cue, rests[b], t_start, t_until, tol=3.0)
        if r is None or (best is not None and r >= best[2]):
            continue
        for m, on in movers.items():
            if r - 2.5 * frame <= on[0] <= r + 3 * frame and _touching_chain(rests, b, m):
                best = (b, m, r)
                break
    return best


def _touching_chain(rests, a, b, link=2 * R + FROZEN_MM):
    """Balls `a` and `b` lie in one cluster of touching balls (a rack)."""
    seen, stack = {a}, [a]
    while stack:
        c = stack.pop()
        if c == b:
            return True
        pc = rests[c]
        for d, pd in rests.items():
            if d not in seen and d != 0 and pd is not None and math.hypot(pc[0] - pd[0], pc[1] - pd[1]) < link:
                seen.add(d)
                stack.append(d)
    return False


def _cue_came_near(cue, rest, t_start, t_until, frame):
    """The cue ball may have touched a ball resting at `rest` before `t_until`: it went
    unseen on the way for more than CUE_GAP_FRAMES frames, or a chord between two of its
    observations passes within 2R + NEAR_MM of the ball (a fast cue ball smears and its
    seen centre lags or leads by a few cm; no contact is missed for that)."""
    if cue is None or rest is None:
        return True
    sel = (cue.t >= t_start - frame) & (cue.t <= t_until)
    t, x, y = cue.t[sel], cue.x[sel], cue.y[sel]
    ts = np.concatenate(([t_start], t, [t_until]))
    if len(t) < 2 or np.max(np.diff(ts)) > CUE_GAP_FRAMES * frame + 1e-9:
        return True
    return _closest(x, y, rest) <= 2 * R + NEAR_MM


def second_contact(paths, t_start, fps, first, t_first):
    """(ball, after_s, confidence) of the next object ball the cue ball touched after `first`
    (touched at `t_first`), or None when it touched none: `first_contact` asked again without
    the first ball, so both are found, timed (by their onsets) and scored the same way; its
    confidence is how far the third ball lagged. EB.SIMULTANEOUS needs to know whether own and
    opponent ball were hit too close together to tell apart; a first ball that the cue ball
    was not seen to reach (a first mover only) leaves the second a guess (0.55)."""
    if first is None or t_first is None or paths.get(first) is None:
        return None
    rests = {b: rest_at(p, t_start) for b, p in paths.items()}
    ball, conf, t, _, _ = first_contact({b: p for b, p in paths.items() if b != first},
                                     {b: r for b, r in rests.items() if b != first}, t_start, fps)
    if ball is None or t is None:
        return None
    reach = cue_reaches(paths.get(0), rests[first], t_start, t_first + 3.0 / fps)
    if reach is None or t_first < reach - 2.5 / fps:
        conf = min(conf, 0.55)
    return ball, max(0.0, t - t_first), conf


def cue_reaches(cue, rest, t_start, t_until, tol=6.0, t_from=None):
    """When the cue ball's path first came within contact (2R + tol) of a ball resting at
    `rest`, between t_start (or `t_from`, if later) and t_until; None if it did not. Between
    two observations the ball is taken to go straight on with the velocity it came in with (a
    contact turns it away, so the chord between them would cut the corner); a ball that came
    in at rest (its last step within the centroid's noise) goes along the chord: the noise's
    direction is no heading (it once sent a cue ball struck away from a ball into it)."""
    if cue is None or rest is None:
        return None
    sel = (cue.t >= t_start - 0.2) & (cue.t <= t_until)
    t, x, y = cue.t[sel], cue.x[sel], cue.y[sel]
    r = 2 * R + tol
    t_from = t_start - 0.2 if t_from is None else max(t_from, t_start - 0.2)
    for k in range(len(t)):
        if t[k] >= t_from and math.hypot(x[k] - rest[0], y[k] - rest[1]) <= r:
            return float(t[k])
        if k + 1 >= len(t):
            break
        if t[k + 1] < t_from:
            continue
        if k >= 1 and math.hypot(x[k] - x[k - 1], y[k] - y[k - 1]) >= MOVE_MM:
            vx, vy = (x[k] - x[k - 1]) / (t[k] - t[k - 1]), (y[k] - y[k - 1]) / (t[k] - t[k - 1])
        else:
            vx, vy = (x[k + 1] - x[k]) / (t[k + 1] - t[k]), (y[k + 1] - y[k]) / (t[k + 1] - t[k])
        v = math.hypot(vx, vy)
        step = math.hypot(x[k + 1] - x[k], y[k + 1] - y[k])
        if v < 1.0:
            continue
        ent = _ray_entries((x[k], y[k]), (vx / v, vy / v), [rest], r)[0][0]
        if ent <= max(step, v * (t[k + 1] - t[k])) * 1.2 and t[k] + ent / v >= t_from:
            return float(t[k] + ent / v)
    return None


def _no_contact_conf(cue, rests, t_start, fps):
    """How sure "the cue ball touched no ball" is, when no ball it reached moved: sure (0.9) of
    a cue ball seen all the way that passed every ball by a clear margin; less the nearer it
    passed one (a centre seen 3-4 mm off: a near miss within a few mm is a person's call), and
    a guess where it went unseen on its way (it may have touched a ball there) or was still
    rolling when last seen (a shot cut short: whatever it met next is unknown)."""
    if cue is None or not len(cue):
        return 0.5
    sel = cue.t >= t_start - 1.0 / fps
    t, x, y = cue.t[sel], cue.x[sel], cue.y[sel]
    if len(t) < 2:
        return 0.5
    steps = np.hypot(np.diff(x), np.diff(y))
    moving = steps > MOVE_MM
    if np.any(moving & (np.diff(t) > CUE_GAP_FRAMES / fps + 1e-9)):
        return 0.6
    if len(steps) < 2 or np.any(moving[-2:]):
        return 0.6                # not seen to stop: rolling still when last seen (or gone), not done
    margin = math.inf
    for b, rest in rests.items():
        if b == 0 or rest is None:
            continue
        margin = min(margin, _closest(x, y, rest) - 2 * R)
    return min(SEEN_NOT_RAILED, sure(margin, NEAR_MISS_MM)) if margin < math.inf else SEEN_NOT_RAILED


def _closest(x, y, p):
    """The closest the polyline through (x, y) comes to point p."""
    px, py = p
    if len(x) == 1:
        return math.hypot(x[0] - px, y[0] - py)
    ax, ay, dx, dy = x[:-1], y[:-1], np.diff(x), np.diff(y)
    L2 = dx * dx + dy * dy
    u = np.clip(((px - ax) * dx + (py - ay) * dy) / np.where(L2 > 0, L2, 1.0), 0.0, 1.0)
    return float(np.min(np.hypot(ax + u * dx - px, ay + u * dy - py)))


def _line_fit_at(ts, ds, t_eval):
    if len(ts) < 2 or ts[1] == ts[0]:
        return None
    s = (ds[1] - ds[0]) / (ts[1] - ts[0])
    return ds[0] + s * (t_eval - ts[0]), s


def cushion_hits(path, table, others=None):
    """[(t, cushion, margin_mm)] for each time the ball met a cushion (cushion:
    "head", "foot", "left", "right", "jaw"); margin_mm: how far inside the tolerance."""
    L, W = table.length, table.width
    t, x, y = path.t, path.x, path.y
    n = len(t)
    hits = []
    if n < 2:
        return hits
    lines = (("head", x - R, x, y), ("foot", (L - R) - x, x, y),
             ("left", y - R, x, y), ("right", (W - R) - y, x, y))
    for name, d, _, _ in lines:
        for k in range(n):
            if d[k] > 120.0:
                continue
            prev_ok = k == 0 or d[k - 1] >= d[k]
            next_ok = k == n - 1 or d[k + 1] > d[k]
            if not (prev_ok and next_ok):
                continue
            if table.near_pocket(x[k], y[k], margin=-10.0):
                continue
            lo, hi = max(0, k - 3), min(n, k + 4)
            if np.ptp(x[lo:hi]) + np.ptp(y[lo:hi]) < AT_REST_MM:
                continue                  # a ball lying by the cushion: its flicker is no hit
            est = _turning_point(t, d, k)
            if est is None:
                # No rebound seen (it stopped, or the track starts/ends here).
                if k == n - 1 and d[k] < REST_RAIL_MM:
                    hits.append((float(t[k]), name, REST_RAIL_MM - float(d[k])))
                continue
            if abs(est) <= RAIL_MM:
                hits.append((float(t[k]), name, RAIL_MM - abs(est)))
    hits.extend(_jaw_hits(path, table, others))
    hits.sort()
    return _dedupe(hits)


def _turning_point(t, d, k):
    """Where the approach's and the rebound's straight lines meet (their d), or None."""
    n = len(t)
    before = [i for i in (k - 2, k - 1) if i >= 0]
    after = [i for i in (k + 1, k + 2) if i < n]
    if len(after) < 1:
        return None
    if d[k] <= 1.0:
        return float(d[k])
    if len(before) < 2 or len(after) < 2:
        # One side only: the observation itself must be at the line.
        return float(d[k]) if (len(before) + len(after)) >= 2 else None
    a = _line_fit_at([t[before[0]], t[before[1]]], [d[before[0]], d[before[1]]], t[k])
    b = _line_fit_at([t[after[0]], t[after[1]]], [d[after[0]], d[after[1]]], t[k])
    if a is None or b is None:
        return float(d[k])
    (_, s_in), (_, s_out) = a, b
    if s_in >= -1.0 or s_out <= 1.0:
        # Not an approach and a rebound: a slow ball; take the observation.
        return float(d[k])
    # Intersect d = d_b0 + s_in (t - t_b0) and d = d_a0 + s_out (t - t_a0).
    tb, db = t[before[1]], d[before[1]]
    ta, da = t[after[0]], d[after[0]]
    tc = (da - db + s_in * tb - s_out * ta) / (s_in - s_out)
    return float(db + s_in * (tc - tb))


def _jaw_hits(path, table, others):
    """Sharp turns inside a pocket's mouth with no other ball near: a jaw."""
    t, x, y = path.t, path.x, path.y
    hits = []
    n = len(t)
    for k in range(1, n - 1):
        if not table.near_pocket(x[k], y[k], margin=25.0):
            continue
        i, j = _chord(x, y, k, -1), _chord(x, y, k, 1)
        if i is None or j is None:
            continue
        v1 = (x[k] - x[i], y[k] - y[i])
        v2 = (x[j] - x[k], y[j] - y[k])
        n1, n2 = math.hypot(*v1), math.hypot(*v2)
        cosang = (v1[0] * v2[0] + v1[1] * v2[1]) / (n1 * n2)
        if cosang > math.cos(math.radians(35)):
            continue
        if others is not None and _ball_near(others, t[k], x[k], y[k]):
            continue
        hits.append((float(t[k]), "jaw", 5.0))
    return hits


def _off_corner_axis(path, table, t_drop):
    """A ball that dropped in a corner pocket across the pocket's axis (its line more than
    CORNER_JAW_DEG off the corner's diagonal) or on a line passing the pocket's centre by more
    than CORNER_MISS_MM met a jaw on its way in: the throat is narrower than the mouth. Judged
    on the line of its last few observations before it vanished (a ball sinking into the
    mouth's shadow is seen a few mm astray). Measured on pooltool's pockets (tuning seeds
    6000-6199, the true paths of 48 corner drops): a cushion or a jaw met in the last 0.4 s
    before the drop is told by this rule in 39 of 48, by the line's miss alone (over 15 mm,
    the rule before) in 26: balls roll in clean up to ~38 mm off the centre along the
    diagonal, and hit a jaw at any miss when they come in across it."""
    sel = path.t <= t_drop + 1e-6
    x, y = path.x[sel][-8:], path.y[sel][-8:]
    if len(x) < 3:
        return False
    L, W = table.length, table.width
    corner = (L if x[-1] > L / 2 else 0.0, W if y[-1] > W / 2 else 0.0)
    if math.hypot(x[-1] - corner[0], y[-1] - corner[1]) > CORNER_NEAR_MM:
        return False              # a side pocket, or lost before the mouth
    near = np.hypot(x - corner[0], y - corner[1]) <= CORNER_LINE_MM
    x, y = x[near], y[near]
    if len(x) < 3 or math.hypot(x[-1] - x[0], y[-1] - y[0]) < 4 * MOVE_MM:
        return False              # hardly moving: no line to judge
    px, py = min(table.pockets_mm()[:4], key=lambda p: math.hypot(p[0] - corner[0], p[1] - corner[1]))
    pts = np.stack([x, y], axis=1)
    m = pts.mean(axis=0)
    _, _, vt = np.linalg.svd(pts - m, full_matrices=False)
    miss = abs(float((np.array([px, py]) - m) @ vt[1]))
    diagonal = np.array([1.0 if corner[0] == 0 else -1.0, 1.0 if corner[1] == 0 else -1.0]) / math.sqrt(2.0)
    across = math.degrees(math.acos(min(1.0, abs(float(vt[0] @ diagonal)))))
    return bool(across > CORNER_JAW_DEG or miss > CORNER_MISS_MM)


def _chord(x, y, k, step, reach=JAW_CHORD_MM, most=6):
    """The observation at least `reach` from observation k going `step` (-1: back,
    1: on), within `most` observations, or None: a slow ball's turn is measured over a
    chord long enough that the centroid's millimetre of noise cannot make it sharp."""
    for m in range(1, most + 1):
        i = k + step * m
        if i < 0 or i >= len(x):
            return None
        if math.hypot(x[i] - x[k], y[i] - y[k]) >= reach:
            return i
    return None


def _ball_near(others, tk, xk, yk, reach=2 * R + 25):
    for p in others:
        if not len(p):
            continue
        i = int(np.searchsorted(p.t, tk))
        for j in (i - 1, i):
            if 0 <= j < len(p) and abs(p.t[j] - tk) < 0.05 and \
                    math.hypot(p.x[j] - xk, p.y[j] - yk) < reach:
                return True
    return False


def _dedupe(hits, gap=0.05):
    out = []
    for h in hits:
        if out and h[1] == out[-1][1] and h[0] - out[-1][0] < gap:
            continue
        out.append(h)
    return out


def unrailed_conf(path, table, fps, t_end, dropped=False):
    """How sure the camera is that a ball it found no cushion hit for met none.

    Sure (SEEN_NOT_RAILED) only when it was seen all the way: never within SKIRT_MM of a
    cushion line nor in a pocket's mouth unless it dropped there (a hit in a crowd, or a
    glancing one, can hide in a rebound of a few mm), never out of sight for longer than
    UNSEEN_FRAMES while it could have gone to a cushion and back, and seen until the shot
    ended or it dropped. A break's verdict counts the balls the camera is sure of: one ball
    wrongly sure of "no cushion" makes a legal break a foul (held-7's three wrong break
    verdicts were of this kind)."""
    t, x, y = path.t, path.x, path.y
    if len(t) < 2 or (not dropped and t[-1] < t_end - UNSEEN_FRAMES / fps):
        return UNSURE_NOT_RAILED
    L, W = table.length, table.width
    d = np.minimum(np.minimum(x - R, (L - R) - x), np.minimum(y - R, (W - R) - y))
    for k in np.nonzero(d < SKIRT_MM)[0]:
        if not (dropped and table.near_pocket(x[k], y[k], margin=25.0)):
            return UNSURE_NOT_RAILED
    frame = 1.0 / fps
    for k in np.nonzero(np.diff(t) > UNSEEN_FRAMES * frame + 1e-9)[0]:
        v = 0.0
        for j in (k - 1, k, k + 1):
            if 0 <= j < len(t) - 1:
                v = max(v, math.hypot(x[j + 1] - x[j], y[j + 1] - y[j]) / max(t[j + 1] - t[j], 1e-6))
        # Out and back while unseen: half the way to the nearer cushion line and half back.
        if v * (t[k + 1] - t[k]) / 2 >= min(d[k], d[k + 1]) - RAIL_MM:
            return UNSURE_NOT_RAILED
    return SEEN_NOT_RAILED


def broken_off(path, t0, t1):
    """When, from `t0` to `t1`, the ball's track last broke off: went unseen for BROKEN_S or
    more and was seen again more than BROKEN_MM from where it was lost (the time it was seen
    again), or None. Across such a break the track may not be one ball: the tracker relinks a
    lost track to a candidate far off (a hand's track lost by the head cushion came back 1.4 m
    away on a rack ball at rest, and that ball took the hand's cushion), and cushions seen before
    it may be another ball's."""
    w = path.window(t0, t1)
    gaps = np.nonzero(np.diff(w.t) >= BROKEN_S)[0]
    for k in gaps[::-1]:
        if math.hypot(w.x[k + 1] - w.x[k], w.y[k + 1] - w.y[k]) > BROKEN_MM:
            return float(w.t[k + 1])
    return None


def _rails_from(path, rest, t_start, t_contact):
    """From when an object ball's cushions count: the stroke, or the first contact if the
    ball lay still at its rest then. What its track did before that was not the ball (a stick
    or a sleeve passing over a ball by the cushion takes its track away and back): no object
    ball moves before the cue ball has met one, nor comes back to the place it left."""
    w = path.window(t_contact - 0.15, t_contact)
    if rest is None or len(w) < 3:
        return t_start
    mx, my = float(np.median(w.x)), float(np.median(w.y))
    still = np.max(np.hypot(w.x - mx, w.y - my)) < MOVE_MM
    # Near its rest: a track taken away comes back a few mm off (its centroid was pulled aside).
    return t_contact if still and math.hypot(mx - rest[0], my - rest[1]) < GO_MM else t_start


def _left_rest(path, rest, t_from):
    """When the ball left `rest` after `t_from` (the cue ball: when it was struck), or
    None if it never did: only a ball that moved can have met a cushion in the shot."""
    if rest is None:
        return t_from
    on = motion_onset(path, rest, t_from)
    return None if on is None else max(on[0], t_from)


def is_racked(rests):
    """A break: at least BREAK_CLUSTER object balls in one touching cluster."""
    pts = [(b, p) for b, p in rests.items() if b != 0 and p is not None]
    if len(pts) < BREAK_CLUSTER:
        return False
    link = 2 * R + 12.0
    seen, best = set(), 0
    for b, _ in pts:
        if b in seen:
            continue
        stack, size = [b], 0
        seen.add(b)
        while stack:
            c = stack.pop()
            size += 1
            pc = rests[c]
            for d, pd in pts:
                if d not in seen and math.hypot(pc[0] - pd[0], pc[1] - pd[1]) < link:
                    seen.add(d)
                    stack.append(d)
        best = max(best, size)
    return best >= BREAK_CLUSTER


def shot_facts(paths, table, t_start, t_end, fps, dropped=(), clock="video", id_conf=None, may_be=None,
               unnamed=(), balls=None, t_open=None):
    """The facts of one shot.

    paths: {ball: Path} around the shot (from before its start to after its end);
    dropped: {ball: t} for balls whose track ended in a pocket's mouth during the shot and
    never came back; id_conf: {ball: identity confidence}; may_be: {ball: the balls its
    track may be, or None} (identity.label_with_rivals); unnamed: Paths of the tracks that
    got no number (a ball whose number went to another track of it); balls: the game's
    numbers (identity.balls_of; all 16 if not given); t_open: when the first motion of the
    episode was seen (the stroke cannot have come before it)."""
    f = CameraFacts(t_start, t_end, clock)
    dropped = dict(dropped)
    rests = {b: rest_at(p, t_start) for b, p in paths.items()}
    for b, p in paths.items():          # a ball first seen during the shot: its first place
        if rests[b] is None and len(p):
            rests[b] = (float(p.x[0]), float(p.y[0]))
    unnamed_rests = [r for r in (rest_at(p, t_start) for p in unnamed) if r is not None]
    f.first_contact, f.first_contact_conf, f.contact_t, notes, f.passed_by = first_contact(
        paths, rests, t_start, fps, unnamed_rests, t_end, table)
    f.notes.extend(notes)
    early = _left_before_stroke(paths, t_start, fps, t_open)
    if early is not None:
        # The cue ball's stroke was found late (its track followed a hand or a phantom, and a
        # track born on its way later was taken for the stroke): what it met, and when, is
        # unknown.
        f.first_contact_conf = min(f.first_contact_conf, UNSURE_FIRST)
        f.notes.append("ball %d left its place before the stroke: the stroke was found late" % early)
    if f.first_contact is None:
        if _turned_by_a_ball(paths.get(0), table, t_start, t_end):
            # It met something it does not follow (a ball of the cloth's colour, unseen).
            f.first_contact_conf = min(f.first_contact_conf, UNSURE_NOT_RAILED)
            f.notes.append("the cue ball turned away from the cushions: it met something")
        elif f.first_contact_conf < NONE_MOVED and _none_moved(paths, unnamed, t_start, t_end) and \
                _came_to_rest(paths.get(0), t_end, 0 in dropped):
            f.first_contact_conf = NONE_MOVED
            f.notes.append("every object ball lay where it was: no contact")
    hidden_first = UNNAMED_IN_THE_WAY in notes or _unnamed_first(unnamed, paths.get(0), t_start, f.contact_t, fps)
    if hidden_first:
        f.notes.append("a ball with no number may have been hit first: which ball is unsure")
        if f.first_contact is None:    # a contact there was, with a ball that has no number
            f.first_contact_conf = min(f.first_contact_conf, UNSURE_FIRST)
    f.is_break = is_racked(rests)
    t_from = f.contact_t if f.contact_t is not None else None
    railed, conf = [], {}
    unseen = set(_unseen_at_stroke(paths, t_start))
    for b, p in paths.items():
        if t_from is None:
            break
        # An object ball moves only once the cue ball has met a ball: its rails count from the
        # stroke, right even where the contact's time is wrong. The cue ball's count from the
        # contact (a kick's cushion before it is none): no surer than a contact that was guessed
        # or that another ball's motion contradicts.
        t_b = t_from if b == 0 else _rails_from(p, rests.get(b), t_start, t_from)
        left = _left_rest(p, rests.get(b), t_b - 0.5 / fps)
        late = b in unseen
        if left is None:
            # It never left its place (a ball by a cushion that flickers), if it was seen there
            # before the stroke; first seen after it, it may have come there off a cushion.
            conf[b] = UNSURE_NOT_RAILED if late else SEEN_NOT_RAILED
            continue
        others = [q for c, q in paths.items() if c != b]
        seen = p.window(left - 0.5 / fps, t_end + 0.5)
        hits = [h for h in cushion_hits(seen, table, others)
                if h[0] >= left - 0.5 / fps]
        if b in dropped and t_b - 0.5 / fps <= dropped[b] and _off_corner_axis(p, table, dropped[b]):
            hits.append((dropped[b], "jaw", 3.0))
        if hits:
            railed.append(b)
            conf[b] = sure(max(h[2] for h in hits), 3.0)
            cut = broken_off(seen, left - 0.5 / fps, t_end + 0.5)
            if cut is not None and all(h[0] < cut for h in hits):
                conf[b] = min(conf[b], LOST_RAILED)
                f.notes.append("ball %d: its cushion was seen before its track broke off" % b)
        elif late:
            conf[b] = UNSURE_NOT_RAILED
        else:
            conf[b] = unrailed_conf(seen, table, fps, t_end, dropped=b in dropped)
            if b in dropped:    # a jaw on the way in is seen only in part (_off_corner_axis: 4 in 5)
                conf[b] = min(conf[b], UNSURE_NOT_RAILED)
    if 0 in conf and f.first_contact_conf <= UNSURE_FIRST:
        conf[0] = min(conf[0], f.first_contact_conf)    # a contact guessed or contradicted: its time too
    if early is not None:       # the shot began before the stroke found: cushions then unseen
        for b in conf:
            if b not in railed:
                conf[b] = min(conf[b], UNSURE_FIRST)
    f.railed = sorted(railed)
    f.railed_conf = conf
    f.pocketed = sorted(b for b, t in dropped.items() if t_start - 0.2 <= t <= t_end + 0.5)
    f.pocketed_conf = {b: 0.95 for b in f.pocketed}
    for b, p in paths.items():
        if b in f.pocketed:
            continue
        pos = rest_at(p, t_end, span=1.0, after=True) or rest_at(p, t_end, span=2.0)
        if pos is None:
            f.lost.append(b)
            continue
        f.rest[b] = pos
        f.rest_conf[b] = 0.95
    for b in f.lost:
        # Neither at rest anywhere nor seen to drop: the track was not one ball all through (a
        # rack's neighbour took the ball's track, and its cushion), so neither are its cushions.
        if b in conf:
            conf[b] = min(conf[b], LOST_RAILED)
    if f.is_break:
        f.break_railed = len([b for b in railed if b != 0])
        margins = [conf[b] for b in paths if b != 0 and b in conf]
        f.break_conf = min(margins) if margins else 0.5
    if id_conf:
        used = [id_conf.get(b, 1.0) for b in paths]
        f.identity_conf = min(used) if used else 1.0
        if f.first_contact is not None:
            # The cue ball is the ball that was struck, whatever it looks like (a track joined
            # across the stroke carries the tip's looks too): the first ball's own looks.
            f.first_identity_conf = id_conf.get(f.first_contact, 1.0)
    if may_be and f.first_contact is not None and f.first_contact in may_be:
        f.first_may_be = may_be[f.first_contact]
    if hidden_first and f.first_contact is not None:
        # The contact is sure, not its ball: it may be any object ball (14.1 needs no more).
        f.first_identity_conf = min(f.first_identity_conf or 1.0, UNSURE_FIRST)
        f.first_may_be = sorted(set(balls or range(1, 16)) - {0} | {f.first_contact})
    return f
