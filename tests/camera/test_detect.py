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


def _shaded(img, geo, x, y, bgr, dark_side=True, glint=True):
    """A ball drawn as a lamp lights it: its own colour, its far side in shade, a small
    highlight towards the lamp (or a disc lit all over: a hand, a sleeve's end)."""
    import cv2
    c, r = geo.to_px(x, y)
    rad = geo.r_px
    yy, xx = np.mgrid[0:img.shape[0], 0:img.shape[1]].astype(np.float32)
    d = np.hypot(xx - c, yy - r)
    inside = d <= rad
    img[inside] = bgr
    if dark_side:          # the side away from the lamp: a crescent at a quarter of the light
        crescent = inside & (np.hypot(xx - (c - 0.45 * rad), yy - (r - 0.3 * rad)) > 0.97 * rad)
        img[crescent] = (np.array(bgr) * 0.25).astype(np.uint8)
    if glint:
        cv2.circle(img, (int(round(c - 0.3 * rad)), int(round(r - 0.3 * rad))), 1, (250, 250, 250), -1)


def test_a_ball_of_the_cloth_s_own_colour_is_found_by_its_shade_and_a_lit_disc_is_not():
    """A maroon 7 on burgundy cloth differs from the cloth only where the lamp lights and
    shades it as a sphere: found at its circle's centre, though most of its disc scores as
    cloth. A disc of the cloth's colour lit all over (a hand, a sleeve's end) is round as
    well but has no shaded side: no ball."""
    geo = detect.Rectified(Table.named("9ft"), 4.0, 90.0)
    cloth_bgr = (40, 30, 120)
    img = np.zeros(geo.shape + (3,), np.uint8)
    img[:] = cloth_bgr
    rng = np.random.default_rng(3)
    cloth = detect.ClothRef(detect.to_ycc(img).astype(np.float32))
    _shaded(img, geo, 1500.0, 400.0, cloth_bgr)
    _shaded(img, geo, 800.0, 900.0, (44, 34, 130), dark_side=False)
    img = np.clip(img.astype(np.int16) + rng.integers(-2, 3, img.shape), 0, 255).astype(np.uint8)
    ycc = detect.to_ycc(img)
    score = detect.not_cloth(ycc, cloth)
    found = detect.candidates(score, geo, geo.cloth_mask(), gray=ycc[..., 0], cloth_y=cloth.y1)
    assert [c for c in found if math.hypot(c["x"] - 1500, c["y"] - 400) < 12], found
    assert not [c for c in found if math.hypot(c["x"] - 800, c["y"] - 900) < 60], found
    # Without the cloth's lightness (as before), the faint ball is not found: the test sees it.
    plain = detect.candidates(score, geo, geo.cloth_mask(), gray=ycc[..., 0])
    assert not [c for c in plain if math.hypot(c["x"] - 1500, c["y"] - 400) < 12], plain


def test_a_ball_with_a_hard_shadow_in_a_dark_corner_is_found_at_its_own_centre_every_frame():
    """Far from a spot lamp the cloth is nearly black and a ball's shadow darker still: the
    ball and its shadow make a second circle, half on each, that outvotes the ball's own in
    some frames. The fuller circle is the ball: its centre is the same in every frame (it
    flickered by 18 mm between the two, and a still table looked as if a ball moved)."""
    import cv2
    geo = detect.Rectified(Table.named("9ft"), 4.0, 90.0)
    x, y = 2140.0, 955.0
    c, r = geo.to_px(x, y)
    rad = geo.r_px
    errors = []
    for seed in range(12):
        rng = np.random.default_rng(seed)
        img = np.zeros(geo.shape + (3,), np.uint8)
        img[:] = (22, 22, 22)
        cloth = detect.ClothRef(detect.to_ycc(img).astype(np.float32))
        shadow = (int(round((c + 1.1 * rad) * 16)), int(round((r + 0.3 * rad) * 16)))
        cv2.circle(img, shadow, int(round(rad * 16)), (9, 9, 9), -1, cv2.LINE_AA, 4)
        cv2.circle(img, (int(round(c * 16)), int(round(r * 16))), int(round(rad * 16)), (110, 115, 112), -1,
                   cv2.LINE_AA, 4)
        img = np.clip(img.astype(np.int16) + rng.integers(-3, 4, img.shape), 0, 255).astype(np.uint8)
        ycc = detect.to_ycc(img)
        found = detect.candidates(detect.not_cloth(ycc, cloth), geo, geo.cloth_mask(), gray=ycc[..., 0],
                                  cloth_y=cloth.y1)
        near = [math.hypot(k["x"] - x, k["y"] - y) for k in found if math.hypot(k["x"] - x, k["y"] - y) < 60]
        assert len(near) == 1, near
        errors.append(near[0])
    assert max(errors) < 5.0, errors
