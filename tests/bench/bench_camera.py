"""The camera analyser against rendered footage with truth (issue 18's targets).

    .venv/bin/python tests/bench/bench_camera.py DIR [DIR ...] [--auto] [--one-core] [--json OUT]

DIR holds clips rendered by tools/footage (VIDEO.mp4 and VIDEO.truth.json beside it;
docs/camera.md, "Measuring"). Each clip is analysed as `billiards camera analyse` does
(with the truth's corners_px as --corners, or found in the picture with --auto, and the
clip's game as --game) and
compared shot by shot with its truth. Prints, per band (game, kind and speed, light,
fps) with the number of shots, never only the average:

* first contact right, of the shots where one happened (and "none" right where none did);
* legal-break verdict right (eight-ball: a ball pocketed or >= 4 object balls railed;
  nine-ball: a ball pocketed or >= 4 balls railed, the cue ball may be one; 14.1: a ball
  pocketed, or the cue ball and >= 2 object balls railed (until 2026-12-03 this benchmark
  held 14.1 to eight-ball's four, and called right 14.1 verdicts wrong); the pocket
  beams say what dropped, so truth's pocketed stands for them);
* the set of balls railed after contact exactly right; pocketed exactly right;
* rest positions: median and p99 error (mm);
* speed: frames analysed per second and x real time (decode included), peak memory;
* what the referee would make of it (shared_rules/rules/camera.py on each shot's live facts, at
  its confidence of 0.85, after its check against the pocket beams, which name every drop
  here): for the first contact, the legal break without a ball down and "a
  cushion after the contact", how many shots it decides right, decides wrong (a wrong verdict:
  what must never happen) and leaves to a person. The first contact's verdict is the foul it
  makes (none, no contact, wrong ball first; eight-ball shots for a shooter on the solids), so
  a ball named wrongly that gives the same verdict counts right (until 2026-12-04 the named
  ball had to be right, and the referee asked for its number's identity in every game).
"""
import argparse
import glob
import json
import os
import resource
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)


def legal_break(game, rec, pocketed):
    """The verdict the referee would give from these facts (None: not a break)."""
    n = rec.get("object_balls_railed_on_break")
    if n is None:
        return None
    if pocketed:
        return True
    cue = 0 in rec.get("railed_after_contact", [])
    if game == "nineball":
        return n + (1 if cue else 0) >= 4
    if game == "straight":           # SP.BREAK, a safe break: the cue ball and two object balls
        return cue and n >= 2
    return n >= 4


def analyse_clip(video, truth, auto=False, s_mm=None, head=None):
    from host.camera.analyse import Analyser
    from host.camera.facts import cli_record
    from host.camera.sources import FileSource
    src = FileSource(video)
    corners = None if auto else truth["corners_px"]
    table = "auto" if auto else "%gx%g" % tuple(truth["table_mm"])
    game = truth.get("bands", {}).get("game") or truth.get("source", {}).get("game")
    kw = {} if s_mm is None else {"s_mm": s_mm}
    if head is not None:
        kw["head"] = head
    a = Analyser(corners=corners, table=table, fps=src.fps, game=game, **kw)
    t0 = time.process_time()
    w0 = time.time()
    n = 0
    out = []
    for t, frame in src:
        out.extend(a.feed(t, frame))
        n += 1
    out.extend(a.close())
    cpu = time.process_time() - t0
    from host.camera.facts import live_dict
    shots = []
    for f in out:
        rec = cli_record(f)
        rec["_live"] = live_dict(f)
        shots.append(rec)
    return shots, n, cpu, time.time() - w0


REFEREE_GAMES = {"eightball": "eight-ball", "nineball": "nine-ball", "straight": "straight-pool"}


def referee_use(game, ts, s):
    """{"first" | "break" | "rail": "right" | "wrong" | "person"} for one shot: what the referee
    decides from the analyser's live facts (rules/camera.py, each fact at MIN_CONFIDENCE), against
    the truth. The balls on the table are the truth's (at rest or pocketed in the shot)."""
    from shared_rules.rules import camera as rules
    out = {}
    facts = rules.normal_facts(s["_live"]) if s is not None else None
    on_table = sorted({int(b) for b in ts["rest_mm"]} | set(ts["pocketed"]))
    g = {"game": REFEREE_GAMES.get(game, game), "on_table": [b for b in on_table if b != 0]}
    is_break = ts["object_balls_railed_on_break"] is not None
    # The beams, as the live referee has them: every drop named (rules/camera.py trusts facts
    # that agree with them only).
    shot = {"break": is_break, "pocketed": [[b, None] for b in ts["pocketed"] if b != 0],
            "cue_pocketed": 0 in ts["pocketed"]}
    if facts is not None and rules.beams_disagree(g, shot, facts):
        facts = None
    if facts is None:              # the shot not seen or not used: whatever the truth asks is a person's
        keys = [] if game == "eightball" and is_break else ["first", "first_noway"]
        if is_break and not [b for b in ts["pocketed"] if b != 0]:
            keys.append("break")
        elif not is_break and ts["first_contact"] is not None:
            keys.append("rail")
        return {k: "person" for k in keys}
    fc = facts["first_contact"]
    if not (game == "eightball" and is_break):
        # The verdict (rules/camera.py first_contact_fouls), against the truth's first ball's.
        # Eight-ball shots are judged for a shooter on the solids (the clips have no match).
        g["players"], shot["shooter"] = [{"group": "solids"}], 0
        seen = rules.first_contact_fouls(g, shot, fc, facts["start_mm"], rules.way_clear(facts))
        truth = rules.first_contact_fouls(g, shot, {"ball": ts["first_contact"], "confidence": 1.0,
                                                    "identity_confidence": 1.0})
        out["first"] = "person" if seen is None else ("right" if seen == truth else "wrong")
        # ... and as before the way's checks (host/camera/way.py: way_clear, others_still) let an
        # unseen ball be passed over.
        seen = rules.first_contact_fouls(g, shot, fc, facts["start_mm"])
        out["first_noway"] = "person" if seen is None else ("right" if seen == truth else "wrong")
    if is_break and not [b for b in ts["pocketed"] if b != 0]:
        ok = rules.break_rails(g, shot, facts)
        truth = legal_break(game, ts, [])
        out["break"] = "person" if ok is None else ("right" if ok == truth else "wrong")
    elif not is_break and fc["ball"] is not None:
        railed = (rules.rail_after_contact(g, shot, facts) if fc["confidence"] >= rules.MIN_CONFIDENCE
                  else None)
        truth = bool(ts["railed_after_contact"])
        out["rail"] = "person" if railed is None else ("right" if railed == truth else "wrong")
    return out


def match(shots, truth_shots):
    """Pairs (truth, analysed or None) by start time."""
    pairs = []
    used = set()
    for ts in truth_shots:
        best = None
        for i, s in enumerate(shots):
            if i in used:
                continue
            d = abs(s["t_start"] - ts["t_start"])
            if d < 0.6 and (best is None or d < best[0]):
                best = (d, i)
        if best is None:
            pairs.append((ts, None))
        else:
            used.add(best[1])
            pairs.append((ts, shots[best[1]]))
    return pairs, len(shots) - len(used)


def score_clip(truth, shots):
    bands = truth.get("bands", {})
    game = bands.get("game") or truth.get("source", {}).get("game")
    rows = []
    pairs, extra = match(shots, truth["shots"])
    for ts, s in pairs:
        row = {"game": game, "kind": bands.get("kind"), "speed": bands.get("speed"),
               "light": bands.get("light"), "fps": bands.get("fps"), "found": s is not None}
        s = s or {"first_contact": None, "railed_after_contact": [], "pocketed": [], "rest_mm": {},
                  "object_balls_railed_on_break": None}
        row["contact_happened"] = ts["first_contact"] is not None
        row["first_ok"] = s["first_contact"] == ts["first_contact"]
        row["railed_ok"] = sorted(s["railed_after_contact"]) == sorted(ts["railed_after_contact"])
        row["pocketed_ok"] = sorted(s["pocketed"]) == sorted(ts["pocketed"])
        tv = legal_break(game, ts, ts["pocketed"])
        if tv is not None:
            sv = legal_break(game, dict(s, object_balls_railed_on_break=s["object_balls_railed_on_break"]
                                        if s["object_balls_railed_on_break"] is not None else -99),
                             ts["pocketed"])
            row["break_ok"] = sv == tv
        errs = []
        for b, p in ts["rest_mm"].items():
            q = s["rest_mm"].get(b)
            errs.append(((q[0] - p[0]) ** 2 + (q[1] - p[1]) ** 2) ** 0.5 if q else float("inf"))
        row["rest_err"] = errs
        row["referee"] = referee_use(game, ts, None if not row["found"] else s)
        live = s.get("_live") or {}
        row["confidence"] = {k: live.get(k) for k in ("first_contact", "identity_confidence", "break",
                                                      "railed_after_contact", "lost", "notes")}
        row["detail"] = {"truth": {k: ts[k] for k in ("first_contact", "railed_after_contact",
                                                       "pocketed", "object_balls_railed_on_break")},
                         "seen": {k: s[k] for k in ("first_contact", "railed_after_contact",
                                                    "pocketed", "object_balls_railed_on_break")}}
        rows.append(row)
    return rows, extra


def pct(k, n):
    return "%d/%d = %.1f%%" % (k, n, 100.0 * k / n) if n else "-"


def report(rows, key):
    groups = {}
    for r in rows:
        groups.setdefault(key(r), []).append(r)
    lines = []
    for g in sorted(groups, key=str):
        rs = groups[g]
        fc = [r for r in rs if r["contact_happened"]]
        br = [r for r in rs if "break_ok" in r]
        errs = sorted(e for r in rs for e in r["rest_err"])
        finite = [e for e in errs if e != float("inf")]
        med = finite[len(finite) // 2] if finite else float("nan")
        p99 = errs[min(len(errs) - 1, int(0.99 * len(errs)))] if errs else float("nan")
        found99 = finite[min(len(finite) - 1, int(0.99 * len(finite)))] if finite else float("nan")
        lines.append("  %-28s shots %3d | first contact %-18s | break %-18s | railed %-18s | "
                     "pocketed %-18s | rest median %.1f mm, p99 %.1f mm (%d balls; %d lost, the found "
                     "ones' p99 %.1f mm)" % (
                         g, len(rs), pct(sum(r["first_ok"] for r in fc), len(fc)),
                         pct(sum(r["break_ok"] for r in br), len(br)),
                         pct(sum(r["railed_ok"] for r in rs), len(rs)),
                         pct(sum(r["pocketed_ok"] for r in rs), len(rs)), med, p99, len(errs),
                         len(errs) - len(finite), found99))
    return lines


def report_referee(rows, key):
    """Per band: of the shots where the referee could use each fact, right / wrong / a person."""
    groups = {}
    for r in rows:
        groups.setdefault(key(r), []).append(r)
    lines = []
    for g in sorted(groups, key=str):
        parts = []
        for what, name in (("first", "first contact"), ("first_noway", "(without the way's checks)"),
                           ("break", "break rails"), ("rail", "cushion after contact")):
            said = [r["referee"][what] for r in groups[g] if what in r.get("referee", {})]
            if said:
                parts.append("%s right %d, WRONG %d, a person %d" % (
                    name, said.count("right"), said.count("wrong"), said.count("person")))
        lines.append("  %-28s %s" % (g, " | ".join(parts) or "-"))
    return lines


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("dirs", nargs="+")
    p.add_argument("--auto", action="store_true", help="find the table in the picture (no --corners)")
    p.add_argument("--one-core", action="store_true", help="OpenCV on one thread (the target's figure)")
    p.add_argument("--json", help="write every shot's comparison here")
    p.add_argument("--verbose", action="store_true", help="print each wrong shot")
    p.add_argument("--s-mm", help="the top-down drawing's mm per pixel (default the analyser's, 4; "
                                  "'auto': 5 on a picture finer than 3.2 mm a pixel)")
    p.add_argument("--from-json", action="store_true",
                   help="the DIRs are --json files of earlier runs (say two halves run at once): print their tables")
    args = p.parse_args(argv)
    if args.from_json:
        rows = []
        for path in args.dirs:
            with open(path) as f:
                rows.extend(json.load(f))
        print_report(rows, len({r["clip"] for r in rows}), 0, None)
        return 0
    import cv2
    if args.one_core:
        cv2.setNumThreads(1)
    clips = sorted(v for d in args.dirs for v in glob.glob(os.path.join(d, "*.mp4"))
                   if os.path.exists(os.path.splitext(v)[0] + ".truth.json"))
    rows, extra, wall = [], 0, 0.0
    s_mm = args.s_mm if args.s_mm in (None, "auto") else float(args.s_mm)
    for v in clips:
        with open(os.path.splitext(v)[0] + ".truth.json") as f:
            truth = json.load(f)
        shots, n, c, w = analyse_clip(v, truth, auto=args.auto, s_mm=s_mm)
        r, x = score_clip(truth, shots)
        for row in r:
            row["clip"] = os.path.basename(v)
            row["cpu_s"], row["frames"] = c, n
            row["size"] = "%sx%s" % tuple(truth.get("size") or ("?", "?"))
            row["video_s"] = n / float(truth["fps"])
        rows.extend(r)
        extra += x
        wall += w
        if args.verbose:
            for row in r:
                bad = [k for k in ("first_ok", "railed_ok", "pocketed_ok", "break_ok") if row.get(k) is False]
                if bad or not row["found"]:
                    print("%s: %s %s" % (row["clip"], ",".join(bad) or "not found", json.dumps(row["detail"])))
    print_report(rows, len(clips), extra, wall)
    if args.json:
        for r in rows:
            r["detail"]["seen"].pop("_live", None)
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1, default=str)
    return 0


def print_report(rows, n_clips, extra, wall):
    """The tables: speed (per clip, from its rows), then every band, then the referee's use.
    `wall` None: rows read back from --json files (the RSS printed is not theirs)."""
    per_clip = {}
    for r in rows:
        per_clip[r["clip"]] = (r.get("frames", 0), r.get("cpu_s", 0.0), r.get("video_s", 0.0), r.get("size", "?"), r["fps"])
    frames = sum(v[0] for v in per_clip.values())
    cpu = sum(v[1] for v in per_clip.values())
    video_s = sum(v[2] for v in per_clip.values())
    speed = {}                  # (width x height, fps) -> [frames, cpu s, video s]: the target is 720p60's
    for n, c, v, size, fps in per_clip.values():
        band = speed.setdefault((size, fps), [0, 0.0, 0.0])
        band[0] += n
        band[1] += c
        band[2] += v
    print("clips %d, shots %d (+%d analysed shots with no truth shot), frames %d" % (
        n_clips, len(rows), extra, frames))
    if wall is None:
        print("speed: %.1f frames/s of CPU, %.2f x real time (CPU)" % (frames / max(cpu, 1e-9), video_s / max(cpu, 1e-9)))
    else:
        print("speed: %.1f frames/s of CPU, %.2f x real time (CPU), %.2f x (wall); peak RSS %.0f MB" % (
            frames / max(cpu, 1e-9), video_s / max(cpu, 1e-9), video_s / max(wall, 1e-9),
            resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0))
    for (size, fps), (n, c, v) in sorted(speed.items(), key=str):
        print("  speed at %s, %s fps: %d frames, %.1f frames/s of CPU, %.2f x real time (CPU)" % (
            size, fps, n, n / max(c, 1e-9), v / max(c, 1e-9)))
    print("all:")
    print("\n".join(report(rows, lambda r: "all")))
    for name, key in (("game", lambda r: r["game"]), ("kind/speed", lambda r: "%s/%s" % (r["kind"], r["speed"])),
                      ("light", lambda r: r["light"]), ("fps", lambda r: r["fps"]),
                      ("game/kind/speed", lambda r: "%s/%s/%s" % (r["game"], r["kind"], r["speed"]))):
        print("by %s:" % name)
        print("\n".join(report(rows, key)))
    print("what the referee would decide from these facts (confidence >= 0.85), against the truth:")
    for name, key in (("all", lambda r: "all"), ("light", lambda r: r["light"]),
                      ("game/kind/speed", lambda r: "%s/%s/%s" % (r["game"], r["kind"], r["speed"]))):
        print("\n".join(report_referee(rows, key)))


if __name__ == "__main__":
    sys.exit(main())
