"""Balls as the camera sees them: shaded spheres with their colours, bands and numbers.

Each ball is rendered into a small patch around it, never the whole frame:
every patch pixel's ray is intersected with the sphere (the lens taken as
locally linear over the ball, exact perspective), the surface normal is
turned into the ball's own frame by its orientation (so stripes and numbers
turn as it rolls) to look up its colour, and the lamps shade it (diffuse,
specular highlights, the cloth's bounce from below).

A ball's own frame: the number circles are centred on its +x and -x axes,
a stripe's band runs around its equator (z = 0) through them.
"""

import math

import numpy as np

# BGR albedo, display units, as a ball shows under the brightest light
BALL_BGR = {
    0: (228, 234, 234), 1: (12, 190, 242), 2: (165, 52, 22), 3: (34, 26, 212), 4: (128, 36, 82),
    5: (10, 105, 240), 6: (62, 118, 14), 7: (30, 30, 122), 8: (20, 20, 20),
}
WHITE = np.array([226, 232, 232], dtype=np.float32)
INK = np.array([26, 24, 24], dtype=np.float32)
STRIPE_Z = math.sin(math.radians(37))  # the band covers |latitude| < 37 degrees
CIRCLE = math.radians(23)  # angular radius of a number's white circle
GLYPH = 48  # glyph texture size, pixels
SHININESS = 260.0
SPECULAR = 1.4


def base_bgr(number, palette=None):
    """A ball's colour: the standard set's, or a clip's own set (palette: colour number 0-8 -> BGR)."""
    key = number if number <= 8 else number - 8
    return (palette or BALL_BGR)[key]


def is_stripe(number):
    return number >= 9


def make_glyphs():
    """Black digits on white, one texture per ball number (1-15), values 0 (ink) .. 1."""
    import cv2

    glyphs = {}
    for n in range(1, 16):
        img = np.full((GLYPH, GLYPH), 255, dtype=np.uint8)
        text = str(n)
        scale = 1.05 if n < 10 else 0.82
        (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_DUPLEX, scale, 2)
        org = ((GLYPH - tw) // 2, (GLYPH + th) // 2)
        cv2.putText(img, text, org, cv2.FONT_HERSHEY_DUPLEX, scale, 0, 2, cv2.LINE_AA)
        if n in (6, 9):  # the underline that tells a 6 from a 9
            cv2.line(img, (GLYPH // 2 - 7, org[1] + 4), (GLYPH // 2 + 7, org[1] + 4), 0, 2, cv2.LINE_AA)
        glyphs[n] = img.astype(np.float32) / 255.0
    return glyphs


def albedo(number, nb, glyphs, palette=None):
    """Colours (M, 3) of a ball's surface at body-frame normals nb (M, 3)."""
    base = np.asarray(base_bgr(number, palette), dtype=np.float32)
    out = np.broadcast_to(base, nb.shape).copy()
    if number == 0:
        return out
    if is_stripe(number):
        out[np.abs(nb[:, 2]) >= STRIPE_Z] = WHITE
    cos_c = math.cos(CIRCLE)
    tan_c = math.tan(CIRCLE)
    g = glyphs[number]
    for sign in (1.0, -1.0):
        c = sign * nb[:, 0]
        m = c > cos_c
        if not m.any():
            continue
        a = sign * nb[m, 1] / c[m] / tan_c  # e1 = sign * y, e2 = z: e1 x e2 = the pole
        b = nb[m, 2] / c[m] / tan_c
        col = np.clip(((a + 1) * 0.5 * (GLYPH - 1)).round().astype(int), 0, GLYPH - 1)
        row = np.clip(((1 - b) * 0.5 * (GLYPH - 1)).round().astype(int), 0, GLYPH - 1)
        ink = g[row, col][:, None]
        out[m] = WHITE * ink + INK * (1 - ink)
    return out


def render_ball(camera, light, number, centers, Qs, glyphs, cloth_bgr, pad=2, palette=None):
    """A ball at the world centres (K, 3), turned by Qs (K, 3, 3, body -> world): the K
    sub-frame samples of one exposure, computed together on the patch that holds them all.
    -> (u0, v0, colour (h, w, 3) premultiplied and summed over the samples, alpha summed
    (h, w)) or None off-image; divide both by K for the exposure's average."""
    centers = np.asarray(centers, dtype=float).reshape(-1, 3)
    Qs = np.asarray(Qs, dtype=float).reshape(-1, 3, 3)
    Pc = camera.to_camera(centers)
    if (Pc[:, 2] <= 0).any():
        return None
    R = float(-centers[0, 2])
    uv = camera.project(centers)
    J = camera.local_jacobian(centers[len(centers) // 2])
    scale = math.sqrt(abs(np.linalg.det(J)))
    r_px = R / Pc[:, 2] * scale * 1.15 + pad
    w, h = camera.size
    u0 = max(int(math.floor((uv[:, 0] - r_px).min())), 0)
    v0 = max(int(math.floor((uv[:, 1] - r_px).min())), 0)
    u1 = min(int(math.ceil((uv[:, 0] + r_px).max())) + 1, w)
    v1 = min(int(math.ceil((uv[:, 1] + r_px).max())) + 1, h)
    if u0 >= u1 or v0 >= v1:
        return None
    uu, vv = np.meshgrid(np.arange(u0, u1, dtype=float), np.arange(v0, v1, dtype=float))
    uu, vv = uu.ravel(), vv.ravel()
    Jinv = np.linalg.inv(J)
    du = uu[None, :] - uv[:, 0:1]
    dv = vv[None, :] - uv[:, 1:2]
    xn = Pc[:, 0:1] / Pc[:, 2:3] + Jinv[0, 0] * du + Jinv[0, 1] * dv
    yn = Pc[:, 1:2] / Pc[:, 2:3] + Jinv[1, 0] * du + Jinv[1, 1] * dv
    dd = xn * xn + yn * yn + 1.0
    b = xn * Pc[:, 0:1] + yn * Pc[:, 1:2] + Pc[:, 2:3]
    pp = (Pc * Pc).sum(axis=1)[:, None]
    perp = np.sqrt(np.maximum(pp - b * b / dd, 0.0))
    alpha = np.clip((R - perp) * (scale / Pc[:, 2:3]) + 0.5, 0.0, 1.0)
    ks, ps = np.nonzero(alpha > 0)
    if len(ks) == 0:
        return None
    a = alpha[ks, ps]
    d = np.stack([xn[ks, ps], yn[ks, ps], np.ones(len(ks))], axis=1)
    ddm, bm = dd[ks, ps], b[ks, ps]
    cc = pp[ks, 0] - R * R
    sdist = (bm - np.sqrt(np.maximum(bm * bm - ddm * cc, 0.0))) / ddm
    X = sdist[:, None] * d
    n_c = X - Pc[ks]
    n_c /= np.linalg.norm(n_c, axis=1, keepdims=True)
    n_w = n_c @ camera.R
    view_w = (-X / np.linalg.norm(X, axis=1, keepdims=True)) @ camera.R
    nb = np.einsum("mi,mij->mj", n_w, Qs[ks])  # body = Q^T n_w
    col = albedo(number, nb, glyphs, palette)
    P_w = centers[ks] + n_w * R
    E = light.irradiance(P_w, n_w)
    bounce = np.maximum(n_w[:, 2], 0.0) * 0.22 * light.level  # the cloth lights the lower half
    shade = col * E[:, None] + np.asarray(cloth_bgr, dtype=np.float32) * bounce[:, None] * (col / 255.0)
    spec = np.zeros(len(n_w))
    for lx, ly, lz, p in light.lamps:
        l = np.array([lx, ly, lz]) - P_w
        r2 = (l * l).sum(axis=1)
        l /= np.sqrt(r2)[:, None]
        hv = l + view_w
        hv /= np.linalg.norm(hv, axis=1, keepdims=True)
        spec += p * light.scale * (lz * lz / r2) * np.maximum((n_w * hv).sum(axis=1), 0.0) ** SHININESS
    shade = (shade + (SPECULAR * 255.0 * spec)[:, None]) * light.tint[None, :] * a[:, None]
    n_pix = len(uu)
    colour = np.stack([np.bincount(ps, weights=shade[:, c], minlength=n_pix) for c in range(3)], axis=1)
    alpha_sum = np.bincount(ps, weights=a, minlength=n_pix)
    hh, ww = v1 - v0, u1 - u0
    return u0, v0, colour.reshape(hh, ww, 3).astype(np.float32), alpha_sum.reshape(hh, ww).astype(np.float32)


def shadow_box(camera, light, xy, R, size):
    """Pixel box (u0, v0, u1, v1) that holds a ball's shadows on the cloth."""
    pts = [(xy[0], xy[1])]
    for lx, ly, lz, _ in light.lamps:
        h = -lz
        k = h / (h - R)
        sx, sy = lx + (xy[0] - lx) * k, ly + (xy[1] - ly) * k
        pts.append((sx, sy))
    pts = np.array(pts)
    lo, hi = pts.min(axis=0) - 1.8 * R, pts.max(axis=0) + 1.8 * R
    corners = np.array([[lo[0], lo[1], 0], [lo[0], hi[1], 0], [hi[0], hi[1], 0], [hi[0], lo[1], 0]])
    uv = camera.project(corners)
    w, h = size
    u0, v0 = np.floor(uv.min(axis=0)).astype(int)
    u1, v1 = np.ceil(uv.max(axis=0)).astype(int) + 1
    return max(u0, 0), max(v0, 0), min(u1, w), min(v1, h)


def shadow_factor(light, xy, R, cloth_xy, on_cloth):
    """Multiplicative darkening (h, w) of the cloth pixels (world xy given per pixel) by a ball
    at xy: each lamp's soft shadow weighted by that lamp's share of the light, and the dark
    contact spot right under the ball."""
    x = cloth_xy[..., 0]
    y = cloth_xy[..., 1]
    P = np.array([[xy[0], xy[1], 0.0]])
    up = np.array([0.0, 0.0, -1.0])
    total = light.irradiance(P, up)[0]
    f = np.ones(x.shape, dtype=np.float32)
    for lx, ly, lz, p in light.lamps:
        h = -lz
        k = h / (h - R)
        sx, sy = lx + (xy[0] - lx) * k, ly + (xy[1] - ly) * k
        share = p * light.scale * (h ** 3) / (h * h + (xy[0] - lx) ** 2 + (xy[1] - ly) ** 2) ** 1.5 / total
        pen = 4.0 + 0.25 * math.hypot(sx - xy[0], sy - xy[1])  # lamps are not points
        d = np.hypot(x - sx, y - sy)
        occ = np.clip((R * k - d) / pen + 0.5, 0.0, 1.0)
        f -= (0.92 * share * occ).astype(np.float32)
    d0 = np.hypot(x - xy[0], y - xy[1])
    f -= (0.5 * np.exp(-(d0 / (0.5 * R)) ** 2)).astype(np.float32)
    f = np.maximum(f, 0.08)
    return np.where(on_cloth, f, 1.0).astype(np.float32)
