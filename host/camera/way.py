"""Was the cue ball's way clear? A ball the camera never placed cannot have been met first
if nothing left the cue ball's way.

A ball of the cloth's own colour (a green 6 on green cloth, a maroon 7 on burgundy) can lie
unseen by the ball detector all through a shot: only its shading, its highlight and its
shadow tell it from the cloth. The referee must then assume it may have been the ball the
cue ball met first (shared_rules/rules/camera.unseen_at_stroke), and asks a person.

But a ball the cue ball meets moves (centimetres at least, shots.py `_none_moved`), and a
ball that leaves its place changes the picture there even when its colour is the cloth's:
its highlight and shadow go. So the picture just before the stroke and the picture once the
balls have stopped are compared where a ball the cue ball met before its first contact must
have lain (its centre within a ball's width of the cue ball's path, ahead of where it was
struck), leaving out the places of the balls the camera does follow (they moved, or not, as
their tracks say). Nothing changed there: no ball lay in the way, seen or not. Something
changed (a ball's worth of shading), an arm or the stick hid the way in either picture, or
the cue ball's path is not known all the way: the way is not known to be clear. And where
something did leave the way, the first contact named is unsure (`doubt_first`).

The same comparison over the whole table (`elsewhere_change`) says whether anything the camera
does not follow moved at all: a ball never followed that did not move reached no cushion.

Pure: arrays in (top-down YCrCb pictures before and after, their occluder masks, places in mm),
a number out.
"""
import math

import numpy as np

from host.camera import shots
from host.camera.facts import sure
from host.camera.geometry import BALL_R_MM

TREND_R = 4.0            # the light's slow change (lamp flicker, a rolling shutter's bands)
                         # is the lightness ratio's blur over this many ball radii
TREND_OUT = 0.1          # ... leaving out pixels whose ratio is this far from 1 (balls that moved)
DARK_Y = 24.0            # a change is measured against the cloth's lightness plus this (dark cloth
                         # is mostly noise: JPEG's blocks)
DISC_R = 1.2             # a ball's change is averaged over a disc this many radii wide
KEEP_R = 1.4             # the followed balls' places, this many radii round, are left out
HIDDEN_R = 0.6           # a part of the bed hidden in every picture, wider than twice this many
                         # radii, may hide a ball (narrower, a ball in it would show at its edge)
WAY_SLACK_MM = 8.0       # a met ball's centre lies within 2R of the path, widened by this
CHANGE_CAP = 0.5         # one pixel counts at most this much (a glint)
CHANGED = 0.15           # a disc's mean change this large is a ball's shading gone (held-17's pictures:
                         # balls that moved 0.22 and more, balls lying still 0.07-0.09)
CHANGE_SCALE = 0.02      # ... and each this much under it is one more step of sureness


def mean_picture(pictures):
    """The mean (float32) of YCrCb pictures, chroma centred on 0: their noise averages out."""
    acc = np.zeros(pictures[0].shape, np.float32)
    for p in pictures:
        acc += p
    acc /= len(pictures)
    acc[..., 1:] -= 128.0
    return acc


def mean_where_seen(pictures, occluded):
    """(mean_picture, uint8 mask of the pixels no picture showed): each pixel's mean over the
    pictures where nothing hid it (`occluded`: a mask or None for each picture)."""
    acc = np.zeros(pictures[0].shape, np.float32)
    n = np.zeros(pictures[0].shape[:2], np.float32)
    for p, occ in zip(pictures, occluded):
        w = np.ones(n.shape, np.float32) if occ is None else (occ == 0).astype(np.float32)
        acc += p * w[..., None]
        n += w
    acc /= np.maximum(n, 1.0)[..., None]
    acc[..., 1:] -= 128.0
    return acc, (n == 0).astype(np.uint8) * 255


def changed_map(before, after, gone, r_px):
    """Per-pixel change (float32) from `before` to `after` (mean_picture), the light's slow
    changes taken out (the after picture scaled by the local lightness ratio's blur, balls
    that moved left out of it), each channel's change against the cloth's lightness plus
    DARK_Y, capped; zero where `gone` (uint8 mask: the followed balls' places). Averaged over
    a ball's disc."""
    import cv2
    yb = before[..., 0] + 1.0
    ratio = (after[..., 0] + 1.0) / yb
    k = int(TREND_R * r_px) * 2 + 1
    w = ((np.abs(ratio - 1.0) < TREND_OUT) & (gone == 0)).astype(np.float32)
    share = cv2.blur(w, (k, k))
    trend = cv2.blur(ratio * w, (k, k)) / np.maximum(share, 1e-3)
    trend[share < 1e-3] = 1.0
    d = np.zeros(yb.shape, np.float32)
    for ch in range(3):
        d += cv2.absdiff(after[..., ch], before[..., ch] * trend)
    d /= cv2.blur(yb, (k, k)) + DARK_Y
    np.minimum(d, CHANGE_CAP, out=d)
    d[gone > 0] = 0.0
    r = max(1, int(round(DISC_R * r_px)))
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1)).astype(np.float32)
    disc /= disc.sum()
    return cv2.filter2D(d, -1, disc, borderType=cv2.BORDER_REPLICATE)


def way_mask(geo, path, shape, beside=()):
    """uint8 mask of where a ball's centre lies within 2R (+WAY_SLACK_MM) of the cue ball's
    `path` ([(x, y)] mm, in order), ahead of its first place (a ball behind it where it was
    struck is not met), or of a ball in `beside` (the balls its line passed within a few mm:
    one frozen to them would have taken a touch on)."""
    import cv2
    m = np.zeros(shape, np.uint8)
    reach = (2 * BALL_R_MM + WAY_SLACK_MM) / geo.s
    pts = [geo.to_px(x, y) for x, y in path]
    pts = [(int(round(c)), int(round(r))) for c, r in pts]
    for a, b in zip(pts, pts[1:]):
        cv2.line(m, a, b, 255, thickness=max(1, int(round(2 * reach))))
    for p in pts:
        cv2.circle(m, p, int(round(reach)), 255, -1)
    # Ahead of the first place only (the first step's direction).
    far = next(((x, y) for x, y in path if math.hypot(x - path[0][0], y - path[0][1]) > BALL_R_MM), None)
    if far is not None:
        ux, uy = far[0] - path[0][0], far[1] - path[0][1]
        n = math.hypot(ux, uy)
        c0, r0 = geo.to_px(*path[0])
        rows, cols = np.mgrid[0:shape[0], 0:shape[1]]
        behind = (cols - c0) * ux / n + (rows - r0) * uy / n < 0
        m[behind] = 0
    for x, y in beside:
        c, r = geo.to_px(x, y)
        cv2.circle(m, (int(round(c)), int(round(r))), int(round(reach)), 255, -1)
    return m


def places_mask(geo, places, shape, radius_r):
    """uint8 mask of discs `radius_r` ball radii round each (x, y) mm of `places`."""
    import cv2
    m = np.zeros(shape, np.uint8)
    rad = int(math.ceil(radius_r * geo.r_px))
    for x, y in places:
        c, r = geo.to_px(x, y)
        cv2.circle(m, (int(round(c)), int(round(r))), rad, 255, -1)
    return m


def way_change(befores, afters, geo, path, places, occluded=(), beside=()):
    """The largest change (disc mean) where a ball met on the cue ball's `path` would have
    lain, from the pictures `befores` (just before the stroke) to `afters` (once the balls
    stopped), the followed balls' `places` left out, the balls `beside` the way included
    (way_mask); a picture with an occluder over the way
    (`occluded`: their masks, befores' then afters', None for none) is not used. None where
    the way is not seen in some picture of each, or there is no path."""
    if len(path) < 2:
        return None
    shape = befores[0].shape[:2]
    way = way_mask(geo, path, shape, beside)
    occluded = list(occluded) or [None] * (len(befores) + len(afters))
    clear = [occ is None or not np.any((occ > 0) & (way > 0)) for occ in occluded]
    n = len(befores)
    befores = [p for p, ok in zip(befores, clear[:n]) if ok]
    afters = [p for p, ok in zip(afters, clear[n:]) if ok]
    if not befores or not afters:
        return None
    gone = places_mask(geo, places, shape, KEEP_R)
    change = changed_map(mean_picture(befores), mean_picture(afters), gone, geo.r_px)
    sel = (way > 0) & (gone == 0)
    if not np.any(sel):
        return 0.0
    return float(np.max(change[sel]))


def elsewhere_change(befores, afters, geo, places, occluded_after=()):
    """The largest change (disc mean) anywhere on the bed, the followed balls' `places` left
    out: a ball the camera never followed that moved anywhere (met by the cue ball or by
    another ball, to a cushion or a pocket) left a change where it lay. `befores`: pictures of
    the table with nothing over it, taken before the stroke (the last quiet moment before the
    player leant in: anything moved since, a ball in hand placed, shows as a change too);
    `afters`: once the balls stopped, each pixel compared over those that showed it
    (`occluded_after`: their masks, None for none). None where some part of the bed a ball
    could lie in was hidden in every picture after (a player leaning over the table)."""
    import cv2
    before = mean_picture(befores)
    after, hidden = mean_where_seen(afters, list(occluded_after) or [None] * len(afters))
    bed = geo.cloth_mask(inset_mm=BALL_R_MM * 0.5)
    hidden = cv2.bitwise_and(hidden, bed)
    k = max(1, int(round(HIDDEN_R * geo.r_px))) * 2 + 1
    if cv2.countNonZero(cv2.erode(hidden, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))):
        return None               # a ball's worth of the bed never seen after
    gone = cv2.bitwise_or(places_mask(geo, places, before.shape[:2], KEEP_R), hidden)
    change = changed_map(before, after, gone, geo.r_px)
    sel = (bed > 0) & (gone == 0)
    return float(np.max(change[sel])) if np.any(sel) else 0.0


def movers_places(paths, t_start, t_end, times, tol):
    """(x, y) of the balls whose tracks moved in the shot (of `paths`), where each was at the
    pictures' `times` (within `tol` s) and where it lay before and after: what the way's check
    leaves out. A ball whose track says it stayed put is looked at all the same: its pictures
    must agree (a red 3 on burgundy grazed 8 mm away was once taken for still, its centre a few
    mm astray in dim light, and the shot for no contact)."""
    places = []
    for p in paths:
        if shots.stayed_put(p, t_start, t_end):
            continue
        for t in times:
            at = p.near(t, tol)
            if at is not None:
                places.append(at)
        for at in (shots.rest_at(p, t_start), shots.rest_at(p, t_end, span=1.0, after=True)):
            if at is not None:
                places.append(at)
    return places


def doubt_first(facts, change):
    """Enter the way's `change` on `facts`; where something left the cue ball's way before its
    first contact, the contact named (or "no contact") is unsure: it may have met that."""
    facts.way_change = change
    if change is not None and change >= CHANGED:
        cap = shots.UNSURE_NOT_RAILED if facts.first_contact is None else shots.UNSURE_FIRST
        facts.first_contact_conf = min(facts.first_contact_conf, cap)
        facts.notes.append(WAY_CHANGED)
    return facts


WAY_CHANGED = "something left the cue ball's way before its first contact: it may have met it"


def clear_confidence(change):
    """How sure (0.5-0.99) that nothing left the way, from `way_change`; 0 when unknown."""
    if change is None:
        return 0.0
    return sure((CHANGED - change), CHANGE_SCALE) if change < CHANGED else 0.0
