"""Which end of the table is the head: the decision from what the picture shows (pure).

The table finder sees a rectangle and cannot tell its two ends apart: it names the end at
the image's left the head (a camera hung the usual way). A camera hung the other way round
would then put every ball at the mirror place (x -> L - x, y -> W - y), and every judgement
from places (the kitchen, the head string, the rack's places) would be wrong. Three things
on a table tell the ends apart, each given here as evidence for "the foot is where the
finder put it" (positive) or "the other way round" (negative), in log-odds:

* a rack: balls filling the rack's place at one end, its apex on the foot spot and the
  rows towards the foot cushion (a break, a re-rack), the same place at the other end bare;
* the cue ball behind the head string, at the other end from the rack (a break);
* the foot spot, a small light mark on the cloth at three quarters of the way from the head
  cushion (every table has one; some also have a head spot, and then the two cancel).

Summed, they are one decision with a confidence. When the sum is weak the finder's default
stands and the decision says it was assumed: a wrong confident turn moves every ball across
the table, a kept default on a turned camera is no worse than before.
"""
import math

RACK_FILL = 0.12         # a rack covers this share of its footprint or more (fifteen balls ~0.35)
EMPTY_FILL = 0.06        # ... and the footprint at the other end under this
RACK_MIN_BALLS = 4       # ball candidates seen in the footprint (a rack's balls touch: fewer
                         # are told apart than lie there)
RACK_LOGIT = 4.0         # a rack where a rack belongs, the other end bare: ~0.98 alone
CUE_LOGIT = 1.0          # a lone ball behind the head string at the rack's other end
SPOT_SURE = 8.0          # a spot response (in noise units) this strong at one end ...
SPOT_NONE = 4.0          # ... and under this at the other: the foot spot
SPOT_LOGIT = 4.0
SPOT_ONE_LOGIT = 2.0     # a clear spot at one end, the other's place covered by a ball
SPOT_WEAK_LOGIT = 1.5    # a spot at one end clearly stronger, neither test quite passed
TURN_LOGIT = 3.0         # |sum| at least this (~0.95) to decide; else the default stands


def rack_footprint(length, width, far=True):
    """(x0, x1, y0, y1) mm of where a rack lies: its apex on the foot spot (3/4 of the
    length from the head cushion), its rows towards the foot cushion (a fifteen-ball
    triangle reaches ~250 mm behind the apex, ~140 mm each side of the long string), with
    room for a rack set a little off."""
    spot = 0.75 * length
    x0, x1 = spot - 60.0, spot + 300.0
    if not far:
        x0, x1 = length - x1, length - x0
    return x0, x1, width / 2 - 180.0, width / 2 + 180.0


def in_box(p, box):
    return box[0] <= p[0] <= box[1] and box[2] <= p[1] <= box[3]


def rack_evidence(fill_far, fill_near, balls, length, width):
    """(log-odds, words) from the share of each end's rack footprint that is not cloth
    (`fill_far`: the end the finder called the foot, `fill_near`: the one it called the
    head) and the ball candidates (x, y) in the finder's frame: a rack filling one
    footprint, the other bare, names that end the foot; on a break the lone other ball (the
    cue ball, in the kitchen at the other end) adds a little. (0, None) without a rack."""
    far_box, near_box = rack_footprint(length, width, True), rack_footprint(length, width, False)
    n_far = sum(1 for p in balls if in_box(p, far_box))
    n_near = sum(1 for p in balls if in_box(p, near_box))
    if fill_far >= RACK_FILL and fill_near < EMPTY_FILL and n_far >= RACK_MIN_BALLS:
        sign = 1.0
    elif fill_near >= RACK_FILL and fill_far < EMPTY_FILL and n_near >= RACK_MIN_BALLS:
        sign = -1.0
    else:
        return 0.0, None
    logit = sign * RACK_LOGIT
    box = far_box if sign > 0 else near_box
    others = [p for p in balls if not in_box(p, box)]
    if len(others) == 1:                     # a break: the cue ball alone
        x = others[0][0]
        behind_near, behind_far = x < 0.25 * length, x > 0.75 * length
        if (sign > 0 and behind_near) or (sign < 0 and behind_far):
            logit += sign * CUE_LOGIT
    return logit, "a rack at the %s end" % ("far" if sign > 0 else "near")


def spot_evidence(far, near):
    """(log-odds, words) from the spot responses at the two spot places (noise units; None
    where a ball covers the place): `far` at 3/4 of the length from the finder's head,
    `near` at 1/4. A clear spot at one end only names it the foot; spots at both ends (a
    table with a head spot) or neither say nothing."""
    if far is None and near is None:
        return 0.0, None
    if far is None or near is None:
        one, sign = (near, -1.0) if far is None else (far, 1.0)
        if one >= SPOT_SURE:
            return sign * SPOT_ONE_LOGIT, "foot spot at the %s end (the other covered)" % (
                "far" if sign > 0 else "near")
        return 0.0, None
    hi, lo, sign = (far, near, 1.0) if far >= near else (near, far, -1.0)
    where = "far" if sign > 0 else "near"
    if hi >= SPOT_SURE and lo < SPOT_NONE:
        return sign * SPOT_LOGIT, "foot spot at the %s end" % where
    if hi >= SPOT_NONE and hi >= 2.0 * max(lo, 1.0):
        return sign * SPOT_WEAK_LOGIT, "faint foot spot at the %s end" % where
    return 0.0, None


def decide(evidence):
    """{"turn": bool, "confidence": p, "found_by": words} from [(log-odds, words)]: turn
    round only when the sum says so at TURN_LOGIT or more; the confidence is that of the
    side chosen (a default kept on weak evidence says "assumed")."""
    total = sum(e[0] for e in evidence)
    words = [e[1] for e in evidence if e[1]]
    p = 1.0 / (1.0 + math.exp(-abs(total)))
    if abs(total) < TURN_LOGIT:
        return {"turn": False, "confidence": round(p if total > 0 else 0.5, 3),
                "found_by": "assumed (%s)" % ("; ".join(words) if words else "no rack or foot spot seen")}
    return {"turn": total < 0, "confidence": round(p, 3), "found_by": "; ".join(words)}


SIDES = {"left": (-1.0, 0.0), "right": (1.0, 0.0), "top": (0.0, -1.0), "bottom": (0.0, 1.0)}


def head_side(corners):
    """Which side of the image the head end is on ("left", "right", "top", "bottom"), for
    corners head-left, head-right, foot-right, foot-left (image pixels)."""
    c = [tuple(map(float, p)) for p in corners]
    hx, hy = (c[0][0] + c[1][0]) / 2, (c[0][1] + c[1][1]) / 2
    fx, fy = (c[2][0] + c[3][0]) / 2, (c[2][1] + c[3][1]) / 2
    dx, dy = hx - fx, hy - fy
    return max(SIDES, key=lambda s: SIDES[s][0] * dx + SIDES[s][1] * dy)


def half_turn(corners):
    """The same corners with head and foot swapped: head-left <-> foot-right, head-right <->
    foot-left (the table seen by a camera turned 180 degrees)."""
    c = list(corners)
    return [c[2], c[3], c[0], c[1]]


def with_head_at(corners, side):
    """The corners named so that the head end is on image `side`: as they are or turned
    half round (the finder has already told the long sides from the short). ValueError when
    the table lies across that direction (its ends are on the other two sides)."""
    c = list(corners)
    hx = (c[0][0] + c[1][0]) / 2 - (c[2][0] + c[3][0]) / 2
    hy = (c[0][1] + c[1][1]) / 2 - (c[2][1] + c[3][1]) / 2
    ux, uy = SIDES[side]
    along = ux * hx + uy * hy
    if abs(along) < 0.5 * math.hypot(hx, hy):
        raise ValueError("--head %s: the table's ends are at the picture's %s" % (
            side, "left and right" if abs(hx) > abs(hy) else "top and bottom"))
    return c if along > 0 else half_turn(c)
