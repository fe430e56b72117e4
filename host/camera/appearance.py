"""How a ball looks in the camera's own pixels: features for telling the sixteen balls apart.

The top-down drawing the detector works on (4 mm a pixel) halves a 720p camera's view of a
ball: a disc of ~7 pixels' radius, where a stripe's white caps at the rim and a solid's
number disc blur into the same few grey pixels. Here each ball is looked at where the camera
saw it: a square of PATCH x PATCH pixels cut from the picture itself about the ball's centre
(its side SIDE_R ball radii: ~1 source pixel a patch pixel at 720p), and described by a few
numbers that do not change with the light:

* how much of the disc is white, in the middle and near the rim: a solid shows white only in
  its number's disc (23 degrees across, in the middle when it faces up), a stripe its two caps
  (53 degrees across): near the rim when its band runs over the top, a wide disc in the middle
  when a cap faces up; so a stripe shows either white at the rim or far more white in the
  middle than a number disc can;
* how much is black (the 8, a number's ink), how much coloured;
* the colour of the coloured pixels per unit of lightness (chroma / Y, the light's own tint
  taken out), and how light they are against the ball's brightest pixels and the cloth;
* the cloth's own colour there (a blurred rim mixes it in).

Lightness is measured against the ball's own brightest pixels (a shadow or a dim lamp scales a
ball's pixels alike), never against a fixed level. `features` is pure over the patches;
`cut_patches` is the one step that touches the picture (one cv2.remap for every ball).
"""
import numpy as np

from host.camera.geometry import BALL_R_MM

PATCH = 32               # pixels a side
SIDE_R = 2.4             # the patch's side in ball radii: a ball of 13.3 px radius fills it as at 720p
N_FEATURES = 21
MIN_RADIUS_PX = 9.0      # a ball drawn smaller than this (a 640x360 view of a 9 ft table: ~7 px) is
                         # too few pixels for its caps and number to show: the model is not asked
_R = PATCH / SIDE_R      # the ball's radius in patch pixels
_yy, _xx = np.mgrid[0:PATCH, 0:PATCH].astype(np.float32)
_rr = np.hypot(_yy - (PATCH - 1) / 2.0, _xx - (PATCH - 1) / 2.0) / _R
DISC = _rr <= 0.92       # the ball, less its blurred rim
INNER = _rr <= 0.5       # where a number faces the camera
OUTER = (_rr > 0.55) & (_rr <= 0.92)   # where a stripe's caps show when its band runs over the top
RING = (_rr > 1.05) & (_rr <= 1.2)       # just outside the disc: cloth, for a ball on its own
_ang = np.arctan2(_yy - (PATCH - 1) / 2.0, _xx - (PATCH - 1) / 2.0)
_toward = [np.abs(np.angle(np.exp(1j * (_ang - a)))) < np.pi / 8 for a in np.arange(8) * np.pi / 4]
SECTORS = [((_rr > 0.75) & (_rr <= 0.92) & w, RING & w) for w in _toward]   # (rim, ring) of eight
CLOTH_OFF = 0.15         # chroma per lightness this far off the cloth's: not cloth
CLOTH_LIGHTER = 1.5      # ... nor this much lighter
CLOTH_DARKER = 0.35      # ... nor darker than a ball's shadow makes it
EDGE_STEP = 0.25         # a rim this unlike what lies outside it (lightness share, or chroma) is an edge
WHITE_SAT = 0.16         # chroma per lightness below this: white, grey or black (no colour)
COLOUR_SAT = 0.3         # ... above this: a ball's colour
WHITE_Q = 0.55           # lighter than this share of the ball's bright level: white (not black)
BLACK_Q = 0.3            # darker than this: black (the 8, a number's ink)


def radii_px(view, pts_mm):
    """The ball's radius in image pixels at each table point (n x 2 mm): perspective and the
    lens make it a little larger under the camera than at the table's far corners."""
    pts = np.asarray(pts_mm, dtype=np.float64).reshape(-1, 2)
    c = view.mm_to_px(pts)
    dx = view.mm_to_px(pts + (BALL_R_MM, 0.0))
    dy = view.mm_to_px(pts + (0.0, BALL_R_MM))
    return c, 0.5 * (np.hypot(*(dx - c).T) + np.hypot(*(dy - c).T))


def cut_patches(frame, centres_px, radii):
    """(n, PATCH, PATCH, 3) uint8: the picture about each centre (x, y pixels), SIDE_R radii a
    side, all in one remap (pixels outside the picture repeat its border)."""
    import cv2
    n = len(radii)
    if n == 0:
        return np.zeros((0, PATCH, PATCH, 3), np.uint8)
    step = (SIDE_R * np.asarray(radii, dtype=np.float32) / PATCH)[:, None, None]
    grid = (np.arange(PATCH, dtype=np.float32) - (PATCH - 1) / 2.0)
    cx = np.asarray(centres_px, dtype=np.float32)[:, 0][:, None, None]
    cy = np.asarray(centres_px, dtype=np.float32)[:, 1][:, None, None]
    mx = (cx + grid[None, None, :] * step) * np.ones((1, PATCH, 1), np.float32)
    my = (cy + grid[None, :, None] * step) * np.ones((1, 1, PATCH), np.float32)
    out = cv2.remap(frame, mx.reshape(n * PATCH, PATCH), my.reshape(n * PATCH, PATCH),
                    cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return out.reshape(n, PATCH, PATCH, 3)


# Every region above as a column of one (PATCH*PATCH, 20) matrix, so that a region's sum over
# all the patches at once is one matrix product (the per-region sums were a third of the
# analyser's time): the disc, inner, outer, ring, then the eight sectors' rims and rings.
_REGIONS = np.stack([DISC, INNER, OUTER, RING] + [rim for rim, _ in SECTORS]
                    + [ring for _, ring in SECTORS], axis=-1).reshape(PATCH * PATCH, -1).astype(np.float32)
_AREA = _REGIONS.sum(axis=0)
_D, _I, _O, _G = 0, 1, 2, 3
_RIMS, _RINGS = slice(4, 12), slice(12, 20)
_DISC_AT = np.flatnonzero(DISC.reshape(-1))


def features(patches, cloth_ycc, tint=(0.0, 0.0)):
    """(n, N_FEATURES) float32 for patches (n, PATCH, PATCH, 3 BGR uint8), `cloth_ycc` (n, 3):
    the bare cloth's Y, Cr, Cb where each ball lies, `tint`: the light's colour as chroma per
    lightness (identity.light_tint). See the module's docstring."""
    import cv2
    n = len(patches)
    out = np.zeros((n, N_FEATURES), np.float32)
    if n == 0:
        return out
    ycc = cv2.cvtColor(patches.reshape(n * PATCH, PATCH, 3), cv2.COLOR_BGR2YCrCb)
    ycc = ycc.reshape(n, PATCH * PATCH, 3).astype(np.float32)
    y = ycc[..., 0] + 1.0
    cr = (ycc[..., 1] - 128.0) / y - tint[0]
    cb = (ycc[..., 2] - 128.0) / y - tint[1]
    sat = np.hypot(cr, cb)
    yd = y[:, _DISC_AT]
    top = np.percentile(yd, 90, axis=1)[:, None]
    q = y / top
    white = ((sat < WHITE_SAT) & (q > WHITE_Q)).astype(np.float32)
    black = ((sat < 2 * WHITE_SAT) & (q < BLACK_Q)).astype(np.float32)
    colour = ((sat >= COLOUR_SAT) & (white == 0)).astype(np.float32)
    # No colour at all, whatever the lightness: shading does not change it (a stripe's cap at
    # a dim rim is grey, not white, but still colourless).
    grey = ((sat < WHITE_SAT) & (q > BLACK_Q)).astype(np.float32)
    share = lambda m, region: (m @ _REGIONS[:, region]) / _AREA[region]
    cloth = np.asarray(cloth_ycc, dtype=np.float32).reshape(n, 3)
    cloth_y = cloth[:, 0] + 1.0
    w = share(white, [_D, _I, _O])
    out[:, 0], out[:, 1], out[:, 2] = w[:, 0], w[:, 1], w[:, 2]
    out[:, 3] = share(black, _D)
    out[:, 4] = share(colour, _D)
    g = share(grey, [_O, _I])
    out[:, 5], out[:, 6] = g[:, 0], g[:, 1]
    # The coloured pixels' colour, lightness and saturation, and the whole disc's colour (a
    # smeared ball's colour is spread thin over cloth).
    cm = colour * _REGIONS[:, _D]
    k = np.maximum(cm.sum(axis=1), 1.0)
    out[:, 7] = (cr * cm).sum(axis=1) / k
    out[:, 8] = (cb * cm).sum(axis=1) / k
    out[:, 9] = (q * cm).sum(axis=1) / k
    out[:, 10] = (sat * cm).sum(axis=1) / k
    out[:, 11] = np.log(top[:, 0] / cloth_y)
    out[:, 12] = np.log((y * cm).sum(axis=1) / k / cloth_y + 1e-3)
    out[:, 13] = (cloth[:, 1] - 128.0) / cloth_y - tint[0]
    out[:, 14] = (cloth[:, 2] - 128.0) / cloth_y - tint[1]
    out[:, 15] = share(cr, _D)
    out[:, 16] = share(cb, _D)
    out[:, 17] = np.log(np.median(yd, axis=1) / cloth_y)
    # The shape: a ball is a disc on cloth, a sleeve's or a hand's edge is not. How unlike the
    # cloth each pixel is (its colour off the cloth's, or far lighter or darker than a shadow),
    # on a ring just outside the disc and inside the disc; and how many of eight sectors have
    # the disc's rim unlike what lies just outside it (a ball's edge runs all round it; a rack's
    # ball touches six others at six short arcs only).
    off = np.hypot(cr - out[:, 13][:, None], cb - out[:, 14][:, None])
    rel = y / cloth_y[:, None]
    unlike = (off > CLOTH_OFF) | (rel > CLOTH_LIGHTER) | (rel < CLOTH_DARKER)
    out[:, 18] = share(unlike.astype(np.float32), _G)
    out[:, 19] = share((~unlike).astype(np.float32), _D)
    rim_y, ring_y = share(y, _RIMS), share(y, _RINGS)
    chroma_step = (np.abs(share(cr, _RIMS) - share(cr, _RINGS)) + np.abs(share(cb, _RIMS) - share(cb, _RINGS)))
    light_step = np.abs(rim_y - ring_y) / np.maximum(ring_y, 8.0)
    out[:, 20] = (np.maximum(light_step, chroma_step) > EDGE_STEP).mean(axis=1)
    return out


# ------------------------------------------------------------------ what the features say
COLOURS = 10             # the colour model's classes: 0 the cue ball's white, 1-7 the colours,
NO_BALL = 9              # 8 the 8's black, 9 no ball at all (a hand, the stick, a shadow)
LOG_FLOOR = -7.0         # no one look rules a ball out more surely than this (log probability)


class Model:
    """Two small networks fitted on rendered footage (tools/calibrate/fit_ball_looks.py): one
    says which colour a look is (the cue ball's white, the seven colours, the 8's black, or no
    ball), the other, for a coloured ball, whether it is a stripe. A ball's number is its colour
    and its kind, so a stripe learnt on every colour is told from a solid of any one: a green
    stripe on green cloth is a stripe as surely as a yellow one (a single network over the
    sixteen numbers called it the 6 on 9 looks of 10)."""

    def __init__(self, params):
        if len(params["mean"]) != N_FEATURES:
            raise ValueError("ball looks model: %d features, not %d (fit it again: "
                             "tools/calibrate/fit_ball_looks.py)" % (len(params["mean"]), N_FEATURES))
        self.mean = np.asarray(params["mean"], np.float32)
        self.scale = 1.0 / np.asarray(params["std"], np.float32)
        self.clip = params.get("clip", {})
        self.colour = [(np.asarray(w, np.float32), np.asarray(b, np.float32)) for w, b in params["colour"]]
        self.stripe = [(np.asarray(w, np.float32), np.asarray(b, np.float32)) for w, b in params["stripe"]]

    @classmethod
    def load(cls, path=None):
        import json
        import os
        path = path or os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                    "data", "ball_looks.json")
        with open(path) as f:
            return cls(json.load(f))

    def log_probs(self, feats):
        """(n, 17) log probabilities: balls 0-15, then no ball."""
        z = np.asarray(feats, np.float32).copy()
        for i, (lo, hi) in self.clip.items():
            z[:, int(i)] = np.clip(z[:, int(i)], lo, hi)
        z = (z - self.mean) * self.scale
        colour = _log_softmax(_forward(self.colour, z))
        s = _forward(self.stripe, z)
        stripe = _log_softmax(np.hstack([np.zeros_like(s), s]) if s.shape[1] == 1 else s)
        out = np.empty((len(z), 17), np.float32)
        out[:, 0] = colour[:, 0]
        out[:, 8] = colour[:, 8]
        for n in range(1, 8):
            out[:, n] = colour[:, n] + stripe[:, 0]
            out[:, n + 8] = colour[:, n] + stripe[:, 1]
        out[:, 16] = colour[:, NO_BALL]
        return np.maximum(out, LOG_FLOOR)


def _forward(layers, z):
    for i, (w, b) in enumerate(layers):
        z = z @ w + b
        if i < len(layers) - 1:
            z = np.maximum(z, 0.0)
    return z


def _log_softmax(z):
    m = z.max(axis=1, keepdims=True)
    return z - m - np.log(np.exp(z - m).sum(axis=1, keepdims=True))
