"""The table in millimetres, the lens, and the mapping between image pixels and table mm.

Table coordinates (docs/camera.md): x along the table from the head cushion's nose,
y across it from the left cushion's nose; the playing area's cushion-nose corners are
head-left (0, 0), head-right (0, W), foot-right (L, W), foot-left (L, 0).

The lens is OpenCV's radial model (k1, k2) about the image centre with a focal length of
the image diagonal: enough for the few per cent of barrel distortion of a wide ceiling
camera, and estimated from the cushions themselves (table_finder), which are straight.
"""
import numpy as np

BALL_D_MM = 57.15
BALL_R_MM = BALL_D_MM / 2

# Playing areas (nose to nose) of the usual tables, mm: (length, width).
TABLE_SIZES = {
    "7ft": (1981.2, 990.6),
    "8ft": (2235.2, 1117.6),
    "9ft": (2540.0, 1270.0),
}

# A corner pocket's mouth, measured along each cushion from the corner; a side pocket's.
CORNER_MOUTH_MM = 115.0
SIDE_MOUTH_MM = 130.0


class Table:
    """A playing area of length x width mm, its pockets and cushion lines."""

    def __init__(self, length, width):
        self.length = float(length)
        self.width = float(width)

    @classmethod
    def named(cls, name):
        """'9ft', '8ft', '7ft' or 'LxW' in mm (e.g. '2540x1270')."""
        if name in TABLE_SIZES:
            return cls(*TABLE_SIZES[name])
        parts = str(name).lower().split("x")
        if len(parts) != 2:
            raise ValueError("table size: 7ft, 8ft, 9ft or LENGTHxWIDTH in mm, not %r" % (name,))
        length, width = float(parts[0]), float(parts[1])
        if not (500 <= width <= length <= 5000):
            raise ValueError("table size out of range: %r" % (name,))
        return cls(length, width)

    def corners_mm(self):
        """Head-left, head-right, foot-right, foot-left."""
        L, W = self.length, self.width
        return np.array([[0, 0], [0, W], [L, W], [L, 0]], dtype=np.float64)

    def pockets_mm(self):
        """Pocket centres: the four corners and the two sides' middles, slightly outside."""
        L, W = self.length, self.width
        o = 20.0
        return np.array([[-o, -o], [-o, W + o], [L + o, W + o], [L + o, -o],
                         [L / 2, -o - 10], [L / 2, W + o + 10]], dtype=np.float64)

    def near_pocket(self, x, y, margin=0.0):
        """True within a pocket's mouth (where a ball meets jaws, not a straight cushion)."""
        L, W = self.length, self.width
        c = CORNER_MOUTH_MM + margin
        s = SIDE_MOUTH_MM / 2 + margin
        near_end = x < c or x > L - c
        near_side_rail = y < c or y > W - c
        if near_end and near_side_rail:
            return True
        return abs(x - L / 2) < s and (y < c or y > W - c)


class Lens:
    """OpenCV's radial distortion (k1, k2) about the image centre, focal = image diagonal."""

    def __init__(self, size, k1=0.0, k2=0.0):
        w, h = size
        self.size = (int(w), int(h))
        f = float(np.hypot(w, h))
        self.K = np.array([[f, 0, (w - 1) / 2.0], [0, f, (h - 1) / 2.0], [0, 0, 1]], dtype=np.float64)
        self.k1 = float(k1)
        self.k2 = float(k2)

    @property
    def dist(self):
        return np.array([self.k1, self.k2, 0.0, 0.0, 0.0], dtype=np.float64)

    def undistort(self, pts):
        """Distorted pixels -> ideal (pinhole) pixels, Nx2."""
        pts = np.asarray(pts, dtype=np.float64).reshape(-1, 2)
        if self.k1 == 0.0 and self.k2 == 0.0:
            return pts.copy()
        import cv2
        out = cv2.undistortPoints(pts.reshape(-1, 1, 2), self.K, self.dist, P=self.K)
        return out.reshape(-1, 2)

    def distort(self, pts):
        """Ideal pixels -> distorted pixels, Nx2 (the forward model, exact)."""
        pts = np.asarray(pts, dtype=np.float64).reshape(-1, 2)
        f, cx, cy = self.K[0, 0], self.K[0, 2], self.K[1, 2]
        xn = (pts[:, 0] - cx) / f
        yn = (pts[:, 1] - cy) / f
        r2 = xn * xn + yn * yn
        g = 1 + self.k1 * r2 + self.k2 * r2 * r2
        return np.stack([xn * g * f + cx, yn * g * f + cy], axis=1)


class View:
    """How one camera sees one table: lens + homography (ideal pixels -> table mm)."""

    def __init__(self, table, lens, corners_px):
        """`corners_px`: the four cushion-nose corners in (distorted) image pixels,
        head-left, head-right, foot-right, foot-left."""
        import cv2
        self.table = table
        self.lens = lens
        self.corners_px = np.asarray(corners_px, dtype=np.float64).reshape(4, 2)
        ideal = lens.undistort(self.corners_px)
        self.H = cv2.getPerspectiveTransform(ideal.astype(np.float32),
                                             table.corners_mm().astype(np.float32))
        self.H_inv = np.linalg.inv(self.H)

    def px_to_mm(self, pts):
        return _apply_h(self.H, self.lens.undistort(pts))

    def mm_to_px(self, pts):
        return self.lens.distort(_apply_h(self.H_inv, pts))

    def mm_per_px(self):
        """Mean scale at the table's centre (mm per image pixel)."""
        L, W = self.table.length, self.table.width
        c = np.array([[L / 2, W / 2], [L / 2 + 100, W / 2], [L / 2, W / 2 + 100]])
        p = self.mm_to_px(c)
        return 100.0 / np.mean([np.hypot(*(p[1] - p[0])), np.hypot(*(p[2] - p[0]))])

    def rectify_maps(self, mm_per_px, margin_mm):
        """cv2.remap maps that draw the table top-down: pixel (i, j) of the output is table
        point (x, y) = (j * s - margin, i * s - margin); x runs along the image's width."""
        import cv2
        L, W = self.table.length, self.table.width
        cols = int(np.ceil((L + 2 * margin_mm) / mm_per_px))
        rows = int(np.ceil((W + 2 * margin_mm) / mm_per_px))
        xs = np.arange(cols) * mm_per_px - margin_mm
        ys = np.arange(rows) * mm_per_px - margin_mm
        gx, gy = np.meshgrid(xs, ys)
        px = self.mm_to_px(np.stack([gx.ravel(), gy.ravel()], axis=1))
        mx = px[:, 0].reshape(rows, cols).astype(np.float32)
        my = px[:, 1].reshape(rows, cols).astype(np.float32)
        return cv2.convertMaps(mx, my, cv2.CV_16SC2)


def _apply_h(H, pts):
    pts = np.asarray(pts, dtype=np.float64).reshape(-1, 2)
    p = np.hstack([pts, np.ones((len(pts), 1))]) @ H.T
    return p[:, :2] / p[:, 2:3]


def parse_corners(text):
    """'x,y x,y x,y x,y' -> 4x2 array (head-left, head-right, foot-right, foot-left)."""
    try:
        pts = [[float(v) for v in p.split(",")] for p in str(text).replace(";", " ").split()]
    except ValueError:
        pts = []
    if len(pts) != 4 or any(len(p) != 2 for p in pts) or not np.all(np.isfinite(pts)):
        raise ValueError('corners: four "x,y" pixel pairs separated by spaces, head-left, '
                         'head-right, foot-right, foot-left')
    pts = np.array(pts, dtype=np.float64)
    if not corners_outline_a_table(pts):
        raise ValueError("corners: the four points do not go round a table (in order head-left, "
                         "head-right, foot-right, foot-left, at least %d px apart)" % MIN_SIDE_PX)
    return pts


MIN_SIDE_PX = 16         # a playing area drawn smaller than this is no picture of a table
MAX_PX = 100000.0        # no camera's picture is this large


def corners_outline_a_table(pts):
    """Four corners in order round a convex quadrilateral of some size: a table as any camera
    sees it (turned any way, or mirrored by a camera's flip setting). Points that coincide, lie
    on a line or cross over (two corners swapped) have no mapping to the table: the analyser
    would find nothing, silently."""
    pts = np.asarray(pts, dtype=np.float64).reshape(4, 2)
    if np.abs(pts).max() > MAX_PX:
        return False
    sides = np.roll(pts, -1, axis=0) - pts
    if np.hypot(sides[:, 0], sides[:, 1]).min() < MIN_SIDE_PX:
        return False
    turns = sides[:, 0] * np.roll(sides, -1, axis=0)[:, 1] - sides[:, 1] * np.roll(sides, -1, axis=0)[:, 0]
    # Each corner turns the same way, and clearly (a "corner" on a straight side is none).
    lengths = np.hypot(sides[:, 0], sides[:, 1])
    sines = turns / (lengths * np.roll(lengths, -1))
    return bool(np.all(sines > 0.05) or np.all(sines < -0.05))
