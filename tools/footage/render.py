"""Render a trajectory into overhead-camera video, with the truth written beside it.

    python -m tools.footage.render --kinematic demo --out /tmp/clip.mp4
    python -m tools.footage.render --trajectory T.json --seed 3 --out clip.mp4 [--fps 120] [--light dim]
    python -m tools.footage.render --pooltool --game nineball --kind break --speed soft --seed 5 --out clip.mp4

Writes VIDEO and VIDEO minus its extension plus `.truth.json` (docs/camera-footage.md).

The frame i is exposed from i/fps for `scene.exposure` seconds; everything in
it (balls, the player) is the average of sub-frame samples over that
exposure (more samples the further a ball moves), which is the motion blur.
Then sensor noise (read + shot), a JPEG round trip at the scene's quality
(a camera's MJPEG stream) and the video codec.
"""

import argparse
import json
import math
import os
import time

import numpy as np

from . import balls as ballart
from .players import Stroke, capsule_box, draw_capsules
from .scene import scene_for
from .table import CLOTH, NOSE_H, Background
from .trajectory import Trajectory, quat_to_matrix

MAX_SUBSAMPLES = 24
MAX_SHADOW_SAMPLES = 4


class Renderer:
    """Frames of one clip: the static table drawn once, then per frame the balls' shadows and
    balls (patches), the player, the sensor and the JPEG round trip."""

    def __init__(self, traj, scene, seed=0, players=True):
        import cv2

        self.cv2 = cv2
        self.traj = traj
        self.scene = scene
        self.cam = scene.camera
        cv2.setRNGSeed(int(np.random.default_rng([seed, 11]).integers(2 ** 31)))  # the sensor noise
        self.bg = Background(self.cam, traj.table_mm, scene, np.random.default_rng([seed, 13]))
        self.on_cloth = self.bg.label == CLOTH
        self.glyphs = ballart.make_glyphs()
        self.R = traj.ball_radius_mm
        self.n_frames = int(math.floor(traj.duration * scene.fps)) + 1
        self.strokes = self._strokes(np.random.default_rng([seed, 17])) if players else []
        self._noise = np.empty((self.cam.size[1], self.cam.size[0], 3), dtype=np.float32)
        self._sigma = np.empty_like(self._noise)
        self._ball_cache, self._shadow_cache = {}, {}
        J = self.cam.local_jacobian(np.array([traj.table_mm[0] / 2, traj.table_mm[1] / 2, -self.R]))
        Pc = self.cam.to_camera(np.array([traj.table_mm[0] / 2, traj.table_mm[1] / 2, -self.R]))
        self.px_per_mm = math.sqrt(abs(np.linalg.det(J))) / Pc[2]

    def _strokes(self, rng):
        out = []
        cue = self.traj.balls.get(0)
        for t in self.traj.strokes():
            if cue is None:
                continue
            x, y, _, _ = cue.at([t, t + 0.01])
            u = np.array([x[1] - x[0], y[1] - y[0]])
            speed = float(np.linalg.norm(u)) / 0.01
            if speed <= 0:
                continue
            out.append(Stroke(t, (x[0], y[0]), u, speed, rng, self.R))
        return out

    # --- one frame --------------------------------------------------------------------------

    def frame_times(self, i):
        t0 = i / self.scene.fps
        return t0, t0 + self.scene.exposure / 2

    def render_frame(self, i):
        """-> (BGR uint8 image, per-frame truth dict)."""
        t0, t_mid = self.frame_times(i)
        e = self.scene.exposure
        img = self.bg.image.copy()
        # balls: sub-frame samples, far ones first
        layers = []
        for n, track in self.traj.balls.items():
            tb = t0 + self._row_delay(track, t0)
            ts = tb + (np.arange(2) + 0.0) * e
            x, y, _, on = track.at(ts)
            travel = math.hypot(x[1] - x[0], y[1] - y[0]) * self.px_per_mm
            k = int(min(MAX_SUBSAMPLES, max(1, math.ceil(travel / 0.8))))
            ts = tb + (np.arange(k) + 0.5) / k * e
            x, y, q, on = track.at(ts)
            if not on.any():
                continue
            depth = self.cam.to_camera(np.array([x.mean(), y.mean(), -self.R]))[2]
            layers.append((depth, n, x, y, q, on, k))
        layers.sort(key=lambda l: -l[0])
        for _, n, x, y, q, on, k in layers:
            self._shadow(img, n, x, y, on, k)
        for _, n, x, y, q, on, k in layers:
            self._ball(img, n, x, y, q, on, k)
        occ_box, occ_alpha = self._players(img, t0, e)
        if self.scene.flicker:
            img *= self._flicker_gain(t0)[:, None, None]
        img = self._sensor(img)
        return img, self._truth_frame(i, t_mid, occ_box, occ_alpha)

    def _row_delay(self, track, t):
        """Rolling shutter: a row starts its exposure readout * row / height after the first."""
        if not self.scene.readout:
            return 0.0
        x, y, _, _ = track.at([t])
        v = self.cam.project(np.array([x[0], y[0], -self.R]))[1]
        return self.scene.readout * min(max(v / self.cam.size[1], 0.0), 1.0)

    def _flicker_gain(self, t0):
        """Per row: the lamps' output 1 + a sin(w t + phase) averaged over the row's exposure."""
        s = self.scene
        h = self.cam.size[1]
        w = 2 * math.pi * s.flicker_hz
        start = t0 + s.readout * np.arange(h, dtype=np.float64) / h
        mean = (np.cos(w * start + s.flicker_phase) - np.cos(w * (start + s.exposure) + s.flicker_phase)) / (w * s.exposure)
        return (1.0 + s.flicker * mean).astype(np.float32)

    def _cached(self, store, n, key, make):
        """A still ball renders the same frame after frame: keep its last patch per ball."""
        hit = store.get(n)
        if hit is not None and hit[0] == key:
            return hit[1]
        value = make()
        store[n] = (key, value)
        return value

    def _ball(self, img, n, x, y, q, on, k):
        """Composite the average of the ball's k samples over the exposure ('over', premultiplied)."""
        sel = np.nonzero(on)[0]
        if len(sel) == 0:
            return

        def make():
            centers = np.stack([x[sel], y[sel], np.full(len(sel), -self.R)], axis=1)
            r = ballart.render_ball(self.cam, self.scene.light, n, centers, quat_to_matrix(q[sel]), self.glyphs,
                                    self.scene.cloth_bgr, palette=self.scene.ball_palette)
            if r is None:
                return None
            u0, v0, col, alp = r
            hh, ww = alp.shape
            return u0, v0, col / k * self.bg.vignette[v0:v0 + hh, u0:u0 + ww, None], 1 - alp / k

        r = self._cached(self._ball_cache, n, (k, x.tobytes(), y.tobytes(), q.tobytes(), on.tobytes()), make)
        if r is None:
            return
        u0, v0, col, keep = r
        hh, ww = keep.shape
        region = img[v0:v0 + hh, u0:u0 + ww]
        region *= keep[..., None]
        region += col

    def _shadow(self, img, n, x, y, on, k):
        def make():
            boxes = [ballart.shadow_box(self.cam, self.scene.light, (x[j], y[j]), self.R, self.cam.size)
                     for j in range(k) if on[j]]
            if not boxes:
                return None
            u0 = min(b[0] for b in boxes)
            v0 = min(b[1] for b in boxes)
            u1 = max(b[2] for b in boxes)
            v1 = max(b[3] for b in boxes)
            if u0 >= u1 or v0 >= v1:
                return None
            xy = self.bg.cloth_xy[v0:v1, u0:u1]
            cl = self.on_cloth[v0:v1, u0:u1]
            # a shadow is soft: a few of the samples blur it enough
            js = np.unique(np.linspace(0, k - 1, min(k, MAX_SHADOW_SAMPLES)).round().astype(int))
            f = np.zeros(cl.shape, dtype=np.float32)
            for j in js:
                f += ballart.shadow_factor(self.scene.light, (x[j], y[j]), self.R, xy, cl) if on[j] else 1.0
            return u0, v0, u1, v1, (f / len(js))[..., None]

        r = self._cached(self._shadow_cache, n, (k, x.tobytes(), y.tobytes(), on.tobytes()), make)
        if r is not None:
            u0, v0, u1, v1, f = r
            img[v0:v1, u0:u1] *= f

    def _players(self, img, t0, e):
        """Draw the player (averaged over the exposure when moving fast). -> (box, alpha) or None."""
        L, W = self.traj.table_mm
        for s in self.strokes:
            if s.pose(t0) is None and s.pose(t0 + e) is None:
                continue
            dt = t0 - s.t
            k = 6 if -s.forward - 0.05 < dt < 0.2 else (3 if (dt < -1.5 or dt > 0.7) else 1)
            samples = [s.capsules(t0 + (j + 0.5) / k * e, L, W, NOSE_H) for j in range(k)]
            boxes = [capsule_box(self.cam, c, self.cam.size) for c in samples if c]
            boxes = [b for b in boxes if b]
            if not boxes:
                continue
            box = (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))
            col = np.zeros((box[3] - box[1], box[2] - box[0], 3), dtype=np.float32)
            alp = np.zeros(col.shape[:2], dtype=np.float32)
            for caps in samples:
                if caps:
                    c, a = draw_capsules(self.cam, caps, self.scene.light, box)
                    col += c
                    alp += a
            col /= k
            alp /= k
            self._player_shadow(img, box, alp)
            region = img[box[1]:box[3], box[0]:box[2]]
            region *= 1 - alp[..., None]
            region += col * self.bg.vignette[box[1]:box[3], box[0]:box[2], None]
            return box, alp
        return None, None

    def _player_shadow(self, img, box, alp):
        """A soft shadow of the player on what lies under it, offset away from the lamps."""
        cv2 = self.cv2
        u0, v0, u1, v1 = box
        dx, dy = 10, 7
        sh = cv2.GaussianBlur(alp, (0, 0), 7)
        tu0, tv0 = min(u0 + dx, img.shape[1]), min(v0 + dy, img.shape[0])
        tu1, tv1 = min(u1 + dx, img.shape[1]), min(v1 + dy, img.shape[0])
        if tu0 >= tu1 or tv0 >= tv1:
            return
        img[tv0:tv1, tu0:tu1] *= (1 - 0.4 * sh[:tv1 - tv0, :tu1 - tu0])[..., None]

    def _sensor(self, img):
        """Noise (read + shot, in display units), clipping, the JPEG round trip."""
        cv2 = self.cv2
        s = self.scene
        noise, sigma = self._noise, self._sigma
        cv2.randn(noise, (0.0, 0.0, 0.0), (1.0, 1.0, 1.0))
        np.maximum(img, 0, out=img)
        np.multiply(img, np.float32(s.noise_shot), out=sigma)
        sigma += np.float32(s.noise_read ** 2)
        cv2.sqrt(sigma, sigma)
        cv2.multiply(noise, sigma, noise)
        img += noise
        np.clip(img, 0, 255, out=img)
        out = img.astype(np.uint8)
        if s.jpeg_quality < 100:
            ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, s.jpeg_quality])
            out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
        return out

    def _truth_frame(self, i, t_mid, occ_box, occ_alpha):
        balls = {}
        w, h = self.cam.size
        for n, track in self.traj.balls.items():
            t_ball = t_mid + self._row_delay(track, t_mid)
            x, y, _, on = track.at([t_ball])
            if not on[0]:
                balls[str(n)] = {"state": "pocketed"}
                continue
            uv = self.cam.project(np.array([x[0], y[0], -self.R]))
            state = "visible"
            if not (0 <= uv[0] < w and 0 <= uv[1] < h):
                state = "outside"
            elif occ_box is not None:
                u0, v0, u1, v1 = occ_box
                ui, vi = int(uv[0]), int(uv[1])
                if u0 <= ui < u1 and v0 <= vi < v1 and occ_alpha[vi - v0, ui - u0] >= 0.5:
                    state = "occluded"
            P = np.array([x[0], y[0], -self.R])
            r_px = self.R / self.cam.to_camera(P)[2] * math.sqrt(abs(np.linalg.det(self.cam.local_jacobian(P))))
            balls[str(n)] = {"px": [round(float(uv[0]), 2), round(float(uv[1]), 2)], "r_px": round(float(r_px), 2),
                             "mm": [round(float(x[0]), 1), round(float(y[0]), 1)], "state": state}
            if self.scene.readout:
                balls[str(n)]["t"] = round(t_ball, 5)
        return {"i": i, "t": round(t_mid, 5), "balls": balls}

    # --- the clip -----------------------------------------------------------------------------

    def corners_px(self):
        L, W = self.traj.table_mm
        P = np.array([[0, 0, -NOSE_H], [0, W, -NOSE_H], [L, W, -NOSE_H], [L, 0, -NOSE_H]], dtype=float)
        return [[round(float(u), 2), round(float(v), 2)] for u, v in self.cam.project(P)]

    def render(self, video_path, bands=None, frames_truth=True, progress=False):
        """Write the video and its truth file. -> (truth dict, seconds spent)."""
        cv2 = self.cv2
        w, h = self.cam.size
        os.makedirs(os.path.dirname(os.path.abspath(video_path)) or ".", exist_ok=True)
        fourcc = cv2.VideoWriter_fourcc(*self.scene.codec)
        writer = cv2.VideoWriter(video_path, fourcc, float(self.scene.fps), (w, h))
        if not writer.isOpened():
            raise RuntimeError("cannot open a %s writer for %s" % (self.scene.codec, video_path))
        frames = []
        start = time.time()
        for i in range(self.n_frames):
            img, tf = self.render_frame(i)
            writer.write(img)
            if frames_truth:
                frames.append(tf)
            if progress and i % 60 == 0:
                print("frame %d/%d %.1f s" % (i, self.n_frames, time.time() - start), flush=True)
        writer.release()
        spent = time.time() - start
        truth = self.truth(video_path, bands, frames if frames_truth else None)
        with open(truth_path(video_path), "w") as f:
            json.dump(truth, f, separators=(",", ":"))
        return truth, spent

    def truth(self, video_path, bands=None, frames=None):
        s = self.scene
        cam = self.cam.to_json()
        cam.update({"ball_center_height_mm": self.R, "cushion_nose_height_mm": NOSE_H,
                    "corners_at": "cushion noses, %g mm above the cloth" % NOSE_H})
        b = {"game": self.traj.meta.get("game"), "kind": self.traj.meta.get("kind", "shot"),
             "speed": self.traj.meta.get("speed"), "light": s.light_name, "cloth": s.cloth_name, "fps": s.fps}
        b.update(bands or {})
        out = {
            "video": os.path.basename(video_path),
            "fps": s.fps,
            "size": list(self.cam.size),
            "n_frames": self.n_frames,
            "frame_time": "frame i is exposed from i/fps for exposure_s; per-frame truth at mid-exposure",
            "corners_px": self.corners_px(),
            "table_mm": [round(v, 1) for v in self.traj.table_mm],
            "camera": cam,
            "scene": s.to_json(),
            "bands": b,
            "source": self.traj.meta,
            "shots": self.traj.shots(b["kind"]),
        }
        if frames is not None:
            out["frames"] = frames
        return out


def truth_path(video_path):
    return os.path.splitext(video_path)[0] + ".truth.json"


def render_clip(traj, video_path, seed, fps=None, light=None, cloth=None, size=None, players=True,
                frames_truth=True, bands=None, progress=False, head_right=None):
    """Render `traj` with the scene of `seed` (forced bands as given; `head_right`: the camera
    turned 180 degrees or not, None: as the seed draws it). -> (truth, seconds)."""
    scene = scene_for(seed, traj.table_mm, fps=fps, light=light, cloth=cloth, size=size,
                      head_right=head_right)
    r = Renderer(traj, scene, seed, players=players)
    return r.render(video_path, bands, frames_truth, progress)


def demo_trajectory(name="demo"):
    """Kinematic demo shots (no pooltool): 'demo' a cut into two balls, 'straight', 'miss'."""
    from . import kinematic

    if name == "straight":
        return kinematic.simulate({0: (500, 495), 1: (1400, 495)}, strokes=[(2.4, 2000.0, 0.0)], meta={"kind": "shot"})
    if name == "miss":
        return kinematic.simulate({0: (500, 400), 1: (1400, 600)}, strokes=[(2.4, 1500.0, -8.0)], meta={"kind": "shot"})
    balls = {0: (450, 520), 1: (1300, 470), 9: (1500, 650), 5: (1100, 250), 8: (1650, 300), 14: (800, 800)}
    return kinematic.simulate(balls, strokes=[(2.4, 2600.0, -2.5)], meta={"kind": "shot", "game": "nineball"})


def main(argv=None):
    p = argparse.ArgumentParser(description="Render one clip of test footage with its truth.")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--trajectory", help="a trajectory JSON (tools/footage/trajectory.py)")
    src.add_argument("--kinematic", choices=["demo", "straight", "miss"], help="a built-in kinematic shot")
    src.add_argument("--pooltool", action="store_true", help="simulate with pooltool (the calibrate extra)")
    p.add_argument("--game", default="eightball", choices=["eightball", "nineball", "straight"])
    p.add_argument("--kind", default="break", choices=["break", "shot", "sequence"])
    p.add_argument("--speed", default="normal", choices=["soft", "normal", "hard"])
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--fps", type=int)
    p.add_argument("--light")
    p.add_argument("--cloth")
    p.add_argument("--size", help="WxH, default 1280x720")
    p.add_argument("--no-players", action="store_true", help="no cue stick, arm or body")
    p.add_argument("--no-frames", action="store_true", help="leave the per-frame truth out")
    p.add_argument("--out", required=True, help="the video file (.mp4)")
    p.add_argument("--save-trajectory", help="also write the trajectory JSON here")
    args = p.parse_args(argv)
    if args.trajectory:
        traj = Trajectory.load(args.trajectory)
    elif args.kinematic:
        traj = demo_trajectory(args.kinematic)
    else:
        import sys

        from . import physics

        physics.ensure_hash_seed("tools.footage.render", sys.argv[1:] if argv is None else argv)
        traj = physics.simulate_clip(args.game, args.kind, args.speed, args.seed)
    if args.save_trajectory:
        traj.save(args.save_trajectory)
    size = tuple(int(v) for v in args.size.lower().split("x")) if args.size else None
    truth, spent = render_clip(traj, args.out, args.seed, args.fps, args.light, args.cloth, size,
                               players=not args.no_players, frames_truth=not args.no_frames, progress=True)
    n = truth["n_frames"]
    print("%s: %d frames (%.1f s of video) in %.1f s, %.1f frames/s" % (args.out, n, n / truth["fps"], spent, n / spent))
    print(json.dumps(truth["shots"]))


if __name__ == "__main__":
    main()
