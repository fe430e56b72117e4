"""The static table as the camera sees it: cloth, cushions, rails, pockets, diamonds.

Every image pixel's ray is cast into two horizontal planes: the cushion
noses' plane (NOSE_H above the cloth; the cushions and rails are drawn at
that height) and the cloth.  A ray that meets the nose plane outside the
playing area sees a cushion, a rail, a pocket or the floor; otherwise it goes
on to the cloth (or, past the far noses, under a cushion's overhang).  So the
boundary between cloth and cushion in the image is exactly the projection of
the cushion noses at their height, which is what corners_px gives.

Lighting is the scene's lamps (scene.Light): irradiance with the cosine and
inverse-square falloff of each lamp, plus ambient light; the lens's
vignetting is baked into the background and applied to the balls too.
"""

import numpy as np

# Pocket and cushion geometry as pooltool 0.6's default table (so balls drop where holes are drawn)
NOSE_H = 36.576  # cushion nose height above the cloth, mm (64 % of a ball's diameter)
CUSHION_W = 50.8  # nose to the rail's inner edge
RAIL_W = 125.0  # the wooden rail
CORNER_JAW = (85.0, 1.2)  # corner jaws: the cushion starts at 85 - 1.2 * (distance out) from the corner
SIDE_JAW = (72.0, 0.15)  # side jaws: half the mouth is 72 - 0.15 * (distance out)
CORNER_HOLE = (29.5, 62.0)  # hole centre's offset outwards on each axis, radius
SIDE_HOLE = (68.5, 64.5)
RIM_W = 12.0  # the pocket's liner around the hole

CLOTH, CUSHION, RAIL, POCKET, FLOOR, UNDER = range(6)


def classify_rail_plane(x, y, L, W):
    """Labels (CUSHION/RAIL/POCKET/FLOOR) and the rim mask of points of the nose plane outside
    the playing area; also the outward distance from the nose."""
    d_out = np.maximum.reduce([-x, x - L, -y, y - W])
    label = np.where(d_out < CUSHION_W, CUSHION, np.where(d_out < CUSHION_W + RAIL_W, RAIL, FLOOR))
    hole = np.zeros(x.shape, dtype=bool)
    rim = np.zeros(x.shape, dtype=bool)
    for cx, cy, sx, sy in ((0, 0, -1, -1), (0, W, -1, 1), (L, W, 1, 1), (L, 0, 1, -1)):
        off, r = CORNER_HOLE
        d = np.hypot(x - (cx + sx * off), y - (cy + sy * off))
        hole |= d < r
        rim |= d < r + RIM_W
        # the jaws: the cushion along each rail starts CORNER_JAW from the corner at its nose
        # and nearer the corner further back (the pocket's throat narrows)
        along_x = np.abs(x - cx)
        along_y = np.abs(y - cy)
        in_band = d_out < CUSHION_W
        jaw = CORNER_JAW[0] - CORNER_JAW[1] * d_out
        out_x = (x < 0) | (x > L)
        out_y = (y < 0) | (y > W)
        along = np.where(out_x & out_y, 0.0, np.where(out_y, along_x, along_y))
        hole |= in_band & (along < jaw)
    for cy, sy in ((0, -1), (W, 1)):
        off, r = SIDE_HOLE
        d = np.hypot(x - L / 2, y - (cy + sy * off))
        hole |= d < r
        rim |= d < r + RIM_W
        outside_side = (y - cy) * sy > 0
        hole |= outside_side & (d_out < CUSHION_W) & (np.abs(x - L / 2) < SIDE_JAW[0] - SIDE_JAW[1] * d_out)
    label = np.where(hole, POCKET, label)
    rim &= ~hole & (label != FLOOR)
    return label, rim, d_out


def in_hole(x, y, L, W):
    """Points of the cloth's plane over a pocket's hole."""
    off, r = CORNER_HOLE
    m = np.zeros(x.shape, dtype=bool)
    for cx, cy, sx, sy in ((0, 0, -1, -1), (0, W, -1, 1), (L, W, 1, 1), (L, 0, 1, -1)):
        m |= np.hypot(x - (cx + sx * off), y - (cy + sy * off)) < r
    off, r = SIDE_HOLE
    for cy, sy in ((0, -1), (W, 1)):
        m |= np.hypot(x - L / 2, y - (cy + sy * off)) < r
    return m


def diamonds(x, y, L, W):
    """Mask of the sights (diamonds) inlaid on the rails' tops."""
    dist = CUSHION_W + RAIL_W * 0.45
    m = np.zeros(x.shape, dtype=bool)
    size = 10.0
    for k in range(1, 8):
        if k == 4:
            continue
        for yy in (-dist, W + dist):
            m |= np.abs(x - k * L / 8) + np.abs(y - yy) < size
    for k in range(1, 4):
        for xx in (-dist, L + dist):
            m |= np.abs(x - xx) + np.abs(y - k * W / 4) < size
    return m


class Background:
    """The static image of the table and, per pixel, what it is and where it lies on the cloth."""

    def __init__(self, camera, table_mm, scene, rng):
        w, h = camera.size
        L, W = table_mm
        uu, vv = np.meshgrid(np.arange(w, dtype=float), np.arange(h, dtype=float))
        uv = np.stack([uu.ravel(), vv.ravel()], axis=1)
        d = camera.rays(uv)
        C = camera.C
        s_nose = (-NOSE_H - C[2]) / d[:, 2]
        pn = C + s_nose[:, None] * d
        s_cloth = (0.0 - C[2]) / d[:, 2]
        pc = C + s_cloth[:, None] * d
        inside_nose = (pn[:, 0] >= 0) & (pn[:, 0] <= L) & (pn[:, 1] >= 0) & (pn[:, 1] <= W)
        inside_cloth = (pc[:, 0] >= 0) & (pc[:, 0] <= L) & (pc[:, 1] >= 0) & (pc[:, 1] <= W)
        rail_label, rim, d_out = classify_rail_plane(pn[:, 0], pn[:, 1], L, W)
        label = np.where(inside_nose, np.where(inside_cloth, CLOTH, UNDER), rail_label)
        # pixels whose ray does not project back onto them (beyond the lens model's reach) see the floor
        back = camera.project(pn)
        label = np.where(np.hypot(back[:, 0] - uv[:, 0], back[:, 1] - uv[:, 1]) < 0.5, label, FLOOR)
        # the holes reach into the playing area: the slate is cut back at every pocket
        label = np.where((label == CLOTH) & in_hole(pc[:, 0], pc[:, 1], L, W), POCKET, label)
        self.label = label.reshape(h, w)
        self.cloth_xy = pc[:, :2].reshape(h, w, 2).astype(np.float32)
        self.vignette = vignette_map(camera, scene.vignette).astype(np.float32)
        self.image = self._paint(pn, pc, label, rim, d_out, table_mm, scene, rng, (h, w))

    def _paint(self, pn, pc, label, rim, d_out, table_mm, scene, rng, shape):
        L, W = table_mm
        h, w = shape
        light = scene.light
        up = np.array([0.0, 0.0, -1.0])
        out = np.zeros((h * w, 3), dtype=np.float32)
        cloth = np.asarray(scene.cloth_bgr, dtype=np.float32)
        # cloth: lamps, felt grain, slow blotches, darker near the cushions (their shadow)
        m = label == CLOTH
        P = np.concatenate([pc[m][:, :2], np.zeros((m.sum(), 1))], axis=1)
        E = light.irradiance(P, up)
        d_in = np.minimum.reduce([pc[m, 0], L - pc[m, 0], pc[m, 1], W - pc[m, 1]])
        ao = 1.0 - 0.35 * np.exp(-d_in / 9.0)
        tex = 1.0 + scene.cloth_grain * rng.standard_normal(m.sum()) + _blotches(rng, shape)[m] * 0.04
        out[m] = cloth[None, :] * (E * ao * tex)[:, None]
        # spots: the foot spot
        spot = m.copy()
        spot[m] = np.hypot(pc[m, 0] - 0.75 * L, pc[m, 1] - W / 2) < 7.0
        out[spot] = out[spot] * 0.45 + np.float32(0.55 * 210)
        # under a cushion's overhang: the cloth there in the cushion's shade, a share of what the
        # lamps give that place (until 2026-12-07 a fixed 0.35 of the brightest cloth: under a
        # single spot lamp that band shone brighter than the open cloth beside it at the table's
        # ends, which no overhang does, and the nose looked 15-25 mm further in than it is)
        m = label == UNDER
        P = np.concatenate([pc[m][:, :2], np.zeros((m.sum(), 1))], axis=1)
        out[m] = cloth[None, :] * (0.35 * light.irradiance(P, up))[:, None]
        # cushion tops: the same cloth, sloping towards the nose, a bright nose line
        m = label == CUSHION
        nrm = _cushion_normals(pn[m], L, W)
        P = pn[m]
        E = light.irradiance(P, nrm)
        nose = np.where(d_out[m] < 3.0, 1.25, 1.0)
        out[m] = cloth[None, :] * (0.9 * E * nose)[:, None] * (1.0 + scene.cloth_grain * rng.standard_normal((m.sum(), 1)))
        # rails: wood with grain along the rail, diamonds
        m = label == RAIL
        P = pn[m]
        E = light.irradiance(P, up)
        along = np.where(np.abs(P[:, 0] - L / 2) > L / 2, P[:, 1], P[:, 0])
        grain = 1.0 + 0.08 * np.sin(d_out[m] * 0.9 + 3.0 * np.sin(along * 0.013)) + 0.03 * rng.standard_normal(m.sum())
        out[m] = np.asarray(scene.rail_bgr, dtype=np.float32)[None, :] * (E * grain)[:, None]
        dm = diamonds(P[:, 0], P[:, 1], L, W)
        idx = np.nonzero(m)[0][dm]
        out[idx] = np.array([215, 225, 230], dtype=np.float32) * E[dm][:, None]
        # the pockets' liners and holes
        m = rim & (label != FLOOR) & (label != CLOTH) & (label != UNDER)
        out[m] = np.array([30, 32, 36], dtype=np.float32) * light.irradiance(pn[m], up)[:, None]
        m = label == POCKET
        out[m] = np.array([10, 10, 11], dtype=np.float32) * (0.6 + 0.4 * light.level)
        # the floor around the table, far below and dim
        m = label == FLOOR
        out[m] = np.asarray(scene.floor_bgr, dtype=np.float32) * (1.0 + 0.05 * rng.standard_normal((m.sum(), 1)))
        img = out.reshape(h, w, 3) * light.tint[None, None, :]
        return img * self.vignette[:, :, None]


def _cushion_normals(P, L, W):
    """Cushion tops slope down towards the nose: their normals lean 12 degrees into the table."""
    n = np.zeros((len(P), 3))
    n[:, 2] = -np.cos(np.radians(12))
    lean = np.sin(np.radians(12))
    n[P[:, 0] < 0, 0] = lean
    n[P[:, 0] > L, 0] = -lean
    n[P[:, 1] < 0, 1] = lean
    n[P[:, 1] > W, 1] = -lean
    return n / np.linalg.norm(n, axis=1, keepdims=True)


def _blotches(rng, shape):
    """Slow variation of the cloth (wear, nap), unit amplitude, as an image."""
    import cv2

    h, w = shape
    small = rng.standard_normal((6, 10)).astype(np.float32)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC).ravel()


def vignette_map(camera, strength):
    """Relative illumination of the lens: 1 at the centre, falling as (1 + s r^2)^-2 (r: distance
    from the principal point in units of the half-diagonal)."""
    w, h = camera.size
    uu, vv = np.meshgrid(np.arange(w, dtype=np.float32), np.arange(h, dtype=np.float32))
    r2 = ((uu - camera.c[0]) ** 2 + (vv - camera.c[1]) ** 2) / ((w / 2) ** 2 + (h / 2) ** 2)
    return 1.0 / (1.0 + strength * r2) ** 2
