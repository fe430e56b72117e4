"""Where the table is in the picture: the lens, the cushion-nose corners, the table's size.

1. The cloth: pixels of the cloth's colour (the median colour around the image centre,
   by chromaticity so that uneven light and vignetting do not matter), the largest
   connected region, holes (balls) filled. Its outline is the cushions' backs.
2. The lens: the cushions' backs are straight; the radial distortion k1 that makes the
   outline's four sides straightest (the plumb-line method) is the lens's.
3. The noses: in a top-down drawing through the outer quadrilateral, the bed meets each
   cushion in a step of brightness (the cushion's slope faces the lamps differently) a
   few centimetres inside the outline; the strongest step along each side is its nose.
4. The corners are where neighbouring noses meet (the pockets cut the real corners
   away), ordered head-left, head-right, foot-right, foot-left with the head at the
   image's left (the camera's usual hanging), or at its top for a table that stands
   upright in the picture; the analyser then tells the ends apart (host/camera/ends.py)
   and may turn them round.

5. The lens again, from the noses: the outline's sides are only roughly straight (dim
   corners, the pockets' cut-outs), and a wide lens bends the picture more than the
   plumb-line on them can tell; so along each side the nose's step is found on short
   profiles across it (drawn through the lens so far), and the lens that puts those
   points on the straight lines between the corners is taken (twice more, on narrower
   profiles).

Given corners (`--corners`), steps 3-4 are skipped; the lens is still estimated.
"""
import math

import numpy as np

from host.camera.geometry import Lens

CUSHION_MM = (25.0, 80.0)      # nose inside the cushion's back (cushion width, seen from above)


def cloth_region(bgr):
    """uint8 mask of the cloth (bed and cushion tops) at the image's scale."""
    import cv2
    h, w = bgr.shape[:2]
    f = cv2.GaussianBlur(bgr, (7, 7), 0).astype(np.float32) + 1.0
    s = f.sum(axis=2, keepdims=True)
    chrom = f / s
    cy, cx = h // 2, w // 2
    core = chrom[cy - h // 6:cy + h // 6, cx - w // 6:cx + w // 6].reshape(-1, 3)
    ref = np.median(core, axis=0)
    bright = s[..., 0]
    ref_b = np.median(bright[cy - h // 6:cy + h // 6, cx - w // 6:cx + w // 6])
    d = np.abs(chrom - ref).sum(axis=2)
    mask = ((d < 0.12) & (bright > 0.12 * ref_b)).astype(np.uint8) * 255
    k = max(3, (min(h, w) // 40) | 1)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    n, lab, stats, _ = cv2.connectedComponentsWithStats(mask)
    if n <= 1:
        return mask * 0
    big = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    mask = (lab == big).astype(np.uint8) * 255
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((k, k), np.uint8))
    # Fill holes: everything not reachable from the border outside the cloth.
    inv = cv2.bitwise_not(mask)
    n, lab2, stats, _ = cv2.connectedComponentsWithStats(inv)
    border = set(np.unique(np.concatenate([lab2[0], lab2[-1], lab2[:, 0], lab2[:, -1]])).tolist())
    for i in range(1, n):
        if i not in border:
            mask[lab2 == i] = 255
    return mask


def outline_sides(mask):
    """Four lists of outline points (top, right, bottom, left in the image), each side's
    middle 70 % less its middle 16 % on the long sides (the pockets)."""
    import cv2
    cnts, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    if not cnts:
        return None
    c = max(cnts, key=cv2.contourArea).reshape(-1, 2).astype(np.float64)
    x0, y0, bw, bh = cv2.boundingRect(c.astype(np.int32))
    sides = {"top": [], "right": [], "bottom": [], "left": []}
    for x, y in c:
        u, v = (x - x0) / max(bw, 1), (y - y0) / max(bh, 1)
        dist = {"top": v, "bottom": 1 - v, "left": u, "right": 1 - u}
        s = min(dist, key=dist.get)
        if dist[s] > 0.08:
            continue
        along = u if s in ("top", "bottom") else v
        if not 0.15 < along < 0.85:
            continue
        long_side = (bw >= bh) == (s in ("top", "bottom"))
        if long_side and abs(along - 0.5) < 0.08:
            continue
        sides[s].append((x, y))
    if any(len(p) < 10 for p in sides.values()):
        return None
    return {k: np.array(v) for k, v in sides.items()}


def _line_residual(pts):
    m = pts.mean(axis=0)
    _, sv, vt = np.linalg.svd(pts - m, full_matrices=False)
    return sv[-1] ** 2 / len(pts), m, vt[0]


def estimate_lens(sides, size):
    """(k1, k2) that make the sides straightest: a coarse grid, then finer grids around
    the best (the residual is smooth and has one valley in this range)."""
    pts = {k: v[::max(1, len(v) // 150)] for k, v in sides.items()}

    def cost(k):
        lens = Lens(size, k[0], k[1])
        return sum(_line_residual(lens.undistort(p))[0] for p in pts.values())
    best = (0.0, 0.0)
    span = (0.3, 0.3)
    for _ in range(4):
        grid = [(best[0] + a, best[1] + b)
                for a in np.linspace(-span[0], span[0], 9) for b in np.linspace(-span[1], span[1], 9)]
        best = min(grid, key=cost)
        span = (span[0] / 3, span[1] / 3)
    return (float(best[0]), float(best[1])), cost(best)


def _fit_line(pts):
    _, m, d = _line_residual(pts)
    return m, d


def _intersect(l1, l2):
    (p, d), (q, e) = l1, l2
    A = np.array([[d[0], -e[0]], [d[1], -e[1]]])
    if abs(np.linalg.det(A)) < 1e-9:
        return None
    s = np.linalg.solve(A, q - p)
    return p + s[0] * d


def quad_from_sides(sides, lens):
    """Ideal-pixel corners (top-left, bottom-left, bottom-right, top-right) of the lines."""
    L = {k: _fit_line(lens.undistort(v)) for k, v in sides.items()}
    order = [("top", "left"), ("bottom", "left"), ("bottom", "right"), ("top", "right")]
    pts = [_intersect(L[a], L[b]) for a, b in order]
    if any(p is None for p in pts):
        return None
    return np.array(pts)


def _upright(quad):
    """The quadrilateral (top-left, bottom-left, bottom-right, top-right) is taller than wide:
    the table's length runs down the picture."""
    q = np.asarray(quad, dtype=float)
    down = np.hypot(*(q[1] - q[0])) + np.hypot(*(q[2] - q[3]))
    across = np.hypot(*(q[3] - q[0])) + np.hypot(*(q[2] - q[1]))
    return down > across


def find_noses(bgr, lens, outer_ideal, s_mm=2.0):
    """Ideal-pixel corners of the noses, from the brightness step inside the outline.

    The outer quadrilateral is mapped to a rectangle of a nominal 2:1 table plus cushions;
    each side's profile across the cushion is the median over its straight parts."""
    import cv2
    Lw, Ww = 2540.0 + 2 * 140, 1270.0 + 2 * 140   # a nominal table with cushions, mm
    dst = np.array([[0, 0], [0, Ww], [Lw, Ww], [Lw, 0]], np.float32) / s_mm
    # outer_ideal is tl, bl, br, tr (x right, y down): head-left first.
    H = cv2.getPerspectiveTransform(outer_ideal.astype(np.float32), dst)
    cols, rows = int(Lw / s_mm), int(Ww / s_mm)
    gx, gy = np.meshgrid(np.arange(cols), np.arange(rows))
    pts = np.stack([gx.ravel(), gy.ravel()], axis=1).astype(np.float64)
    Hi = np.linalg.inv(H)
    p = np.hstack([pts, np.ones((len(pts), 1))]) @ Hi.T
    ideal = p[:, :2] / p[:, 2:3]
    img = lens.distort(ideal)
    mx = img[:, 0].reshape(rows, cols).astype(np.float32)
    my = img[:, 1].reshape(rows, cols).astype(np.float32)
    top = cv2.remap(bgr, mx, my, cv2.INTER_LINEAR)
    gray = cv2.cvtColor(top, cv2.COLOR_BGR2GRAY).astype(np.float32)
    scale = Lw / 2820.0                     # nominal mm per drawn mm (the real size is unknown)
    lo, hi = int(CUSHION_MM[0] * scale / s_mm), int(CUSHION_MM[1] * scale / s_mm)
    inset = {}
    # Profiles from each outer edge inwards, on the straight stretches only.
    long_cols = np.hstack([gray[:, int(cols * 0.1):int(cols * 0.42)],
                           gray[:, int(cols * 0.58):int(cols * 0.9)]])
    across = np.median(long_cols, axis=1)                         # rows, top to bottom
    along = np.median(gray[int(rows * 0.15):int(rows * 0.85), :], axis=0)   # cols, left to right
    strips = {"top": across, "bottom": across[::-1], "left": along, "right": along[::-1]}
    for side, prof in strips.items():
        prof = np.asarray(prof)
        g = np.abs(np.diff(cv2.GaussianBlur(prof.reshape(-1, 1), (1, 5), 0).ravel()))
        seg = g[lo:hi]
        if not len(seg):
            return None
        inset[side] = (lo + int(np.argmax(seg)) + 0.5) * s_mm
    x0, x1 = inset["left"], Lw - inset["right"]
    y0, y1 = inset["top"], Ww - inset["bottom"]
    inner = np.array([[x0, y0], [x0, y1], [x1, y1], [x1, y0]]) / s_mm
    q = np.hstack([inner, np.ones((4, 1))]) @ Hi.T
    return q[:, :2] / q[:, 2:3]


def find_table(bgr, corners=None, lens_k=None):
    """{"corners_px": 4x2 (distorted pixels, head-left, head-right, foot-right, foot-left),
    "lens_k": (k1, k2), "outline_ok": bool, "table": None}."""
    h, w = bgr.shape[:2]
    size = (w, h)
    mask = cloth_region(bgr)
    sides = outline_sides(mask) if mask.any() else None
    if lens_k is not None:
        k1, k2 = float(lens_k[0]), float(lens_k[1]) if len(lens_k) > 1 else 0.0
    elif sides is not None:
        k1, k2 = estimate_lens(sides, size)[0]
    else:
        k1, k2 = 0.0, 0.0
    lens = Lens(size, k1, k2)
    out = {"lens_k": (k1, k2), "outline_ok": sides is not None, "table": None}
    if corners is not None:
        out["corners_px"] = np.asarray(corners, dtype=float).reshape(4, 2)
        if lens_k is None:
            out["lens_k"] = refine_lens(bgr, out["corners_px"], (k1, k2))
        return out
    if sides is None:
        raise ValueError("no table found in the picture: give --corners")
    outer = quad_from_sides(sides, lens)
    if outer is None:
        raise ValueError("no table outline found in the picture: give --corners")
    if _upright(outer):              # the table stands upright in the picture: its head at the top
        outer = outer[[3, 0, 1, 2]]
    noses = find_noses(bgr, lens, outer)
    if noses is None:
        raise ValueError("no cushion noses found in the picture: give --corners")
    out["corners_px"] = lens.distort(noses)
    if lens_k is None:
        out["lens_k"] = refine_lens(bgr, out["corners_px"], (k1, k2))
    return out


NOSE_PASSES = ((90.0, 60.0), (25.0, 25.0), (25.0, 25.0))   # profile reach out, in (mm)


def refine_lens(bgr, corners_px, k0, table=None):
    """(k1, k2) that put the cushion noses seen along each side on the straight line
    between that side's corners (step 5 of the module's docstring), from `k0`. `table`:
    the playing area if known (a nominal 9 ft one otherwise: only the profiles' length in
    mm depends on it)."""
    import cv2
    from host.camera.geometry import Table, View
    h, w = bgr.shape[:2]
    gray = cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY)
    table = table or Table.named("9ft")
    corners = np.asarray(corners_px, dtype=float).reshape(4, 2)
    k = tuple(k0)
    for out_mm, in_mm in NOSE_PASSES:
        view = View(table, Lens((w, h), *k), corners)
        noses = nose_points(gray, view, out_mm, in_mm)
        if sum(len(p) for p in noses.values()) < 8:
            return tuple(float(v) for v in k0)   # no noses to be seen: the outline's lens
        k = fit_lens_to_noses(noses, corners, (w, h), k)
    return float(k[0]), float(k[1])


def _nose_stations(table):
    """[(side, points on its nose line (mm), the inward normal)], away from the pockets."""
    L, W = table.length, table.width
    along_long = [f for f in np.linspace(0.06, 0.94, 45) if abs(f - 0.5) > 0.07]
    along_short = list(np.linspace(0.1, 0.9, 21))
    return [("left", [(f * L, 0.0) for f in along_long], (0.0, 1.0)),
            ("right", [(f * L, W) for f in along_long], (0.0, -1.0)),
            ("head", [(0.0, f * W) for f in along_short], (1.0, 0.0)),
            ("foot", [(L, f * W) for f in along_short], (-1.0, 0.0))]


NOSE_STEP_SHARE = 0.4    # a darkening step this share of the profile's strongest may be the nose
NOSE_MIN_STEP = 3.0      # grey levels a mm: no weaker step is a nose


def nose_points(gray, view, out_mm, in_mm, step=1.0):
    """{side: distorted pixels of the nose found on each profile across it}: the innermost
    strong darkening step (going inwards), walking out from the bed: the cushion's shadow
    on the bed brightens inwards, the cushion's back against the rail (~50 mm further out)
    may be the stronger step."""
    import cv2
    offs = np.arange(-out_mm, in_mm + step, step)
    found = {}
    for side, pts, normal in _nose_stations(view.table):
        P = np.array(pts)
        grid = P[:, None, :] + offs[None, :, None] * np.array(normal)[None, None, :]
        px = view.mm_to_px(grid.reshape(-1, 2)).reshape(len(P), len(offs), 2).astype(np.float32)
        prof = cv2.remap(gray, px[..., 0], px[..., 1], cv2.INTER_LINEAR).astype(np.float32)
        # Walking in from the cushion, the light drops at the nose (the cushion's face is
        # in its own shadow) and comes back slowly over the bed: a darkening step.
        g = -np.diff(cv2.GaussianBlur(prof, (5, 1), 0), axis=1)
        top = g.max(axis=1, keepdims=True)
        strong = (g >= NOSE_STEP_SHARE * top) & (g >= np.roll(g, 1, axis=1)) & (g >= np.roll(g, -1, axis=1))
        k = np.where(strong, np.arange(g.shape[1])[None, :], -1).max(axis=1)
        ok = (k >= 0) & (top[:, 0] > NOSE_MIN_STEP)
        o = offs[np.maximum(k, 0)] + step / 2
        found[side] = view.mm_to_px((P + o[:, None] * np.array(normal))[ok])
    return found


_SIDE_CORNERS = {"left": (0, 3), "right": (1, 2), "head": (0, 1), "foot": (3, 2)}
K_RANGE = ((-1.6, 0.6), (-1.0, 1.5))     # (k1, k2) searched: wide lenses included


def fit_lens_to_noses(noses, corners, size, k0):
    """(k1, k2) near `k0` whose undistortion puts the nose points nearest the lines
    through their sides' corners (the best 70 % of each side: a ball by the cushion, a
    diamond's glint), on finer and finer grids; a lens that folds the picture is none."""
    def cost(k):
        if not (K_RANGE[0][0] <= k[0] <= K_RANGE[0][1] and K_RANGE[1][0] <= k[1] <= K_RANGE[1][1]):
            return math.inf
        r2 = 0.25                 # the image's corner, in units of the focal length (the diagonal)
        if 1 + 3 * k[0] * r2 + 5 * k[1] * r2 * r2 <= 0.2 or 1 + k[0] * r2 + k[1] * r2 * r2 <= 0.3:
            return math.inf
        lens = Lens(size, k[0], k[1])
        cu = lens.undistort(corners)
        total = 0.0
        for side, p in noses.items():
            if len(p) < 5:
                continue
            a, b = cu[_SIDE_CORNERS[side][0]], cu[_SIDE_CORNERS[side][1]]
            d = b - a
            n = np.array([-d[1], d[0]]) / max(float(np.hypot(*d)), 1e-9)
            r = np.sort(np.abs((lens.undistort(p) - a) @ n))
            r = r[:max(3, int(0.7 * len(r)))]
            total += float(np.mean(r * r))
        return total
    best, span = (float(k0[0]), float(k0[1])), (1.0, 1.0)
    for _ in range(6):
        grid = [(best[0] + a, best[1] + b)
                for a in np.linspace(-span[0], span[0], 9) for b in np.linspace(-span[1], span[1], 9)]
        best = min(grid, key=cost)
        span = (span[0] / 3, span[1] / 3)
    return best


def rotate_half_turn(corners):
    """The same corners with head and foot swapped (a table seen the other way round)."""
    c = np.asarray(corners).reshape(4, 2)
    return c[[2, 3, 0, 1]]


def angle_deg(a, b):
    return math.degrees(math.atan2(b[1] - a[1], b[0] - a[0]))
