"""Ball candidates in the top-down drawing (host/camera/detect.py)."""
import math

import numpy as np

from host.camera import detect
from host.camera.geometry import BALL_R_MM, Table


def test_an_inner_ball_of_a_rack_is_a_candidate_though_no_cloth_shows_around_it():
    """Six balls touching it all round leave almost no cloth in the ring about a rack's
    inner ball (a peak inside a blob is refused: an arm), but its rim is a circle in the
    lightness picture: it is a ball, as its neighbours are."""
    import cv2
    geo = detect.Rectified(Table.named("9ft"), 4.0, 90.0)
    img = np.zeros(geo.shape + (3,), np.uint8)
    img[:] = (40, 120, 10)
    cloth = detect.ClothRef(detect.to_ycc(img).astype(np.float32))
    colours = [(0, 200, 240), (190, 70, 20), (30, 30, 210), (130, 40, 90), (20, 120, 245), (60, 130, 20),
               (25, 25, 25)]
    centre = (1900.0, 635.0)
    places = [centre] + [(centre[0] + 2 * BALL_R_MM * math.cos(a), centre[1] + 2 * BALL_R_MM * math.sin(a))
                         for a in np.arange(6) * math.pi / 3]
    for (x, y), bgr in zip(places, colours):
        c, r = geo.to_px(x, y)
        at, rad = (int(round(c * 16)), int(round(r * 16))), int(round(geo.r_px * 16))
        cv2.circle(img, at, rad, bgr, -1, cv2.LINE_AA, 4)
        cv2.circle(img, at, rad, (10, 10, 10), 1, cv2.LINE_AA, 4)
    ycc = detect.to_ycc(img)
    cands = detect.candidates(detect.not_cloth(ycc, cloth), geo, geo.cloth_mask(), gray=ycc[..., 0])
    assert len(cands) == 7
    for x, y in places:
        assert any(math.hypot(c["x"] - x, c["y"] - y) < 8 for c in cands), (x, y)


def test_a_ball_s_centre_is_the_same_from_any_seed_within_it():
    """The centroid is re-centred until it settles: started from a Hough circle's centre or
    from the score's peak a pixel or two away, a ball at rest gets one centre, not two it
    flickers between (a still table that looked 'moving' kept a shot open a second late)."""
    geo = detect.Rectified(Table.named("9ft"), 4.0, 90.0)
    h, w = geo.shape
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    cx, cy = 300.37, 150.81
    score = np.clip((geo.r_px + 0.5 - np.hypot(xx - cx, yy - cy)), 0.0, 1.0).astype(np.float32)
    score += 0.6 * np.clip(geo.r_px - np.hypot(xx - cx - 1.6 * geo.r_px, yy - cy), 0.0, 1.0)   # a shadow's smear
    centres = [detect._centroid(score, c, r, geo.r_px, geo.grid) for c, r in ((300, 151), (302, 149), (298, 152))]
    for c in centres[1:]:
        assert abs(c[0] - centres[0][0]) < 0.05 and abs(c[1] - centres[0][1]) < 0.05, centres
