"""The overhead camera in the referee (issue 18): which clauses its facts decide, and when not.

Pure and clockless like the rest of the referee: the camera speaks through journal entries of
its own, so `billiards replay` judges every shot as it was judged live.

    {"src": "camera", "kind": "health", "state": "online" | "offline" | "fault" | "none",
     "faults": [code, ...], "table_mm": [L, W] | null}
    {"src": "camera", "kind": "shot", "start_us": n, "end_us": n, "facts": {live facts}}
    {"src": "camera", "kind": "none", "shot": n}

(each with the daemon's `t_us` and `wall`; docs/camera.md "Live facts" is the facts' shape, the
host's clock turned into the board's by the link's offset: `start_us`, `end_us`).

* Health: "online" (pictures come, the table is found, no fault), "offline" (a camera is set up
  but sends nothing usable yet), "fault" (a fault of FAULTS is active), "none" (this table has no
  camera any more). Faults go into `state.faults` ({"what": "camera"}); a shot during which the
  camera was not online, or that began before it came online, is judged without it.
* Waiting: while the camera is online, a shot the board says is over (MOTION 0) before the
  camera's facts of it came is held (`state.camera.waiting`); its facts end the wait, or the
  daemon's `none` entry (written DEADLINE_MS after the hold began, so a replay holds and releases
  exactly where the live referee did), or the next stroke. A shot ended otherwise (`end_shot`, a
  quiet table without a motion sensor) is judged at once with what has come.
* Matching: facts belong to the open shot when their stroke lies in its time window (SLACK_US on
  either side; the board's clock).
* Deciding (`settle`, just before the shot is judged), each clause on its own, each fact only at
  a confidence of at least MIN_CONFIDENCE:
  - the first contact: wrong ball first (nine-ball: the lowest ball, the break included;
    eight-ball: the shooter's group, the 8 once it is cleared, on an open table any ball but
    the 8, which is EB.OPEN-8-FIRST) and no contact (every game): the foul codes a person
    would enter (`wrong_first_contact`, `no_contact`); EB.SIMULTANEOUS (`simultaneous`): own and
    opponent ball hit within SIMULTANEOUS_MS (the facts' second contact) go the shooter's way;
  - a cushion after the contact (EB/NB/SP.LEGAL-SHOT): replaces the piezos' "any rail hit";
  - the legal break without a ball down (EB.BREAK-LEGAL: four object balls at a cushion;
    NB.BREAK: any four balls, the cue ball may be one; SP.BREAK's safe break: the cue ball and
    two object balls): replaces the piezo estimate (a referee's `legal_break` still overrules);
  - which ball a beam could not name, when the camera's drops and the beams' agree;
  - where balls lay (`start_mm`: when the cue ball was struck; `rest_mm`: when the balls
    stopped), each place only PLACE_MARGIN_MM or more from the line or spot it is judged by:
    ball in hand from the kitchen placed on or past the head string (GEN.KITCHEN; the foot
    string when every object ball lay in the kitchen, GEN.KITCHEN-ONLY-OUT), a ball inside the
    kitchen hit directly from it (GEN.KITCHEN-ONLY-OUT, EB.KITCHEN): the `kitchen` foul; 14.1's
    re-rack facts (SP.RERACK, SP.FULL-RERACK, SP.RACK-CONFLICT): the `rack` command's body.
  The pocket beams stay the authority on what dropped: facts that disagree with them (another
  number of drops, a ball the beams named that the camera did not see drop, a first ball that is
  not on the table) are not used at all. Whatever is not used is judged as without a camera,
  and the referee says so (a `warning`, messages `camera.*`). Not decided by the camera:
  a cue ball that left the kitchen and came back to a ball inside it (the
  foot-cushion bank EB.KITCHEN allows), frozen balls, a spot taken, the lag.
"""
from shared_rules.rules import common
from shared_rules.rules.data import clone, is_int
from shared_rules.rules.events import event
from shared_rules.rules.messages import refusal, say, say_each, word

# A fact is used at this confidence or more. The analyser's confidences are margins, not yet
# calibrated probabilities (docs/camera.md): 0.5 is a coin toss, a first contact one frame
# ahead of the next ball scores about 0.82, two frames 0.93; a ball seen not to reach a cushion
# 0.9.
MIN_CONFIDENCE = 0.85
DEADLINE_MS = 500          # the daemon's wait for a held shot's facts (host/camera/desk.py)
SLACK_US = 1000000         # facts and a shot are the same stroke within this on the board's clock
LEAD_US = 10000000         # no motion sensor: the shot opens at its first rail or drop, this late

# Where a ball lay (docs/camera.md "start_mm"): a centre this near a line, or this near touching a
# place, is too close to call: left to a person. The analyser's places are within a few mm in even
# and dim light, but a spot lamp's shadows pushed whole tables of them outwards by up to 50 mm at
# a confidence of 0.95 (tests/bench/bench_camera_places.py, held-out kinematic footage).
PLACE_MARGIN_MM = 50.0
# EB.SIMULTANEOUS: own and opponent ball hit "too close to tell apart". Two contacts this close (the
# facts' `second_contact.after_ms`) fall within one frame of a 50-60 fps camera (17-20 ms): no
# picture shows one ball moving and the other still, their order comes from onsets extrapolated
# between pictures (within a few ms on synthetic paths, tests/camera/test_shot_facts.py), and
# their clicks are one sound to a referee's ear. A fixed time, not the camera's frame: the facts
# carry no frame rate, and a replay must judge the same.
SIMULTANEOUS_MS = 20.0
BALL_MM = 57.15          # a ball's diameter (a rack's balls touch)

KINDS = ("health", "shot", "none")
STATES = ("online", "offline", "fault", "none")
# host/camera/health.py's codes, and the camera edge's own (host/camera/edge.py).
FAULTS = ("camera_stalled", "camera_frozen", "camera_dropping_frames", "camera_moved", "camera_flash",
          "camera_no_table", "camera_error")
REASONS = ("fault", "offline", "late", "interrupted", "ended", "strokes", "beams", "table")
BALLS = 16
MAX_NOTES = 8
MAX_NOTE = 120


# ------------------------------------------------------------------ the entries' shape
def _num(x, lo, hi):
    return isinstance(x, (int, float)) and not isinstance(x, bool) and x - x == 0 and lo <= x <= hi


def _ball(x):
    return is_int(x) and 0 <= x < BALLS


def _ball_key(k):
    return isinstance(k, str) and 0 < len(k) <= 2 and k.isdigit() and int(k) < BALLS


def _balls(x):
    """A list of distinct balls, sorted; None if it is not one."""
    if not isinstance(x, list) or len(x) > BALLS:
        return None
    out = []
    for b in x:
        if not _ball(b) or b in out:
            return None
        out.append(b)
    out.sort()
    return out


def _confidences(x):
    """{"ball": confidence} with at most one entry a ball; None if it is not one."""
    if not isinstance(x, dict) or len(x) > BALLS:
        return None
    out = {}
    for k in x:
        if not _ball_key(k) or not _num(x[k], 0, 1):
            return None
        out[str(int(k))] = x[k]
    return out


def _balls_with(x):
    """{"balls": [...], "confidence": {...}}, normalised; None if it is not one."""
    if not isinstance(x, dict):
        return None
    balls, conf = _balls(x.get("balls")), _confidences(x.get("confidence"))
    return None if balls is None or conf is None else {"balls": balls, "confidence": conf}


def _rest(x):
    if not isinstance(x, dict) or len(x) > BALLS:
        return None
    out = {}
    for k in x:
        p = x[k]
        if not _ball_key(k) or not isinstance(p, dict):
            return None
        if not (_num(p.get("x"), -500, 5500) and _num(p.get("y"), -500, 3000) and _num(p.get("confidence"), 0, 1)):
            return None
        out[str(int(k))] = {"x": p["x"], "y": p["y"], "confidence": p["confidence"]}
    return out


def normal_facts(f):
    """The live facts (docs/camera.md) checked and copied with only the fields the referee reads;
    None if any is missing, of another type or out of its range. Bounded: at most BALLS balls in
    each list and map, MAX_NOTES notes of MAX_NOTE characters."""
    if not isinstance(f, dict):
        return None
    fc = f.get("first_contact")
    if not (isinstance(fc, dict) and (fc.get("ball") is None or _ball(fc.get("ball")))
            and _num(fc.get("confidence"), 0, 1)
            and (fc.get("identity_confidence") is None or _num(fc.get("identity_confidence"), 0, 1))):
        return None
    railed, pocketed = _balls_with(f.get("railed_after_contact")), _balls_with(f.get("pocketed"))
    rest, lost = _rest(f.get("rest_mm")), _balls(f.get("lost", []))
    brk = f.get("break")
    if brk is not None and not (isinstance(brk, dict) and is_int(brk.get("object_balls_railed"))
                                and 0 <= brk["object_balls_railed"] < BALLS and _num(brk.get("confidence"), 0, 1)):
        return None
    notes = f.get("notes", [])
    if not (isinstance(notes, list) and len(notes) <= MAX_NOTES and all(isinstance(n, str) for n in notes)):
        return None
    if railed is None or pocketed is None or rest is None or lost is None:
        return None
    if not _num(f.get("identity_confidence"), 0, 1):
        return None
    # Optional: an analyser from before them says nothing of where the balls lay (null).
    start, reach = f.get("start_mm"), f.get("cue_reach_mm")
    if start is not None:
        start = _rest(start)
        if start is None:
            return None
    if not (reach is None or (isinstance(reach, dict) and _num(reach.get("x"), -500, 5500)
                              and _num(reach.get("confidence"), 0, 1))):
        return None
    clear, still = f.get("way_clear"), f.get("others_still")       # optional: newer analysers only
    for x in (clear, still):
        if not (x is None or (isinstance(x, dict) and _num(x.get("confidence"), 0, 1))):
            return None
    second = f.get("second_contact")       # optional too: older analysers name the first ball only
    if not (second is None or (isinstance(second, dict) and _ball(second.get("ball"))
                               and _num(second.get("after_ms"), 0, 60000)
                               and _num(second.get("confidence"), 0, 1))):
        return None
    # The balls the first ball may be (newer analysers): its own among them, or unknown.
    may_be = fc.get("may_be")
    if may_be is not None:
        may_be = _balls(may_be)
        if may_be is None or (fc["ball"] is not None and fc["ball"] not in may_be):
            return None
    # The first ball's own identity when the analyser gives it (newer ones do); else the least
    # sure of every ball's, as before.
    fid = fc.get("identity_confidence")
    return {"first_contact": {"ball": fc["ball"], "confidence": fc["confidence"],
                              "identity_confidence": f["identity_confidence"] if fid is None else fid,
                              "may_be": may_be},
            "start_mm": start,
            "cue_reach_mm": None if reach is None else {"x": reach["x"], "confidence": reach["confidence"]},
            "way_clear": None if clear is None else {"confidence": clear["confidence"]},
            "others_still": None if still is None else {"confidence": still["confidence"]},
            "second_contact": None if second is None else {"ball": second["ball"], "after_ms": second["after_ms"],
                                                           "confidence": second["confidence"]},
            "railed_after_contact": railed, "pocketed": pocketed, "rest_mm": rest, "lost": lost,
            "break": None if brk is None else {"object_balls_railed": brk["object_balls_railed"],
                                               "confidence": brk["confidence"]},
            "identity_confidence": f["identity_confidence"], "notes": [n[:MAX_NOTE] for n in notes]}


def _time(x):
    return x is None or (is_int(x) and 0 <= x < 1 << 62)


def check_entry(e):
    """None if `e` is a well-formed camera entry, else the refusal (messages `refused.*`). The
    daemon asks before it journals anything the camera sent; the referee asks again."""
    kind = e.get("kind")
    if kind not in KINDS:
        return refusal("camera_entry", (kind,))
    if kind == "none":
        return None if is_int(e.get("shot")) and e["shot"] >= 0 else refusal("camera_entry", (kind,))
    if kind == "health":
        faults = e.get("faults", [])
        tm = e.get("table_mm")
        if (e.get("state") not in STATES or not isinstance(faults, list) or len(faults) > len(FAULTS)
                or [c for c in faults if c not in FAULTS] or len(set(faults)) != len(faults)
                or not (tm is None or (isinstance(tm, list) and len(tm) == 2 and _num(tm[0], 500, 5000)
                                       and _num(tm[1], 250, 2500)))):
            return refusal("camera_entry", (kind,))
        return None
    s, t = e.get("start_us"), e.get("end_us")
    if not (_time(s) and _time(t)) or (s is not None and t is not None and s > t) or normal_facts(e.get("facts")) is None:
        return refusal("camera_entry", (kind,))
    return None


def fault_entry(code):
    """A camera fault as `state.faults` shows it (English like every state value)."""
    return {"sensor": None, "what": "camera", "fault": code, "text": word("camera.fault." + code, "en")}


# ------------------------------------------------------------------ what the facts decide
def legal_first(g, shot):
    """The balls the cue ball may touch first on `shot`, or None when the rules name none."""
    game = g["game"]
    if game == "nine-ball":
        # NB.LEGAL-SHOT, NB.WRONG-FIRST; NB.BREAK: on the break too (the 1 is the lowest then).
        return [min(g["on_table"])] if g["on_table"] else None
    if game == "eight-ball" and not shot["break"]:
        grp = g["players"][shot["shooter"]]["group"]
        if grp is None:
            return [b for b in g["on_table"] if b != 8]        # EB.OPEN-8-FIRST
        own = [b for b in g["on_table"] if _group(b) == grp]
        return own or [8]                                      # EB.CLOSED-FIRST
    return None          # SP: any ball; the eight-ball break: the rack


def first_contact_fouls(g, shot, fc, start=None, way_clear=None):
    """The fouls the first contact `fc` (normal_facts' "first_contact") makes on `shot`: [],
    ["no_contact"] or ["wrong_first_contact"]; None when the camera is not sure enough. The
    contact must be sure; which ball it was only as far as the verdict needs: sure of its number,
    or every ball it may be (`may_be`, those on the table) gives the same verdict (14.1 names no
    ball; a stripe that may be the 11 or the 15 is a stripe all the same). `start`: the facts'
    `start_mm` (None from older analysers): an object ball on the table that the camera did not
    see lying anywhere when the cue ball was struck may be the ball it met first, unseen (a blue
    ball unseen under a spot lamp): the verdict must be the same were it first, and "no
    contact" is then unsure; unless `way_clear` (the facts' confidence that nothing left the
    cue ball's way before its first contact) is sure: a ball met moves."""
    first = fc["ball"]
    unseen = unseen_in_way(g, start, way_clear)
    if fc["confidence"] < MIN_CONFIDENCE:
        return None
    if first is None:
        return None if unseen else ["no_contact"]
    legal = legal_first(g, shot)
    if fc["identity_confidence"] >= MIN_CONFIDENCE:
        maybe = [first]
    elif fc.get("may_be") is None or 0 in fc["may_be"]:
        return None                # unknown, or it may be the cue ball's own track: no contact known
    else:
        maybe = [b for b in fc["may_be"] if b == first or b in g["on_table"]]
    fouls = set(legal is not None and b not in legal for b in maybe + unseen)
    if len(fouls) != 1:
        return None
    return ["wrong_first_contact"] if fouls.pop() else []


def way_clear(facts):
    """How sure the facts are that nothing left the cue ball's way before its first contact,
    or that nothing the camera does not follow moved at all (None from analysers that say
    neither)."""
    said = [x["confidence"] for x in (facts.get("way_clear"), facts.get("others_still")) if x is not None]
    return max(said) if said else None


def unseen_in_way(g, start, way_clear):
    """The object balls the camera did not place at the stroke (`unseen_at_stroke`) that may
    have lain in the cue ball's way: all of them, or none when the way was surely clear."""
    if way_clear is not None and way_clear >= MIN_CONFIDENCE:
        return []
    return unseen_at_stroke(g, start)


def unseen_at_stroke(g, start):
    """The object balls on the table missing from the camera's `start_mm` (none when it gives
    no `start_mm`)."""
    if start is None:
        return []
    return [b for b in g["on_table"] if b != 0 and str(b) not in start]


def simultaneous(g, shot, facts):
    """EB.SIMULTANEOUS on a closed eight-ball table after the break: the first and the second
    contact (`second_contact`, used) were within SIMULTANEOUS_MS, so which came first cannot be
    told. None when the clause does not apply (another game or table, the facts name no second
    ball, it is unsure, or the contacts were apart: the first contact is judged alone); else
    (legal, judged): `legal` whether the shot's first contact is legal (either ball may be the
    first, so one of the shooter's is enough), `judged` whether the clause decided it (one ball of
    each kind; both the shooter's or neither is legal or not whichever came first)."""
    sc = facts.get("second_contact")
    first = facts["first_contact"]["ball"]
    # (A ball unseen at the stroke may have been first too: the first contact alone is judged.)
    if (unseen_in_way(g, facts["start_mm"], way_clear(facts))
            or g["game"] != "eight-ball" or shot["break"] or g["players"][shot["shooter"]]["group"] is None
            or sc is None or first is None or sc["ball"] in (0, first) or sc["ball"] not in g["on_table"]
            or sc["confidence"] < MIN_CONFIDENCE or sc["after_ms"] > SIMULTANEOUS_MS
            or facts["identity_confidence"] < MIN_CONFIDENCE):
        return None
    legal = legal_first(g, shot)
    hits = [b in legal for b in (first, sc["ball"])]
    return any(hits), hits[0] != hits[1]


def _group(b):
    return "solids" if 1 <= b <= 7 else "stripes" if 9 <= b <= 15 else None


def _sure(conf, b):
    return conf.get(str(b), 0) >= MIN_CONFIDENCE


def _on_table_then(g, shot):
    """The balls the camera should have followed in the shot: the cue ball and the object balls
    on the table when it began."""
    return [0] + [b for b in g["on_table"] if b != 0]


def _railed_tally(g, shot, facts, counts):
    """(surely railed, perhaps railed) of the balls `counts` accepts: a ball the camera did not
    follow, or was unsure of, is a perhaps; one it did not follow is surely not railed where the
    camera is sure nothing it does not follow moved (`others_still`)."""
    rc = facts["railed_after_contact"]
    conf = rc["confidence"]
    still = (facts.get("others_still") or {}).get("confidence", 0) >= MIN_CONFIDENCE
    sure = perhaps = 0
    for b in _on_table_then(g, shot):
        if not counts(b) or (still and str(b) not in conf):
            continue
        if str(b) not in conf or not _sure(conf, b):
            perhaps += 1
        elif b in rc["balls"]:
            sure += 1
    return sure, perhaps


def rail_after_contact(g, shot, facts):
    """Did any ball reach a cushion after the first contact? True, False, or None (not sure)."""
    rc = facts["railed_after_contact"]
    if [b for b in rc["balls"] if _sure(rc["confidence"], b)]:
        return True
    sure, perhaps = _railed_tally(g, shot, facts, lambda b: True)
    return None if perhaps or rc["balls"] or facts["lost"] else False


def break_rails(g, shot, facts):
    """Enough balls at a cushion for a legal break without a ball down? True, False or None."""
    game = g["game"]
    if game == "straight-pool":
        # SP.BREAK, a safe break: the cue ball and at least two object balls.
        rc = facts["railed_after_contact"]
        cue = None if not _sure(rc["confidence"], 0) else 0 in rc["balls"]
        sure, perhaps = _railed_tally(g, shot, facts, lambda b: b != 0)
        if cue is False or sure + perhaps < 2:
            return False
        return True if cue and sure >= 2 else None
    # EB.BREAK-LEGAL: four object balls; NB.BREAK: any four balls, the cue ball may be one.
    counts = (lambda b: True) if game == "nine-ball" else (lambda b: b != 0)
    sure, perhaps = _railed_tally(g, shot, facts, counts)
    if sure >= 4:
        return True
    return False if sure + perhaps < 4 else None


def beams_disagree(g, shot, facts):
    """A reason (REASONS) the facts cannot be this shot's, or None: the beams are the authority on
    what dropped, and a first ball must be one that was on the table. The camera contradicts them
    where it saw a ball drop that they did not, or saw on the table at rest a ball they saw drop; a
    ball it lost sight of (`lost`: neither seen to drop nor at rest) may be one they saw drop."""
    balls = facts["pocketed"]["balls"]
    lost = facts["lost"]
    drops = [d for d in shot["pocketed"] if d[0] != 0]
    known = [d[0] for d in drops if d[0] is not None]
    seen = [b for b in balls if b != 0]
    missed = [b for b in known if b not in seen]          # dropped, not seen to drop
    if [b for b in missed if b not in lost]:
        return "beams"
    spare = [b for b in lost if b != 0 and b not in missed]      # may be the drops not named
    unnamed = len(drops) - len(known)
    extra = [b for b in seen if b not in known]            # seen to drop, named by no beam
    if len(extra) > unnamed or unnamed - len(extra) > len(spare):
        return "beams"
    if (0 in balls) != bool(shot["cue_pocketed"]) and not (shot["cue_pocketed"] and 0 in lost):
        return "beams"
    first = facts["first_contact"]["ball"]
    if first is not None and (first == 0 or first not in g["on_table"]):
        return "table"
    return None


def name_drops(g, shot, facts):
    """The balls the beams could not name, named by the camera when they are all in one pocket
    and the camera saw exactly that many other balls drop, all surely. True if it named them."""
    pk = facts["pocketed"]
    unknown = [d for d in shot["pocketed"] if d[0] is None]
    known = [d[0] for d in shot["pocketed"] if d[0] is not None]
    rest = [b for b in pk["balls"] if b != 0 and b not in known]
    if (not unknown or len(rest) != len(unknown) or len(set([d[1] for d in unknown])) != 1
            or [b for b in rest if not _sure(pk["confidence"], b) or b not in g["on_table"]]
            or facts["identity_confidence"] < MIN_CONFIDENCE):
        return False
    for i in range(len(unknown)):
        unknown[i][0] = rest[i]
        unknown[i][3] = False
    return True


# ------------------------------------------------------------------ where the balls lay
def _start(facts, b):
    """Where ball `b` surely lay when the shot began ({"x", "y", "confidence"}), or None."""
    p = (facts["start_mm"] or {}).get(str(b))
    return p if p is not None and p["confidence"] >= MIN_CONFIDENCE else None


def _behind(x, line):
    """A ball's centre at `x` (mm from the head cushion) against a string across the table at
    `line`: True surely behind it (the head's side), False surely on it or beyond, None too close
    to call. GEN.KITCHEN: a ball exactly on the head string is outside the kitchen."""
    if x < line - PLACE_MARGIN_MM:
        return True
    if x > line + PLACE_MARGIN_MM:
        return False
    return None


def kitchen_of(g, facts, table_mm):
    """Which kitchen a ball in hand "from the kitchen" is played from: "head" (behind the head
    string, a quarter of the table from the head cushion), "foot" (GEN.KITCHEN-ONLY-OUT: every
    object ball lay in the kitchen, so the shooter plays from the opposite end, behind the foot
    string), or None when the camera cannot tell."""
    head = table_mm[0] / 4.0
    sides = []
    for b in g["on_table"]:
        if b == 0:
            continue
        p = _start(facts, b)
        sides.append(None if p is None else _behind(p["x"], head))
    if False in sides:
        return "head"                  # a ball outside the kitchen (any: its number does not matter)
    if sides and None not in sides:
        return "foot"
    return None


def cue_placed(g, facts, table_mm):
    """GEN.KITCHEN: the cue ball in hand lay in the kitchen when it was struck? (kitchen, True,
    False or None): `kitchen` "head" or "foot" (kitchen_of), the answer None when not sure."""
    if table_mm is None:
        return None, None
    kitchen, cue = kitchen_of(g, facts, table_mm), _start(facts, 0)
    if kitchen is None or cue is None:
        return kitchen, None
    if kitchen == "head":
        return kitchen, _behind(cue["x"], table_mm[0] / 4.0)
    behind = _behind(cue["x"], table_mm[0] * 3 / 4.0)       # the temporary kitchen: beyond the foot string
    return kitchen, None if behind is None else not behind


def kitchen_ball_hit(facts, table_mm):
    """GEN.KITCHEN-ONLY-OUT, EB.KITCHEN: shooting from the kitchen, the ball hit first lay in the
    kitchen and the cue ball reached it directly? True (a foul), False (it lay outside), None
    (not sure: the ball's place, or a cue ball that left the kitchen first and may have come back
    off the foot cushion, which eight-ball allows and a person judges)."""
    head = table_mm[0] / 4.0
    p = _start(facts, facts["first_contact"]["ball"])
    inside = None if p is None else _behind(p["x"], head)
    if inside is None or inside is False:
        return None if inside is None else False
    reach = facts["cue_reach_mm"]
    if reach is not None and reach["confidence"] >= MIN_CONFIDENCE and _behind(reach["x"], head) is True:
        return True
    return None


def rack_spots(table_mm):
    """The 15 places of a 14.1 rack: the apex on the foot spot (3/4 of the table, mid-width), the
    rows towards the foot cushion, each ball touching its neighbours (GEN.RACK)."""
    L, W = table_mm
    row = BALL_MM * 0.8660254
    out = []
    for i in range(5):
        for j in range(i + 1):
            out.append((L * 3 / 4.0 + i * row, W / 2.0 + (j - i / 2.0) * BALL_MM))
    return out


def _in_rack(p, spots):
    """True if a ball at `p` is surely in the way of a ball at one of `spots` (they would overlap),
    False surely not, None too close to call."""
    d = min(((p["x"] - x) ** 2 + (p["y"] - y) ** 2) ** 0.5 for x, y in spots)
    if d < BALL_MM - PLACE_MARGIN_MM:
        return True
    if d > BALL_MM + PLACE_MARGIN_MM:
        return False
    return None


def reracks(g, shot):
    """14.1: does `shot` leave one object ball on the table (SP.RERACK when it stands; a scratch
    spots the 14th again, SP.CUE-OUT)?"""
    down = [d[0] for d in shot["pocketed"]]
    return (g["game"] == "straight-pool" and None not in down and not shot["cue_pocketed"]
            and len([b for b in g["on_table"] if b != 0 and b not in down]) == 1)


def rack_places(facts, table_mm):
    """SP.RERACK / SP.FULL-RERACK / SP.RACK-CONFLICT: where the 15th ball and the cue ball came to
    rest, as the `rack` command's body ({"fifteenth", "cue"}), or None when the camera is not sure
    (a person enters it, as before). The one object ball the camera saw at rest is the 15th,
    whatever number it read on it."""
    rest = facts["rest_mm"]
    balls = [k for k in rest if k != "0"]
    if (table_mm is None or facts["lost"] or len(balls) != 1
            or [k for k in rest if rest[k]["confidence"] < MIN_CONFIDENCE]):
        return None
    spots = rack_spots(table_mm)
    p = rest[balls[0]]
    apex, rack = _in_rack(p, spots[:1]), _in_rack(p, spots[1:])
    kitchen = _behind(p["x"], table_mm[0] / 4.0)
    if apex:
        fifteenth = "apex"
    elif apex is None:
        return None
    elif rack:
        fifteenth = "rack"
    elif rack is None or kitchen is None:
        return None
    else:
        fifteenth = "kitchen" if kitchen else "clear"
    c = None if "0" not in rest else _in_rack(rest["0"], spots)
    return None if c is None else {"fifteenth": fifteenth, "cue": "rack" if c else "clear"}


def decide_places(g, shot, facts, table_mm, used, unsure, as_it_lies=False):
    """Enter on `shot` what the balls' places decide (decide's part for them). `as_it_lies`: the
    shooter could also play the cue ball where it lay (EB.BREAK-JUMP): outside the kitchen is
    then no foul the camera can call."""
    if shot["from"] == "kitchen" and facts["start_mm"] is not None:
        kitchen, placed = cue_placed(g, facts, table_mm)
        if placed is False and as_it_lies:
            placed = None
        if placed is None:
            unsure.append("kitchen")
        else:
            used.append("kitchen" if kitchen == "head" else "temporary_kitchen")
            shot["camera"]["placed"] = placed
            if not placed:
                common.add_new(shot["fouls"], ["kitchen"])
            elif kitchen == "head" and "first_contact" in used and facts["first_contact"]["ball"] is not None:
                hit = kitchen_ball_hit(facts, table_mm)
                if hit is None:
                    unsure.append("kitchen_ball")
                elif hit:
                    common.add_new(shot["fouls"], ["kitchen"])
                    used.append("kitchen_ball")
    if reracks(g, shot) and "rack" not in shot:
        places = rack_places(facts, table_mm)
        if places is None:
            unsure.append("rack")
        else:
            shot["rack"] = places          # as the `rack` command enters it; a person's overrules
            used.append("rack")


def decide(g, shot, facts, table_mm=None, as_it_lies=False):
    """Enter on `shot` what the facts decide: (what was used, what it was unsure of); each a list
    of "first_contact", "rail", "break", "identity", and of the balls' places (decide_places):
    "kitchen" / "temporary_kitchen" (where the cue ball in hand lay), "kitchen_ball" (the ball hit
    first lay in the kitchen), "rack" (14.1: where the 15th and the cue ball stopped). `table_mm`:
    the playing area the camera measured (its health entries); the places need it; `as_it_lies`:
    decide_places."""
    used, unsure = [], []
    fc = facts["first_contact"]
    first = fc["ball"]
    both = simultaneous(g, shot, facts)
    if both is not None:
        # Two balls within SIMULTANEOUS_MS: whichever was first, an unsure first contact too.
        if not both[0]:
            common.add_new(shot["fouls"], ["wrong_first_contact"])
        used.append("first_contact")
        if both[1]:
            shot["camera"]["simultaneous"] = [first, facts["second_contact"]["ball"]]
            used.append("simultaneous")
    elif not (g["game"] == "eight-ball" and shot["break"]):
        fouls = first_contact_fouls(g, shot, fc, facts["start_mm"], way_clear(facts))
        if fouls is None:
            unsure.append("first_contact")
        else:
            common.add_new(shot["fouls"], fouls)
            used.append("first_contact")
    if shot["break"]:
        ok = break_rails(g, shot, facts)
        (unsure if ok is None else used).append("break")
        shot["camera"]["break_rails"] = ok
    elif first is not None:
        # "After the contact" needs the contact: one the camera is unsure happened there and then
        # (a ball it guessed was hit) leaves the cushions to the piezos.
        # (Two balls hit within SIMULTANEOUS_MS: the contact is sure, only its order is not.)
        sure_contact = both is not None or fc["confidence"] >= MIN_CONFIDENCE
        railed = rail_after_contact(g, shot, facts) if sure_contact else None
        (unsure if railed is None else used).append("rail")
        shot["rails_seen"] = railed
    if name_drops(g, shot, facts):
        used.append("identity")
    decide_places(g, shot, facts, table_mm, used, unsure, as_it_lies)
    return used, unsure


def view(facts, n):
    """`state.camera.last_shot`: the last shot as the camera saw it (first contact and the balls
    railed after it, with confidences), and what the referee made of it."""
    if facts is None:
        return {"shot": n, "first_contact": None, "railed": None, "break_railed": None, "pocketed": None,
                "used": [], "unsure": [], "fallback": None}
    rc = facts["railed_after_contact"]
    return {"shot": n, "first_contact": clone(facts["first_contact"]),
            "railed": {"balls": list(rc["balls"]), "confidence": dict(rc["confidence"])},
            "break_railed": facts["break"]["object_balls_railed"] if facts["break"] else None,
            "pocketed": list(facts["pocketed"]["balls"]), "used": [], "unsure": [], "fallback": None}


# ------------------------------------------------------------------ the referee's side
class CameraSight:
    """Mixed into Referee: the camera's entries, the wait for them and what they decide."""

    def _camera_entry(self, e):
        refused = check_entry(e)
        if refused:
            return refused
        kind = e["kind"]
        if kind == "health":
            return self._camera_health(e)
        events = []
        if kind == "none":
            if self._camera_waiting() and self.book.open_shot["n"] == e["shot"]:
                self._camera_release("late", events)
            return {"ok": True, "error": None, "events": events}
        return self._camera_shot(e, events)

    # --- health
    def _camera_health(self, e):
        events = []
        state, faults = e["state"], list(e.get("faults", []))
        cam = self.book.camera
        if state == "none":
            if cam is not None and self._camera_waiting():
                self._camera_release("offline", events)
            self.book.camera = None
            self._camera_faults([], events)
            return {"ok": True, "error": None, "events": events}
        if cam is None:
            cam = self.book.camera = {"state": "offline", "faults": [], "table_mm": None, "held": None,
                                      "online_from": self.book.shots + 1, "last": None, "balls": None}
        was = cam["state"]
        cam["state"], cam["faults"] = state, faults
        if e.get("table_mm") is not None:
            cam["table_mm"] = list(e["table_mm"])
        if state != "online":
            shot = self.book.open_shot
            if shot is not None:
                self._shot_camera(shot)["fault"] = True
            if self._camera_waiting():
                self._camera_release("fault" if state == "fault" else "offline", events)
            if was == "online" and not faults:
                common.tell(events, "warning", None, [], "camera.offline")
        elif was != "online":
            cam["online_from"] = self.book.shots + 1
            common.tell(events, "warning", None, [], "camera.online")
        self._camera_faults(faults, events)
        return {"ok": True, "error": None, "events": events}

    def _camera_faults(self, codes, events):
        """`state.faults` holds the camera's active faults; each one that comes or goes is said."""
        had = [f["fault"] for f in self.book.faults if f.get("what") == "camera"]
        self.book.faults = [f for f in self.book.faults if f.get("what") != "camera"]
        for c in codes:
            self.book.faults.append(fault_entry(c))
        for key, now in (("camera.fault_on", [c for c in codes if c not in had]),
                         ("camera.fault_off", [c for c in had if c not in codes])):
            for c in now:
                tell_worded(events, "warning", None, key, ["camera.fault." + c], {"fault": c})

    # --- facts
    def _camera_shot(self, e, events):
        facts = normal_facts(e["facts"])
        cam = self.book.camera
        if cam is None:
            return {"ok": True, "error": None, "events": events}      # no camera set up: nothing to use it for
        cam["balls"] = dict((b, [p["x"], p["y"]]) for b, p in facts["rest_mm"].items())
        shot = self.book.open_shot
        if shot is None or not self._camera_fits(shot, e.get("start_us"), e.get("end_us")):
            # Too late for its shot, or a stroke the board did not feel: where the balls lie is
            # still news; `last_shot` stays the last shot judged.
            return {"ok": True, "error": None, "events": events}
        sc = self._shot_camera(shot)
        sc["strokes"] += 1
        if sc["facts"] is None:
            sc["facts"] = facts
        cam["last"] = view(facts, shot["n"])
        if self._camera_waiting():
            self._camera_release(None, events)
        return {"ok": True, "error": None, "events": events}

    def _camera_fits(self, shot, start, end):
        """The stroke the facts describe is `shot`'s (the board's clock, SLACK_US either side)."""
        if start is None or end is None:
            return False
        lead = SLACK_US if self.book.has_motion else LEAD_US
        return start >= shot["start_us"] - lead and end >= shot["start_us"] - SLACK_US and (
            shot["end_us"] is None or start <= shot["end_us"] + SLACK_US)

    @staticmethod
    def _shot_camera(shot):
        sc = shot.get("camera")
        if sc is None:
            sc = shot["camera"] = {"facts": None, "strokes": 0, "fault": False}
        return sc

    # --- the wait
    def camera_wait(self):
        """The serial number `n` of the shot whose verdict waits for the camera's facts, or None
        (the daemon writes the `none` entry for it when DEADLINE_MS have passed)."""
        return self.book.open_shot["n"] if self._camera_waiting() else None

    def _camera_waiting(self):
        cam, shot = self.book.camera, self.book.open_shot
        return cam is not None and shot is not None and cam["held"] == shot["n"]

    def _camera_holds(self, t):
        """The board says the balls are still (MOTION 0): hold the shot for the camera's facts if
        it is online and they have not come yet. True if the shot is held (or already was)."""
        cam, shot = self.book.camera, self.book.open_shot
        if cam is None or shot is None or cam["state"] != "online":
            return False
        if cam["held"] == shot["n"]:
            return True
        sc = shot.get("camera") or {}
        if sc.get("facts") is not None or sc.get("fault") or shot["n"] < cam["online_from"]:
            return False
        shot["end_us"] = t
        cam["held"] = shot["n"]
        return True

    def _camera_release(self, why, events):
        """Judge the held shot now (`why`: a REASONS code when its facts did not come)."""
        shot = self.book.open_shot
        self.book.camera["release"] = why
        self._end_shot(shot["end_us"], events)

    def _camera_settle(self, shot, events):
        """Just before `shot` is judged: enter what the camera's facts decide, or say why not."""
        cam = self.book.camera
        if cam is None:
            return
        held = cam["held"] == shot["n"]
        why = cam.get("release") if held else None
        cam["held"], cam["release"] = None, None
        sc = self._shot_camera(shot)
        facts = sc["facts"]
        if sc["fault"] or shot["n"] < cam["online_from"] or cam["state"] != "online":
            why = "fault" if sc["fault"] or cam["state"] == "fault" else "offline"
        elif facts is None:
            why = why or "ended"
        elif sc["strokes"] > 1:
            why = "strokes"
        else:
            why = beams_disagree(self.book.game, shot, facts)
        seen = view(facts, shot["n"])
        cam["last"] = seen
        if why is not None:
            seen["fallback"] = why
            tell_worded(events, "warning", shot["shooter"], "camera.fallback", ["camera.why." + why], {"reason": why})
            return
        seen["used"], seen["unsure"] = decide(self.book.game, shot, facts, cam["table_mm"], self._as_it_lies(shot))
        if seen["used"]:
            tell_worded(events, "camera", shot["shooter"], "camera.saw", said_parts(shot, facts, seen["used"]),
                        {"first_contact": facts["first_contact"]["ball"],
                         "railed": list(facts["railed_after_contact"]["balls"]), "used": list(seen["used"])})
        if seen["unsure"]:
            tell_worded(events, "warning", shot["shooter"], "camera.unsure",
                        ["camera.what." + w for w in seen["unsure"]], {"unsure": list(seen["unsure"])})

    def _as_it_lies(self, shot):
        """EB.BREAK-JUMP: after an object ball left the table on the break (no scratch) the
        opponent plays from the kitchen or the cue ball where it lies. Without the shot before
        in the undo history, an eight-ball shot from the kitchen might be that one."""
        g = self.book.game
        if g["game"] != "eight-ball" or shot["break"]:
            return False
        if not self.book.history:
            return True
        last = self.book.history[-1]["shot"]
        return bool(last["break"] and last["jumped"] and not last["cue_pocketed"])

    def _camera_state(self):
        """`state.camera` (docs/mqtt.md): None on a table without a camera."""
        cam = self.book.camera
        if cam is None:
            return None
        return {"state": cam["state"], "faults": list(cam["faults"]), "waiting": self._camera_waiting(),
                "table_mm": clone(cam["table_mm"]), "balls": clone(cam["balls"]), "last_shot": clone(cam["last"])}


def said_parts(shot, facts, used):
    """What the camera saw that the verdict rests on, as message keys with their arguments."""
    parts = []
    first = facts["first_contact"]["ball"]
    if "simultaneous" in used:
        parts.append(("camera.part.simultaneous", first, facts["second_contact"]["ball"]))
    elif "first_contact" in used:
        parts.append(("camera.part.no_contact",) if first is None else ("camera.part.contact", first))
    if "rail" in used:
        parts.append(("camera.part.rail",) if shot.get("rails_seen") else ("camera.part.no_rail",))
    if "break" in used:
        parts.append(("camera.part.break_rails", len(facts["railed_after_contact"]["balls"])))
    if "identity" in used:
        named = [d[0] for d in shot["pocketed"] if d[0] is not None and d[0] != 0]
        parts.append(("camera.part.identity", ", ".join(str(b) for b in named)))
    placed = shot["camera"].get("placed")
    if "kitchen" in used:
        parts.append(("camera.part.kitchen_in",) if placed else ("camera.part.kitchen_out",))
    if "temporary_kitchen" in used:
        parts.append(("camera.part.foot_in",) if placed else ("camera.part.foot_out",))
    if "kitchen_ball" in used:
        parts.append(("camera.part.kitchen_ball", first))
    if "rack" in used:
        parts.append(("camera.part.fifteenth_" + shot["rack"]["fifteenth"],))
        parts.append(("camera.part.cue_" + shot["rack"]["cue"],))
    return parts


def tell_worded(events, kind, player, key, parts, extra):
    """An event worded by message `key` whose one argument is `parts` (message keys, or tuples of
    a key and its arguments) said in each language and joined."""
    en, ru = [], []
    for p in parts:
        p = (p,) if isinstance(p, str) else p
        e, r = say(p[0], *p[1:])
        en.append(e)
        ru.append(r)
    en, ru = say_each(key, ("; ".join(en),), ("; ".join(ru),))
    events.append(event(kind, player, [], en, ru, extra))
