"""Calibration helpers run on the board with mpremote (see hardware/README.md, Calibration).

    mpremote exec "from tableboard import calibrate; calibrate.rails(20)"
    mpremote exec "from tableboard import calibrate; calibrate.ball(pocket=2, ball=3, rolls=5)"
"""
import json
import time

import machine

from tableboard import colour, config
from tableboard.board import Board


def _board(path):
    cfg = config.load(path)
    return cfg, Board(cfg, machine, time, boot_id=1)


def rails(seconds=20, path="board.json"):
    """Hit each rail; prints every peak the piezos give (no threshold) to set thresholds and gains."""
    cfg, b = _board(path)

    def show(t, kind, index, value, flags):
        print("rail", index, "peak", value)
    for r in b.rails:
        r.threshold = 0
        r.gain = 1.0
        r.gain_q = 1024
        r.emit = show
    end = time.ticks_add(time.ticks_ms(), seconds * 1000)
    while time.ticks_diff(end, time.ticks_ms()) > 0:
        b.step()
        time.sleep_ms(1)


def ball(pocket, ball, rolls=5, path="board.json", out="colours.json"):
    """Roll `ball` through `pocket` `rolls` times; stores its averaged features in the colour table."""
    cfg, b = _board(path)
    beam = b.beams[pocket]
    rd = beam.reader
    if rd is None:
        print("pocket", pocket, "has no colour sensor")
        return
    tab = colour.load_table(out) or {"white_c": colour.WHITE_C, "balls": []}
    feats = []
    while len(feats) < rolls:
        rd.got = []
        while not beam.blocked:
            b.step()
        while beam.blocked and len(rd.got) < rd.samples:
            s = rd.sensor.read()
            if s:
                rd.got.append(s)
            time.sleep_ms(3)
            b.step()
        f = colour.features(rd.got, tab.get("white_c", colour.WHITE_C))
        if f:
            print("roll", len(feats) + 1, f)
            feats.append(f)
        while beam.blocked:
            b.step()
    n = len(feats)
    hues = [f[0] for f in feats if f[0] is not None]
    e = {"ball": ball, "hue": (sum(hues) // len(hues)) if hues else None,
         "white": sum(f[1] for f in feats) / n, "dark": sum(f[2] for f in feats) / n,
         "level": sum(f[3] for f in feats) / n}
    if ball == 0:
        # The cue ball is the white reference.
        tab["white_c"] = max(s[0] for s in rd.got) if rd.got else tab.get("white_c", colour.WHITE_C)
    tab["balls"] = [x for x in tab["balls"] if x.get("ball") != ball] + [e]
    with open(out, "w") as fh:
        json.dump(tab, fh)
    print("saved", e)
