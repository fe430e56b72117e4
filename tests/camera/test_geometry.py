"""Table mm <-> image pixels: the corners land on the table's corners, the lens round-trips."""
import numpy as np
import pytest

from host.camera.geometry import Lens, Table, View, parse_corners


def test_corners_map_to_the_table_corners_in_the_documented_order():
    table = Table.named("9ft")
    lens = Lens((1280, 720), k1=-0.1)
    corners = lens.distort([[100, 80], [110, 640], [1180, 650], [1170, 70]])
    view = View(table, lens, corners)
    mm = view.px_to_mm(corners)
    assert np.allclose(mm, [[0, 0], [0, 1270], [2540, 1270], [2540, 0]], atol=0.5)
    assert np.allclose(view.mm_to_px(mm), corners, atol=0.5)


def test_lens_undistort_inverts_distort():
    lens = Lens((1280, 720), k1=-0.15, k2=0.02)
    pts = np.array([[10, 10], [640, 360], [1270, 700], [300, 650]], dtype=float)
    assert np.allclose(lens.undistort(lens.distort(pts)), pts, atol=0.05)


def test_parse_corners_accepts_four_pairs_and_refuses_the_rest():
    c = parse_corners("100,80 110,640 1180,650 1170.5,70")
    assert c.shape == (4, 2) and c[3, 0] == 1170.5
    for bad in ("1,2 3,4 5,6", "a,b c,d e,f g,h", "1,2,3 4,5 6,7 8,9", "1,2 3,4 5,6 nan,1"):
        with pytest.raises(ValueError):
            parse_corners(bad)


@pytest.mark.parametrize("text", [
    "1180,650 110,640 100,80 1170,70",     # a camera turned 180 degrees (head end on the right)
    "100,80 1170,70 1180,650 110,640",     # mirrored (a camera's flip setting)
])
def test_corners_of_a_table_seen_any_way_round_are_accepted(text):
    assert parse_corners(text).shape == (4, 2)


@pytest.mark.parametrize("text", [
    "0,0 0,0 0,0 0,0",                     # one point
    "1,1 2,2 3,3 4,4",                     # a line
    "100,80 1180,650 110,640 1170,70",     # two corners swapped: the sides cross
    "100,80 110,640 1180,650 640,360",     # a corner inside the others' triangle
    "100,80 104,82 1180,650 1170,70",      # two corners 4 px apart
    "1e9,80 110,640 1180,650 1170,70",     # no picture is that large
])
def test_corners_that_do_not_go_round_a_table_are_refused(text):
    with pytest.raises(ValueError, match="do not go round a table"):
        parse_corners(text)


def test_table_sizes_by_name_and_by_mm():
    assert Table.named("7ft").length == pytest.approx(1981.2)
    t = Table.named("2000x1000")
    assert (t.length, t.width) == (2000, 1000)
    with pytest.raises(ValueError):
        Table.named("huge")


@pytest.mark.parametrize("shadow", [False, True])
def test_a_wide_lens_is_found_from_the_cushion_noses_to_within_a_few_mm(shadow):
    """A wide lens (barrel k1 -0.9 at the diagonal's focal length: a 1280 px picture of
    ~85 degrees) bends the table's sides far more than the plumb-line on the cloth's
    outline could tell (its search stopped at |k| 0.44, 25-50 mm off inside the table);
    from the noses seen along each side, with the corners given, balls map to within a few
    mm of where they lie. `shadow`: the cushions cast a shadow on the bed that lightens
    over 30 mm inwards (its inner edge is a step too, but a brightening one)."""
    from host.camera import table_finder
    from tests.camera.synth import ToyCamera
    table = Table.named("9ft")
    cam = ToyCamera(table, size=(1280, 720), k1=-0.9, seed=4, noise=2.0)
    if shadow:
        _shade_the_bed_by_the_cushions(cam, table)
    frame = cam.frame([{}])
    if shadow:
        import cv2
        frame = cv2.GaussianBlur(frame, (0, 0), 1.5)      # a softer lens: the nose's step spreads
    found = table_finder.find_table(frame, corners=cam.corners_px)
    view = View(table, Lens((1280, 720), *found["lens_k"]), cam.corners_px)
    truth = np.array([[x, y] for x in np.linspace(200, 2340, 7) for y in np.linspace(150, 1120, 5)])
    seen = view.px_to_mm(cam.view.mm_to_px(truth))
    err = np.hypot(*(seen - truth).T)
    assert np.median(err) < 5.0 and err.max() < 12.0, (found["lens_k"], np.median(err), err.max())


def _shade_the_bed_by_the_cushions(cam, table, band_mm=8.0, depth_mm=12.0, dark=0.4):
    """Darken the toy camera's bed next to the noses as the renderer's lamps do: a dark
    band `band_mm` wide at the nose, lightening over `depth_mm` further in."""
    rows, cols = cam._base.shape[:2]
    ys, xs = np.mgrid[0:rows, 0:cols].astype(float)
    x, y = xs * cam.s - cam.margin, ys * cam.s - cam.margin
    inside = (x >= 0) & (x <= table.length) & (y >= 0) & (y <= table.width)
    edge = np.minimum.reduce([x, table.length - x, y, table.width - y])
    f = np.where(inside, dark + (1 - dark) * np.clip((edge - band_mm) / depth_mm, 0, 1), 1.0)
    cam._base = np.clip(cam._base * f[..., None], 0, 255).astype(np.uint8)
