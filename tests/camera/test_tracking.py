"""The tracker stays bounded and keeps one track per ball."""
import numpy as np

from host.camera.geometry import Table
from host.camera import tracking
from host.camera.tracking import Tracker


def test_a_storm_of_glints_never_grows_the_tracks_without_bound(monkeypatch):
    monkeypatch.setattr(tracking, "FORGET_S", 2.0)        # minutes, on a live table
    rng = np.random.default_rng(0)
    tr = Tracker(Table.named("9ft"), fps=60)
    for i in range(400):
        cands = [{"x": float(x), "y": float(y), "circle": True}
                 for x, y in zip(rng.uniform(0, 2540, 12), rng.uniform(0, 1270, 12))]
        tr.step(i / 60.0, cands, [None] * len(cands))
        assert len(tr.tracks) <= tracking.MAX_TRACKS
    assert sum(len(t.t) for t in tr.tracks) < 200000


def test_a_ball_at_rest_keeps_its_track_through_a_missed_frame():
    tr = Tracker(Table.named("9ft"), fps=60)
    balls = [(500.0, 500.0), (557.5, 500.0), (2000.0, 300.0)]
    for i in range(30):
        shown = balls if i % 5 else balls[1:]          # the first one flickers off
        cands = [{"x": x, "y": y, "circle": True} for x, y in shown]
        tr.step(i / 60.0, cands, [None] * len(cands))
    assert len(tr.tracks) == 3
    for t in tr.tracks:
        assert np.ptp(t.x) < 1 and np.ptp(t.y) < 1      # never dragged to a neighbour


def test_matching_block_by_block_costs_what_matching_the_whole_frame_costs():
    """Tracks and candidates are matched in independent blocks; the total is the
    least possible, as the whole (tracks + candidates) square gives it."""
    import random
    from host.camera.assignment import INF, assign, assign_or_leave
    rng = random.Random(5)
    for _ in range(200):
        n, m = rng.randint(1, 9), rng.randint(1, 9)
        cost = [[rng.uniform(0, 12) if rng.random() < 0.3 else INF for _ in range(m)] for _ in range(n)]
        full = [row + [7.0 if i == k else INF for k in range(n)] for i, row in enumerate(cost)]
        for j in range(m):
            full.append([7.0 if k == j else INF for k in range(m)] + [0.0] * n)

        def total(pairs):
            rows, cols = {i for i, _ in pairs}, {j for _, j in pairs}
            return sum(cost[i][j] for i, j in pairs) + 7.0 * (n - len(rows)) + 7.0 * (m - len(cols))

        want = total([(i, j) for i, j in assign(full) if i < n and j < m])
        got = assign_or_leave(cost, 7.0, 7.0)
        assert len({i for i, _ in got}) == len(got) == len({j for _, j in got})
        assert all(cost[i][j] != INF for i, j in got)
        assert abs(total(got) - want) < 1e-6


def test_a_ball_whose_hue_fits_is_named_though_a_spot_lamp_makes_it_far_too_light():
    """The 9 (a yellow stripe) under a spot lamp, its lightness far off, the 1 (the
    yellow solid) named already: it is the 9, not "no ball"."""
    from host.camera import identity
    pal = identity.palette()
    white = {"white_hi": 0.95, "white_lo": 0.9, "white_mid": 0.92, "dark": 0.0, "white_l": 1.0,
             "colour": (0.3, 0.0, 0.0), "frames": 200, "seen": 200, "seen_s": 8.0, "near_occluder": 0.0}
    one = dict(white, white_hi=0.1, white_lo=0.0, white_mid=0.05, white_l=None,
               colour=(pal[1][0], pal[1][1], pal[1][2]))
    nine = dict(one, white_hi=0.3, white_lo=0.05, white_mid=0.16, colour=(pal[1][0] * 2.5, pal[1][1], pal[1][2]))
    labels = identity.label({"cue": white, "one": one, "nine": nine}, pal)
    assert labels["cue"][0] == 0 and labels["one"][0] == 1
    assert labels["nine"][0] == 9


def test_a_track_never_leaps_farther_than_a_ball_can_roll_in_a_frame():
    """At 120 fps a ball rolls at 3 m/s; in one frame it is missed and something 150 mm
    ahead of it is seen (a glint on the cushion): the rolling ball's track does not jump
    there (21 m/s), it picks its own ball up again."""
    tr = Tracker(Table.named("9ft"), fps=120)
    for i in range(60):
        t = i / 120.0
        cands = [{"x": 800.0 + 3000.0 * t, "y": 600.0, "circle": True}]
        if i == 40:
            cands = [{"x": 800.0 + 3000.0 * t + 150.0, "y": 600.0, "circle": True}]
        tr.step(t, cands, [None] * len(cands))
    roller = max(tr.tracks, key=lambda k: len(k.t))
    steps = np.hypot(np.diff(roller.x), np.diff(roller.y)) / np.diff(roller.t)
    assert steps.max() < tracking.V_MAX
    assert len(roller.t) >= 55 and abs(roller.t[-1] - 59 / 120.0) < 1e-9


def test_in_nine_ball_a_red_ball_is_the_3_not_the_11():
    """The game's numbers only: with stripes' looks (a red ball showing some white) and
    the 3 taken by nothing else, nine-ball names it 3; eight-ball would say 11."""
    from host.camera import identity
    pal = identity.palette()
    red = {"white_hi": 0.45, "white_lo": 0.2, "white_mid": 0.3, "dark": 0.0, "white_l": None,
           "colour": pal[3], "frames": 200, "seen": 200, "seen_s": 8.0, "near_occluder": 0.0}
    assert identity.label({"r": red}, pal, balls=identity.balls_of("eightball"))["r"][0] == 11
    assert identity.label({"r": red}, pal, balls=identity.balls_of("nineball"))["r"][0] == 3


def _track(key, points, t0=0.0, fps=60.0):
    """A confirmed Track through `points` ((x, y) or None for a frame it was unseen)."""
    tr = None
    for i, p in enumerate(points):
        if p is None:
            continue
        t = t0 + i / fps
        if tr is None:
            tr = tracking.Track(key, t, p[0], p[1])
        else:
            tr.add(t, p[0], p[1], None, 1.0)
    if tr.t[-1] < t0 + (len(points) - 1) / fps - 1e-9:
        tr.lost_since = tr.t[-1]
    return tr


def test_a_fast_ball_unseen_for_a_moment_in_a_shot_is_one_track_again():
    # A ball at 3 m/s goes unseen for 0.4 s (a break's scatter, a smear on a grey cloth):
    # too far for the tracker to relink, it comes back as a new track. Judged as a shot,
    # it is one ball with one path: its rest is found and nothing else takes its number.
    tr = Tracker(Table.named("9ft"), fps=60)
    still = (1500.0, 300.0)
    for i in range(150):
        t = i / 60.0
        x = 500.0 + 3000.0 * max(0.0, min(t, 1.0) - 0.5)
        cands = [{"x": still[0], "y": still[1], "circle": True}]
        if not 0.7 <= t < 1.1 or t < 0.5:
            cands.append({"x": x, "y": 600.0, "circle": True})
        tr.step(t, cands, [None] * len(cands))
    assert len([t for t in tr.tracks if t.confirmed]) == 3       # the ball's track broke
    joined = tracking.stitched(tr.tracks, 0.4)
    assert len(joined) == 2
    ball = next(t for t in joined if t.t[0] == 0.0 and t.y[0] == 600.0)
    assert ball.x[-1] == 2000.0 and ball.lost_since is None       # seen to its rest
    assert min(ball.t) == 0.0                                      # and from before the shot


def test_tracks_of_two_balls_are_not_joined():
    # One ball lost at speed in mid-table; another, far off and not where it could have
    # rolled, first seen later: two balls.
    a = _track(1, [(500.0 + 50 * i, 600.0) for i in range(20)] + [None] * 40)
    b = _track(2, [None] * 30 + [(2300.0, 100.0)] * 30)
    joined = tracking.stitched([a, b], 0.0)
    assert len(joined) == 2


def test_a_ball_heading_fast_into_a_corner_pocket_when_lost_dropped_there():
    table = Table.named("9ft")
    pockets = table.pockets_mm()
    L, W = table.length, table.width
    into = _track(0, [(L - 400 + 30 * i, W - 400 + 30 * i) for i in range(8)] + [None] * 10)
    k = tracking.heading_into_pocket(into, pockets)
    assert k is not None and abs(pockets[k][0] - L) < 80 and abs(pockets[k][1] - W) < 80
    along = _track(0, [(1000 + 30 * i, 600.0) for i in range(8)] + [None] * 10)
    assert tracking.heading_into_pocket(along, pockets) is None


def test_a_ball_s_track_dragged_off_by_an_arm_is_given_back_to_the_ball():
    # Ball at rest at (800, 400); at 1.0 s a sleeve takes its track and drags it into the
    # side pocket while the ball, still there, gets a new track: it is the ball, at rest.
    a = _track(1, [(800.0, 400.0)] * 60 + [(800.0 + 15 * i, 400.0 - 40 * i) for i in range(1, 10)] + [None] * 60)
    b = _track(2, [None] * 60 + [(801.0, 401.0)] * 69)
    out = tracking.reclaimed([a, b], 0.9)
    assert len(out) == 1
    ball = out[0]
    assert ball.key == 1 and ball.lost_since is None
    assert max(abs(x - 800.0) for x in ball.x) < 3 and max(abs(y - 400.0) for y in ball.y) < 3


def test_a_slow_ball_lost_far_from_a_pocket_it_rolls_towards_did_not_drop():
    table = Table.named("9ft")
    L, W = table.length, table.width
    slow = _track(0, [(L - 380 + 8 * i, W - 380 + 8 * i) for i in range(8)] + [None] * 10)   # 0.7 m/s
    assert tracking.heading_into_pocket(slow, table.pockets_mm()) is None


def test_a_ball_lost_by_a_pocket_is_joined_only_to_a_track_back_by_that_mouth():
    table = Table.named("9ft")
    pockets = table.pockets_mm()
    k = min(range(len(pockets)), key=lambda i: pockets[i][0] + pockets[i][1])     # head-left corner

    def dropped():
        a = _track(1, [(400.0 - 40 * i, 400.0 - 40 * i) for i in range(8)] + [None] * 30)
        a.dropped_at = (a.t[-1], k)
        return a

    rattle = _track(2, [None] * 14 + [(70.0 + 5 * i, 70.0 + 5 * i) for i in range(20)])
    assert len(tracking.stitched([dropped(), rattle], 0.0, pockets)) == 1
    elsewhere = _track(3, [None] * 25 + [(189.0, 166.0)] * 20)
    assert len(tracking.stitched([dropped(), elsewhere], 0.0, pockets)) == 2


def test_a_ball_seen_next_to_an_arm_keeps_the_looks_it_had():
    """Next to an arm or the stick a ball's disc is partly the hand or the sleeve: those
    frames teach its track nothing, so a white ball aimed at for seconds stays white."""
    from host.camera.geometry import Table
    tr = tracking.Tracker(Table.named("9ft"), 60.0)
    white = (1.0, 0.0, 0.0, None, None, None, 4.0)
    sleeve = (0.0, 0.0, 0.9, 1.0, 0.3, -0.2, None)
    for i in range(30):
        tr.step(i / 60.0, [{"x": 600.0, "y": 635.0, "circle": True}], [white])
    for i in range(30, 150):
        tr.step(i / 60.0, [{"x": 600.0, "y": 635.0, "circle": True, "near_occluder": True}], [sleeve])
    (track,) = tr.tracks
    s = track.looks.summary()
    assert s["white_lo"] > 0.9 and s["colour"] is None
    assert track.colour[0] > 0.9


def test_a_cue_ball_struck_into_the_stick_tip_s_track_is_given_its_own_path_back():
    # The cue ball lies at (500, 600); the tip's track sways 60-100 mm behind it (practice
    # strokes). Struck at frame 60 at 6 m/s along +x, the ball's next places go to the tip's
    # track and the tip's to the ball's: one track for the ball, its rest and its onset kept.
    from host.camera import analyse, shots
    fps, n, s = 60.0, 90, 60
    ball = [(500.0, 600.0)] * s + [(440.0 + (i % 3) * 5, 600.0) for i in range(n - s)]   # the tip
    tip = [(400.0 + 30 * ((i // 4) % 2), 600.0) for i in range(s)]
    tip += [(500.0 + 6000.0 * (i + 1) / fps, 600.0) for i in range(n - s)]                 # the ball
    a, b = _track(0, ball, fps=fps), _track(1, tip, fps=fps)
    # The onset as the stroke is found on the ball's track (the tip's leap back: slower than the ball).
    onset = shots.motion_onset(shots.Path(a.t, a.x, a.y), (500.0, 600.0), 0.0)
    assert onset is not None and onset[1] < 6000.0
    tracks, found = analyse._left_behind([a, b], (a, (500.0, 600.0), onset), fps)
    cue = found[0]
    after = [x for t, x in zip(cue.t, cue.x) if t > onset[0]]
    assert after and after[0] > 550 and all(q > p for p, q in zip(after, after[1:])), "the ball's own way"
    assert abs(found[2][0] - onset[0]) < 1.5 / fps
    assert len(tracks) == 3 and any(len(tr.t) == s for tr in tracks if tr is not cue)   # the tip's


def test_a_ball_s_rivals_are_the_numbers_it_fits_nearly_as_well():
    """A red ball showing a stripe's white, its colour between the red's and the maroon's and no
    cue ball to tell light from dark: the 11 or the 15, a stripe either way, never a solid; the
    cue ball has no rival; a blob that fits no ball well may be none."""
    from host.camera import identity
    pal = identity.palette()
    between = tuple((a + b) / 2 for a, b in zip(pal[3], pal[7]))
    red = {"white_hi": 0.45, "white_lo": 0.2, "white_mid": 0.3, "dark": 0.0, "white_l": None,
           "colour": between, "frames": 200, "seen": 200, "seen_s": 8.0, "near_occluder": 0.0}
    white = dict(red, white_hi=0.95, white_lo=0.9, white_mid=0.92, white_l=None, colour=(0.3, 0.0, 0.0))
    labels, rivals = identity.label_with_rivals({"r": red, "w": white}, pal)
    assert labels["r"][0] in (11, 15) and labels["r"][1] < 0.85
    assert rivals["r"] == [11, 15]
    assert labels["w"][0] == 0 and rivals["w"] == [0]
    odd = dict(red, colour=(0.5, 0.3, -0.1))            # fits the 13 a little, "no ball" nearly as well
    labels, rivals = identity.label_with_rivals({"o": odd}, pal)
    assert labels["o"][0] == 13 and rivals["o"] is None


def _evidence(ball, p=0.97):
    """A look the appearance model gives ball `ball` with probability `p` (the rest spread)."""
    q = np.full(17, (1 - p) / 16.0)
    q[ball] = p
    return np.log(q)


def test_a_ball_s_track_does_not_take_a_neighbour_that_looks_like_another_ball():
    """In a rack's scatter a ball's own candidate is missed for a frame while a neighbour of
    another colour rolls into the gate: by distance alone the track would take it (and the two
    balls' paths, and cushions, would be swapped); the model's looks keep them apart."""
    tr = Tracker(Table.named("9ft"), fps=60)
    for i in range(20):                    # the 3 lies at (1000, 500) and is seen so
        tr.step(i / 60.0, [{"x": 1000.0, "y": 500.0, "circle": True}], [(0.0,) * 7], evidence=[_evidence(3)])
    three = tr.tracks[0]
    # Its own candidate missed; the 1 (yellow) rolls up 30 mm away.
    tr.step(20 / 60.0, [{"x": 1030.0, "y": 500.0, "circle": True}], [(0.0,) * 7], evidence=[_evidence(1)])
    assert three.x[-1] == 1000.0 and len(tr.tracks) == 2
    # Without the model's word (a coarse picture) the distance decides, as before.
    old = Tracker(Table.named("9ft"), fps=60)
    for i in range(20):
        old.step(i / 60.0, [{"x": 1000.0, "y": 500.0, "circle": True}], [None])
    old.step(20 / 60.0, [{"x": 1030.0, "y": 500.0, "circle": True}], [None])
    assert len(old.tracks) == 1 and old.tracks[0].x[-1] == 1030.0
    # The 3's own look 30 mm away (it was struck) is its own.
    tr.step(21 / 60.0, [{"x": 1060.0, "y": 500.0, "circle": True}, {"x": 1030.0, "y": 520.0, "circle": True}],
            [(0.0,) * 7] * 2, evidence=[_evidence(3), _evidence(1)])
    assert three.x[-1] == 1060.0
