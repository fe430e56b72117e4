"""Ball tracks in table mm: candidates of each frame joined into one track per ball.

Each frame's candidates are matched to the tracks by least total cost (distance from
where a track should be now, plus how unlike its colours they look), allowing a ball at
rest to jump as far as a break's fastest ball moves in one frame. A candidate no track
takes first tries the tracks that lost sight of their ball (a cue stick or an arm over
it: the ball is where it was, or a little further along) and only then starts a new track;
a track that loses its ball by a pocket's mouth is marked as dropping there.
Tracks keep only what a shot needs (`trim`), so memory stays bounded on a live camera.
"""
import copy
import math

import numpy as np

from host.camera.assignment import INF, assign_or_leave
from host.camera.geometry import BALL_R_MM
from host.camera.identity import Looks, ball_log_probs

V_MAX = 12000.0             # mm/s: no ball moves faster (a hard break's cue ball ~ 10 m/s)
JITTER_MM = 40.0            # a smeared ball's seen centre may jump this much besides (its streak)
CONFIRM = 4                 # frames a new track needs before it counts as a ball
FORGET_S = 120.0          # a track lost this long is forgotten
MAX_TRACKS = 64           # and there are never more than this many
RECENT_S = 0.25           # a track lost this recently is still matched like a seen one
MISS = 7.0                # cost of leaving a track without a candidate this frame
NEW = 7.0                 # cost of leaving a candidate to start (or relink) a track
POCKET_REACH = 130.0        # mm from a pocket's centre: a ball lost here may have dropped


class Track:
    """One ball's observations: times and positions (mm), its looks, and its state."""

    __slots__ = ("key", "t", "x", "y", "looks", "seen", "lost_since", "dropped_at", "colour",
                 "near_occluder", "born")

    def __init__(self, key, t, x, y):
        self.key = key
        self.t, self.x, self.y = [t], [x], [y]
        self.looks = Looks()
        self.seen = 1
        self.lost_since = None        # time it was last seen, while it is not seen
        self.dropped_at = None        # (time, pocket index) when lost by a pocket
        self.colour = None            # running (white, a, b) for matching
        self.near_occluder = 0        # observations next to an arm or a stick
        self.born = (t, x, y)

    @property
    def confirmed(self):
        return self.seen >= CONFIRM

    def last(self):
        return self.t[-1], self.x[-1], self.y[-1]

    def velocity(self):
        """mm/s from the last two observations (0 if they are far apart in time)."""
        if len(self.t) < 2:
            return 0.0, 0.0
        dt = self.t[-1] - self.t[-2]
        if dt <= 0 or dt > 0.1:
            return 0.0, 0.0
        vx, vy = (self.x[-1] - self.x[-2]) / dt, (self.y[-1] - self.y[-2]) / dt
        v = math.hypot(vx, vy)
        if v > V_MAX:                 # a jump no ball makes: it does not widen the next gate
            vx, vy = vx * V_MAX / v, vy * V_MAX / v
        return vx, vy

    def predict(self, t):
        t0, x0, y0 = self.last()
        vx, vy = self.velocity()
        dt = min(t - t0, 0.1)
        return x0 + vx * dt, y0 + vy * dt

    def add(self, t, x, y, looks, weight, evidence=None):
        self.t.append(t)
        self.x.append(x)
        self.y.append(y)
        self.seen += 1
        self.lost_since = None
        self.dropped_at = None
        self.looks.add(looks, weight)
        if evidence is not None:
            self.looks.add_evidence(evidence, _evidence_weight(self, weight))
        if weight > 0.3:              # sharp frames teach the colour; smeared ones do not
            self._follow_colour(looks)

    def _follow_colour(self, looks):
        if looks is None:
            return
        w, a, b = looks[0], looks[4], looks[5]
        if self.colour is None:
            self.colour = [w, a, b]
            return
        c = self.colour
        k = 0.3 if self.seen < 10 else 0.05
        c[0] += k * (w - c[0])
        if a is not None:
            if c[1] is None:
                c[1], c[2] = a, b
            else:
                c[1] += k * (a - c[1])
                c[2] += k * (b - c[2])


def colour_cost(track, looks):
    """0 for alike, ~4 per 0.25 of hue difference (two of the seven colours are >= 0.4
    apart), capped at 16: in a break's scramble colour outweighs a few cm of distance."""
    if looks is None or track.colour is None:
        return 1.0
    w, a, b = track.colour
    cost = abs(looks[0] - w) * 6.0
    if a is not None and looks[4] is not None:
        cost += 4.0 * math.hypot(looks[4] - a, looks[5] - b) / 0.25
    return min(cost, 16.0)


def ball_probs(track):
    """A track's appearance as probabilities of balls 0-15 (the geometric mean of its looks'
    probabilities, normalised), or None before the model has seen it EVIDENCE_LOOKS times."""
    lk = track.looks
    if lk.evidence is None or lk.evidence_w < EVIDENCE_LOOKS:
        return None
    return np.exp(ball_log_probs(lk.evidence / lk.evidence_w))


def unlike(p, q):
    """How unlike two appearances are: -log of the chance that they are the same ball, capped
    at UNLIKE_CAP. 0.05 for a ball and its own look, 4.6 for a look that gives
    it one chance in a hundred. `q`: one appearance (a float back) or a row per candidate."""
    u = np.minimum(-np.log(np.maximum(np.asarray(q) @ p, 1e-9)), UNLIKE_CAP)
    return float(u) if np.ndim(u) == 0 else u


EVIDENCE_LOOKS = 3.0      # looks a track needs before its appearance is trusted
UNLIKE_CAP = 7.0
UNLIKE_W = 2.0            # a candidate's cost per unit of `unlike`: a look that rules the track's
                          # ball out (7) costs 14, as much as leaving both alone (MISS + NEW)
UNLIKE_FAST_CAP = 3.0     # ... at most this for a smear (no circle) of a ball rolling faster than
                          # FAST_LOOK_MM_S (the smear mixes in the cloth: its look is less sure)


class Tracker:
    """Joins each frame's candidates into tracks (see the module's docstring)."""

    def __init__(self, table, fps):
        self.table = table
        self.dt = 1.0 / float(fps)
        self.tracks = []
        self.next_key = 0
        self.pockets = table.pockets_mm()

    def live(self):
        return [tr for tr in self.tracks if tr.dropped_at is None or not tr.confirmed]

    def step(self, t, cands, looks, blur_weight=None, evidence=None):
        """Take one frame's candidates (dicts with x, y) and their looks (same order; `evidence`:
        the appearance model's log probabilities of each, or None).

        Tracks seen lately (lost for at most RECENT_S) and candidates are matched by
        least total cost, where leaving a track unmatched costs MISS and leaving a
        candidate unmatched costs NEW: a ball at rest is not dragged to a neighbour's
        spot because its own detection flickered off for a frame."""
        active = [tr for tr in self.tracks
                  if tr.dropped_at is None and (tr.lost_since is None or t - tr.lost_since <= RECENT_S)]
        n, m = len(active), len(cands)
        unlike_cost = self._unlike(active, evidence)
        cost = []
        for i, tr in enumerate(active):
            px, py = tr.predict(t)
            vx, vy = tr.velocity()
            v = math.hypot(vx, vy)
            gone = max(t - tr.t[-1], self.dt)
            sigma = 10.0 + 0.3 * v * self.dt + 2000.0 * (gone - self.dt)
            gate = 2.2 * BALL_R_MM + 1.5 * v * self.dt + V_MAX * gone * 0.6
            row = []
            lx, ly = tr.x[-1], tr.y[-1]
            leap = JITTER_MM + V_MAX * gone          # the farthest a ball gets from its last place
            for j, (c, lk) in enumerate(zip(cands, looks)):
                d = math.hypot(c["x"] - px, c["y"] - py)
                if d > gate or math.hypot(c["x"] - lx, c["y"] - ly) > leap:
                    row.append(INF)
                elif unlike_cost is not None and unlike_cost[i][j] is not None:
                    # A smear (no circle) of a ball rolling fast, or setting off (still slow by
                    # its last two places), looks less like itself; a circle is a sharp look.
                    moved = math.hypot(c["x"] - lx, c["y"] - ly) / gone
                    fast = max(v, moved) > FAST_LOOK_MM_S and not c.get("circle")
                    cap = UNLIKE_FAST_CAP if fast else UNLIKE_CAP
                    row.append(d / sigma + UNLIKE_W * min(unlike_cost[i][j], cap))
                else:
                    row.append(d / sigma + colour_cost(tr, lk))
            cost.append(row)
        pairs = assign_or_leave(cost, MISS, NEW) if n and m else []
        ev = evidence if evidence is not None else [None] * m
        used = set()
        matched = set()
        for i, j in pairs:
            if i >= n or j >= m:
                continue
            tr = active[i]
            c = cands[j]
            tr.add(t, c["x"], c["y"], looks[j], _weight(tr, blur_weight, c), ev[j])
            tr.near_occluder += bool(c.get("near_occluder"))
            used.add(j)
            matched.add(id(tr))
        for tr in active:
            if id(tr) not in matched and tr.lost_since is None:
                self._lose(tr, t)
        for j, c in enumerate(cands):
            if j in used:
                continue
            tr = self._relink(t, c, looks[j], ev[j])
            if tr is None and (c.get("near_occluder") or not c.get("circle", True)):
                continue          # a hand or a sleeve's edge; a smear that is no round ball
            if tr is None:
                tr = Track(self.next_key, t, c["x"], c["y"])
                self.next_key += 1
                tr.looks.add(looks[j])
                tr.looks.add_evidence(ev[j])
                tr._follow_colour(looks[j])
                self.tracks.append(tr)
            else:
                tr.add(t, c["x"], c["y"], looks[j], 0.0 if c.get("near_occluder") else 0.5, ev[j])
        self._forget(t)
        self._merge()

    @staticmethod
    def _unlike(active, evidence):
        """[[unlike(track, candidate) or None]] where both have the appearance model's word
        (None: the colour shares decide), or None where no candidate has it."""
        if evidence is None or all(e is None for e in evidence):
            return None
        has = [j for j, e in enumerate(evidence) if e is not None]
        q = np.exp(np.array([ball_log_probs(evidence[j]) for j in has]))
        out = []
        for tr in active:
            p = ball_probs(tr)
            row = [None] * len(evidence)
            if p is not None:       # the track against every candidate at once
                for j, u in zip(has, unlike(p, q).tolist()):
                    row[j] = u
            out.append(row)
        return out

    def _merge(self):
        """Two tracks on one ball (one lost it for a frame, a new one took it): the
        younger goes."""
        live = [tr for tr in self.tracks if tr.lost_since is None]
        drop = set()
        for i, a in enumerate(live):
            for b in live[i + 1:]:
                if math.hypot(a.x[-1] - b.x[-1], a.y[-1] - b.y[-1]) < BALL_R_MM:
                    drop.add(id(a if a.seen < b.seen else b))
        if drop:
            self.tracks = [tr for tr in self.tracks if id(tr) not in drop]

    def _lose(self, tr, t):
        tr.lost_since = tr.t[-1]
        x, y = tr.predict(t)
        if math.hypot(*tr.velocity()) < 80.0:
            return                # a ball at rest by a pocket that a hand hides did not drop
        for k, (pxk, pyk) in enumerate(self.pockets):
            if math.hypot(x - pxk, y - pyk) < POCKET_REACH or \
                    math.hypot(tr.x[-1] - pxk, tr.y[-1] - pyk) < POCKET_REACH:
                tr.dropped_at = (tr.t[-1], k)
                return

    def _relink(self, t, c, looks, evidence=None):
        best, best_cost = None, 3.0
        q = None if evidence is None else np.exp(ball_log_probs(evidence))
        for tr in self.tracks:
            if tr.lost_since is None or not tr.confirmed:
                continue
            gone = t - tr.lost_since
            d = math.hypot(c["x"] - tr.x[-1], c["y"] - tr.y[-1])
            reach = 3 * BALL_R_MM + 1500.0 * min(gone, 2.0)
            if tr.dropped_at is not None:
                reach = 2 * BALL_R_MM        # back out of a pocket: only a rattle, nearby
            if d > reach:
                continue
            p = ball_probs(tr) if q is not None else None
            # Alike: the colours' cost, or the model's (a look a third as likely as the ball's
            # own costs 1 of the 3 allowed, one chance in twenty 3).
            like = colour_cost(tr, looks) if p is None else unlike(p, q)
            cc = like + d / max(reach, 1.0)
            if cc < best_cost:
                best, best_cost = tr, cc
        return best

    def _forget(self, t):
        """Drop tentative tracks that never became balls (a glint, an arm's edge), and
        tracks lost for FORGET_S (a pocketed ball comes back as a new track when the balls
        are racked again): the number of tracks stays bounded on a live camera."""
        keep = []
        for tr in self.tracks:
            if tr.lost_since is not None and (t - tr.lost_since > FORGET_S or
                                              (not tr.confirmed and t - tr.lost_since > 0.2)):
                continue
            keep.append(tr)
        if len(keep) > MAX_TRACKS:            # the longest lost go first
            keep.sort(key=lambda tr: (tr.lost_since is None, tr.lost_since or 0.0), reverse=True)
            keep = keep[:MAX_TRACKS]
        self.tracks = keep

    def trim(self, before):
        """Forget observations older than `before` (keeping each track's last few)."""
        for tr in self.tracks:
            k = 0
            while k < len(tr.t) - 8 and tr.t[k] < before:
                k += 1
            if k:
                del tr.t[:k], tr.x[:k], tr.y[:k]


def _weight(tr, blur_weight, cand=None):
    """Looks count for more when the ball is slow (sharp) than when it smears, and not at
    all next to an arm or the stick: there a ball's disc is partly the hand, the sleeve or
    the tip (a cue ball under the bridge hand for the 2 s of aiming took a sleeve's colour
    and lost its name)."""
    if cand is not None and cand.get("near_occluder"):
        return 0.0
    vx, vy = tr.velocity()
    v = math.hypot(vx, vy)
    return 1.0 / (1.0 + (v / 300.0) ** 2) if blur_weight is None else blur_weight


def _evidence_weight(tr, weight):
    """How much one look counts towards the appearance model's verdict: not at all next to an
    arm (`weight` 0), half for a ball rolling fast (its smear mixes in cloth), else fully: unlike
    the colour shares, the model was fitted on rolling balls' looks too, and a rolling ball shows
    faces a ball at rest never turns up."""
    if weight <= 0:
        return 0.0
    return 0.5 if math.hypot(*tr.velocity()) > FAST_LOOK_MM_S else 1.0


FAST_LOOK_MM_S = 2000.0


# ------------------------------------------------------------------ joining broken tracks
STITCH_S = 1.5            # a ball unseen this long within a shot and seen again: one ball
BACK_OUT_S = 0.5          # a ball "dropped" and seen again by the mouth this soon: it did not drop
STITCH_COLOUR = 6.0       # ... if its two tracks look this alike (colour_cost) at most
LOST_MOVING_MM_S = 80.0   # a track lost while this fast lost a moving ball (not a hidden one)
DROP_AHEAD_MM = 600.0     # a moving ball lost for good: its line reaches a pocket this near
DROP_MOUTH_MM = 75.0      # ... passing this close to the pocket's centre: it dropped there
DROP_UNSEEN_S = 0.15      # ... reaching it within this time (a slower one lost farther off
                          # would have been seen on its way: it was lost, not dropped)


def _lost_moving(tr):
    return tr.dropped_at is not None or math.hypot(*tr.velocity()) > LOST_MOVING_MM_S


def _looks_tuple(tr):
    """A track's running colour as one frame's looks (for colour_cost)."""
    if tr.colour is None:
        return None
    w, a, b = tr.colour
    return (w, None, None, None, a, b, None)


def _track_unlike(a, b):
    """How unlike two tracks look: the model's `unlike` (x2, on colour_cost's scale, where both
    have its word), else colour_cost."""
    p, q = ball_probs(a), ball_probs(b)
    if p is not None and q is not None:
        return 2.0 * unlike(p, q)
    return colour_cost(a, _looks_tuple(b))


def split_at(tr, n, tail=False, key=None):
    """The first `n` observations of `tr` (its head, as `tr`), or the rest (its tail, a
    track of its own under `key`, born at its first observation; None if empty). The looks
    stay with the head: the tail is what took the ball's place (the stick's tip)."""
    if tail:
        if n >= len(tr.t):
            return None
        out = Track(key, tr.t[n], tr.x[n], tr.y[n])
        out.t, out.x, out.y = list(tr.t[n:]), list(tr.x[n:]), list(tr.y[n:])
        out.seen = len(out.t)
        out.lost_since, out.dropped_at = tr.lost_since, tr.dropped_at
        return out
    out = Track(tr.key, tr.t[0], tr.x[0], tr.y[0])
    out.t, out.x, out.y = list(tr.t[:n]), list(tr.x[:n]), list(tr.y[:n])
    out.looks, out.colour, out.seen = tr.looks, tr.colour, max(n, 1)
    out.near_occluder, out.born = tr.near_occluder, tr.born
    out.lost_since = out.t[-1] if out.t else None
    return out


def joined(a, b):
    """One track from `a` and the later `b` (the same ball): a's key, both observations."""
    return _joined(a, b)


def _joined(a, b):
    """One track from `a` and the later `b` (same ball): a's key, both observations."""
    j = Track(a.key, a.t[0], a.x[0], a.y[0])
    j.t, j.x, j.y = list(a.t) + list(b.t), list(a.x) + list(b.x), list(a.y) + list(b.y)
    j.looks = copy.deepcopy(a.looks)
    j.looks.merge(b.looks)
    j.colour = list(a.colour) if a.colour is not None else b.colour
    j.seen = a.seen + b.seen
    j.lost_since, j.dropped_at = b.lost_since, b.dropped_at
    j.near_occluder = a.near_occluder + b.near_occluder
    j.born = a.born
    return j


def _back_out(a, b, pockets):
    """`b` is `a` back out of the pocket it was lost by: born by that pocket's mouth soon
    after (a rattle in the jaws, a ball seen again past the pocket's shadow)."""
    if pockets is None or not len(pockets):
        return False
    px, py = pockets[a.dropped_at[1]]
    return b.t[0] - a.t[-1] <= BACK_OUT_S and math.hypot(b.x[0] - px, b.y[0] - py) <= POCKET_REACH


def stitched(tracks, t_from, pockets=None):
    """The tracks with each ball's broken track joined, for judging a shot from `t_from`.

    In a break's scatter, by a pocket's jaw or on a cloth where a fast ball smears into
    it, a moving ball can go unseen for a few frames and come back as a new track that the
    tracker could not relink (too far for its reach, or lost "into a pocket" and back out
    further along). Then the ball has two tracks, only one gets its number: its rest,
    its cushions after the break, and a ball "pocketed" that is still on the table are
    lost. Here a track lost while moving during the shot is joined to a confirmed track
    born after it, where that one is as near as the ball could have rolled in the time and
    looks alike (least cost first); one lost by a pocket's mouth only to a track born by
    that mouth within BACK_OUT_S (`pockets`: the table's, else never). Pure: the tracker's own tracks are not changed.
    First, a ball's track dragged off by a hand, the stick or an arm's shadow (the new track
    born where it lay is the ball) is given back its ball (`reclaimed`)."""
    out = reclaimed(tracks, t_from)
    while True:
        best = None
        for a in out:
            if not a.confirmed or a.lost_since is None or a.lost_since < t_from or not _lost_moving(a):
                continue
            v = math.hypot(*a.velocity())
            for b in out:
                if b is a or not b.confirmed or b.t[0] <= a.t[-1] or b.born[0] < t_from:
                    continue
                gap = b.t[0] - a.t[-1]
                if gap > STITCH_S or (a.dropped_at is not None and not _back_out(a, b, pockets)):
                    continue
                d = math.hypot(b.x[0] - a.x[-1], b.y[0] - a.y[-1])
                reach = 3 * BALL_R_MM + 40.0 + 1.3 * max(v, 300.0) * gap
                if d > reach:
                    continue
                cc = _track_unlike(a, b)
                if cc > STITCH_COLOUR:
                    continue
                cost = cc + d / reach
                if best is None or cost < best[0]:
                    best = (cost, a, b)
        if best is None:
            return out
        _, a, b = best
        out = [tr for tr in out if tr is not a and tr is not b] + [_joined(a, b)]


RECLAIM_MM = 12.0         # a new track born this near where a ball lay: that ball, still there
RECLAIM_STILL_S = 0.3     # ... lying still there this long (or until its track ends)


def reclaimed(tracks, t_from):
    """The tracks with each ball whose track was dragged away given back its track.

    A track that lay still at `rest` before `t_from` and left it, while a new track was
    born at `rest` (within RECLAIM_MM) and lay still there, did not follow the ball: the
    stick, a hand or a sleeve took its place for a few frames and dragged it off (to a
    pocket, where it was "dropped"). The ball is the new track: the old one's observations
    up to the new one's birth and the new one's after them are joined, the drag goes."""
    out = list(tracks)
    for b in list(out):
        if not b.confirmed or b.born[0] < t_from:
            continue
        bt0, bx0, by0 = b.born
        k_end = 0
        while k_end < len(b.t) and b.t[k_end] <= bt0 + RECLAIM_STILL_S:
            k_end += 1
        if k_end < 3 or max(math.hypot(b.x[k] - bx0, b.y[k] - by0) for k in range(k_end)) > RECLAIM_MM:
            continue                      # not lying still where it was born
        for a in out:
            if a is b or not a.confirmed or a.t[0] > t_from - 0.2:
                continue
            before = [k for k in range(len(a.t)) if t_from - 0.3 <= a.t[k] <= min(t_from, bt0)]
            if len(before) < 3:
                continue
            rx = sorted(a.x[k] for k in before)[len(before) // 2]
            ry = sorted(a.y[k] for k in before)[len(before) // 2]
            if math.hypot(bx0 - rx, by0 - ry) > RECLAIM_MM:
                continue                  # born elsewhere
            away = [k for k in range(len(a.t)) if math.hypot(a.x[k] - rx, a.y[k] - ry) > 2 * RECLAIM_MM
                    and a.t[k] > t_from]
            if not away or a.t[away[0]] < bt0 - 0.1:
                continue                  # never left, or left before the new one was born there
            if _track_unlike(a, b) > STITCH_COLOUR:
                continue
            head = Track(a.key, a.t[0], a.x[0], a.y[0])
            n = away[0]
            head.t, head.x, head.y = list(a.t[:n]), list(a.x[:n]), list(a.y[:n])
            head.looks, head.colour, head.seen = a.looks, a.colour, n
            head.near_occluder, head.born = a.near_occluder, a.born
            head.lost_since = head.t[-1]
            joined = _joined(head, b)
            out = [tr for tr in out if tr is not a and tr is not b] + [joined]
            break
    return out


def heading_into_pocket(tr, pockets):
    """The pocket index a track lost for good while moving was heading into, or None: its
    last line (from its last velocity) passes within DROP_MOUTH_MM of a pocket's centre no
    farther ahead than it rolls in DROP_UNSEEN_S (and DROP_AHEAD_MM at most). A ball dropping fast is last seen before the mouth,
    beyond the tracker's POCKET_REACH (a scratch the tracker did not call)."""
    vx, vy = tr.velocity()
    v = math.hypot(vx, vy)
    if v < LOST_MOVING_MM_S:
        return None
    ux, uy = vx / v, vy / v
    x0, y0 = tr.x[-1], tr.y[-1]
    for k, (px, py) in enumerate(pockets):
        rx, ry = px - x0, py - y0
        along = rx * ux + ry * uy
        if along < -DROP_MOUTH_MM or along > min(DROP_AHEAD_MM, DROP_MOUTH_MM + v * DROP_UNSEEN_S):
            continue
        if abs(rx * uy - ry * ux) <= DROP_MOUTH_MM:
            return k
    return None
