"""The ceiling camera: a pinhole with OpenCV's lens distortion, hung above the table.

World frame (see trajectory.py): x along the table from the head cushion's
nose, y across from the left cushion's nose, z down from the cloth, in mm.
The camera frame is OpenCV's: x right in the image, y down, z forward.  With
no tilt the camera's axes are the world's, so the head end is at the image's
left and the left cushion at its top.

Distortion is OpenCV's (k1, k2, p1, p2, k3) so that an analyser can use
cv2.undistortPoints with the truth's numbers as they are.
"""

import math

import numpy as np


def rotation(rx_deg, ry_deg, rz_deg):
    """World -> camera rotation: a small tilt about x, then y, then a turn about the optical axis."""
    ax, ay, az = (math.radians(a) for a in (rx_deg, ry_deg, rz_deg))
    Rx = np.array([[1, 0, 0], [0, math.cos(ax), -math.sin(ax)], [0, math.sin(ax), math.cos(ax)]])
    Ry = np.array([[math.cos(ay), 0, math.sin(ay)], [0, 1, 0], [-math.sin(ay), 0, math.cos(ay)]])
    Rz = np.array([[math.cos(az), -math.sin(az), 0], [math.sin(az), math.cos(az), 0], [0, 0, 1]])
    return Rz @ Ry @ Rx


class Camera:
    """K (fx, fy, cx, cy), dist (k1, k2, p1, p2, k3), R (world -> camera), C (centre, world mm)."""

    def __init__(self, size, f, c, dist, R, C):
        self.size = (int(size[0]), int(size[1]))
        self.f = (float(f[0]), float(f[1]))
        self.c = (float(c[0]), float(c[1]))
        self.dist = tuple(float(d) for d in dist)
        self.R = np.asarray(R, dtype=float)
        self.C = np.asarray(C, dtype=float)

    @classmethod
    def looking_at(cls, size, target, height, tilt_deg, roll_deg, f, dist, c_offset=(0.0, 0.0)):
        """A camera `height` mm above the cloth, turned by tilt (x, y) and roll, whose optical
        axis meets the cloth at `target` (x, y)."""
        R = rotation(tilt_deg[0], tilt_deg[1], roll_deg)
        forward = R.T @ np.array([0.0, 0.0, 1.0])  # optical axis in the world
        s = height / forward[2]
        C = np.array([target[0], target[1], 0.0]) - s * forward
        c = (size[0] / 2 + c_offset[0], size[1] / 2 + c_offset[1])
        return cls(size, (f, f), c, dist, R, C)

    def to_camera(self, P):
        """World points (..., 3) -> camera frame (..., 3)."""
        return (np.asarray(P, dtype=float) - self.C) @ self.R.T

    def distort(self, xn, yn):
        """Normalised undistorted -> normalised distorted (OpenCV's model)."""
        k1, k2, p1, p2, k3 = self.dist
        r2 = xn * xn + yn * yn
        radial = 1 + r2 * (k1 + r2 * (k2 + r2 * k3))
        xd = xn * radial + 2 * p1 * xn * yn + p2 * (r2 + 2 * xn * xn)
        yd = yn * radial + p1 * (r2 + 2 * yn * yn) + 2 * p2 * xn * yn
        return xd, yd

    def project(self, P):
        """World points (..., 3) -> image pixels (..., 2), distortion applied."""
        Pc = self.to_camera(P)
        xd, yd = self.distort(Pc[..., 0] / Pc[..., 2], Pc[..., 1] / Pc[..., 2])
        return np.stack([self.f[0] * xd + self.c[0], self.f[1] * yd + self.c[1]], axis=-1)

    def undistort_pixels(self, uv):
        """Image pixels (N, 2) -> normalised undistorted coordinates (N, 2), by fixed-point
        iteration on OpenCV's model (what cv2.undistortPoints does)."""
        uv = np.asarray(uv, dtype=float)
        xd = (uv[..., 0] - self.c[0]) / self.f[0]
        yd = (uv[..., 1] - self.c[1]) / self.f[1]
        k1, k2, p1, p2, k3 = self.dist
        x, y = xd.copy(), yd.copy()
        for _ in range(20):
            r2 = x * x + y * y
            radial = 1 + r2 * (k1 + r2 * (k2 + r2 * k3))
            dx = 2 * p1 * x * y + p2 * (r2 + 2 * x * x)
            dy = p1 * (r2 + 2 * y * y) + 2 * p2 * x * y
            x = (xd - dx) / radial
            y = (yd - dy) / radial
        return np.stack([x, y], axis=-1)

    def rays(self, uv):
        """Image pixels (N, 2) -> world ray directions (N, 3) from the camera centre."""
        n = self.undistort_pixels(uv)
        d = np.concatenate([n, np.ones(n.shape[:-1] + (1,))], axis=-1)
        return d @ self.R  # camera -> world is R.T; rows: d @ R == (R.T @ d.T).T

    def pixel_to_plane(self, uv, z):
        """Image pixels (N, 2) -> world points (N, 3) where their rays meet the plane z."""
        d = self.rays(uv)
        s = (z - self.C[2]) / d[..., 2]
        return self.C + s[..., None] * d

    def local_jacobian(self, P, eps=1e-4):
        """d(pixel)/d(normalised undistorted) at the world point P: the lens's local linear map."""
        Pc = self.to_camera(P)
        xn, yn = Pc[0] / Pc[2], Pc[1] / Pc[2]
        x0, y0 = self.distort(xn, yn)
        xa, ya = self.distort(xn + eps, yn)
        xb, yb = self.distort(xn, yn + eps)
        J = np.array([[(xa - x0) / eps, (xb - x0) / eps], [(ya - y0) / eps, (yb - y0) / eps]])
        return J * np.array([[self.f[0]], [self.f[1]]])

    def to_json(self):
        return {
            "model": "opencv-pinhole",
            "K": [[self.f[0], 0.0, self.c[0]], [0.0, self.f[1], self.c[1]], [0.0, 0.0, 1.0]],
            "dist": list(self.dist),
            "R_world_to_camera": self.R.tolist(),
            "center_mm": self.C.tolist(),
            "height_mm": float(-self.C[2]),
            "world": "x along the table from the head nose, y across from the left nose, z down from the cloth (mm)",
        }
