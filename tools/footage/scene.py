"""Everything about a clip that is not the balls' motion, drawn from a seed.

A Scene fixes the camera (height, tilt, roll, focal length, distortion), the
light (lamps, level, colour cast, vignetting), the cloth and rail colours,
the frame rate, exposure, sensor noise and compression.  Bands that a set is
reported by (light, cloth, fps) can be forced; the rest is drawn.
"""

import numpy as np

from .balls import BALL_BGR
from .camera import Camera
from .table import CUSHION_W, NOSE_H, RAIL_W

CLOTHS = {  # BGR as the camera shows them under the brightest light
    "green": (62, 128, 30),
    "blue": (160, 92, 28),
    "burgundy": (40, 30, 120),
    "grey": (122, 118, 112),
}
RAILS = {"walnut": (38, 60, 96), "mahogany": (30, 38, 88), "black": (34, 34, 36), "oak": (70, 120, 165)}
# name: (level, lamps, tint BGR, ambient); lamps as (x fraction, y fraction, height mm, power)
LIGHTS = {
    "even": (1.0, ((0.2, 0.5, 1000, 0.55), (0.5, 0.5, 1000, 0.55), (0.8, 0.5, 1000, 0.55)), (1.0, 1.0, 1.0), 0.18),
    "dim": (0.6, ((0.25, 0.5, 950, 0.6), (0.75, 0.5, 950, 0.6)), (0.95, 1.0, 1.02), 0.12),
    "spot": (0.95, ((0.45, 0.45, 850, 1.0),), (1.0, 1.0, 1.0), 0.08),
    "warm": (0.8, ((0.3, 0.5, 1000, 0.6), (0.7, 0.5, 1000, 0.6)), (0.78, 0.92, 1.06), 0.15),
}
SIZES = ((1280, 720),)
FPS = (60, 120)


class Light:
    """Lamps over the table: each gives power * h^3 / r^3 on a level surface right below it at
    height h (cosine and inverse square), more generally power * h^2 * cos / r^2."""

    def __init__(self, name, table_mm, rng):
        level, lamps, tint, ambient = LIGHTS[name]
        L, W = table_mm
        jitter = lambda s: rng.uniform(-s, s)  # noqa: E731
        self.name = name
        self.lamps = np.array([(fx * L + jitter(60), fy * W + jitter(60), -(h + jitter(60)), p)
                               for fx, fy, h, p in lamps])
        self.tint = np.array(tint, dtype=np.float32) * np.float32(1.0 + jitter(0.04))
        self.ambient = ambient
        self.level = level
        # normalise: the brightest point of the cloth gets `level`
        xs, ys = np.meshgrid(np.linspace(0, L, 21), np.linspace(0, W, 11))
        P = np.stack([xs.ravel(), ys.ravel(), np.zeros(xs.size)], axis=1)
        self.scale = 1.0
        self.scale = level / self.irradiance(P, np.array([0.0, 0.0, -1.0])).max()

    def irradiance(self, P, n):
        """Irradiance at world points P (N, 3) with normals n ((3,) or (N, 3)), ambient included."""
        P = np.asarray(P, dtype=float)
        n = np.broadcast_to(np.asarray(n, dtype=float), P.shape)
        E = np.full(len(P), self.ambient)
        for lx, ly, lz, p in self.lamps:
            d = np.array([lx, ly, lz]) - P
            r = np.linalg.norm(d, axis=1)
            cos = np.maximum((d * n).sum(axis=1) / r, 0.0)
            E += p * (lz * lz) * cos / (r * r)
        return E * self.scale

    def to_json(self):
        return {"name": self.name, "level": self.level, "ambient": self.ambient,
                "lamps_mm": [[round(float(v), 1) for v in lamp[:3]] for lamp in self.lamps],
                "tint_bgr": [round(float(v), 3) for v in self.tint]}


class Scene:
    """The clip's look, drawn from rng; `light`, `cloth`, `fps`, `size`, `head_right` may be forced."""

    def __init__(self, rng, table_mm, size=None, fps=None, light=None, cloth=None, head_right=None):
        L, W = table_mm
        self.size = tuple(size or SIZES[0])
        # drawn whether forced or not, so that forcing a band leaves the rest of the scene as it was
        drawn = (FPS[int(rng.integers(len(FPS)))], list(LIGHTS)[int(rng.integers(len(LIGHTS)))],
                 list(CLOTHS)[int(rng.integers(len(CLOTHS)))])
        self.fps = int(fps or drawn[0])
        self.light_name = light or drawn[1]
        self.cloth_name = cloth or drawn[2]
        self.cloth_bgr = tuple(c * rng.uniform(0.92, 1.08) for c in CLOTHS[self.cloth_name])
        self.rail_name = list(RAILS)[int(rng.integers(len(RAILS)))]
        self.rail_bgr = RAILS[self.rail_name]
        self.floor_bgr = tuple(rng.uniform(15, 45) * np.array([1.0, 1.0, 1.05]))
        self.cloth_grain = rng.uniform(0.015, 0.035)
        self.light = Light(self.light_name, table_mm, np.random.default_rng(int(rng.integers(2 ** 31))))  # its own stream
        self.vignette = rng.uniform(0.15, 0.55)
        # exposure: a fraction of the frame time, longer in dim light
        frac = rng.uniform(0.3, 0.6) if self.light.level >= 0.8 else rng.uniform(0.6, 1.0)
        self.exposure = frac / self.fps
        # sensor noise (display units): read noise and shot noise, more gain in dim light
        gain = 1.0 / self.light.level
        self.noise_read = rng.uniform(1.0, 2.5) * gain
        self.noise_shot = rng.uniform(0.15, 0.35) * gain
        self.jpeg_quality = int(rng.integers(60, 93))
        self.codec = "mp4v"
        camera_draws = rng.bit_generator.state
        self.camera = self._camera(rng, table_mm)
        # ball sets differ in their dyes: each colour off the standard by up to 10 % per channel
        prng = np.random.default_rng(int(rng.integers(2 ** 31)))
        self.ball_palette = {k: tuple(float(np.clip(c * prng.uniform(0.9, 1.1), 0, 250)) for c in bgr)
                             for k, bgr in BALL_BGR.items()}
        # the sensor's shutter and the lamps' mains flicker (drawn last: earlier draws keep their values)
        srng = np.random.default_rng(int(rng.integers(2 ** 31)))
        self.readout = float(srng.uniform(0.008, 0.016)) if srng.random() < 0.5 else 0.0  # rolling: first row to last
        self.flicker = float(srng.uniform(0.01, 0.08)) if srng.random() < 0.5 else 0.0  # light output +- this
        self.flicker_hz = 100.0 if srng.random() < 0.5 else 120.0  # twice the mains frequency
        self.flicker_phase = float(srng.uniform(0, 2 * np.pi))
        # a quarter of the cameras hang the other way round: the head end on the image's right
        self.head_right = bool(srng.random() < 0.25) if head_right is None else bool(head_right)
        if self.head_right:
            again = np.random.Generator(np.random.PCG64())
            again.bit_generator.state = camera_draws
            self.camera = self._camera(again, table_mm, turned=True)

    def _camera(self, rng, table_mm, turned=False):
        L, W = table_mm
        w, h = self.size
        height = rng.uniform(1700.0, 2600.0)
        tilt = (rng.uniform(-5, 5), rng.uniform(-5, 5))
        roll = rng.uniform(-3, 3) + (180.0 if turned else 0.0)
        k1 = rng.uniform(-0.28, -0.02)
        k2 = rng.uniform(0.0, 0.08) if k1 < -0.15 else rng.uniform(-0.02, 0.04)
        # a real lens maps radii monotonically: r (1 + k1 r^2 + k2 r^4) has a positive slope for
        # every r when 9 k1^2 < 20 k2 (or k1 >= 0 and k2 >= 0)
        k2 = max(k2, 0.46 * k1 * k1)
        dist = (k1, k2, rng.uniform(-0.002, 0.002), rng.uniform(-0.002, 0.002), 0.0)
        out = CUSHION_W + RAIL_W
        # focal length: the table with its rails fills 86-96 % of the frame (before distortion)
        fill = rng.uniform(0.86, 0.96)
        dist_h = height - NOSE_H
        f = fill * min(w / ((L + 2 * out) / dist_h), h / ((W + 2 * out) / dist_h))
        target = (L / 2 + rng.uniform(-40, 40), W / 2 + rng.uniform(-30, 30))
        cam = Camera.looking_at(self.size, target, height, tilt, roll, f, dist,
                                (rng.uniform(-8, 8), rng.uniform(-6, 6)))
        # barrel distortion pulls the corners in: widen until the rails' outer corners fit
        for _ in range(20):
            corners = np.array([[-out, -out, -NOSE_H], [-out, W + out, -NOSE_H],
                                [L + out, W + out, -NOSE_H], [L + out, -out, -NOSE_H]])
            uv = cam.project(corners)
            if (uv[:, 0] > 2).all() and (uv[:, 0] < w - 3).all() and (uv[:, 1] > 2).all() and (uv[:, 1] < h - 3).all():
                break
            f *= 0.97
            cam = Camera.looking_at(self.size, target, height, tilt, roll, f, dist, (cam.c[0] - w / 2, cam.c[1] - h / 2))
        self.tilt, self.roll, self.height = tilt, roll, height
        return cam

    def to_json(self):
        return {"light": self.light.to_json(), "cloth": self.cloth_name,
                "cloth_bgr": [round(float(c), 1) for c in self.cloth_bgr], "rail": self.rail_name,
                "vignette": round(self.vignette, 3), "exposure_s": round(self.exposure, 5),
                "noise": {"read": round(self.noise_read, 3), "shot": round(self.noise_shot, 3)},
                "jpeg_quality": self.jpeg_quality, "codec": self.codec,
                "ball_bgr": {str(k): [round(c, 1) for c in v] for k, v in self.ball_palette.items()},
                "shutter": "rolling" if self.readout else "global", "readout_s": round(self.readout, 5),
                "flicker": {"amplitude": round(self.flicker, 4), "hz": self.flicker_hz,
                            "phase": round(self.flicker_phase, 4)},
                "tilt_deg": [round(a, 2) for a in self.tilt], "roll_deg": round(self.roll, 2),
                "head_end": "right" if self.head_right else "left"}


def scene_for(seed, table_mm, **forced):
    """The scene of clip `seed` (its own generator stream, apart from the shot's)."""
    return Scene(np.random.default_rng([seed, 7]), table_mm, **forced)

