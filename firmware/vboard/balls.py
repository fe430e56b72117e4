"""What a pocket colour sensor reads as a given ball rolls past, for tests and the virtual board.

A solid shows its colour; a stripe alternates colour with white; the 8 is dark;
the cue ball is white. Built from the calibration table's own numbers, so it
models a correctly calibrated pocket (tests of poor readings build their own).
"""


def rgb_of(hue, sat=0.8):
    h = (hue % 360) / 60.0
    i = int(h)
    f = h - i
    p = 1 - sat
    q = 1 - sat * f
    t = 1 - sat * (1 - f)
    return ((1, t, p), (q, 1, p), (p, 1, t), (p, q, 1), (t, p, 1), (1, p, q))[i % 6]


def readings(ball, table, n=8):
    wc = table.get("white_c", 1024)   # full scale of ATIME 0xFF (tableboard.colour.WHITE_C)
    e = None
    for x in table["balls"]:
        if x["ball"] == ball:
            e = x
    if e is None:
        raise ValueError("no such ball")
    out = []
    whites = int(round(e.get("white", 0) * n))
    darks = int(round(e.get("dark", 0) * n))
    for k in range(n):
        if k % 2 == 1 and whites > 0 or (whites >= n):
            if whites > 0:
                whites -= 1
                out.append((wc, wc // 3, wc // 3, wc // 3))
                continue
        if darks > 0:
            darks -= 1
            out.append((wc // 20, wc // 60, wc // 60, wc // 60))
            continue
        if e.get("hue") is None:
            out.append((wc, wc // 3, wc // 3, wc // 3))
            continue
        c = int(wc * e.get("level", 0.5))
        r, g, b = rgb_of(e["hue"])
        out.append((c, int(c * r / 2), int(c * g / 2), int(c * b / 2)))
    return out
