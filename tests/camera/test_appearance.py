"""A ball's looks in the camera's own pixels (host/camera/appearance.py): the features, and the
shipped model naming balls rendered by the project's own renderer on a seed it was not fitted on."""
import math

import cv2
import numpy as np
import pytest

from host.camera import appearance, identity

S = appearance.PATCH
R = S / appearance.SIDE_R


def _ball(colour, white, cloth=(60, 120, 30)):
    """A flat patch: cloth, a disc of `colour`, white where `white(u, v)` (u, v in radii)."""
    img = np.zeros((S, S, 3), np.uint8)
    img[:] = cloth
    c = (S - 1) / 2.0
    for r in range(S):
        for q in range(S):
            u, v = (q - c) / R, (r - c) / R
            if u * u + v * v <= 1.0:
                # shaded like a sphere lit from above: darker towards the rim
                k = 0.55 + 0.45 * math.sqrt(max(0.0, 1 - u * u - v * v))
                img[r, q] = [int(k * x) for x in ((235, 240, 240) if white(u, v) else colour)]
    return img


def _features(patch, cloth=(60, 120, 30)):
    ycc = cv2.cvtColor(np.array([[cloth]], np.uint8), cv2.COLOR_BGR2YCrCb)[0, 0].astype(np.float32)
    return appearance.features(patch[None], ycc[None])[0]


def test_a_stripe_shows_white_at_its_rim_and_a_solid_only_its_number_in_the_middle():
    red = (30, 30, 210)
    solid = _features(_ball(red, lambda u, v: u * u + v * v < 0.35 ** 2))           # number up
    across = _features(_ball(red, lambda u, v: abs(u) > 0.6))                      # band over the top
    cap_up = _features(_ball(red, lambda u, v: u * u + v * v < 0.8 ** 2))          # a cap faces up
    white_rim, white_mid = 2, 1
    assert solid[white_rim] < 0.05 and across[white_rim] > 0.3
    assert solid[white_mid] < cap_up[white_mid] - 0.3
    # The colour of the coloured pixels is the ball's, wherever the white lies.
    assert abs(solid[7] - across[7]) < 0.1 and abs(solid[8] - across[8]) < 0.1


def test_features_do_not_change_with_the_light():
    blue = (190, 70, 20)
    stripe = _ball(blue, lambda u, v: abs(v) > 0.6)
    bright = _features(stripe)
    dim = _features((stripe.astype(np.float32) * 0.45).astype(np.uint8), cloth=(27, 54, 13))
    for k in (0, 1, 2, 4, 7, 8, 13, 14):       # shares and chroma per lightness
        assert abs(bright[k] - dim[k]) < 0.12, k


def test_the_model_gives_each_look_a_probability_for_every_ball_and_no_ball():
    model = appearance.Model.load()
    feats = np.stack([_features(_ball((30, 30, 210), lambda u, v: False)),
                      _features(_ball((30, 30, 210), lambda u, v: abs(u) > 0.6))])
    lp = model.log_probs(feats)
    assert lp.shape == (2, 17)
    assert np.allclose(np.exp(lp).sum(axis=1), 1.0, atol=0.02)


@pytest.fixture(scope="module")
def rendered_set():
    """Every ball of a set lying apart on a 9 ft table, one 1280x720 frame by the project's
    renderer (tools/footage), a seed outside the model's tuning footage, no player."""
    from tools.footage import kinematic
    from tools.footage.render import Renderer
    from tools.footage.scene import scene_for
    balls = {n: (250.0 + 220.0 * (n % 8), 300.0 + 400.0 * (n // 8)) for n in range(16)}   # a 7 ft table
    traj = kinematic.simulate(balls, strokes=[], decel=900.0, max_duration=0.2)
    out = []
    for seed, light, cloth in ((7, "even", "green"), (11, "warm", "blue"), (13, "dim", "burgundy")):
        scene = scene_for(seed, traj.table_mm, fps=60, light=light, cloth=cloth, size=(1280, 720))
        r = Renderer(traj, scene, seed, players=False)
        img, tf = r.render_frame(2)
        out.append((img, tf, r))
    return out


def test_the_shipped_model_names_every_ball_of_a_set_it_never_saw(rendered_set):
    model = appearance.Model.load()
    for img, tf, r in rendered_set:
        ids = sorted(int(b) for b in tf["balls"])
        centres = np.array([tf["balls"][str(b)]["px"] for b in ids])
        radii = np.array([tf["balls"][str(b)]["r_px"] for b in ids])
        patches = appearance.cut_patches(img, centres, radii)
        # the bare cloth about each ball: the renderer's empty table
        bg = cv2.cvtColor(r.bg.image.astype(np.uint8), cv2.COLOR_BGR2YCrCb)
        cloth = np.array([bg[int(v), int(u)] for u, v in centres + np.array([3 * radii, 0 * radii]).T])
        # The light's tint from the balls' white, as the analyser takes it (a warm lamp's white
        # is yellowish).
        tint = identity.light_tint(cv2.cvtColor(img, cv2.COLOR_BGR2YCrCb),
                                   [{"col": u, "row": v} for u, v in centres], float(np.median(radii)),
                                   lambda c: bg[int(c["row"]), int(c["col"] + 3 * radii[0]), 0])
        named = model.log_probs(appearance.features(patches, cloth, tint))[:, :16].argmax(axis=1)
        assert named.tolist() == ids, (r.scene.light_name, r.scene.cloth_name)
