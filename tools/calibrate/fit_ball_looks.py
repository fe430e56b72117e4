"""Fit the camera's ball-looks model (host/data/ball_looks.json) on rendered footage.

    # 1. the looks of every ball candidate the analyser found, labelled from the truth
    .venv/bin/python tools/calibrate/fit_ball_looks.py collect footage/dev5 footage/dev6 --out build/looks.npz
    # 2. the two networks (scikit-learn: the `calibrate` extra's venv), written for the analyser
    .venv-cal/bin/python tools/calibrate/fit_ball_looks.py fit build/looks-dev6.npz build/looks-dev7.npz --out host/data/ball_looks.json
    # 3. how well each look is named, per clip and per band, on clips left out of the fit
    .venv-cal/bin/python tools/calibrate/fit_ball_looks.py fit build/looks.npz --hold-out 5 --report

`collect` runs the analyser (host/camera/analyse.py) over each clip as `billiards camera analyse`
does, with the truth's corners, and for every second frame takes each candidate's appearance
features (host/camera/appearance.py) where the analyser found it: a candidate within MATCH_MM of
a ball's true centre is that ball, one farther than FAR_MM from every ball is no ball (a hand,
the stick, a shadow), the ones between are left out (a smeared ball's centre seen astray: which
of the two is unclear). Only tuning seeds (tools/footage/make_set.py: under 100000) may be used.

`fit` trains two small networks (appearance.Model): the colour (the cue ball's white, the seven
colours, the 8's black, no ball) on every look and the stripe (solid or stripe) on the coloured
balls' looks, as many looks drawn from each clip (at most 4000), so every clip counts alike.
"""
import argparse
import json
import math
import os
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

MATCH_MM = 12.0
FAR_MM = 45.0
EVERY = 2
HIDDEN = (32,)
CLIP = {12: (-3.0, 3.0)}      # a feature's range (the log lightness of no colour at all is -7)
TUNING_MAX_SEED = 99999


def collect_clip(video, every=EVERY):
    """(rows, bands): rows of [features..., label, speed mm/s, near an arm] for one clip."""
    from host.camera import appearance, detect
    from host.camera.analyse import Analyser
    from host.camera.sources import FileSource
    with open(os.path.splitext(video)[0] + ".truth.json") as f:
        truth = json.load(f)
    frames = truth["frames"]
    src = FileSource(video)
    a = Analyser(corners=truth["corners_px"], table="%gx%g" % tuple(truth["table_mm"]), fps=src.fps,
                 game=truth["bands"]["game"])
    seen = {}
    real = detect.candidates

    def spy(*args, **kw):
        seen["c"] = real(*args, **kw)
        return seen["c"]

    rows = []
    detect.candidates = spy
    try:
        for i, (t, frame) in enumerate(src):
            seen.pop("c", None)
            a.feed(t, frame)
            cands = seen.get("c")
            if not cands or i % every or i >= len(frames):
                continue
            pts = np.array([[c["x"], c["y"]] for c in cands])
            centres, radii = appearance.radii_px(a.view, pts)
            cloth = np.array([a.cloth.img[int(c["row"]), int(c["col"])] for c in cands])
            feats = appearance.features(appearance.cut_patches(frame, centres, radii), cloth, a.tint)
            balls = {int(b): r["mm"] for b, r in frames[i]["balls"].items()
                     if r["state"] == "visible" and "mm" in r}
            for c, fv in zip(cands, feats):
                label, speed = _label(c, balls, frames, i, src.fps)
                if label is not None:
                    rows.append(list(map(float, fv)) + [label, speed, float(bool(c.get("near_occluder")))])
    finally:
        detect.candidates = real
    return rows, truth["bands"]


def _label(c, balls, frames, i, fps):
    if not balls:
        return 16, 0.0
    b, d = min(((b, math.hypot(p[0] - c["x"], p[1] - c["y"])) for b, p in balls.items()), key=lambda e: e[1])
    if d > FAR_MM:
        return 16, 0.0
    if d > MATCH_MM:
        return None, 0.0
    prev, nxt = frames[max(i - 1, 0)]["balls"].get(str(b)), frames[min(i + 1, len(frames) - 1)]["balls"].get(str(b))
    speed = 0.0
    if prev and nxt and "mm" in prev and "mm" in nxt:
        speed = math.hypot(nxt["mm"][0] - prev["mm"][0], nxt["mm"][1] - prev["mm"][1]) * fps / 2.0
    return b, speed


def clips_in(dirs):
    out = []
    for d in dirs:
        for name in sorted(os.listdir(d)):
            if name.endswith(".mp4") and os.path.exists(os.path.join(d, name[:-4] + ".truth.json")):
                out.append(os.path.join(d, name))
    return out


def collect(args):
    rows, meta = [], []
    for k, video in enumerate(clips_in(args.dirs)):
        with open(os.path.splitext(video)[0] + ".truth.json") as f:
            seed = json.load(f).get("source", {}).get("seed")
        if seed is not None and seed > TUNING_MAX_SEED:
            raise SystemExit("%s: seed %s is held out (make_set.py); fit on tuning seeds only" % (video, seed))
        r, bands = collect_clip(video)
        rows.extend(row + [k] for row in r)
        meta.append({"video": os.path.basename(video), "bands": bands})
        print("%s: %d looks" % (os.path.basename(video), len(r)), file=sys.stderr, flush=True)
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    np.savez_compressed(args.out, X=np.array(rows, np.float32), meta=json.dumps(meta))


def _prepare(X):
    from host.camera.appearance import N_FEATURES
    feats = X[:, :N_FEATURES].copy()
    for i, (lo, hi) in CLIP.items():
        feats[:, i] = np.clip(feats[:, i], lo, hi)
    return feats, X[:, N_FEATURES].astype(int), X[:, N_FEATURES + 1], X[:, -1].astype(int)


def _load(paths):
    """Every collect's looks, one clip numbering across the files."""
    parts, meta = [], []
    for path in paths:
        d = np.load(path)
        f, lab, sp, cl = _prepare(d["X"])
        parts.append((f, lab, sp, cl + len(meta)))
        meta.extend(json.loads(str(d["meta"])))
    return tuple(np.concatenate([p[i] for p in parts]) for i in range(4)) + (meta,)


def fit(args):
    from sklearn.neural_network import MLPClassifier
    from host.camera import appearance
    feats, label, speed, clip, meta = _load(args.data)
    held = np.zeros(len(clip), bool)
    if args.hold_out:
        rng = np.random.default_rng(args.seed)
        held = np.isin(clip, rng.choice(clip.max() + 1, args.hold_out, replace=False))
    if args.leave_out:
        held |= np.isin(clip, [k for k, m in enumerate(meta) if m["video"] in args.leave_out.split(",")])
    train = ~held
    mean, std = feats[train].mean(axis=0), feats[train].std(axis=0) + 1e-6
    z = (feats - mean) / std
    colour = np.where(label == 16, appearance.NO_BALL, np.where(label >= 9, label - 8, label))
    coloured = (label != 0) & (label != 8) & (label != 16)
    net = dict(hidden_layer_sizes=HIDDEN, max_iter=400, early_stopping=True, random_state=args.seed)
    # scikit-learn's MLP takes no sample weights: each clip's looks are drawn alike instead.
    cm = MLPClassifier(**net).fit(*_balanced(z, colour, clip, train, args.seed))
    sm = MLPClassifier(**net).fit(*_balanced(z, (label >= 9).astype(int), clip, train & coloured, args.seed))
    params = {"mean": mean.tolist(), "std": std.tolist(), "clip": {str(i): list(v) for i, v in CLIP.items()},
              "colour": _layers(cm), "stripe": _layers(sm),
              "fitted_on": sorted({meta[k]["video"] for k in set(clip[train].tolist())}),
              "made_by": "tools/calibrate/fit_ball_looks.py"}
    model = appearance.Model(params)
    if args.report_on:
        of, ol, osp, oc, om = _load(args.report_on)
        report(model, of, ol, osp, oc, np.ones(len(ol), bool), om)
    elif args.report:
        report(model, feats, label, speed, clip, held if held.any() else train, meta)
    if args.out:
        with open(args.out, "w") as f:
            json.dump(_rounded(params), f, separators=(",", ":"))
        print("wrote %s" % args.out, file=sys.stderr)


def _balanced(z, y, clip, sel, seed, per_clip=4000):
    rng = np.random.default_rng(seed)
    idx = []
    for c in np.unique(clip[sel]):
        k = np.nonzero(sel & (clip == c))[0]
        idx.extend(rng.choice(k, min(per_clip, len(k)), replace=False))
    idx = np.array(idx)
    return z[idx], y[idx]


def _layers(m):
    return [[w.tolist(), b.tolist()] for w, b in zip(m.coefs_, m.intercepts_)]


def _rounded(v):
    if isinstance(v, float):
        return round(v, 5)
    if isinstance(v, list):
        return [_rounded(x) for x in v]
    if isinstance(v, dict):
        return {k: _rounded(x) for k, x in v.items()}
    return v


def report(model, feats, label, speed, clip, sel, meta):
    """Per look: how often the most likely number is the true one, by clip and band."""
    lp = model.log_probs(feats[sel])
    guess = lp.argmax(axis=1)
    ok = guess == label[sel]
    print("looks %d: named right %.4f (at rest %.4f, rolling %.4f)" % (
        sel.sum(), ok.mean(), ok[speed[sel] < 100].mean(), ok[speed[sel] >= 100].mean()))
    ball = label[sel] < 16
    among = lp[:, :16].argmax(axis=1) == label[sel]
    print("  a ball's looks named right among the balls %.4f; no ball taken for a ball %.4f, a ball for no ball %.4f" % (
        among[ball].mean(), (guess[~ball] < 16).mean() if (~ball).any() else 0.0, (guess[ball] == 16).mean()))
    for k in sorted(set(clip[sel].tolist())):
        m = (clip[sel] == k) & ball
        print("  %s %s: %.4f of %d" % (meta[k]["video"], "/".join(str(meta[k]["bands"][b]) for b in
                                        ("game", "kind", "speed", "light", "cloth", "fps")), among[m].mean(), m.sum()))
    for key in ("light", "cloth", "game"):
        groups = {}
        for k, o in zip(clip[sel], ok):
            groups.setdefault(meta[k]["bands"][key], []).append(o)
        print("  by %s: %s" % (key, ", ".join("%s %.4f (%d)" % (g, np.mean(v), len(v)) for g, v in sorted(groups.items()))))
    conf = np.zeros((17, 17), int)
    for a, b in zip(label[sel], guess):
        conf[a, b] += 1
    worst = sorted(((conf[a, b], a, b) for a in range(17) for b in range(17) if a != b and conf[a, b]), reverse=True)
    print("  most confused (true -> named: looks): %s" % ", ".join("%d->%d: %d" % (a, b, n) for n, a, b in worst[:12]))


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("collect")
    c.add_argument("dirs", nargs="+")
    c.add_argument("--out", required=True)
    f = sub.add_parser("fit")
    f.add_argument("data", nargs="+", help="collect's files")
    f.add_argument("--out")
    f.add_argument("--hold-out", type=int, default=0, help="leave this many clips out and report on them")
    f.add_argument("--leave-out", help="these clips (file names, comma-separated) too")
    f.add_argument("--report", action="store_true")
    f.add_argument("--report-on", nargs="+", help="report on these looks (other collects' files) instead")
    f.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    (collect if args.cmd == "collect" else fit)(args)


if __name__ == "__main__":
    main()
