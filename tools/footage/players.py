"""The player over the table: a cue stick, the bridge hand and arm, the back arm, shoulders
and head, around each stroke.  They occlude the balls and cast a soft shadow on the cloth.

Per stroke at time t_s, with the cue ball at p0 leaving in direction u:
  t_s - 2.2 .. - 1.6  the player leans in from 900 mm behind (arm and stick slide in);
  - 1.6 .. - 0.25     practice strokes (the tip 40-140 mm from the ball);
  - 0.25 .. 0         back swing to 180 mm, then forward: the tip meets the ball at t_s;
  0 .. + 0.12         follow-through (the tip goes 120 mm past where the ball was);
  + 0.12 .. + 0.7     still, down on the shot; + 0.7 .. + 1.4 stands up and leaves.
Bodies are capsules in 3D (ends and radii in mm), projected through the camera.
"""

import math

import numpy as np

SKINS = ((120, 150, 200), (90, 120, 170), (60, 85, 125), (140, 170, 215))
SLEEVES = ((40, 40, 40), (120, 60, 30), (30, 30, 110), (150, 150, 150), (60, 90, 40), (200, 200, 200))
STICK_LEN = 1470.0


def _smooth(a):
    a = min(max(a, 0.0), 1.0)
    return a * a * (3 - 2 * a)


class Stroke:
    def __init__(self, t, p0, u, speed_mm_s, rng, R):
        self.t = t
        self.p0 = np.asarray(p0, dtype=float)
        self.u = np.asarray(u, dtype=float) / max(np.linalg.norm(u), 1e-9)
        hand = 1.0 if rng.random() < 0.85 else -1.0
        self.side = np.array([self.u[1], -self.u[0]]) * hand
        self.elev = math.radians(rng.uniform(3.0, 12.0))
        self.skin = SKINS[int(rng.integers(len(SKINS)))]
        self.sleeve = SLEEVES[int(rng.integers(len(SLEEVES)))]
        self.forward = max(0.02, min(0.25, 180.0 / max(speed_mm_s / 1.2, 1.0)))
        self.practice = rng.uniform(0.55, 0.9)
        self.R = R

    def pose(self, t):
        """(gap: tip to the ball's surface mm, retreat: how far the player is back mm, rise mm)
        or None when the player is away."""
        dt = t - self.t
        if dt < -2.2 or dt > 1.4:
            return None
        retreat = 900.0 * (1 - _smooth((dt + 2.2) / 0.6)) if dt < -1.6 else 0.0
        if dt > 0.7:
            retreat = 900.0 * _smooth((dt - 0.7) / 0.7)
        if dt < -0.25 - self.forward:
            gap = 90.0 + 50.0 * math.sin(2 * math.pi * (dt + 1.6) / self.practice)
        elif dt < -self.forward:
            gap = 90.0 + 90.0 * _smooth((dt + 0.25 + self.forward) / 0.25)
        elif dt < 0:
            gap = 180.0 * (-dt / self.forward)
        else:
            gap = -120.0 * _smooth(dt / 0.12)
        return gap, retreat, retreat * 0.4

    def capsules(self, t, L, W, nose_h):
        """[(A xyz, B xyz, rA, rB, bgr)] drawn in this order (lowest first)."""
        p = self.pose(t)
        if p is None:
            return []
        gap, retreat, rise = p
        u3 = np.array([self.u[0], self.u[1], 0.0])
        s3 = np.array([self.side[0], self.side[1], 0.0])
        up = np.array([0.0, 0.0, -1.0])
        back = -u3 * math.cos(self.elev) + up * math.sin(self.elev)
        base = np.array([self.p0[0], self.p0[1], -self.R]) - u3 * retreat + up * rise
        tip = base - u3 * (self.R + gap)
        butt = tip + back * STICK_LEN
        bridge_xy = self.p0 - self.u * (self.R + 210.0 + retreat)
        inside = 0 <= bridge_xy[0] <= L and 0 <= bridge_xy[1] <= W
        bz = (-30.0 if inside else -nose_h - 30.0) - rise
        bridge = np.array([bridge_xy[0], bridge_xy[1], bz]) + s3 * 25
        elbow = bridge - u3 * 260 + s3 * 110 + up * 160
        shoulder = bridge - u3 * 560 + s3 * 210 + up * 380
        shoulder2 = shoulder - s3 * 420 + up * 20
        head = (shoulder + shoulder2) / 2 - u3 * 40 + up * 120 + s3 * 20
        grip = tip + back * (STICK_LEN - 260)
        maple, butt_c = (150, 190, 222), (34, 44, 70)
        mid = tip + back * (STICK_LEN * 0.6)
        return [
            (tip, tip + back * 12, 6.5, 6.5, (190, 120, 60)),  # chalked tip
            (tip + back * 12, tip + back * 35, 6.6, 6.8, (236, 238, 236)),  # ferrule
            (tip + back * 35, mid, 6.8, 11.5, maple),
            (mid, butt, 11.5, 15.0, butt_c),
            (bridge - u3 * 20, bridge + u3 * 55, 38, 30, self.skin),  # bridge hand
            (bridge - u3 * 20, elbow, 36, 42, self.sleeve),
            (grip - back * 40, grip + back * 40, 30, 30, self.skin),  # back hand
            (grip, shoulder2, 40, 50, self.sleeve),
            (elbow, shoulder, 45, 55, self.sleeve),
            (shoulder, shoulder2, 95, 95, self.sleeve),
            (head, head + u3 * 30, 95, 95, (30, 40, 50)),  # the back of the head, hair
        ]


def draw_capsules(camera, caps, light, box):
    """Draw capsules into a patch box (u0, v0, u1, v1), later ones over earlier ones.
    -> (colour premultiplied by alpha, alpha), float32.  cv2's anti-aliased drawing onto a
    black canvas blends the edges with black, i.e. premultiplies them."""
    import cv2

    u0, v0, u1, v1 = box
    h, w = v1 - v0, u1 - u0
    colour = np.zeros((h, w, 3), dtype=np.uint8)
    alpha = np.zeros((h, w), dtype=np.uint8)
    SH = 4  # sub-pixel bits for cv2's anti-aliased drawing
    off = np.array([u0, v0])
    for A, B, ra, rb, bgr in caps:
        za, zb = camera.to_camera(np.array([A, B]))[:, 2]
        if za <= 0 or zb <= 0:
            continue
        ends = camera.project(np.array([A, B]))
        fa, fb = camera.f[0] * ra / za, camera.f[0] * rb / zb
        d = ends[1] - ends[0]
        n = np.array([-d[1], d[0]]) / max(np.linalg.norm(d), 1e-6)
        poly = np.array([ends[0] + n * fa, ends[1] + n * fb, ends[1] - n * fb, ends[0] - n * fa])
        pts = np.round((poly - off) * (1 << SH)).astype(np.int32)
        mid = (np.asarray(A) + np.asarray(B)) / 2
        E = light.irradiance(mid[None, :], np.array([0.0, 0.0, -1.0]))[0]
        c = np.clip(np.asarray(bgr, dtype=np.float32) * min(E * 1.1, 1.3) * light.tint, 0, 255)
        c = tuple(float(v) for v in c)
        for canvas, value in ((colour, c), (alpha, 255)):
            cv2.fillConvexPoly(canvas, pts, value, cv2.LINE_AA, SH)
            for e, r in ((ends[0], fa), (ends[1], fb)):
                ctr = tuple(int(v) for v in np.round((e - off) * (1 << SH)))
                cv2.circle(canvas, ctr, int(round(r * (1 << SH))), value, -1, cv2.LINE_AA, SH)
    return colour.astype(np.float32), alpha.astype(np.float32) / 255.0


def capsule_box(camera, caps, size, margin=4):
    w, h = size
    pts = []
    for A, B, ra, rb, _ in caps:
        for P, r in ((A, ra), (B, rb)):
            z = camera.to_camera(np.asarray(P))[2]
            if z <= 0:
                continue
            uv = camera.project(np.asarray(P))
            rp = camera.f[0] * r / z + margin
            pts.append((uv[0] - rp, uv[1] - rp))
            pts.append((uv[0] + rp, uv[1] + rp))
    if not pts:
        return None
    pts = np.array(pts)
    u0, v0 = np.floor(pts.min(axis=0)).astype(int)
    u1, v1 = np.ceil(pts.max(axis=0)).astype(int)
    u0, v0, u1, v1 = max(u0, 0), max(v0, 0), min(u1, w), min(v1, h)
    if u0 >= u1 or v0 >= v1:
        return None
    return u0, v0, u1, v1
