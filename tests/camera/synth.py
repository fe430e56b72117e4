"""Small synthetic footage for the camera's unit tests (not the project's renderer).

A toy table (constant rolling deceleration, equal-mass collisions, cushions that
reflect with a loss, pockets that swallow) and a toy camera (top-down drawing warped
through a slight perspective and barrel distortion, vignetting, shading, stripes that
turn, a few sub-frames of blur, sensor noise). It is deliberately simple: the real
footage comes from tools/footage (pooltool trajectories, issue 18); this is only enough
to give the analyser's pieces a known truth in a few hundred milliseconds.
"""
import math

import numpy as np

from host.camera.geometry import BALL_R_MM, Lens, Table, View

R = BALL_R_MM
COLOURS_BGR = {  # the usual set: 1 yellow, 2 blue, 3 red, 4 purple, 5 orange, 6 green, 7 maroon
    1: (0, 200, 240), 2: (190, 70, 20), 3: (30, 30, 210), 4: (130, 40, 90),
    5: (20, 120, 245), 6: (60, 130, 20), 7: (30, 30, 120), 8: (25, 25, 25),
}
WHITE = (235, 240, 240)


class ToyTable:
    """Balls on a table: step() advances by dt seconds, recording what the truth needs."""

    def __init__(self, table, balls, decel=600.0, e_cushion=0.8):
        self.table = table
        self.pos = {b: np.array(p, dtype=float) for b, p in balls.items()}
        self.vel = {b: np.zeros(2) for b in balls}
        self.angle = {b: 0.0 for b in balls}
        self.axis = {b: 0.0 for b in balls}
        self.decel = decel
        self.e = e_cushion
        self.t = 0.0
        self.events = []          # (t, kind, a, b): kind "ball", "cushion", "pocket"

    def strike(self, ball, vx, vy):
        self.vel[ball] = np.array([vx, vy], dtype=float)

    def moving(self):
        return any(np.hypot(*v) > 0 for v in self.vel.values())

    def step(self, dt):
        for b in self.pos:
            v = self.vel[b]
            s = np.hypot(*v)
            if s == 0:
                continue
            self.pos[b] = self.pos[b] + v * dt
            self.angle[b] += s * dt / R
            self.axis[b] = math.atan2(v[1], v[0])
            ns = max(0.0, s - self.decel * dt)
            self.vel[b] = v * (ns / s)
        self._collide()
        self._cushions()
        self.t += dt

    def _collide(self):
        ids = list(self.pos)
        for i, a in enumerate(ids):
            for b in ids[i + 1:]:
                d = self.pos[b] - self.pos[a]
                dist = np.hypot(*d)
                if dist >= 2 * R or dist == 0:
                    continue
                n = d / dist
                rel = np.dot(self.vel[a] - self.vel[b], n)
                if rel <= 0:
                    continue
                self.vel[a] = self.vel[a] - rel * n
                self.vel[b] = self.vel[b] + rel * n
                push = (2 * R - dist) / 2
                self.pos[a] -= n * push
                self.pos[b] += n * push
                self.events.append((self.t, "ball", a, b))

    def _cushions(self):
        L, W = self.table.length, self.table.width
        for b in list(self.pos):
            x, y = self.pos[b]
            for pk in self.table.pockets_mm():
                if np.hypot(x - pk[0], y - pk[1]) < 62:
                    self.events.append((self.t, "pocket", b, None))
                    del self.pos[b], self.vel[b]
                    break
            else:
                if self.table.near_pocket(x, y):
                    continue
                v = self.vel[b]
                for axis, lo, hi in ((0, R, L - R), (1, R, W - R)):
                    if (self.pos[b][axis] < lo and v[axis] < 0) or (self.pos[b][axis] > hi and v[axis] > 0):
                        v[axis] = -v[axis] * self.e
                        v[1 - axis] *= 0.95
                        self.events.append((self.t, "cushion", b, None))


def truth_of(events, rest, t_start, t_end, on_break=False):
    """The CLI record the analyser should print for this toy shot."""
    first = next((e[3] if e[2] == 0 else e[2] for e in events
                  if e[1] == "ball" and 0 in (e[2], e[3])), None)
    t_first = next((e[0] for e in events if e[1] == "ball" and 0 in (e[2], e[3])), None)
    railed = sorted({e[2] for e in events if e[1] == "cushion" and t_first is not None and e[0] >= t_first})
    pocketed = sorted({e[2] for e in events if e[1] == "pocket"})
    return {"t_start": t_start, "t_end": t_end, "first_contact": first,
            "railed_after_contact": railed,
            "object_balls_railed_on_break": len([b for b in railed if b != 0]) if on_break else None,
            "pocketed": pocketed,
            "rest_mm": {str(b): [float(p[0]), float(p[1])] for b, p in sorted(rest.items())}}


class ToyCamera:
    """Draws a ToyTable as a ceiling camera would: perspective a few degrees off, k1 barrel."""

    def __init__(self, table, size=(640, 360), k1=-0.08, cloth=(40, 120, 10), seed=0,
                 noise=3.0, subframes=3):
        import cv2
        self.cv2 = cv2
        self.table = table
        self.size = size
        w, h = size
        L, W = table.length, table.width
        mx, my = 0.06 * w, 0.09 * h
        # A trapezoid (the camera a few degrees towards the head), then the lens.
        # Head-left (the image's top left), head-right, foot-right, foot-left.
        ideal = np.array([[mx, my + 4], [mx + 6, h - my], [w - mx - 8, h - my - 3], [w - mx, my]])
        self.lens = Lens(size, k1=k1)
        self.corners_px = self.lens.distort(ideal)
        self.view = View(table, self.lens, self.corners_px)
        self.s = 2.0                                   # mm per pixel of the top-down drawing
        self.margin = 160.0
        self.cloth = cloth
        self.rng = np.random.default_rng(seed)
        self.noise = noise
        self.subframes = subframes
        self._maps = self._camera_maps()
        self._base = self._draw_table()
        self.occluder = None                           # [(x, y), ...] polygon in mm, or None

    def _camera_maps(self):
        w, h = self.size
        gx, gy = np.meshgrid(np.arange(w), np.arange(h))
        mm = self.view.px_to_mm(np.stack([gx.ravel(), gy.ravel()], axis=1))
        mx = ((mm[:, 0] + self.margin) / self.s).reshape(h, w).astype(np.float32)
        my = ((mm[:, 1] + self.margin) / self.s).reshape(h, w).astype(np.float32)
        return mx, my

    def _to_px(self, x, y):
        return (x + self.margin) / self.s, (y + self.margin) / self.s

    def _draw_table(self):
        cv2 = self.cv2
        L, W = self.table.length, self.table.width
        cols = int((L + 2 * self.margin) / self.s)
        rows = int((W + 2 * self.margin) / self.s)
        img = np.zeros((rows, cols, 3), np.uint8)
        img[:] = (30, 55, 95)                          # wooden rails
        c0, r0 = self._to_px(-50, -50)                 # cushion tops: the cloth, lit more
        c1, r1 = self._to_px(L + 50, W + 50)
        cushion = tuple(min(255, int(v * 1.35) + 8) for v in self.cloth)
        cv2.rectangle(img, (int(c0), int(r0)), (int(c1), int(r1)), cushion, -1)
        x0, y0 = self._to_px(0, 0)
        x1, y1 = self._to_px(L, W)
        cv2.rectangle(img, (int(x0), int(y0)), (int(x1), int(y1)), self.cloth, -1)
        for pk in self.table.pockets_mm():
            px, py = self._to_px(*pk)
            cv2.circle(img, (int(px), int(py)), int(60 / self.s), (8, 8, 8), -1)
        # Vignetting and uneven light: darker towards the ends.
        yy, xx = np.mgrid[0:rows, 0:cols]
        r = np.hypot((xx - cols / 2) / cols, (yy - rows / 2) / rows)
        light = (1.0 - 0.5 * r * r)[..., None]
        return np.clip(img * light, 0, 255).astype(np.uint8)

    def _draw_ball(self, img, b, x, y, angle, axis):
        cv2 = self.cv2
        px, py = self._to_px(x, y)
        rad = R / self.s
        c = (int(round(px * 16)), int(round(py * 16)))
        ri = int(round(rad * 16))
        base = WHITE if b == 0 else COLOURS_BGR[b if b <= 8 else b - 8]
        cv2.circle(img, c, ri, base, -1, cv2.LINE_AA, 4)
        if b >= 9:
            # A white band whose visible width turns with the roll.
            band = (0.15 + 0.15 * abs(math.cos(angle))) * rad
            ca, sa = math.cos(axis), math.sin(axis)
            x0, y0 = int(px - rad - 2), int(py - rad - 2)
            n = int(2 * rad + 5)
            patch = img[max(0, y0):y0 + n, max(0, x0):x0 + n]
            ox, oy = px - max(0, x0), py - max(0, y0)
            mask = np.zeros(patch.shape[:2], np.uint8)
            cv2.circle(mask, (int(ox * 16), int(oy * 16)), ri, 255, -1, cv2.LINE_AA, 4)
            pts = []
            for u, v in ((-band, -rad), (band, -rad), (band, rad), (-band, rad)):
                pts.append([ox + u * ca - v * sa, oy + u * sa + v * ca])
            poly = np.zeros_like(mask)
            cv2.fillConvexPoly(poly, np.array(pts, np.int32), 255)
            patch[(mask > 128) & (poly == 0)] = WHITE
        elif b == 8 or 1 <= b <= 7:
            if abs(math.sin(angle)) < 0.6:                      # the number's disc, when up
                cv2.circle(img, c, int(ri * 0.3), WHITE, -1, cv2.LINE_AA, 4)
        cv2.circle(img, (int(px - rad * 0.3), int(py - rad * 0.3)), max(1, int(rad * 0.2)),
                   (255, 255, 255), -1)

    def frame(self, states):
        """`states`: a list (one per sub-frame) of {ball: (x, y, angle, axis)}; returns BGR."""
        cv2 = self.cv2
        acc = None
        for st in states:
            img = self._base.copy()
            for b, (x, y) in self._shadows(st):
                px, py = self._to_px(x + 6, y + 6)
                cv2.circle(img, (int(px), int(py)), int(R / self.s * 1.05), (0, 0, 0), -1)
            img = cv2.addWeighted(self._base, 0.7, img, 0.3, 0)
            for b, (x, y, a, ax) in st.items():
                self._draw_ball(img, b, x, y, a, ax)
            if self.occluder is not None:
                poly = np.array([self._to_px(*p) for p in self.occluder], np.int32)
                cv2.fillPoly(img, [poly], (70, 110, 180))
            acc = img.astype(np.float32) if acc is None else acc + img
        top = (acc / len(states)).astype(np.uint8)
        out = cv2.remap(top, self._maps[0], self._maps[1], cv2.INTER_LINEAR,
                        borderMode=cv2.BORDER_CONSTANT, borderValue=(20, 20, 20))
        if self.noise:
            out = np.clip(out + self.rng.normal(0, self.noise, out.shape), 0, 255).astype(np.uint8)
        return out

    @staticmethod
    def _shadows(st):
        return [(b, (v[0], v[1])) for b, v in st.items()]


def rack_positions(table, game="eight-ball", gap=0.3):
    """Balls racked at the foot spot (a triangle of 15 or a diamond of 9) with a cue ball."""
    L, W = table.length, table.width
    fx, fy = 0.75 * L, W / 2
    d = 2 * R + gap
    rows = [1, 2, 3, 4, 5] if game == "eight-ball" else [1, 2, 3, 2, 1]
    order = ([1, 9, 2, 10, 8, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15] if game == "eight-ball"
             else [1, 2, 3, 4, 9, 5, 6, 7, 8])
    pos, k = {}, 0
    for i, n in enumerate(rows):
        for j in range(n):
            pos[order[k]] = (fx + i * d * math.sqrt(3) / 2, fy + (j - (n - 1) / 2) * d)
            k += 1
    pos[0] = (0.25 * L, W / 2 + 40)
    return pos


def film(table, camera, scripts, fps=60, still_s=0.6, lead_s=0.5, max_s=20.0):
    """Play `scripts` (a list of (ball, vx, vy) strikes, one per shot) and film them.

    Returns (frames, truths): frames a list of BGR images at `fps`, truths the CLI record
    of each shot as the toy table saw it. Between shots the table rests `still_s`.
    """
    frames, truths = [], []
    dt_sim = 0.001
    sub = camera.subframes
    t_frame = 1.0 / fps

    def states_now():
        return {b: (p[0], p[1], table.angle[b], table.axis[b]) for b, p in table.pos.items()}

    def shoot(n_frames):
        for _ in range(n_frames):
            st = []
            for k in range(sub):
                steps = int(round(t_frame / sub / dt_sim))
                for _ in range(steps):
                    table.step(dt_sim)
                st.append(states_now())
            frames.append(camera.frame(st))

    shoot(int(lead_s * fps))
    for i, (ball, vx, vy) in enumerate(scripts):
        on_break = i == 0 and len(table.pos) >= 9
        n0 = len(table.events)
        t0 = len(frames) / fps
        table.strike(ball, vx, vy)
        while table.moving() and len(frames) / fps < max_s:
            shoot(1)
        t1 = len(frames) / fps
        truths.append(truth_of(table.events[n0:], dict(table.pos), t0, t1, on_break))
        shoot(int(still_s * fps))
    return frames, truths
