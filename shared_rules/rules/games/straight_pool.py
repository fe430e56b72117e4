"""14.1 continuous (straight pool), seed 000: every called ball legally pocketed scores a point,
every foul costs one, the third foul in a row costs sixteen, and the balls are re-racked every
fourteen until a player reaches the agreed score.

Ball numbers only help calling (SP.SETUP), so identities are inferred wherever the verdict does
not depend on them; `identify` is asked for only when it decides whether the called ball went
into the called pocket (SP.WRONG-POCKET).
"""
from shared_rules.link.names import POCKETS
from shared_rules.rules import common
from shared_rules.rules.events import event
from shared_rules.rules.messages import say
from shared_rules.rules.games.base import check_push_out  # noqa: F401  (no push-out in 14.1)

SETUP_CLAUSE = "SP.SETUP"
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
        return "straight pool calls the pocket too (SP.CALL): name the ball and the pocket"
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


# ------------------------------------------------------------------- judging
def _foul_clauses(shot, codes, base):
    cl = list(base)
    for c in codes:
        if c == "cue_pocketed" or (c == "jumped_ball" and 0 in shot["jumped"]):
            cl.append("SP.BREAK-SCRATCH" if shot["break"] else "SP.CUE-OUT")
        elif c == "jumped_ball":
            cl.append("SP.STRICT-JUMP")
        elif c == "no_rail":
            cl.append("SP.SAFETY-LEGAL" if shot["safety"] else "SP.LEGAL-SHOT")
    for c in common.foul_clauses(codes):
        cl.append(c)
    out = []
    for c in cl:
        if c not in out:
            out.append(c)
    return out


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


class ShotFacts:
    """What the judge reads of a shot, taken once before the table changes."""
    __slots__ = ("p", "o", "brk", "cb", "cp", "fate", "balls", "jumped", "fouls", "cue_out", "interfered")

    def __init__(self, g, shot):
        self.p = shot["shooter"]
        self.o = common.other(self.p)
        self.brk = shot["break"]
        self.cb, self.cp = _called(shot)
        fate = _fate(shot)
        self.fate = "in" if fate is None else fate
        self.balls = _balls(g, shot, self.fate)
        self.jumped = [[b, None, True] for b in shot["jumped"] if b != 0]
        self.fouls = _fouls(shot)
        self.cue_out = shot["cue_pocketed"] or 0 in shot["jumped"]
        self.interfered = "interference" in shot["fouls"]


def is_legal_break(f, shot, settings):
    """SP.BREAK: a called ball in its pocket, or a safe break (the cue ball and two object balls at a
    rail); «битком попасть в пирамиду»: a cue ball that touched no ball has neither. A referee's
    `no_rail` or `illegal_break` says it was not."""
    if [c for c in f.fouls if c in BREAK_RULINGS] or "no_contact" in f.fouls:
        return False
    called_in = f.cp is not None and not shot["safety"] and f.fate == "in"
    return called_in or _safe_break(shot, settings)


def is_safety(f, shot, settings):
    """SP.SAFETY: a declared safety, an uncalled break (a safe break), or (SP.CALL, `call_required`)
    any shot without a call: «отыгрыш, то есть удар без заказа»."""
    return shot["safety"] or f.cp is None and (f.brk or is_uncalled(f, shot, settings))


def is_uncalled(f, shot, settings):
    """SP.CALL: a shot after the break with neither a call nor a safety, where calls are required."""
    return f.cp is None and not shot["safety"] and not f.brk and bool(settings.get("call_required", True))


def is_game_over(g, p, settings):
    """SP.WIN: the shooter reached the agreed score."""
    return g["players"][p]["score"] >= _target(g, settings)


def _target(g, settings):
    return g.get("target") or settings.get("target") or 150


def needs_rerack(g):
    """SP.RERACK: fourteen balls are down (one or none left)."""
    return len(g["on_table"]) <= 1


def judge(g, shot, settings, events):
    f = ShotFacts(g, shot)
    x = _x(g)
    x["rerack"] = None
    g["phase"] = "play"
    if "wrong_first_contact" in shot["fouls"]:
        common.tell(events, "warning", f.p, ["SP.CALL"], "sp.any_first")
    verdict = {"fouls": [], "clauses": [], "credited": []}
    if f.interfered:
        # GEN.OPPONENT: the opponent's touch is the opponent's foul; the shooter plays on.
        if _charge_foul(g, f.o, ["interference"], ["GEN.OPPONENT", "SP.FOUL"], events):
            _offender_choice(g, f.p, f.o, events)
        verdict["clauses"].append("GEN.OPPONENT")
    if f.brk:
        x["breaker"] = f.p
        verdict["legal_break"] = is_legal_break(f, shot, settings)
        f.fouls = [c for c in f.fouls if c not in BREAK_RULINGS]
        if not verdict["legal_break"]:
            _illegal_break(g, f, shot, settings, events, verdict)
            _remind(g)
            return verdict
    if f.fouls:
        _foul(g, f, shot, events, verdict)
    else:
        # A shot without a foul clears the shooter's foul run (SP.3-FOULS).
        g["players"][f.p]["fouls"] = 0
        if is_safety(f, shot, settings):
            _safety(g, f, shot, settings, events, verdict)
        elif f.fate == "in":
            if _point(g, f, shot, settings, events, verdict):
                return verdict
        else:
            _miss(g, f, events, verdict)
    _remind(g)
    return verdict


def _illegal_break(g, f, shot, settings, events, verdict):
    """SP.BREAK: -2, the single penalty of the shot (GEN.MULTI-FOUL); the -2 alone is not a foul of
    the three-foul run, but a foul on the same break is: «Если при разбитии пирамиды в лузу падает
    биток, то объявляется фол ... начинает действовать правило о трех нарушениях» (SP.BREAK-SCRATCH).
    The opponent plays the table (seed); `sp_illegal_break: wpa` also lets him make the breaker
    break again."""
    codes = ["illegal_break"] + f.fouls
    cl = _foul_clauses(shot, f.fouls, ["SP.BREAK"])
    third = _charge_foul(g, f.p, codes, cl, events, BREAK_PENALTY, bool(f.fouls))
    if third:
        codes.append("three_fouls")
        cl.append("SP.3-FOULS")
    _spot_back(g, f.balls + f.jumped, ["SP.BREAK"], events)
    if f.cue_out:
        common.give_ball_in_hand(g, f.o, "kitchen", ["SP.BREAK-SCRATCH"], events)
    else:
        common.pass_turn(g, events, ("SP.BREAK",))
    if third:
        # The third foul's choice (re-rack all 15, the offender breaks) covers the re-break.
        _offender_choice(g, f.o, f.p, events)
    elif settings.get("sp_illegal_break") == "wpa":
        common.offer(g, f.o, ["accept", "rebreak"], ["SP.BREAK"], events,
                     *say("sp.offer_rebreak", common.name(g, f.o), common.name(g, f.p)))
    common.add_new(verdict["clauses"], cl)
    verdict["fouls"] = codes


def _foul(g, f, shot, events, verdict):
    """SP.FOUL: a point; balls of a foul shot are spotted (GEN.FOUL-BALLS); SP.CUE-OUT from the kitchen."""
    cl = _foul_clauses(shot, f.fouls, ["SP.FOUL"])
    _spot_back(g, f.balls + f.jumped, ["GEN.FOUL-BALLS"], events)
    third = _charge_foul(g, f.p, f.fouls, cl, events)
    if f.cue_out:
        common.give_ball_in_hand(g, f.o, "kitchen", ["SP.BREAK-SCRATCH" if f.brk else "SP.CUE-OUT"], events)
    else:
        common.pass_turn(g, events, ("SP.FOUL", "GEN.TURN"))
    if third:
        _offender_choice(g, f.o, f.p, events)
    common.add_new(verdict["clauses"], cl + (["SP.3-FOULS"] if third else []))
    verdict["fouls"] = f.fouls


def _safety(g, f, shot, settings, events, verdict):
    """SP.SAFETY: no call, the inning ends, the pocketed balls are spotted; an uncalled break is a
    safe break (SP.BREAK); SP.CALL: «До удара игрок должен заказать прицельный шар и лузу»."""
    clause = "SP.BREAK" if f.brk and not shot["safety"] else "SP.SAFETY"
    if is_uncalled(f, shot, settings):
        verdict["clauses"].append("SP.CALL")
        if f.balls:
            common.tell(events, "warning", f.p, ["SP.CALL", "SP.SAFETY"], "sp.uncalled")
    _spot_back(g, f.balls + f.jumped, [clause], events)
    verdict["clauses"].append(clause)
    if not f.interfered:
        common.pass_turn(g, events, (clause, "GEN.TURN"))


def _point(g, f, shot, settings, events, verdict):
    """SP.POINT, SP.EXTRA, SP.14-15: every ball of a made call scores and the shooter goes on
    (SP.CONTINUE); SP.WIN at the target; SP.RERACK when fourteen are down. True when the game is over."""
    p = f.p
    clauses = verdict["clauses"]
    credit = [b for b in f.balls if b[0] not in shot["spotted"]]
    back = [b for b in f.balls if b[0] in shot["spotted"]]
    credited = [b[0] for b in credit]
    common.take_down(g, credited)
    emptied = len(g["on_table"]) == 0
    cl = ["SP.POINT"]
    if f.cp is None:
        cl.append("SP.CALL")
    if len(credited) > 1:
        cl.append("SP.EXTRA")
    if emptied and len(credited) > 1:
        cl.append("SP.14-15")
    g["players"][p]["score"] += len(credited)
    common.announce_pocketed(g, p, credited, cl, events)
    events[-1]["points"] = len(credited)
    if back:
        _spot_back(g, back, ["GEN.POCKETED"], events)
    if f.jumped:
        _spot_back(g, f.jumped, ["SP.JUMP"], events)
        cl.append("SP.JUMP")
    cl.append("SP.CONTINUE")
    for c in cl:
        clauses.append(c)
    verdict["credited"] = credited
    if is_game_over(g, p, settings):
        target = _target(g, settings)
        clauses.append("SP.WIN")
        common.game_over(g, p, ["SP.WIN", "SP.TARGET"], events, *say("sp.win", target))
        return True
    if needs_rerack(g):
        _rerack(g, shot, p, events, clauses)
    return False


def _miss(g, f, events, verdict):
    """A miss. SP.WRONG-POCKET: the called ball elsewhere or another ball in the called pocket: no foul,
    every ball of the shot is spotted. SP.JUMP: jumped balls are spotted; a miss."""
    clauses = verdict["clauses"]
    if f.balls:
        _spot_back(g, f.balls, ["SP.WRONG-POCKET"], events)
        clauses.append("SP.WRONG-POCKET")
    if f.jumped:
        _spot_back(g, f.jumped, ["SP.JUMP"], events)
        clauses.append("SP.JUMP")
    if not clauses:
        clauses.append("SP.CONTINUE")     # "продолжает игру до тех пор, пока он промахнется"
    if not f.interfered:
        common.pass_turn(g, events, tuple(clauses) + ("GEN.TURN",))


def _remind(g):
    """Keep the two-foul warning on the state while that player is at the table (SP.3-FOULS)."""
    p = g["shooter"]
    if g["players"][p]["fouls"] == 2 and not g.get("warning") and g["phase"] != "over":
        en, ru = say("sp.two_fouls", common.name(g, p))
        g["warning"] = {"player": p, "text": {"en": en, "ru": ru}}


# ------------------------------------------------------------------ re-racks
def _rerack(g, shot, p, events, clauses):
    """SP.RERACK / SP.FULL-RERACK / SP.RACK-CONFLICT: fourteen (or fifteen) balls go back in the rack.

    Where the 15th and the cue ball stopped is entered with the `rack` command; until then
    neither is taken to be in the way.
    """
    x = _x(g)
    both = len(g["on_table"]) == 0
    fifteenth = None if both else g["on_table"][0]
    facts = shot.get("rack") or {}
    f = facts.get("fifteenth", "clear")
    c = facts.get("cue", "clear")
    full = both
    cl = ["SP.RERACK"]
    if both:
        cl.append("SP.FULL-RERACK")
    cue = "stays"
    notes_en = []
    notes_ru = []
    if not both and f in ("rack", "apex") and c == "rack":
        full = True
        cl.append("SP.FULL-RERACK")
    elif not both and f == "apex":
        full = True
        cl.append("SP.FULL-RERACK")
    elif not both and f == "rack":
        cl.append("SP.RACK-CONFLICT")
        _note(notes_en, notes_ru, "sp.fifteenth_head_spot", fifteenth)
    if c == "rack":
        if "SP.RACK-CONFLICT" not in cl:
            cl.append("SP.RACK-CONFLICT")
        if not full and f == "kitchen":
            cue = "head spot"
            _note(notes_en, notes_ru, "sp.cue_head_spot")
        else:
            cue = "kitchen"
    g["on_table"] = _full_rack()
    x["rerack"] = {"start_us": shot["start_us"], "both": both, "full": full,
                   "fifteenth": None if full else fifteenth, "cue": cue, "facts": dict(facts)}
    if full:
        en, ru = say("sp.rerack_full", common.name(g, p))
    else:
        en, ru = say("sp.rerack_14", fifteenth, common.name(g, p))
    if notes_en:
        en += "; " + "; ".join(notes_en)
        ru += "; " + "; ".join(notes_ru)
    events.append(event("rerack", p, cl, en, ru, {"balls": 15 if full else 14, "fifteenth": fifteenth,
                                                  "cue": cue}))
    if cue == "kitchen":
        common.give_ball_in_hand(g, p, "kitchen", ["SP.RACK-CONFLICT"], events)
    for k in cl:
        if k not in clauses:
            clauses.append(k)


def _note(notes_en, notes_ru, key, *args):
    en, ru = say(key, *args)
    notes_en.append(en)
    notes_ru.append(ru)


def rack_facts(g, shot, body):
    """The `rack` command: where the 15th and the cue ball lie after a re-rack (no sensor sees it).

    Body: "fifteenth": clear | rack (inside the rack area) | apex (on the apex spot) | kitchen,
    "cue": clear | rack. Stored on the shot so a later re-judge keeps them; returns an error or None.
    """
    r = _x(g)["rerack"]
    if not r or r["start_us"] != shot["start_us"]:
        return "the last shot did not end the rack: there is nothing to re-rack"
    if not body:
        return "say where the 15th ball ('fifteenth') and/or the cue ball ('cue') stopped"
    for k in body:
        if k not in ("fifteenth", "cue"):
            return "unknown key '{}': use 'fifteenth' and 'cue'".format(k)
    f = body.get("fifteenth", "clear")
    c = body.get("cue", "clear")
    if f not in FIFTEENTH_PLACES:
        return "fifteenth must be one of {}".format(", ".join(FIFTEENTH_PLACES))
    if c not in CUE_PLACES:
        return "cue must be one of {}".format(", ".join(CUE_PLACES))
    if r["both"] and f != "clear":
        return "the 14th and 15th balls both dropped: all 15 are racked, only the cue ball's place matters"
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
