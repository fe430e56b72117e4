"""Sensor models for the break study: what a rail design reports for a break's cushion hits.

Input: the cushion hits of tools/calibrate/simulate_raw.py ([t_us, ball, x_mm, y_mm,
vn_mm_s], ball 0 the cue ball).  Output: the board's RAIL events of that design,
[t_us, rail, strength, pos] where pos is the impact's place along the rail
segment 0..127 (0 at the segment's end nearer the head rail, or the left end
of the head and foot rails) or -1 when the design cannot place it.  With
debug=True a 5th item is the ball that really made the reported impact.

Every design shares the signal chain of hardware/README.md ("Rail piezo"):
piezo -> comparator edge (interrupt) and peak-hold (diode into C || R, tau) ->
analog switch -> the board's ADC, read `settle_us` after the edge by the main
loop, then the rail ignores edges for `dead_us`.  Modelled:

* amplitude at a piezo = normal speed x GAIN x exp(-distance along the rail /
  `atten_m`) x log-normal noise: a part common to the piezos of one impact
  (`sigma_common`: contact, spin, cushion) and a part per piezo
  (`sigma_piezo`: mounting, component spread after calibration);
* cross-talk: a neighbouring segment (same long side, or the corner) hears
  `xtalk` of the amplitude;
* the comparator fires at `threshold` counts on any piezo of the segment
  (the piezos of one segment share a wired-OR comparator output);
* the peak-hold holds the largest amplitude since it last decayed: the value
  read is max(residual of earlier impacts, new peak) decayed by the read delay;
* the read happens `settle_us` after the edge plus the main loop's latency
  (uniform 0..`loop_us`); the timestamp is the edge plus interrupt latency
  (uniform 0..`irq_us`);
* the ADC: 12 bits (RP2040 and ESP32 both; read_u16 steps of 16 counts),
  additive noise `adc_noise` counts rms, clipped to 0..65535;
* dead time `dead_us` per segment from each reported edge.

The position of a two-piezo segment comes from the amplitude ratio:
log(a/b) = (d_b - d_a) / atten_m, so pos = middle + atten_m / 2 * log(a/b),
clipped to the segment; the strength reported is the amplitude corrected for
that position.
"""

import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import simulate_breaks  # noqa: E402

GAIN = 10000.0  # counts per m/s of normal speed at the piezo (hardware/README.md calibration)

# Designs compared in docs/break-estimator.md.  "six": today's table.
DESIGNS = {
    "six": dict(piezos=1, dead_us=30000, tau_us=20000, settle_us=1000, loop_us=1000, irq_us=100,
                threshold=1000, atten_m=1.5, sigma_common=0.15, sigma_piezo=0.08, xtalk=0.03,
                adc_noise=40.0),
    # the same six piezos, a faster peak-hold (100 nF || 47k: tau 4.7 ms) and 8 ms dead time
    "six-fast": dict(piezos=1, dead_us=8000, tau_us=4700, settle_us=1000, loop_us=1000, irq_us=100,
                     threshold=1000, atten_m=1.5, sigma_common=0.15, sigma_piezo=0.08, xtalk=0.03,
                     adc_noise=40.0),
    # two piezos per segment at 1/6 and 5/6 of its length, fast peak-holds
    "twelve": dict(piezos=2, dead_us=8000, tau_us=4700, settle_us=1000, loop_us=1000, irq_us=100,
                   threshold=1000, atten_m=1.5, sigma_common=0.15, sigma_piezo=0.08, xtalk=0.03,
                   adc_noise=40.0),
}
# the same designs with a x2.5 preamplifier before the comparator: it fires at 0.04 m/s
for _name in ("six", "twelve"):
    DESIGNS[_name + "-sens"] = dict(DESIGNS[_name], threshold=400)


def segment(x, y, w, l):
    """(rail 0..5, position along it in m, its length in m) of a hit at (x, y) m."""
    d = [(y, 0), (l - y, 3), (x, 1), (w - x, 4)]
    side = min(d)[1]
    if side == 0:
        return 0, min(max(x, 0.0), w), w
    if side == 3:
        return 3, min(max(x, 0.0), w), w
    if side == 1:
        return (1, y, l / 2) if y < l / 2 else (2, y - l / 2, l / 2)
    return (5, y, l / 2) if y < l / 2 else (4, y - l / 2, l / 2)


NEIGHBOURS = {0: (1, 5), 1: (0, 2), 2: (1, 3), 3: (2, 4), 4: (3, 5), 5: (4, 0)}


def piezo_places(length, n):
    return [length / 2] if n == 1 else [length / 6, length * 5 / 6]


def sensor_view(hits, w_mm, l_mm, design, rng, debug=False):
    """Cushion hits of one break -> the RAIL events the design's board reports."""
    p = DESIGNS[design] if isinstance(design, str) else design
    w, l = w_mm / 1000.0, l_mm / 1000.0
    n = p["piezos"]
    # arrivals per segment: (t_us, [amplitude per piezo], ball, true pos)
    arrivals = {r: [] for r in range(6)}
    for t, ball, x, y, vn in hits:
        rail, s, length = segment(x / 1000.0, y / 1000.0, w, l)
        common = math.exp(rng.normal(0.0, p["sigma_common"]))
        amps = []
        for place in piezo_places(length, n):
            a = vn / 1000.0 * GAIN * common * math.exp(-abs(s - place) / p["atten_m"])
            amps.append(a * math.exp(rng.normal(0.0, p["sigma_piezo"])))
        arrivals[rail].append((t, amps, ball, s / length))
        if p["xtalk"] > 0:
            for other in NEIGHBOURS[rail]:
                arrivals[other].append((t, [a * p["xtalk"] for a in amps], -1, -1.0))
    out = []
    for rail in range(6):
        out.extend(_board(sorted(arrivals[rail], key=lambda a: a[0]), rail, p, rng, debug,
                          (w if rail in (0, 3) else l / 2)))
    out.sort()
    return out


def _board(arr, rail, p, rng, debug, length):  # noqa: C901
    """One segment's comparator, peak-holds, ADC and dead time."""
    n = p["piezos"]
    tau = float(p["tau_us"])
    held = [0.0] * n  # peak-hold values at time held_t
    held_t = 0
    dead_until = -1
    out = []
    pending = None  # (edge_t, read_t, ball)
    i = 0
    places = piezo_places(length, n)

    def hold_at(t):
        return [h * math.exp(-(t - held_t) / tau) for h in held]

    events = list(arr)
    while i < len(events) or pending is not None:
        if pending is not None and (i >= len(events) or events[i][0] > pending[1]):
            edge_t, read_t, ball = pending
            pending = None
            vals = hold_at(read_t)
            vals = [min(65535.0, max(0.0, v + rng.normal(0.0, p["adc_noise"]))) for v in vals]
            vals = [float(int(v) // 16 * 16) for v in vals]
            # the rail's calibrated gain takes out the peak-hold's mean decay at the read
            comp = math.exp((p["settle_us"] + p["loop_us"] / 2.0) / tau)
            vals = [v * comp for v in vals]
            if n == 1:
                strength, pos = vals[0], -1
            else:
                a, b = max(vals[0], 1.0), max(vals[1], 1.0)
                mid = (places[0] + places[1]) / 2
                s = mid + p["atten_m"] / 2 * math.log(a / b)
                s = min(max(s, 0.0), length)
                # undo the attenuation to the nearer piezo
                d = min(abs(s - places[0]), abs(s - places[1]))
                strength = max(a, b) * math.exp(d / p["atten_m"])
                pos = int(round(s / length * 127))
            strength = int(min(65535, strength))
            if strength >= p["threshold"]:
                ev = [int(edge_t), rail, strength, pos]
                if debug:
                    ev.append(ball)
                out.append(ev)
                dead_until = edge_t + p["dead_us"]
            continue
        t, amps, ball, _ = events[i]
        i += 1
        # the peak-holds charge to the new peak if it is above what they hold
        cur = hold_at(t)
        held = [max(c, a) for c, a in zip(cur, amps)]
        held_t = t
        if pending is None and t >= dead_until and max(amps) >= p["threshold"]:
            edge_t = t + rng.uniform(0.0, p["irq_us"])
            read_t = edge_t + p["settle_us"] + rng.uniform(0.0, p["loop_us"])
            pending = (edge_t, read_t, ball)
    return out


def plain_view(hits, w_mm, l_mm, rng):
    """The simpler board of simulate_breaks.py (tests/data/breaks/{eightball,nineball,straight}.jsonl):
    no cross-talk, no peak-hold, no attenuation along the rail; log-normal strength noise, the
    threshold and the dead time only.  A second sensor model for the same physics, so that a
    decision is checked on a board that does not behave like the one it was fitted on."""
    w, l = w_mm / 1000.0, l_mm / 1000.0
    cushion = [(t / 1e6, segment(x / 1000.0, y / 1000.0, w, l)[0], vn / 1000.0, ball) for t, ball, x, y, vn in hits]
    return [list(e) for e in simulate_breaks.sensor_view(cushion, rng)]


def truth_legal(r, game):
    """The physical truth the referee should find: a ball pocketed, or enough balls on a rail."""
    if r["pot"] > 0:
        return True
    if game == "nineball":  # NB.BREAK as the engine reads it: any four balls, the cue ball may be one
        return r["obj"] + (1 if r["cue"] else 0) >= 4
    return r["obj"] >= 4


def view_rng(seed, i, design):
    """A sensor-noise generator per (break, design), independent of the physics."""
    return np.random.default_rng([seed, i, sum(ord(c) for c in design)])
