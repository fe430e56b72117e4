"""How many balls reached a rail on the break, from the rail piezos alone.

The piezos report impacts (t_us, rail, strength) but not which ball hit, so a
plain count of impacts over-counts balls that bounce around and under-counts
balls lost in the board's dead time. Each impact instead gets a probability
that it is a ball's FIRST rail of the break (logistic in a few features: its
strength, alone and against the break's strongest; how late it came and how
soon after the impact before it; whether its rail was already hit; how many
impacts came before; head or foot rail; how hard the break was). The sum of those probabilities is the expected
number of distinct balls seen, the cue ball included; the cue ball's expected
share is taken off for object balls. An impact that is only the echo of a
strong one on the neighbouring rail segment (cross-talk through the frame)
is left out of the model.

The games' three questions (eight-ball's four object balls, nine-ball's any
four balls, straight pool's safe break) are decided per speed band, told by
the break's strongest impact; which decision each band uses was chosen on
held-out breaks so that no band is judged worse than by any decision before.

Pure, MicroPython-compatible (math only). Weights fitted on simulated breaks:
docs/break-estimator.md, tools/calibrate/fit_break_estimator.py; the per-band
choice: tools/calibrate/band_study.py.
"""

import math

# The named setting `break_estimator` (a plain dict; a key left out takes the
# value here).
DEFAULT_PARAMS = {
    # impacts weaker than this are ignored (RAIL strength scale 0..65535);
    # the simulated piezo threshold is 1000
    "min_strength": 1200,
    # logistic weights, one per feature of an impact, in this order:
    #  0 bias
    #  1 log(strength / 1000)
    #  2 seconds since the break's first impact
    #  3 1 if its rail was already hit in this break
    #  4 log(1 + number of impacts before it)
    #  5 strength / strongest impact of the break
    #  6 1 on the head rail (the cue ball comes back there)
    #  7 1 on the foot rail (the rack's end)
    #  8 log(strongest impact / 1000): how hard the break was
    #  9 log(1 + ms since the previous impact on any rail / 10), 0 for the
    #    first: impacts close together come from different balls (a burst)
    "weights": [1.104, -1.322, -0.432, 0.273, -0.601, 2.665, -1.776, -0.54, 0.696, -0.091],
    # expected number of cue balls among the balls seen (cue ball reached a rail)
    "cue_share": 0.71,
    # decide "reached" when the estimate >= needed - margin; by question:
    # object balls from a 15-ball rack (eight-ball), from a 9-ball rack
    # (nine-ball), and the cue ball plus object balls (straight pool safe break)
    "margin_15": 0.3,
    "margin_9": 0.55,
    "margin_cue": 0.25,
    # Impact-count thresholds of the decision before issue 18 (eight-ball,
    # and nine-ball's "any four balls"): used where a decide_* entry names
    # them, e.g. ["count", "count_15"]; none does by default
    "count_15": 11,
    "count_9": 8,
    # Cross-talk: a piezo also hears, through the frame, a strong impact on
    # the rail segment next to it (3 % of it in the sensor study's board). An
    # impact within crosstalk_us of one at least crosstalk_ratio times
    # stronger on a neighbouring segment is left out of the per-impact model
    # (crosstalk_ratio 0: none is); the impact count keeps every impact.
    "crosstalk_us": 1000,
    "crosstalk_ratio": 10,
    # The games' three questions are decided per speed band, the band told
    # by the break's strongest impact: below band_*[0] soft, below
    # band_*[1] normal, else hard (the cue ball's speed after the strike:
    # soft < 4.5 m/s, hard >= 7.5; the safe break's < 2 and >= 3.3).
    # Suffix 15: eight-ball (4 object balls of 15); 9: nine-ball's any four
    # balls, the cue ball may be one; safe: straight pool's safe break.
    "band_15": [18500, 44000],
    "band_9": [18000, 38800],
    "band_safe": [4200, 14200],
    # decide_*: per band (soft, normal, hard) [kind, value]:
    #   "count": impact_count >= value;
    #   "balls": balls_railed (the cue ball included) >= value;
    #   "margin": the per-impact model against needed - value (object
    #   balls, or with cue_ball the balls heard against needed + 1 - value);
    # a value that is a key's name takes that key's value. Chosen per game
    # and band on held-out breaks (docs/break-estimator.md, "Per speed
    # band"): the per-impact model at its earlier margins in every band.
    "decide_15": [["margin", "margin_15"], ["margin", "margin_15"], ["margin", "margin_15"]],
    "decide_9": [["margin", "margin_cue"], ["margin", "margin_cue"], ["margin", "margin_cue"]],
    "decide_safe": [["margin", "margin_cue"], ["margin", "margin_cue"], ["margin", "margin_cue"]],
}


def _param(params, key):
    if params is not None and key in params:
        return params[key]
    return DEFAULT_PARAMS[key]


def _clean(impacts, min_strength):
    """Valid (t, rail, strength) tuples in time order; bad items are skipped."""
    out = []
    if not impacts:
        return out
    try:
        items = list(impacts)
    except Exception:
        return out
    for item in items:
        try:
            t = int(item[0])
            rail = int(item[1])
            s = int(item[2])
        except Exception:
            continue
        if rail < 0 or rail > 5 or s < min_strength or s <= 0:
            continue
        out.append((t, rail, s))
    out.sort()
    return out


def without_crosstalk(impacts, params=None):
    """Valid impacts in time order less the neighbouring segments' echoes of a strong impact: one
    that comes within crosstalk_us of an impact at least crosstalk_ratio times stronger on the
    rail segment next to it (0 keeps them all)."""
    imp = _clean(impacts, 1)
    window = _param(params, "crosstalk_us")
    ratio = _param(params, "crosstalk_ratio")
    if not ratio or ratio <= 0:
        return imp
    out = []
    n = len(imp)
    for k in range(n):
        t, rail, s = imp[k]
        echo = False
        j = k - 1
        while j >= 0 and t - imp[j][0] <= window and not echo:
            echo = _louder_neighbour(imp[j], rail, s, ratio)
            j -= 1
        j = k + 1
        while j < n and imp[j][0] - t <= window and not echo:
            echo = _louder_neighbour(imp[j], rail, s, ratio)
            j += 1
        if not echo:
            out.append(imp[k])
    return out


def _louder_neighbour(other, rail, s, ratio):
    return (other[1] - rail) % 6 in (1, 5) and other[2] >= ratio * s


def features(impacts, params=None):
    """Feature rows (lists of 10 floats, see DEFAULT_PARAMS["weights"]), one per used impact
    (cross-talk left out, see without_crosstalk)."""
    floor = max(1, _param(params, "min_strength"))
    imp = [e for e in without_crosstalk(impacts, params) if e[2] >= floor]
    if not imp:
        return []
    t0 = imp[0][0]
    smax = 0
    for _, _, s in imp:
        if s > smax:
            smax = s
    hard = math.log(smax / 1000.0)
    seen = [False] * 6
    rows = []
    k = 0
    prev = t0
    for t, rail, s in imp:
        rows.append([
            1.0,
            math.log(s / 1000.0),
            (t - t0) / 1e6,
            1.0 if seen[rail] else 0.0,
            math.log(1.0 + k),
            s / smax,
            1.0 if rail == 0 else 0.0,
            1.0 if rail == 3 else 0.0,
            hard,
            math.log(1.0 + (t - prev) / 10000.0),
        ])
        prev = t
        seen[rail] = True
        k += 1
    return rows


def balls_railed(impacts, params=None):
    """Expected number of distinct balls, the cue ball included, that reached a rail."""
    w = _param(params, "weights")
    total = 0.0
    for row in features(impacts, params):
        z = 0.0
        for i in range(len(row)):
            z += w[i] * row[i]
        if z > 30.0:
            z = 30.0
        elif z < -30.0:
            z = -30.0
        total += 1.0 / (1.0 + math.exp(-z))
    return total


def object_balls_railed(impacts, params=None):
    """Estimated number of distinct object balls that reached a rail (a float >= 0)."""
    est = balls_railed(impacts, params) - _param(params, "cue_share")
    return est if est > 0.0 else 0.0


# break_reached_rails's questions that are decided per speed band: (needed, cue_ball, a 15-ball
# rack) -> the suffix of their `band_` and `decide_` keys
QUESTIONS = {(4, False, True): "15", (3, True, False): "9", (2, True, True): "safe"}
BANDS = ("soft", "normal", "hard")


def question(needed, cue_ball=False, rack=15):
    """The key suffix ("15", "9", "safe") of a question decided per band, or None."""
    return QUESTIONS.get((needed, bool(cue_ball), rack > 9))


def speed_band(impacts, q, params=None):
    """0 soft, 1 normal, 2 hard: the break's speed band told by its strongest impact (the
    piezos cannot see the cue ball's speed; a harder break hits the rails harder).
    `q` is a question's key suffix ("15", "9", "safe")."""
    smax = 0
    for _, _, s in _clean(impacts, 1):
        if s > smax:
            smax = s
    limits = _param(params, "band_" + q)
    band = 0
    while band < len(limits) and smax >= limits[band]:
        band += 1
    return band


def decision(impacts, q, params=None):
    """(band, kind, value): the speed band and the decision used for it (see DEFAULT_PARAMS)."""
    band = speed_band(impacts, q, params)
    kind, value = _param(params, "decide_" + q)[band]
    if isinstance(value, str):
        value = _param(params, value)
    return band, kind, value


def _decide(impacts, q, needed, cue_ball, params):
    _, kind, value = decision(impacts, q, params)
    if kind == "count":
        return impact_count(impacts) >= value
    if kind == "balls":
        return balls_railed(impacts, params) >= value
    if kind == "margin":
        return _by_margin(impacts, needed, cue_ball, value, params)
    raise ValueError("decision kind " + str(kind))


def _by_margin(impacts, needed, cue_ball, margin, params):
    if cue_ball:
        return balls_railed(impacts, params) >= needed + 1 - margin
    return object_balls_railed(impacts, params) >= needed - margin


def break_reached_rails(impacts, needed, params=None, cue_ball=False, rack=15):
    """True if at least `needed` object balls reached a rail.

    EB.BREAK-LEGAL: needed=4 (rack=15); NB.BREAK: needed=4, rack=9.
    cue_ball=True counts the cue ball too: needed + 1 distinct balls must be
    heard, since the piezos hear the cue ball like any other ball. That is
    SP.BREAK's safe break (needed=2: the cue ball and two object balls) and
    a reading of NB.BREAK where any four balls, the cue ball among them, do
    (needed=3). Pass cue_ball and rack by keyword.

    The three questions the games ask (eight-ball 4 of 15, nine-ball any four
    balls, the safe break) are decided per speed band (`decide_*`); the others
    by the per-impact model and a margin.
    """
    q = question(needed, cue_ball, rack)
    if q is not None:
        return _decide(impacts, q, needed, cue_ball, params)
    if cue_ball:
        return _by_margin(impacts, needed, True, _param(params, "margin_cue"), params)
    return _by_margin(impacts, needed, False, _param(params, "margin_9" if rack <= 9 else "margin_15"), params)


def impact_count(impacts):
    """Number of valid impacts (any strength the board reported)."""
    return len(_clean(impacts, 1))
