"""Ball candidates in the rectified (top-down) image, against a model of the bare cloth.

The table is drawn top-down at `s` mm per pixel (geometry.View.rectify_maps), so a ball
is a disc of known radius wherever it lies. A pixel is "not cloth" by its distance from
the cloth model in Lab: chroma counts fully, being brighter counts half, being darker
only past a shadow's depth (a shadow darkens the cloth without changing its hue, a ball
changes the hue or is far darker: the 8). A disc-shaped filter over that score peaks at
ball centres, touching balls included (a rack), and a blurred ball's streak peaks at its
middle: the ball's position at mid-exposure.

The score works in YCrCb (Y, Cr, Cb: a fixed linear mix of the camera's values, ten times
cheaper than Lab to compute); a shadow scales Y, Cr-128 and Cb-128 alike.
"""
import numpy as np

from host.camera.geometry import BALL_R_MM

NOT_CLOTH = 14.0           # score (YCrCb units) at which a pixel counts fully as "not cloth"
MIN_FILL = 0.55            # a ball's disc is at least this full of not-cloth
MIN_RING_FREE = 0.03       # ... and a little of the ring around it is cloth (not inside a blob)
FAINT_FILL = 0.2           # a circle this full of not-cloth, shaded like a ball, is a ball of
                           # the cloth's colour (a maroon 7 on burgundy: only its shade shows)
FAINT_DARK = 0.45          # ... with this share of its square under FAINT_DARK x the cloth's Y
FAINT_DARK_SHARE = 0.015    # (4 pixels of a ball at 4 mm a pixel; a hand or a sleeve: none)
FAINT_BRIGHT = 1.8         # ... and a highlight over FAINT_BRIGHT x, at most this share of it
FAINT_GLINT_SHARE = 0.2
HOUGH_VOTES = 8            # a circle's votes (edge pixels on its rim) at a radius of HOUGH_R_PX
FULLER = 0.15              # a circle this much fuller than a nearer one with more votes wins (a
                           # hard shadow's circle is 0.2-0.25 less full than the ball's; at 0.1 a rack's
                           # edge ball lost to a circle straddling it and the rack flickered)
HOUGH_MIN_DIST = 0.8       # x the radius: circles this near are one (candidates suppresses the rest)
HOUGH_R_PX = 7.15          # (a ball at 4 mm/px); a smaller drawn ball has fewer rim pixels


class Rectified:
    """Top-down frame geometry: `s` mm per pixel, `margin` mm around the playing area."""

    def __init__(self, table, s, margin):
        self.table = table
        self.s = float(s)
        self.margin = float(margin)
        self.r_px = BALL_R_MM / self.s
        self.shape = (int(np.ceil((table.width + 2 * margin) / s)),
                      int(np.ceil((table.length + 2 * margin) / s)))
        self.box = int(round(self.r_px * 1.5)) | 1      # a square of about a disc's area
        n = int(np.ceil(self.r_px * 1.3))
        yy, xx = np.mgrid[-n:n + 1, -n:n + 1]
        self.grid = (yy.astype(np.float32), xx.astype(np.float32))
        ring_in, ring_out = self.r_px * 1.3, self.r_px * 1.6
        self.ring = _ring_offsets(ring_in, ring_out)
        k = int(np.ceil(self.r_px)) * 4 + 1       # "next to an arm": within this disc of it
        self.near = _ring_offsets(0.0, k / 2.0)

    def to_mm(self, col, row):
        return col * self.s - self.margin, row * self.s - self.margin

    def to_px(self, x, y):
        return (x + self.margin) / self.s, (y + self.margin) / self.s

    def cloth_mask(self, inset_mm=0.0):
        """uint8 mask of the playing area (inside the cushion noses, less `inset_mm`)."""
        h, w = self.shape
        m = np.zeros((h, w), np.uint8)
        c0, r0 = self.to_px(inset_mm, inset_mm)
        c1, r1 = self.to_px(self.table.length - inset_mm, self.table.width - inset_mm)
        m[int(np.ceil(r0)):int(r1) + 1, int(np.ceil(c0)):int(c1) + 1] = 255
        return m


def _ring_offsets(r0, r1):
    n = int(np.ceil(r1))
    y, x = np.mgrid[-n:n + 1, -n:n + 1]
    d = np.hypot(x, y)
    sel = (d >= r0) & (d <= r1)
    return y[sel], x[sel]


def to_ycc(bgr):
    import cv2
    return cv2.cvtColor(bgr, cv2.COLOR_BGR2YCrCb)


def initial_cloth(img, area_mask):
    """The bare cloth's picture (YCrCb, ClothRef), estimated from one frame with balls on
    it: pixels of the cloth's colour (chroma per lightness, which uneven light and
    vignetting leave alone) are kept, the rest (balls) filled in from around them by
    normalised blurring."""
    import cv2
    inside = area_mask > 0
    f = img.astype(np.float32)
    y = f[..., 0] + 1.0
    u, v = (f[..., 1] - 128.0) / y, (f[..., 2] - 128.0) / y
    mu, mv, my = np.median(u[inside]), np.median(v[inside]), np.median(y[inside])
    d = np.abs(u - mu) + np.abs(v - mv)
    keep = (inside & (d < 0.12) & (y > 0.25 * my) & (y < 3.0 * my)).astype(np.float32)
    k = max(3, int(round(min(img.shape[:2]) / 8)) | 1)
    out, w = _fill_from(f, keep, k)
    # On a grey cloth a white ball (and on any cloth a ball of the cloth's own hue) has the
    # cloth's chroma: kept by its colour alone it would be part of the bare table, unseen
    # until it moves. The light changes slowly across the bed, a ball is far lighter (or
    # darker) than the cloth around it: keep only what is as light as the cloth near it.
    rel = y / (out[..., 0] + 1.0)
    keep *= ((rel > REL_CLOTH[0]) & (rel < REL_CLOTH[1])).astype(np.float32)
    out, w = _fill_from(f, keep, k)
    med = np.median(f[inside].reshape(-1, 3), axis=0)
    out[w < 1e-3] = med
    # Keep the measured cloth where it is cloth: the blur only fills the holes.
    sel = keep > 0
    out[sel] = f[sel]
    return ClothRef(out)


REL_CLOTH = (0.6, 1.5)     # a bare cloth pixel's lightness against the cloth's near it


def _fill_from(f, keep, k):
    """(picture, weight): the mean of the kept pixels of `f` over a k x k square about each
    pixel (normalised blurring), and the kept share there."""
    import cv2
    out = np.empty_like(f)
    w = cv2.blur(keep, (k, k))
    for c in range(3):
        out[..., c] = cv2.blur(f[..., c] * keep, (k, k)) / np.maximum(w, 1e-3)
    return out, w


class ClothRef:
    """The bare cloth's per-pixel values, prepared for `not_cloth` (float32): the
    per-pixel factors are worked out once per model update, not once per frame."""

    def __init__(self, img):
        self.set(img)

    def set(self, img):
        import cv2
        self.img = img
        y, cr, cb = cv2.split(img)
        self.inv_y = 1.0 / (y + 1.0)
        self.y1 = y + 1.0
        self.cr = cr - 128.0
        self.cb = cb - 128.0
        # The cloth's chroma per unit of lightness: scaled by a pixel's Y+1, the chroma
        # the cloth would have in that pixel's light (shadow).
        self.kr = (self.cr * self.inv_y).astype(np.float32)
        self.kb = (self.cb * self.inv_y).astype(np.float32)
        self._scratch = None

    def scratch(self):
        """Four float32 planes of the picture's size, kept between frames (no per-frame
        allocation in `not_cloth`)."""
        if self._scratch is None:
            self._scratch = [np.empty(self.y1.shape, np.float32) for _ in range(4)]
        return self._scratch


def not_cloth(ycc, ref):
    """Per-pixel score (float32): how far from bare cloth, shadows discounted.

    A shadow scales the cloth's Y and its chroma (Cr-128, Cb-128) alike, so the chroma is
    compared with the cloth's scaled to the pixel's lightness; being brighter counts half;
    being darker counts only past a shadow's depth (under 45 % of the cloth's Y: the 8's
    black)."""
    import cv2
    y1, c, t, u = ref.scratch()
    out = np.empty(y1.shape, np.float32)
    y8, cr8, cb8 = cv2.split(ycc)                       # contiguous planes: faster reads
    cv2.add(y8, 1.0, dst=y1, dtype=cv2.CV_32F)
    cv2.subtract(cr8, 128.0, dst=c, dtype=cv2.CV_32F)
    cv2.multiply(y1, ref.kr, dst=t)
    cv2.absdiff(c, t, dst=out)                          # chroma (Cr) off the cloth's
    cv2.subtract(cb8, 128.0, dst=c, dtype=cv2.CV_32F)
    cv2.multiply(y1, ref.kb, dst=t)
    cv2.absdiff(c, t, dst=t)
    cv2.add(out, t, dst=out)                            # ... and Cb
    cv2.subtract(y1, ref.y1, dst=t)
    cv2.max(t, 0.0, dst=t)
    cv2.scaleAdd(t, 0.5, out, dst=out)                  # brighter: half
    cv2.multiply(y1, ref.inv_y, dst=u)                  # lightness ratio to the cloth
    cv2.threshold(u, 0.45, 0.45, cv2.THRESH_TRUNC, dst=u)
    cv2.scaleAdd(u, -100.0, out, dst=out)               # darker than a shadow: 100 x the
    cv2.add(out, 45.0, dst=out)                         # ratio's shortfall under 0.45
    return out


def update_cloth(ref, ycc, score, settle=6.0, alpha=0.05, smooth=None):
    """Follow slow light changes where the picture is background now (score under
    `settle`), and take back cloth that something hid when the model was made (it looks
    like the smooth cloth estimate `smooth` again)."""
    import cv2
    sel = (score < settle)
    if smooth is not None:
        sel |= not_cloth(ycc, smooth) < settle
    img = ref.img
    cv2.accumulateWeighted(ycc.astype(np.float32), img, alpha, sel.astype(np.uint8))
    ref.set(img)
    return ref


def background(img, smooth, balls, r_px, bed_mask):
    """The table without its balls: this frame, with each ball's disc (and shadow), and
    whatever on the bed is not the cloth's colour (an arm over the table when the camera
    started), taken from the smooth cloth estimate. Pockets, cushions and rails stay as
    they look (a hand over a rail is taken back by `absorb_still` once it leaves)."""
    import cv2
    bg = img.astype(np.float32)
    mask = np.zeros(img.shape[:2], np.uint8)
    for c in balls:
        cv2.circle(mask, (int(round(c["col"])), int(round(c["row"]))), int(np.ceil(r_px * 1.6)), 255, -1)
    sel = (mask > 0) | ((bed_mask > 0) & (not_cloth(img, smooth) > NOT_CLOTH))
    bg[sel] = smooth.img[sel]
    return ClothRef(bg)


def absorb_still(ref, img, before, score, keep_out, settle=6.0, still=10.0):
    """What has not changed between two frames some time apart and is not a ball
    (`keep_out`: discs around the tracked balls) becomes background: cloth an arm
    uncovered, a chalk cube left on the rail."""
    import cv2
    d = cv2.absdiff(img, before).astype(np.float32).sum(axis=2)
    sel = (d < still) & (score > settle) & (keep_out == 0)
    if np.any(sel):
        ref.img[sel] = img[sel]
        ref.set(ref.img)
    return int(sel.sum())


def occluders(score, geo, outside=None):
    """uint8 mask of what reaches in from outside the table: a player's arm, the cue stick
    (not-cloth regions that reach over the cushions, `outside`, or to the drawing's
    border; a ball never does, away from the pockets), widened by a ball's radius. Balls
    under it are not seen."""
    import cv2
    h, w = score.shape
    half = cv2.resize(score, (w // 2, h // 2), interpolation=cv2.INTER_AREA)
    m = cv2.threshold(half, NOT_CLOTH * 0.8, 1, cv2.THRESH_BINARY)[1].astype(np.uint8)
    # Wider than a ball's core only: the cue stick (and a ball it touches) falls apart
    # from the arm here, so the cue ball at the tip stays a ball.
    k0 = int(round(geo.r_px * 0.75)) | 1
    m = cv2.morphologyEx(m, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k0, k0)))
    reach = _reach_mask(geo, m.shape, outside)
    if not cv2.countNonZero(cv2.bitwise_and(m, reach)):
        return None           # nothing reaches in (most frames): no labelling needed
    n, lab, _, _ = cv2.connectedComponentsWithStats(m, connectivity=8)
    if n <= 1:
        return None
    edge = np.unique(lab[reach > 0])
    edge = edge[edge > 0]
    if not len(edge):
        return None
    lut = np.zeros(n, np.uint8)
    lut[edge] = 255
    occ = lut[lab]
    k = int(np.ceil(geo.r_px / 2)) * 2 + 1
    occ = cv2.dilate(occ, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    return cv2.resize(occ, (w, h), interpolation=cv2.INTER_NEAREST)


def _reach_mask(geo, shape, outside):
    """uint8 mask (half scale) of where something reaching in shows: the drawing's
    border and, given, the `outside` mask (over the cushions); made once per shape."""
    key = (shape, id(outside))
    cached = getattr(geo, "_reach", None)
    if cached is not None and cached[0] == key:
        return cached[1]
    r = np.zeros(shape, np.uint8)
    r[0, :] = r[-1, :] = r[:, 0] = r[:, -1] = 1
    if outside is not None:
        o = outside[::2, ::2][:shape[0], :shape[1]]
        r[:o.shape[0], :o.shape[1]] |= (o > 0).astype(np.uint8)
    geo._reach = (key, r, outside)       # (outside kept: its id stays its own)
    return r


def circles(gray, geo):
    """Ball-sized circles of the lightness picture (OpenCV's gradient Hough): these
    separate the balls of a rack, where the not-cloth score is one plateau. Circles nearer
    than a ball's width come out too (OpenCV keeps only the one with most votes of those
    within minDist): a ball and its hard shadow make a second circle, half ball and half
    shadow, that at times outvotes the ball's own; `candidates` keeps the fuller
    (`_fuller_of_near`)."""
    import cv2
    r = geo.r_px
    votes = max(5, int(round(HOUGH_VOTES * r / HOUGH_R_PX)))   # the same share of the rim
    c = cv2.HoughCircles(gray, cv2.HOUGH_GRADIENT, dp=1, minDist=HOUGH_MIN_DIST * r, param1=60, param2=votes,
                         minRadius=int(r - 1.5), maxRadius=int(r + 1.5))
    return [] if c is None else [(float(x), float(y)) for x, y, _ in c[0]]


def candidates(score, geo, area_mask=None, limit=40, occluded=None, gray=None, cloth_y=None):
    """Balls in this frame: circles of the lightness picture (sharp balls, racks), ball-sized
    peaks of the not-cloth score (smeared balls) and, given the cloth's lightness `cloth_y`
    (ClothRef.y1), faint circles shaded like a ball (a ball of the cloth's colour); dicts
    {"col", "row" (sub-pixel), "x", "y" (mm), "fill", "ring_free", "near_occluder"}."""
    import cv2
    w = cv2.threshold(score, NOT_CLOTH, NOT_CLOTH, cv2.THRESH_TRUNC)[1]
    cv2.multiply(w, 1.0 / NOT_CLOTH, dst=w)
    if area_mask is not None:
        cv2.multiply(w, _as_weights(geo, area_mask), dst=w)
    if occluded is not None:
        w[occluded > 0] = 0.0
    fill = cv2.boxFilter(w, -1, (geo.box, geo.box), borderType=cv2.BORDER_CONSTANT)
    n = int(round(geo.r_px * 1.2)) * 2 + 1
    peaks = cv2.compare(fill, cv2.dilate(fill, np.ones((n, n), np.uint8)), cv2.CMP_GE)
    peaks &= cv2.compare(fill, MIN_FILL, cv2.CMP_GE)
    pts = cv2.findNonZero(peaks)
    pts = np.zeros((0, 2), np.intp) if pts is None else pts.reshape(-1, 2)
    rows, cols = pts[:, 1], pts[:, 0]
    if len(rows) > 4 * limit:
        order = np.argsort(-fill[rows, cols])[:4 * limit]
        rows, cols = rows[order], cols[order]
    seeds = sorted(zip(rows.tolist(), cols.tolist()), key=lambda rc: -fill[rc[0], rc[1]])
    h, wd = w.shape
    faint = {}
    if gray is not None:
        ring = []
        for x, y in circles(gray, geo)[:4 * limit]:      # most votes first; a table has ~25
            c, r = int(round(x)), int(round(y))
            if not (0 <= r < h and 0 <= c < wd):
                continue
            if fill[r, c] >= MIN_FILL:
                ring.append((r, c))
            elif cloth_y is not None and fill[r, c] >= FAINT_FILL and _on_bed(geo, x, y) and \
                    _shaded_ball(gray, cloth_y, r, c, geo.r_px):
                faint[(r, c)] = (x, y)
        # Circles first: they win the suppression below. Faint ones last: only where nothing
        # else was found (a ball's shadow is round too).
        ring = _fuller_of_near(ring, fill, 1.6 * geo.r_px)
        seeds = ring + seeds + list(faint)
        circle_set = set(ring) | set(faint)
    else:
        circle_set = set()
    ry, rx = geo.ring
    kept = []
    r_px = geo.r_px
    taken = np.zeros((h, wd), np.bool_)     # within 1.7 radius of a kept centre
    disc = _disc(1.7 * r_px)
    for r, c in seeds:
        if taken[r, c]:
            continue
        if ((r, c) not in circle_set or (r, c) in faint) and _ring_free(w, r, c, ry, rx) < MIN_RING_FREE:
            continue              # a peak inside a blob (a circle may be: a rack's inner ball)
        kept.append((r, c))
        _stamp(taken, r, c, disc)
        if len(kept) >= limit:
            break
    out = []
    for r, c in kept:
        near = occluded is not None and _near(occluded, r, c, geo.near)
        if near and (r, c) in faint:
            continue              # a sleeve of the cloth's colour ends in a circle too
        others = [(tc, tr) for tr, tc in kept if (tr, tc) != (r, c) and abs(tr - r) + abs(tc - c) < 3 * r_px]
        if (r, c) in faint:       # its score is its shaded side and its glint: the circle's centre
            col, row = faint[(r, c)]
        else:
            col, row = _centroid(w, c, r, r_px, geo.grid, others)
        x, y = geo.to_mm(col, row)
        out.append({"col": col, "row": row, "x": x, "y": y, "fill": float(fill[r, c]),
                    "circle": (r, c) in circle_set, "faint": (r, c) in faint,
                    "near_occluder": near})
    return out


def _fuller_of_near(circles, fill, near):
    """Of circles nearer each other than `near` (in votes' order, most first), the one with most
    votes, unless another is clearly fuller of not-cloth (FULLER): a ball's own circle against
    the one half on the ball and half on its hard shadow. In a rack every circle is full, and
    the votes decide, as OpenCV's own suppression did."""
    kept = []
    for r, c in circles:
        clash = [i for i, (kr, kc) in enumerate(kept) if (kr - r) ** 2 + (kc - c) ** 2 < near * near]
        if not clash:
            kept.append((r, c))
        elif len(clash) == 1 and fill[r, c] > fill[kept[clash[0]]] + FULLER:
            kept[clash[0]] = (r, c)
    return kept


def _on_bed(geo, col, row):
    """Within the cushion noses: where a ball of the cloth's colour can lie (a pocket's
    mouth and the rails around make round shades of their own)."""
    x, y = geo.to_mm(col, row)
    return 0.0 <= x <= geo.table.length and 0.0 <= y <= geo.table.width


def _shaded_ball(gray, cloth_y, r, c, r_px):
    """A ball of the cloth's own colour about (r, c): shaded like a sphere under a lamp,
    its far side much darker than the cloth and a small highlight much brighter (a faint
    ball's circle is off by a few pixels: the whole disc is looked at). A hand or a sleeve's
    end is round too, but lit all over: more of it is bright, none of it so dark."""
    n = int(np.ceil(r_px))
    r0, c0 = max(r - n, 0), max(c - n, 0)
    y = gray[r0:r + n + 1, c0:c + n + 1].astype(np.float32) + 1.0
    if y.size == 0:
        return False
    rel = y / cloth_y[r0:r + n + 1, c0:c + n + 1]
    dark, bright = float(np.mean(rel < FAINT_DARK)), float(np.mean(rel > FAINT_BRIGHT))
    return dark >= FAINT_DARK_SHARE and 0 < bright <= FAINT_GLINT_SHARE


_DISCS = {}


def _disc(radius):
    """bool (2m+1) square: the integer offsets strictly within `radius` (made once)."""
    if radius not in _DISCS:
        m = int(np.ceil(radius))
        y, x = np.mgrid[-m:m + 1, -m:m + 1]
        _DISCS[radius] = (y * y + x * x) < radius * radius
    return _DISCS[radius]


def _stamp(mask, r, c, disc):
    """mask |= disc centred on (r, c), clipped at the borders."""
    m = disc.shape[0] // 2
    h, w = mask.shape
    r0, r1, c0, c1 = max(r - m, 0), min(r + m + 1, h), max(c - m, 0), min(c + m + 1, w)
    if r0 < r1 and c0 < c1:
        mask[r0:r1, c0:c1] |= disc[r0 - r + m:r1 - r + m, c0 - c + m:c1 - c + m]


def _ring_free(w, r, c, ry, rx):
    """The share of cloth (weight under 0.5) on the ring about (r, c). An inner ball of a
    rack has its ring all but covered by its six neighbours (~5 % of it is cloth, blurred):
    a peak there is kept only as a circle."""
    h, wd = w.shape
    yy, xx = ry + r, rx + c
    ok = (yy >= 0) & (yy < h) & (xx >= 0) & (xx < wd)
    ring = w[yy[ok], xx[ok]]
    return float(np.mean(ring < 0.5)) if len(ring) else 1.0


def _as_weights(geo, mask):
    """A uint8 mask as float32 0/1 weights, made once per mask."""
    cached = getattr(geo, "_weights", None)
    if cached is None or cached[0] is not mask:
        cached = (mask, (mask > 0).astype(np.float32))
        geo._weights = cached
    return cached[1]


def _near(mask, r, c, disc):
    """Some of `mask` lies within the disc (row, column offsets) about (r, c): the
    dilation of the whole mask by that disc, asked at one point."""
    dy, dx = disc
    n = int(dy.max())
    h, w = mask.shape
    if n <= r < h - n and n <= c < w - n:
        return bool(mask[dy + r, dx + c].any())
    yy, xx = dy + r, dx + c
    ok = (yy >= 0) & (yy < h) & (xx >= 0) & (xx < w)
    return bool(mask[yy[ok], xx[ok]].any())


CENTROID_STEPS = 5       # re-centred until it moves under 0.1 px: from a circle's centre or a
                         # peak's, a ball's centroid is then the same (it flickered by 1-2 px)


def _centroid(w, c, r, r_px, grid, others=()):
    """Weighted centre of the not-cloth score within 1.25 radius of (c, r), counting only
    pixels nearer to this ball than to its neighbours (a rack's balls touch), until it settles.
    Nearer than every neighbour is nearer than the nearest: one comparison with the least of
    their squared distances, worked out again only when the window moves a whole pixel."""
    h, wd = w.shape
    gy, gx = grid
    n = gy.shape[0] // 2
    cx, cy = float(c), float(r)
    rr = (1.25 * r_px) ** 2
    window = None
    for _ in range(CENTROID_STEPS):
        c0, r0 = int(round(cx)), int(round(cy))
        if r0 - n < 0 or c0 - n < 0 or r0 + n >= h or c0 + n >= wd:
            break
        if window != (c0, r0):
            window = (c0, r0)
            patch = w[r0 - n:r0 + n + 1, c0 - n:c0 + n + 1]
            nearest = _nearest_other(gx, gy, c0, r0, others)
        dx, dy = gx + (c0 - cx), gy + (r0 - cy)
        d2 = dx * dx + dy * dy
        sel = d2 <= rr
        if nearest is not None:
            sel &= d2 < nearest
        wt = patch * sel
        tot = float(wt.sum())
        if tot <= 0:
            break
        nx = c0 + float((wt * gx).sum()) / tot
        ny = r0 + float((wt * gy).sum()) / tot
        done = abs(nx - cx) + abs(ny - cy) < 0.1
        cx, cy = nx, ny
        if done:
            break
    return cx, cy


def _nearest_other(gx, gy, c0, r0, others):
    """Per pixel of the window about (c0, r0): the least squared distance to a neighbour's
    centre (None without neighbours)."""
    nearest = None
    for oc, orow in others:
        ox, oy = gx + (c0 - oc), gy + (r0 - orow)
        o2 = ox * ox + oy * oy
        nearest = o2 if nearest is None else np.minimum(nearest, o2, out=nearest)
    return nearest
