"""Which ball a track is, from its colours: cue (0), 8, solids 1-7, stripes 9-15.

One frame says little (a stripe rolled with its band up looks solid, a solid shows its
white number disc, blur mixes in cloth), so the looks of every frame a track was seen
in slowly are summed up (`Looks`) and the tracks are given numbers all at once, each
number at most once, by least total misfit (assignment.assign).

Per frame, the pixels inside 0.8 ball radius are sorted into white (bright, little
colour), dark (the 8's black) and coloured; a ball's looks are the share of white
(a stripe shows much more white than a solid in some frames, the cue ball in all), the
share of dark, and the mean Lab colour of its coloured pixels (which of the seven).
"""
import math

import numpy as np

from host.camera.assignment import INF, assign
from host.camera.geometry import BALL_R_MM
from shared_rules.rules.camera import MIN_CONFIDENCE

# Reference colours (BGR) of the usual set; a table's own can be given (docs/camera.md).
BALL_BGR = {0: (232, 236, 236), 1: (0, 200, 240), 2: (190, 70, 20), 3: (30, 30, 210),
            4: (130, 40, 90), 5: (20, 120, 245), 6: (60, 130, 20), 7: (30, 30, 120)}
# Features that do not change with the light (YCrCb's Y, Cr-128, Cb-128 scale alike with
# it): a pixel's lightness against the cloth's at that spot, and its colour per lightness.
WHITE_SAT = 0.15          # (|Cr-128| + |Cb-128|) / Y below this: no colour (white, black)
WHITE_REL = 1.25          # ... and brighter than the cloth by this: white
DARK_REL = 0.5            # ... or darker than the cloth by this: the 8's black
COLOUR_SAT = 0.35
NEUTRAL_TINT = (0.0, -0.03)   # what light_tint gives under white light (rendered footage)
BALLS = list(range(16))
GAMES = {"eightball": BALLS, "straight": BALLS, "nineball": list(range(10))}


def balls_of(game):
    """The ball numbers of `game` (nine-ball: the cue ball and 1-9; unknown: all 16), so
    a red solid is never called the 11 where there is no 11."""
    return GAMES.get(game, BALLS)


def palette(bgr=None):
    """{n: (Y relative to white, (Cr-128)/Y, (Cb-128)/Y)} for n in 1..7, from reference
    colours (BGR)."""
    import cv2
    bgr = dict(BALL_BGR, **(bgr or {}))
    px = np.array([[bgr[n] for n in range(8)]], np.uint8)
    ycc = cv2.cvtColor(px, cv2.COLOR_BGR2YCrCb)[0].astype(float) + (1.0, 0.0, 0.0)
    white_y = ycc[0, 0]
    # A coloured ball's pixels are on average darker than its albedo (shading falls off to
    # the rim more than on the white's highlight-clipped face): measured 0.85.
    return {n: (0.85 * ycc[n, 0] / white_y, (ycc[n, 1] - 128) / ycc[n, 0], (ycc[n, 2] - 128) / ycc[n, 0])
            for n in range(1, 8)}


def light_tint(ycc, balls, r_px, light_of):
    """The light's colour ((Cr-128)/Y, (Cb-128)/Y) from the bright, nearly colourless
    pixels on the balls (the white's: neutral under white light, tinted under a warm
    lamp; a coloured ball's pixels are far more saturated). (0, 0) if there are none."""
    px = []
    n = int(math.ceil(r_px * 0.8))
    h, w = ycc.shape[:2]
    for c in balls:
        c0, r0 = int(round(c["col"])), int(round(c["row"]))
        if c0 - n < 0 or r0 - n < 0 or c0 + n >= w or r0 + n >= h:
            continue
        patch = ycc[r0 - n:r0 + n + 1, c0 - n:c0 + n + 1].reshape(-1, 3).astype(np.float32)
        sat = (np.abs(patch[:, 1] - 128) + np.abs(patch[:, 2] - 128)) / (patch[:, 0] + 1)
        white = patch[(patch[:, 0] > 1.3 * max(float(light_of(c)), 4.0)) & (sat < 0.3)]
        px.extend(white.tolist())
    if len(px) < 20:
        return 0.0, 0.0
    p = np.array(px)
    return (float(np.median((p[:, 1] - 128) / (p[:, 0] + 1))) - NEUTRAL_TINT[0],
            float(np.median((p[:, 2] - 128) / (p[:, 0] + 1))) - NEUTRAL_TINT[1])


def frame_looks(ycc, col, row, r_px, light, tint=(0.0, 0.0)):
    """One ball in one frame: (white, dark, coloured share, Y/cloth Y, (Cr-128)/Y,
    (Cb-128)/Y, white's Y/cloth Y) or None. `light`: the bare cloth's Y at the place;
    `tint`: the light's colour (light_tint), taken out before judging white."""
    lab = ycc
    h, w = lab.shape[:2]
    rr = r_px * 0.8
    n = int(math.ceil(rr))
    c0, r0 = int(round(col)), int(round(row))
    if c0 - n < 0 or r0 - n < 0 or c0 + n >= w or r0 + n >= h:
        return None
    patch = lab[r0 - n:r0 + n + 1, c0 - n:c0 + n + 1].reshape(-1, 3).astype(np.float32)
    yy, xx = _offsets(n)
    inside = (xx + (c0 - col)) ** 2 + (yy + (r0 - row)) ** 2 <= rr * rr
    px = patch[inside]
    if len(px) < 5:
        return None
    light = max(float(light), 4.0)
    L = px[:, 0] + 1.0
    sat = (np.abs(px[:, 1] - 128 - tint[0] * L) + np.abs(px[:, 2] - 128 - tint[1] * L)) / L
    rel = L / light
    white = (sat < WHITE_SAT) & (rel > WHITE_REL)
    dark = (sat < WHITE_SAT * 3) & (rel < DARK_REL)
    coloured = ~white & ~dark & (sat >= COLOUR_SAT)
    k = len(px)
    nw, nd, nc = int(white.sum()), int(dark.sum()), int(coloured.sum())
    if nc >= 3:
        sel = px[coloured]
        Ls = sel[:, 0] + 1.0
        Lc = float(Ls.sum()) / nc / light
        ac = float(((sel[:, 1] - 128) / Ls).sum()) / nc - tint[0]
        bc = float(((sel[:, 2] - 128) / Ls).sum()) / nc - tint[1]
    else:
        Lc = ac = bc = None
    wl = float(np.median(rel[white])) if nw >= 3 else None
    return (nw / k, nd / k, nc / k, Lc, ac, bc, wl)


_OFFSETS = {}


def _offsets(n):
    """Flattened pixel offsets (rows, columns) of a (2n+1) square, made once per size."""
    if n not in _OFFSETS:
        yy, xx = np.mgrid[-n:n + 1, -n:n + 1]
        _OFFSETS[n] = (yy.ravel().astype(float), xx.ravel().astype(float))
    return _OFFSETS[n]


def ball_log_probs(logp):
    """Log probabilities of the sixteen balls alone (the model's "no ball" left out, the rest
    normalised): which ball a look is, given that it is one."""
    b = np.asarray(logp, np.float64)[:16]
    m = b.max()
    return b - m - math.log(float(np.exp(b - m).sum()))


class Looks:
    """A track's looks summed over frames (bounded: at most `keep` frames are kept)."""

    def __init__(self, keep=120):
        self.keep = keep
        self.white = []
        self.dark = []
        self.colour = []          # (L, a, b, weight)
        self.white_l = []
        self.n = 0
        self.evidence = None      # the appearance model's log probabilities (17), summed with weights
        self.evidence_w = 0.0

    def add_evidence(self, logp, weight=1.0):
        """One look's log probabilities of balls 0-15 and of no ball (appearance.Model),
        counted with `weight` (0: next to an arm, where the disc is partly the hand)."""
        if logp is None or weight <= 0:
            return
        if self.evidence is None:
            self.evidence = np.zeros(len(logp), np.float64)
        self.evidence += weight * np.asarray(logp, np.float64)
        self.evidence_w += weight

    def add(self, looks, weight=1.0):
        if looks is None or weight <= 0:
            return
        self.n += 1
        w, d, c, L, a, b, wl = looks
        if wl is not None and len(self.white_l) < self.keep:
            self.white_l.append(wl)
        if weight < 0.3:          # a smeared ball: its colour only, not its shares
            if L is not None:
                self.colour.append((L, a, b, weight * c))
                self.colour = self.colour[-self.keep:]
            return
        if len(self.white) >= self.keep:        # keep a spread over time, not only the start
            i = self.n % self.keep
            self.white[i], self.dark[i] = w, d
        else:
            self.white.append(w)
            self.dark.append(d)
        if L is not None:
            item = (L, a, b, weight * c)
            if len(self.colour) >= self.keep:
                self.colour[self.n % self.keep] = item
            else:
                self.colour.append(item)

    def merge(self, other):
        if other.evidence is not None:
            if self.evidence is None:
                self.evidence = np.zeros_like(other.evidence)
            self.evidence = self.evidence + other.evidence
            self.evidence_w += other.evidence_w
        for w, d in zip(other.white, other.dark):
            self.add((w, d, 0.0, None, None, None, None))
        for L, a, b, wt in other.colour:
            self.colour.append((L, a, b, wt))
        self.colour = self.colour[-self.keep:]

    def summary(self):
        if not self.white:
            return None
        wh = np.array(self.white)
        col = None
        if self.colour:
            c = np.array(self.colour)
            wt = c[:, 3] + 1e-6
            col = tuple((c[:, :3] * wt[:, None]).sum(axis=0) / wt.sum())
        out = {"white_hi": float(np.percentile(wh, 85)), "white_lo": float(np.percentile(wh, 15)),
               "white_mid": float(np.median(wh)), "dark": float(np.median(self.dark)),
               "white_l": float(np.median(self.white_l)) if self.white_l else None,
               "colour": col, "frames": len(wh), "seen": self.n}
        if self.evidence_w > 0:
            mean = self.evidence / self.evidence_w
            out["logp"] = ball_log_probs(mean).tolist()
            out["p_none"] = float(np.exp(min(mean[16], 0.0))) if len(mean) > 16 else 0.0
            out["logp_w"] = self.evidence_w
        return out


def misfit(summary, ball, palette, white_level=None):
    """How badly a track's looks fit ball number `ball` (0 = perfect; about 1 per sigma).
    `white_level`: the white's lightness against the cloth in this video (the cue ball's).
    Where the appearance model saw the track (`logp`: its looks' mean log probabilities),
    EVIDENCE_K x how unlikely its looks make the number; else the colour shares below."""
    if summary is None:
        return 50.0
    if summary.get("logp") is not None:
        # Which ball, given it is one; and what being a ball at all costs it.
        return -EVIDENCE_K * summary["logp"][ball] - NONE_K * math.log(max(1.0 - summary["p_none"], 1e-6))
    wh, wl, dk, col = summary["white_hi"], summary["white_lo"], summary["dark"], summary["colour"]
    if ball == 0:
        return _over(0.85 - wl, 0.1) + _over(dk - 0.15, 0.1) + _sat_pen(col, 0.55)
    if ball == 8:
        return _over(0.35 - dk, 0.1) + _over(wh - 0.45, 0.1) + _sat_pen(col, 0.6) * 0.5
    n = ball if ball < 8 else ball - 8
    pen = _colour_distance(col, palette[n], white_level)
    pen += _over(dk - 0.45, 0.1)
    # Solids show at most their number's disc and a highlight as white; stripes their
    # caps, but a stripe that never rolled may show none: soft, so colour can decide.
    if ball < 8:
        pen += _over(wh - 0.2, 0.1)
    else:
        pen += _over(0.2 - wh, 0.1) + _over(wl - 0.85, 0.1)
    return pen


def _over(x, sigma):
    return (x / sigma) ** 2 if x > 0 else 0.0


def _sat_pen(col, limit):
    if col is None:
        return 0.0
    return _over(abs(col[1]) + abs(col[2]) - limit, 0.15)


def _colour_distance(col, ref, white_level):
    if col is None:
        return 9.0
    da, db = col[1] - ref[1], col[2] - ref[2]
    pen = (da * da + db * db) / (0.15 ** 2)
    if white_level:
        # Lightness tells apart balls of one hue (the 3 and the 7), but a spot lamp or a
        # ball by the cushion's shadow moves it far: it counts, up to a limit, so a ball
        # whose hue fits is never refused for its lightness alone.
        dl = col[0] / white_level - ref[0]
        pen += min((dl / 0.2) ** 2, LIGHTNESS_CAP)
    return pen


LIGHTNESS_CAP = 5.0


def _brief(summary):
    """What a track pays for being unlike a ball's life: seen briefly, or mostly next to
    an arm or the cue stick (where hands and sleeves make ball-sized blobs)."""
    s = summary or {}
    short = 20.0 if s.get("seen_s", 1e9) < MIN_LIFE_S else 0.0
    near = s.get("near_occluder", 0.0)
    # Mostly next to an arm: a sleeve's edge or a hand far more often than a ball.
    return short + 6.0 / (1.0 + s.get("seen", 0) / 20.0) + 5.0 * near + 20.0 * max(near - 0.5, 0.0)


def white_level(summaries):
    """The white's lightness against the cloth: the whitest tracks' (the cue ball's)."""
    levels = sorted((s["white_lo"], s["white_l"]) for s in summaries.values()
                    if s is not None and s.get("white_l"))
    return levels[-1][1] if levels else None


MIN_LIFE_S = 0.5          # a track seen for less is no ball (a hand, the stick's ferrule)
NOT_A_BALL = 9.0          # misfit of "this track is no ball" (a hand, a glint)
EVIDENCE_K = 2.0          # misfit per unit of a track's mean log probability (appearance.Model)


def _no_ball(summary):
    """The misfit of "this track is no ball": NOT_A_BALL, or less where the appearance model
    found its looks like a hand's, the stick's or a shadow's (NONE_K x -log of that chance, plus
    NONE_BIAS). A track is no ball when that chance is over ~0.75: 99 % of the balls' tracks on
    development footage were under 0.6 (95 % under 0.13; far from a spot lamp a rack's balls
    reach 0.4-0.6), three quarters of the hands', sticks' and shadows' over 0.65 (half over 0.99)."""
    if summary is not None and summary.get("p_none") is not None:
        return min(NOT_A_BALL, -NONE_K * math.log(max(summary["p_none"], 1e-6)) + NONE_BIAS)
    return NOT_A_BALL


NONE_K = 2.0
NONE_BIAS = 2.0


def label(summaries, palette=None, balls=BALLS, max_misfit=16.0, fixed=None):
    """{track key: (ball, confidence)} for a {track key: Looks.summary()} dict: each ball
    number at most once, least total misfit, where "no ball" costs NOT_A_BALL for any
    track (so a glint does not take a number from a ball that fits it a little worse).
    Confidence: how much worse the track's second-best choice fits (0..1).
    `fixed`: {track key: ball} known otherwise (the stroked ball is the cue ball)."""
    return label_with_rivals(summaries, palette, balls, max_misfit, fixed)[0]


# A rival fits the track within this much of its own number's misfit: the gap at which the
# confidence (1 - exp(-gap / 2)) reaches the referee's least (rules/camera.MIN_CONFIDENCE).
RIVAL_GAP = -2.0 * math.log(1.0 - MIN_CONFIDENCE)


def label_with_rivals(summaries, palette=None, balls=BALLS, max_misfit=16.0, fixed=None):
    """(label's answer, {track key: the balls it may be}): its own number and every number it
    fits within RIVAL_GAP of it, sorted; None where it may be no ball at all. A verdict that is
    the same whichever of them it is needs no surer identity (a red stripe that may be the 11
    or the 15 is a stripe all the same)."""
    palette = palette or globals()['palette']()
    keys = list(summaries)
    wl = white_level(summaries)
    # A track seen briefly (a glint, a hand) pays for it: a ball is seen for long.
    cost = [[misfit(summaries[k], b, palette, wl) + _brief(summaries[k]) for b in balls] for k in keys]
    none = [_no_ball(summaries[k]) for k in keys]
    rows = [[c if c <= max_misfit else INF for c in row] + [nb] * len(keys) for row, nb in zip(cost, none)]
    for key, ball in (fixed or {}).items():
        if key not in summaries or ball not in balls:
            continue
        i, j = keys.index(key), balls.index(ball)
        for r, row in enumerate(rows):
            if r == i:
                rows[r] = [0.0 if c == j else INF for c in range(len(row))]
            else:
                row[j] = INF
    out, rivals = {}, {}
    for i, j in assign(rows):
        if j >= len(balls):
            continue
        # How sure of the number, given it is a ball (whether it is one at all is the
        # assignment's: a rack's ball far from a spot lamp may look half a shadow, and is a
        # ball of its number all the same).
        seen = (summaries[keys[i]] or {}).get("p_none") is not None
        row = sorted(cost[i] + ([] if seen else [none[i]]))
        gap = row[1] - cost[i][j] if len(row) > 1 else 10.0
        out[keys[i]] = (balls[j], float(1 - math.exp(-max(gap, 0.0) / 2.0)))
        if keys[i] in (fixed or {}):
            rivals[keys[i]] = [balls[j]]
        elif none[i] <= cost[i][j] + RIVAL_GAP:
            rivals[keys[i]] = None
        else:
            rivals[keys[i]] = sorted({balls[j]} | {b for b, c in zip(balls, cost[i]) if c <= cost[i][j] + RIVAL_GAP})
    return out, rivals


RACK_ROW_MM = 2 * BALL_R_MM * math.sqrt(3) / 2    # between two rows of a tight rack
RACK_SLACK_MM = 15.0      # a rack's balls lie this near their places (a rack is not drawn to a mm)
RACK_NAMED = 0.9          # the confidence of a number the rack's shape gives


def named_by_the_rack(labels, rivals, rests):
    """Nine-ball's rack (NB.RACK: the 1 at the apex, on the foot spot; the 9 in the middle) names
    the two yellow balls where their looks cannot (a stripe racked band-down looks solid): the one
    at the apex is the 1, the one two rows behind it on its line the 9. Only that very shape does:
    of the two tracks labelled 1 and 9, one that may be either, one the rack's ball nearest the
    head, the other two rows behind it, and a rack around them; else the labels stand.
    `rests`: {track key: (x, y)} where each lay when the shot began. Pure: new dicts."""
    keys = dict((b, k) for k, (b, _) in labels.items() if b in (1, 9))
    if len(keys) != 2 or keys[1] not in rests or keys[9] not in rests:
        return labels, rivals
    if not [k for k in keys.values() if rivals.get(k) and 1 in rivals[k] and 9 in rivals[k]]:
        return labels, rivals           # the looks tell them apart: nothing to add
    a, b = sorted(keys.values(), key=lambda k: rests[k][0])
    (ax, ay), (bx, by) = rests[a], rests[b]
    if abs(bx - ax - 2 * RACK_ROW_MM) > RACK_SLACK_MM or abs(by - ay) > RACK_SLACK_MM:
        return labels, rivals
    near = [p for k, p in rests.items() if labels.get(k, (0,))[0] != 0 and
            math.hypot(p[0] - bx, p[1] - by) < 2 * RACK_ROW_MM + RACK_SLACK_MM]
    if len(near) < 5 or min(p[0] for p in near) < ax - RACK_SLACK_MM:
        return labels, rivals           # no rack around them, or a ball ahead of the "apex"
    labels, rivals = dict(labels), dict(rivals)
    labels[a], labels[b] = (1, RACK_NAMED), (9, RACK_NAMED)
    rivals[a], rivals[b] = [1], [9]
    return labels, rivals
