"""14.1 continuous (straight pool), seed 000: every called ball legally pocketed scores a point,
every foul costs one, the third foul in a row costs sixteen, and the balls are re-racked every
fourteen until a player reaches the agreed score.

Ball numbers only help calling (SP.SETUP), so identities are inferred wherever the verdict does
not depend on them; `identify` is asked for only when it decides whether the called ball went
into the called pocket (SP.WRONG-POCKET).
"""
from collections import namedtuple

from shared_rules.link.names import POCKETS
from shared_rules.rules import common
from shared_rules.rules.events import event
from shared_rules.rules.messages import say
from shared_rules.rules.games.base import check_push_out  # noqa: F401  (no push-out in 14.1)
from shared_rules.rules.verdict import verdict

SETUP_CLAUSE = "SP.SETUP"
CALL_CLAUSE = "SP.CALL"
SAFETY_CLAUSE = "SP.SAFETY"

BREAK_PENALTY = 2        # SP.BREAK: "штраф в размере двух очков"
THIRD_FOUL_EXTRA = 15    # SP.3-FOULS: "ещё одно штрафное очко и пятнадцать очков дополнительно"
SAFE_BREAK_BALLS = 2     # SP.BREAK: the cue ball and at least two object balls reach a rail
BREAK_RULINGS = ("no_rail", "illegal_break")   # the referee's word that a break was not legal

FIFTEENTH_PLACES = ("clear", "rack", "apex", "kitchen")
CUE_PLACES = ("clear", "rack")


def _full_rack():
    return list(range(1, 16))


def _x(g):
    x = g.get("x")
    if not isinstance(x, dict):
        x = {}
        g["x"] = x
    for k in ("breaker", "offender", "rerack"):
        if k not in x:
            x[k] = None
    return x


# ------------------------------------------------------------------ interface
def setup(g, settings):
    """SP.SETUP: fifteen balls racked, the cue ball in hand from the kitchen."""
    g["on_table"] = _full_rack()
    _x(g)["breaker"] = g["shooter"]


def check_call(g, ball, pocket):
    if pocket is None:
        return ("sp.call_pocket",)
    return None


def check_safety(g):
    return None


def jump_is_foul(g, shot, ball):
    """SP.JUMP: a jumped object ball is no foul, unless the match plays SP.STRICT-JUMP."""
    return bool(g["settings"].get("strict_jump"))


def extra_state(g):
    r = _x(g)["rerack"]
    if not r:
        return {"rerack": None}
    return {"rerack": {"balls": 15 if r["full"] else 14, "fifteenth": r["fifteenth"],
                       "cue": r["cue"], "facts": dict(r["facts"])}}


# --------------------------------------------------------------- identities
def _called(shot):
    """(ball or None, pocket index or None) of the call; (None, None) when nothing was called."""
    c = shot["called"]
    if not c:
        return None, None
    pocket = c.get("pocket")
    return c.get("ball"), (POCKETS.index(pocket) if pocket is not None else None)


def _drops(shot):
    """Object-ball drops that count for the shot: [ball or None, pocket]."""
    return [d for d in shot["pocketed"] if d[0] != 0]


def _fate(shot):
    """Did the call come off? "in", "out", or None when only `identify` can tell.

    No call (and no safety): an obvious shot, every dropped ball is taken as intended.
    A pocket-only call (the board's pocket buttons): any ball in that pocket is the called one.
    A single unknown ball in the called pocket is the called ball (base.resolve_called).
    """
    drops = _drops(shot)
    cb, cp = _called(shot)
    if cp is None:
        return "in" if drops else "out"
    here = [d for d in drops if d[1] == cp]
    if cb is None:
        return "in" if here else "out"
    if cb in shot["jumped"] or cb in shot["spotted"]:
        return "out"
    for d in drops:
        if d[0] == cb:
            return "in" if d[1] == cp else "out"
    if not [d for d in here if d[0] is None]:
        return "out"
    if len(here) == 1:
        return "in"
    return None


def _balls(g, shot, fate):
    """The shot's object drops as [ball, pocket, known]; unknown ones get the called ball or free numbers.

    Which number an unknown ball had changes nothing but the numbers left to call, so the
    lowest numbers still on the table (never the called ball, never a jumped ball) stand in.
    """
    cb, cp = _called(shot)
    out = []
    taken = [d[0] for d in _drops(shot) if d[0] is not None] + [b for b in shot["jumped"] if b]
    called_given = cb is None or cb in taken
    for d in _drops(shot):
        out.append([d[0], d[1], d[0] is not None])
    if fate == "in" and not called_given:
        for o in out:
            if o[0] is None and o[1] == cp:
                o[0] = cb
                taken.append(cb)
                break
    for o in out:
        if o[0] is None:
            for b in g["on_table"]:
                if b not in taken and b != cb:
                    o[0] = b
                    taken.append(b)
                    break
            else:
                o[0] = cb if cb is not None and cb not in taken else 0
                taken.append(o[0])
    return out


def _fouls(shot):
    """The shooter's foul codes (SP.LEGAL-SHOT needs no rail on the break, which has its own test)."""
    codes = common.sensor_fouls(shot, not shot["break"])
    return [c for c in codes if c != "wrong_first_contact"]


def resolve(g, shot, settings):
    """Ask `identify` only when the called pocket holds several balls and the called ball is unknown."""
    if shot["safety"] or _fouls(shot) or _fate(shot) is not None:
        return []
    cb, cp = _called(shot)
    where = POCKETS[cp]
    en, ru = say("sp.identify_called", where, cb)
    return [{"cmd": "identify", "pocket": where, "text": {"en": en, "ru": ru}}]


def guess(g, shot):
    """Play went on without `identify`: the called ball is taken to be among the balls in its pocket."""
    fate = _fate(shot)
    filled = _balls(g, shot, "in" if fate is None else fate)
    i = 0
    for d in shot["pocketed"]:
        if d[0] != 0:
            if d[0] is None:
                d[0] = filled[i][0]
            i += 1


# ------------------------------------------------------------------- the shot, read once
ShotFacts = namedtuple("ShotFacts", ("p", "o", "brk", "cb", "cp", "fate", "balls", "jumped", "fouls", "cue_out",
                                     "cue_jumped", "interfered", "safety", "uncalled", "legal_break", "on_table", "score",
                                     "target", "fouls_before", "opponent_fouls_before", "spotted", "rack_facts",
                                     "start_us", "any_first", "wpa_break"))


def read_shot(g, shot, settings):
    """What the judge reads of a shot: the call and whether it came off, the balls (unknown ones
    numbered: `_balls`), the shooter's fouls (on the break without the referee's rulings on the
    break itself, which decide its legality) and the players' scores and foul runs."""
    p = shot["shooter"]
    cb, cp = _called(shot)
    fate = _fate(shot)
    fate = "in" if fate is None else fate
    fouls = _fouls(shot)
    brk = shot["break"]
    legal = brk and is_legal_break(fouls, cp, fate, shot, settings)
    return ShotFacts(
        p=p, o=common.other(p), brk=brk, cb=cb, cp=cp, fate=fate,
        balls=tuple(tuple(b) for b in _balls(g, shot, fate)),
        jumped=tuple((b, None, True) for b in shot["jumped"] if b != 0),
        fouls=tuple(c for c in fouls if not (brk and c in BREAK_RULINGS)),
        cue_out=shot["cue_pocketed"] or 0 in shot["jumped"], cue_jumped=0 in shot["jumped"], interfered="interference" in shot["fouls"],
        safety=shot["safety"], uncalled=is_uncalled(cp, shot, settings), legal_break=legal,
        on_table=tuple(g["on_table"]), score=g["players"][p]["score"], target=_target(g, settings),
        fouls_before=g["players"][p]["fouls"], opponent_fouls_before=g["players"][common.other(p)]["fouls"],
        spotted=tuple(shot["spotted"]), rack_facts=dict(shot.get("rack") or {}), start_us=shot["start_us"],
        any_first="wrong_first_contact" in shot["fouls"], wpa_break=settings.get("sp_illegal_break") == "wpa")


# ------------------------------------------------------------------- the seed's clauses, as predicates
def is_legal_break(fouls, cp, fate, shot, settings):
    """SP.BREAK: a called ball in its pocket, or a safe break (the cue ball and two object balls at a
    rail); «битком попасть в пирамиду»: a cue ball that touched no ball has neither. A referee's
    `no_rail` or `illegal_break` says it was not."""
    if [c for c in fouls if c in BREAK_RULINGS] or "no_contact" in fouls:
        return False
    called_in = cp is not None and not shot["safety"] and fate == "in"
    return called_in or _safe_break(shot, settings)


def is_uncalled(cp, shot, settings):
    """SP.CALL: a shot after the break with neither a call nor a safety, where calls are required."""
    return cp is None and not shot["safety"] and not shot["break"] and bool(settings.get("call_required", True))


def is_safety(f):
    """SP.SAFETY: a declared safety, an uncalled break (a safe break), or (SP.CALL, `call_required`)
    any shot without a call: «отыгрыш, то есть удар без заказа»."""
    return f.safety or f.cp is None and (f.brk or f.uncalled)


def is_third_foul(fouls_before):
    """SP.3-FOULS: a third foul in a row costs 15 points more (and gives the opponent a choice)."""
    return fouls_before + 1 >= 3


def credited_balls(f):
    """SP.POINT, SP.EXTRA: every ball of a made call scores, bar those rolled in on purpose."""
    return [b[0] for b in f.balls if b[0] not in f.spotted]


def table_after_point(f, credited):
    """The object balls left once the scored ones are down and the others spotted again."""
    left = [b for b in f.on_table if b not in credited]
    for b in [b[0] for b in f.balls if b[0] in f.spotted and b[2]] + [b[0] for b in f.jumped]:
        if b is not None and b != 0 and b not in left:
            left.append(b)
    left.sort()
    return left


def is_game_over(f, credited):
    """SP.WIN: the shooter reached the agreed score."""
    return f.score + len(credited) >= f.target


def needs_rerack(left):
    """SP.RERACK: fourteen balls are down (one or none left)."""
    return len(left) <= 1


def _target(g, settings):
    return g.get("target") or settings.get("target") or 150


def shot_outcome(f):
    """Which clause decides the shot, in the seed's order."""
    if f.brk and not f.legal_break:
        return "SP.BREAK"
    if f.fouls:
        return "SP.FOUL"
    if is_safety(f):
        return "SP.SAFETY"
    if f.fate == "in":
        credited = credited_balls(f)
        return "SP.WIN" if is_game_over(f, credited) else "SP.POINT"
    return "miss"


# ------------------------------------------------------------------- the verdict
def decide(f):
    """The shot's verdict, from its facts alone."""
    outcome = shot_outcome(f)
    clauses = ["GEN.OPPONENT"] if f.interfered else []
    if outcome == "SP.BREAK":
        codes, cl = _illegal_break_terms(f)
        return verdict(outcome, codes, common.add_new(clauses, cl), (), False)
    if outcome == "SP.FOUL":
        cl = _foul_clauses(f, f.fouls, ["SP.FOUL"])
        return verdict(outcome, f.fouls, common.add_new(clauses, cl + (["SP.3-FOULS"] if is_third_foul(
            f.fouls_before) else [])), (), f.legal_break)
    if outcome == "SP.SAFETY":
        return verdict(outcome, (), clauses + (["SP.CALL"] if f.uncalled else []) + [_safety_clause(f)], (),
                       f.legal_break)
    if outcome in ("SP.POINT", "SP.WIN"):
        credited = credited_balls(f)
        return verdict(outcome, (), clauses + _point_clauses(f, credited), credited, f.legal_break)
    return verdict(outcome, (), clauses + _miss_clauses(f), (), f.legal_break)


def _illegal_break_terms(f):
    """SP.BREAK: (foul codes, clauses) of an illegal opening break, a third foul of the run included."""
    codes = ["illegal_break"] + list(f.fouls)
    cl = _foul_clauses(f, f.fouls, ["SP.BREAK"])
    if f.fouls and is_third_foul(f.fouls_before):
        codes.append("three_fouls")
        cl.append("SP.3-FOULS")
    return codes, cl


def _safety_clause(f):
    return "SP.BREAK" if f.brk and not f.safety else "SP.SAFETY"


def _point_clauses(f, credited):
    cl = _scored_clauses(f, credited)
    if f.jumped:
        cl.append("SP.JUMP")
    cl.append("SP.CONTINUE")
    if is_game_over(f, credited):
        return cl + ["SP.WIN"]
    left = table_after_point(f, credited)
    if needs_rerack(left):
        common.add_new(cl, rerack_plan(left, f.rack_facts).clauses)
    return cl


def _scored_clauses(f, credited):
    """The clauses of the `pocketed` event of a scoring shot."""
    cl = ["SP.POINT"]
    if f.cp is None:
        cl.append("SP.CALL")
    if len(credited) > 1:
        cl.append("SP.EXTRA")
        if not [b for b in f.on_table if b not in credited]:
            cl.append("SP.14-15")
    return cl


def _miss_clauses(f):
    """A miss: SP.WRONG-POCKET (balls dropped, not as called), SP.JUMP, or simply the end of the
    inning («продолжает игру до тех пор, пока он промахнется»), unless the opponent fouled."""
    cl = (["SP.WRONG-POCKET"] if f.balls else []) + (["SP.JUMP"] if f.jumped else [])
    return cl or ([] if f.interfered else ["SP.CONTINUE"])


def _foul_clauses(f, codes, base):
    cl = list(base)
    for c in codes:
        if c == "cue_pocketed" or (c == "jumped_ball" and f.cue_jumped):
            cl.append("SP.BREAK-SCRATCH" if f.brk else "SP.CUE-OUT")
        elif c == "jumped_ball":
            cl.append("SP.STRICT-JUMP")
        elif c == "no_rail":
            cl.append("SP.SAFETY-LEGAL" if f.safety else "SP.LEGAL-SHOT")
    return common.add_new([], cl + common.foul_clauses(codes))


# ------------------------------------------------------------------- applied to the game
def judge(g, shot, settings, events):
    """Read the shot, decide its verdict, apply it to `g`; the verdict (verdict.py)."""
    f = read_shot(g, shot, settings)
    v = decide(f)
    apply(g, f, v, events)
    return v


def apply(g, f, v, events):
    """The opponent's foul first (GEN.OPPONENT: his point, the shooter plays on), the break's
    breaker noted, then the verdict's step; the two-foul warning stays shown (SP.3-FOULS)."""
    x = _x(g)
    x["rerack"] = None
    g["phase"] = "play"
    if f.any_first:
        common.tell(events, "warning", f.p, ["SP.CALL"], "sp.any_first")
    if f.interfered and _charge_foul(g, f.o, ["interference"], ["GEN.OPPONENT", "SP.FOUL"], events):
        _offender_choice(g, f.p, f.o, events)
    if f.brk:
        x["breaker"] = f.p
    if v.outcome not in ("SP.BREAK", "SP.FOUL"):
        g["players"][f.p]["fouls"] = 0       # a shot without a foul clears the run (SP.3-FOULS)
    _STEPS[v.outcome](g, f, v, events)
    if v.outcome != "SP.WIN":
        _remind(g)


def _illegal_break(g, f, v, events):
    """SP.BREAK: -2, the single penalty of the shot (GEN.MULTI-FOUL); the -2 alone is not a foul of
    the three-foul run, but a foul on the same break is: «Если при разбитии пирамиды в лузу падает
    биток, то объявляется фол ... начинает действовать правило о трех нарушениях» (SP.BREAK-SCRATCH).
    The opponent plays the table (seed); `sp_illegal_break: wpa` also lets him make the breaker
    break again."""
    third = _charge_foul(g, f.p, ["illegal_break"] + list(f.fouls), _foul_clauses(f, f.fouls, ["SP.BREAK"]),
                         events, BREAK_PENALTY, bool(f.fouls))
    _spot_back(g, f.balls + f.jumped, ["SP.BREAK"], events)
    if f.cue_out:
        common.give_ball_in_hand(g, f.o, "kitchen", ["SP.BREAK-SCRATCH"], events)
    else:
        common.pass_turn(g, events, ("SP.BREAK",))
    if third:
        # The third foul's choice (re-rack all 15, the offender breaks) covers the re-break.
        _offender_choice(g, f.o, f.p, events)
    elif f.wpa_break:
        common.offer(g, f.o, ["accept", "rebreak"], ["SP.BREAK"], events,
                     *say("sp.offer_rebreak", common.name(g, f.o), common.name(g, f.p)))


def _foul(g, f, v, events):
    """SP.FOUL: a point; balls of a foul shot are spotted (GEN.FOUL-BALLS); SP.CUE-OUT from the kitchen."""
    _spot_back(g, f.balls + f.jumped, ["GEN.FOUL-BALLS"], events)
    third = _charge_foul(g, f.p, f.fouls, _foul_clauses(f, f.fouls, ["SP.FOUL"]), events)
    if f.cue_out:
        common.give_ball_in_hand(g, f.o, "kitchen", ["SP.BREAK-SCRATCH" if f.brk else "SP.CUE-OUT"], events)
    else:
        common.pass_turn(g, events, ("SP.FOUL", "GEN.TURN"))
    if third:
        _offender_choice(g, f.o, f.p, events)


def _safety(g, f, v, events):
    """SP.SAFETY: no call, the inning ends, the pocketed balls are spotted; an uncalled break is a
    safe break (SP.BREAK); SP.CALL: «До удара игрок должен заказать прицельный шар и лузу»."""
    clause = _safety_clause(f)
    if f.uncalled and f.balls:
        common.tell(events, "warning", f.p, ["SP.CALL", "SP.SAFETY"], "sp.uncalled")
    _spot_back(g, f.balls + f.jumped, [clause], events)
    if not f.interfered:
        common.pass_turn(g, events, (clause, "GEN.TURN"))


def _point(g, f, v, events):
    """SP.POINT, SP.EXTRA, SP.14-15: every ball of a made call scores and the shooter goes on
    (SP.CONTINUE); SP.WIN at the target; SP.RERACK when fourteen are down."""
    common.take_down(g, v.credited)
    g["players"][f.p]["score"] += len(v.credited)
    common.announce_pocketed(g, f.p, v.credited, _scored_clauses(f, v.credited), events)
    events[-1]["points"] = len(v.credited)
    back = [b for b in f.balls if b[0] in f.spotted]
    if back:
        _spot_back(g, back, ["GEN.POCKETED"], events)
    if f.jumped:
        _spot_back(g, f.jumped, ["SP.JUMP"], events)
    if v.outcome == "SP.WIN":
        common.game_over(g, f.p, ["SP.WIN", "SP.TARGET"], events, *say("sp.win", f.target))
    elif needs_rerack(g["on_table"]):
        _rerack(g, f, rerack_plan(g["on_table"], f.rack_facts), events)


def _miss(g, f, v, events):
    """A miss. SP.WRONG-POCKET: the called ball elsewhere or another ball in the called pocket: no foul,
    every ball of the shot is spotted. SP.JUMP: jumped balls are spotted; a miss."""
    if f.balls:
        _spot_back(g, f.balls, ["SP.WRONG-POCKET"], events)
    if f.jumped:
        _spot_back(g, f.jumped, ["SP.JUMP"], events)
    if not f.interfered:
        common.pass_turn(g, events, v.clauses + ("GEN.TURN",))


_STEPS = {"SP.BREAK": _illegal_break, "SP.FOUL": _foul, "SP.SAFETY": _safety, "SP.POINT": _point,
          "SP.WIN": _point, "miss": _miss}


def _charge_foul(g, p, codes, clauses, events, points=1, counts=True):
    """SP.FOUL and SP.3-FOULS: one point (or the break's `points`); a second foul in a row warns;
    a third costs 15 more. `counts` is off for a penalty that is not a foul of the run (the -2
    of an illegal break alone)."""
    pl = g["players"][p]
    if counts:
        pl["fouls"] += 1
    codes = list(codes)
    third = counts and pl["fouls"] >= 3
    if third:
        points += THIRD_FOUL_EXTRA
        codes.append("three_fouls")
        clauses = list(clauses) + ["SP.3-FOULS"]
        pl["fouls"] = 0
    pl["score"] -= points
    common.record_foul(g, p, codes, clauses, events)
    events[-1]["points"] = -points
    if pl["fouls"] == 2:
        _warn_two(g, p, events)
    return third


def _warn_two(g, p, events):
    common.warn(g, p, ["SP.3-FOULS"], *say("sp.two_fouls", common.name(g, p)), events=events)


def _spot_back(g, balls, clauses, events):
    """Put back balls that dropped or jumped but do not count; unknown ones by their pocket."""
    known = [b[0] for b in balls if b[2]]
    unknown = [POCKETS[b[1]] for b in balls if not b[2]]
    common.take_down(g, known)
    common.spot(g, known, clauses, events)
    if unknown:
        cl = list(clauses)
        if "GEN.SPOT" not in cl:
            cl.append("GEN.SPOT")
        common.tell(events, "respot", g["shooter"], cl, "sp.respot_pockets", ", ".join(unknown),
                    extra={"balls": [], "pockets": unknown})


def _safe_break(shot, settings):
    """SP.BREAK safe break: the cue ball and two object balls reached a rail."""
    return common.break_rails_reached(shot, settings, SAFE_BREAK_BALLS, cue_ball=True, rack=15)


def _offender_choice(g, chooser, offender, events):
    _x(g)["offender"] = offender
    common.offer(g, chooser, ["accept", "rerack_offender_breaks"], ["SP.3-FOULS"], events,
                 *say("sp.offer_offender", common.name(g, chooser), common.name(g, offender)))


def _remind(g):
    """Keep the two-foul warning on the state while that player is at the table (SP.3-FOULS)."""
    p = g["shooter"]
    if g["players"][p]["fouls"] == 2 and not g.get("warning") and g["phase"] != "over":
        en, ru = say("sp.two_fouls", common.name(g, p))
        g["warning"] = {"player": p, "text": {"en": en, "ru": ru}}


# ------------------------------------------------------------------ re-racks
Rerack = namedtuple("Rerack", ("both", "full", "fifteenth", "cue", "clauses", "notes"))


def rerack_plan(left, facts):
    """SP.RERACK / SP.FULL-RERACK / SP.RACK-CONFLICT: how the balls go back with `left` the object
    balls still on the table and `facts` where the 15th and the cue ball stopped (the `rack`
    command; until it is entered neither is taken to be in the way)."""
    both = len(left) == 0
    fifteenth = None if both else left[0]
    f = facts.get("fifteenth", "clear")
    c = facts.get("cue", "clear")
    full = both or f == "apex" or (f == "rack" and c == "rack")
    cl = ["SP.RERACK"] + (["SP.FULL-RERACK"] if full else [])
    notes = []
    if not full and f == "rack":
        cl.append("SP.RACK-CONFLICT")
        notes.append(("sp.fifteenth_head_spot", fifteenth))
    cue = "stays"
    if c == "rack":
        common.add_new(cl, ["SP.RACK-CONFLICT"])
        if not full and f == "kitchen":
            cue = "head spot"
            notes.append(("sp.cue_head_spot",))
        else:
            cue = "kitchen"
    return Rerack(both, full, fifteenth, cue, tuple(cl), tuple(notes))


def _rerack(g, f, r, events):
    """The balls racked again as planned; the shooter goes on (from the kitchen when the cue ball
    was in the way)."""
    g["on_table"] = _full_rack()
    _x(g)["rerack"] = {"start_us": f.start_us, "both": r.both, "full": r.full,
                       "fifteenth": None if r.full else r.fifteenth, "cue": r.cue, "facts": dict(f.rack_facts)}
    en, ru = say("sp.rerack_full", common.name(g, f.p)) if r.full else say("sp.rerack_14", r.fifteenth,
                                                                            common.name(g, f.p))
    for note in r.notes:
        n_en, n_ru = say(*note)
        en += "; " + n_en
        ru += "; " + n_ru
    events.append(event("rerack", f.p, r.clauses, en, ru, {"balls": 15 if r.full else 14, "fifteenth": r.fifteenth,
                                                           "cue": r.cue}))
    if r.cue == "kitchen":
        common.give_ball_in_hand(g, f.p, "kitchen", ["SP.RACK-CONFLICT"], events)


def rack_facts(g, shot, body):
    """The `rack` command: where the 15th and the cue ball lie after a re-rack (no sensor sees it).

    Body: "fifteenth": clear | rack (inside the rack area) | apex (on the apex spot) | kitchen,
    "cue": clear | rack. Stored on the shot so a later re-judge keeps them; returns a refusal or None.
    """
    r = _x(g)["rerack"]
    if not r or r["start_us"] != shot["start_us"]:
        return ("sp.no_rerack",)
    if not body:
        return ("sp.rack_where",)
    for k in body:
        if k not in ("fifteenth", "cue"):
            return ("sp.rack_unknown_key", (k,))
    f = body.get("fifteenth", "clear")
    c = body.get("cue", "clear")
    if f not in FIFTEENTH_PLACES:
        return ("sp.bad_fifteenth", (", ".join(FIFTEENTH_PLACES),))
    if c not in CUE_PLACES:
        return ("sp.bad_cue_place", (", ".join(CUE_PLACES),))
    if r["both"] and f != "clear":
        return ("sp.both_racked",)
    shot["rack"] = {"fifteenth": f, "cue": c}
    return None


# ----------------------------------------------------------------- decisions
def _rack_all(g, breaker, clauses, events, key):
    g["on_table"] = _full_rack()
    g["shooter"] = breaker
    g["breaker"] = breaker
    g["phase"] = "break"
    g["ball_in_hand"] = "kitchen"
    _x(g)["rerack"] = None
    common.tell(events, "rerack", breaker, clauses, key, common.name(g, breaker), extra={"balls": 15})


def choose(g, option, settings, events):
    x = _x(g)
    d = g["decision"] or {}
    g["decision"] = None
    g["phase"] = "play"
    chooser = d.get("player", g["shooter"])
    if option == "rebreak":
        b = x["breaker"] if x["breaker"] is not None else common.other(chooser)
        _rack_all(g, b, ["SP.BREAK"], events, "sp.rebreak")
    elif option == "rerack_offender_breaks":
        b = x["offender"] if x["offender"] is not None else common.other(chooser)
        _rack_all(g, b, ["SP.3-FOULS"], events, "sp.offender_breaks")
    else:
        g["shooter"] = chooser
        common.tell(events, "turn", chooser, d.get("clauses", []), "sp.accept", common.name(g, chooser))
    x["offender"] = None
    _remind(g)
