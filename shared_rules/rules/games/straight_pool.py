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
from shared_rules.rules.games.base import check_push_out  # noqa: F401  (no push-out in 14.1)

SETUP_CLAUSE = "SP.SETUP"
SAFETY_CLAUSE = "SP.SAFETY"

BREAK_PENALTY = 2        # SP.BREAK: "штраф в размере двух очков"
THIRD_FOUL_EXTRA = 15    # SP.3-FOULS: "ещё одно штрафное очко и пятнадцать очков дополнительно"
SAFE_BREAK_BALLS = 2     # SP.BREAK: the cue ball and at least two object balls reach a rail

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
    return [{"cmd": "identify", "pocket": where,
             "text": {"en": "Several balls dropped in {}: was ball {} one of them? Identify them".format(where, cb),
                      "ru": "В лузу {} упало несколько шаров: был ли среди них шар {}? Опознайте их".format(
                          where, cb)}}]


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
    common.warn(g, p, ["SP.3-FOULS"],
                "{} has two fouls in a row: a third costs 1 + 15 points".format(common.name(g, p)),
                "У игрока {} два фола подряд: третий стоит 1 + 15 очков".format(common.name(g, p)), events)


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
        where = ", ".join(unknown)
        events.append(event("respot", g["shooter"], cl,
                            "Spot the ball(s) that dropped in {} on the foot spot".format(where),
                            "Выставить шар(ы) из лузы {} на заднюю отметку".format(where),
                            {"balls": [], "pockets": unknown}))


def _safe_break(shot, settings):
    """SP.BREAK safe break: the cue ball and two object balls reached a rail."""
    return common.break_rails_reached(shot, settings, SAFE_BREAK_BALLS, cue_ball=True, rack=15)


def _offender_choice(g, chooser, offender, events):
    _x(g)["offender"] = offender
    common.offer(g, chooser, ["accept", "rerack_offender_breaks"], ["SP.3-FOULS"], events,
                 "{}: play the table as it lies, or re-rack all 15 and make {} break".format(
                     common.name(g, chooser), common.name(g, offender)),
                 "{}: играть позицию как есть или поставить пирамиду и заставить {} разбивать".format(
                     common.name(g, chooser), common.name(g, offender)))


def judge(g, shot, settings, events):
    p = shot["shooter"]
    o = common.other(p)
    x = _x(g)
    x["rerack"] = None
    g["phase"] = "play"
    brk = shot["break"]
    cb, cp = _called(shot)
    fate = _fate(shot)
    if fate is None:
        fate = "in"
    balls = _balls(g, shot, fate)
    jumped = [[b, None, True] for b in shot["jumped"] if b != 0]
    fouls = _fouls(shot)
    cue_out = shot["cue_pocketed"] or 0 in shot["jumped"]
    if "wrong_first_contact" in shot["fouls"]:
        events.append(event("warning", p, ["SP.CALL"],
                            "No foul: in straight pool any ball may be hit first",
                            "Не фол: в 14.1 первым можно задеть любой шар"))
    clauses = []
    verdict = {"fouls": [], "clauses": clauses, "credited": []}

    # GEN.OPPONENT: the opponent's touch is the opponent's foul; the shooter plays on.
    interfered = "interference" in shot["fouls"]
    if interfered:
        if _charge_foul(g, o, ["interference"], ["GEN.OPPONENT", "SP.FOUL"], events):
            _offender_choice(g, p, o, events)
        clauses.append("GEN.OPPONENT")

    if brk:
        x["breaker"] = p
        manual = [c for c in fouls if c in ("no_rail", "illegal_break")]
        fouls = [c for c in fouls if c not in ("no_rail", "illegal_break")]
        called_in = cp is not None and not shot["safety"] and fate == "in"
        # "битком попасть в пирамиду": a cue ball that touched no ball has neither call nor safe break.
        legal = not manual and "no_contact" not in fouls and (called_in or _safe_break(shot, settings))
        verdict["legal_break"] = legal
        if not legal:
            # SP.BREAK: -2 (the single penalty of the shot, GEN.MULTI-FOUL); the -2 alone is not a foul of
            # the three-foul run, but a foul on the same break is: "Если при разбитии пирамиды в лузу падает
            # биток, то объявляется фол ... начинает действовать правило о трех нарушениях" (SP.BREAK-SCRATCH).
            codes = ["illegal_break"] + fouls
            cl = _foul_clauses(shot, fouls, ["SP.BREAK"])
            third = _charge_foul(g, p, codes, cl, events, BREAK_PENALTY, bool(fouls))
            if third:
                codes.append("three_fouls")
                cl.append("SP.3-FOULS")
            _spot_back(g, balls + jumped, ["SP.BREAK"], events)
            if cue_out:
                common.give_ball_in_hand(g, o, "kitchen", ["SP.BREAK-SCRATCH"], events)
            else:
                common.pass_turn(g, events, ("SP.BREAK",))
            if third:
                # The third foul's choice (re-rack all 15, the offender breaks) covers the re-break.
                _offender_choice(g, o, p, events)
            elif settings.get("sp_illegal_break") == "wpa":
                # House rule `sp_illegal_break: wpa`: the opponent may also make the breaker break again.
                common.offer(g, o, ["accept", "rebreak"], ["SP.BREAK"], events,
                             "{}: play the table as it lies, or make {} break again".format(
                                 common.name(g, o), common.name(g, p)),
                             "{}: играть позицию как есть или заставить {} разбить снова".format(
                                 common.name(g, o), common.name(g, p)))
            for c in cl:
                if c not in clauses:
                    clauses.append(c)
            verdict["fouls"] = codes
            _remind(g)
            return verdict

    if fouls:
        # SP.FOUL: a point; balls of a foul shot are spotted (GEN.FOUL-BALLS); SP.CUE-OUT from the kitchen.
        cl = _foul_clauses(shot, fouls, ["SP.FOUL"])
        _spot_back(g, balls + jumped, ["GEN.FOUL-BALLS"], events)
        third = _charge_foul(g, p, fouls, cl, events)
        if cue_out:
            common.give_ball_in_hand(g, o, "kitchen", ["SP.BREAK-SCRATCH" if brk else "SP.CUE-OUT"], events)
        else:
            common.pass_turn(g, events, ("SP.FOUL", "GEN.TURN"))
        if third:
            _offender_choice(g, o, p, events)
        for c in cl + (["SP.3-FOULS"] if third else []):
            if c not in clauses:
                clauses.append(c)
        verdict["fouls"] = fouls
        _remind(g)
        return verdict

    # A shot without a foul clears the shooter's foul run (SP.3-FOULS).
    g["players"][p]["fouls"] = 0
    keep_turn = interfered
    uncalled = cp is None and not shot["safety"] and not brk and settings.get("call_required", True)
    if shot["safety"] or (brk and cp is None) or uncalled:
        # SP.SAFETY: no call, the inning ends, pocketed balls are spotted. An uncalled break is a safe break.
        # SP.CALL: "До удара игрок должен заказать прицельный шар и лузу": a shot without a call is a
        # safety ("отыгрыш, то есть удар без заказа") unless the house allows obvious shots (call_required).
        clause = "SP.BREAK" if brk and not shot["safety"] else "SP.SAFETY"
        if uncalled:
            clauses.append("SP.CALL")
            if balls:
                events.append(event("warning", p, ["SP.CALL", "SP.SAFETY"],
                                    "No ball and pocket called: a safety; the balls are spotted",
                                    "Шар и луза не заказаны: отыгрыш; шары выставляются"))
        _spot_back(g, balls + jumped, [clause], events)
        clauses.append(clause)
        if not keep_turn:
            common.pass_turn(g, events, (clause, "GEN.TURN"))
    elif fate == "in":
        credit = [b for b in balls if b[0] not in shot["spotted"]]
        back = [b for b in balls if b[0] in shot["spotted"]]
        credited = [b[0] for b in credit]
        common.take_down(g, credited)
        emptied = len(g["on_table"]) == 0
        cl = ["SP.POINT"]
        if cp is None:
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
        if jumped:
            _spot_back(g, jumped, ["SP.JUMP"], events)
            cl.append("SP.JUMP")
        cl.append("SP.CONTINUE")
        for c in cl:
            clauses.append(c)
        verdict["credited"] = credited
        target = g.get("target") or settings.get("target") or 150
        if g["players"][p]["score"] >= target:
            clauses.append("SP.WIN")
            common.game_over(g, p, ["SP.WIN", "SP.TARGET"], events,
                             "reached {} points".format(target), "набрал {} очков".format(target))
            return verdict
        if len(g["on_table"]) <= 1:
            _rerack(g, shot, p, events, clauses)
    else:
        # A miss. SP.WRONG-POCKET: the called ball elsewhere or another ball in the called pocket:
        # no foul, every ball of the shot is spotted. SP.JUMP: jumped balls are spotted; a miss.
        if balls:
            _spot_back(g, balls, ["SP.WRONG-POCKET"], events)
            clauses.append("SP.WRONG-POCKET")
        if jumped:
            _spot_back(g, jumped, ["SP.JUMP"], events)
            clauses.append("SP.JUMP")
        if not clauses:
            clauses.append("SP.CONTINUE")     # "продолжает игру до тех пор, пока он промахнется"
        if not keep_turn:
            common.pass_turn(g, events, tuple(clauses) + ("GEN.TURN",))
    _remind(g)
    return verdict


def _remind(g):
    """Keep the two-foul warning on the state while that player is at the table (SP.3-FOULS)."""
    p = g["shooter"]
    if g["players"][p]["fouls"] == 2 and not g.get("warning") and g["phase"] != "over":
        g["warning"] = {"player": p, "text": {
            "en": "{} has two fouls in a row: a third costs 1 + 15 points".format(common.name(g, p)),
            "ru": "У игрока {} два фола подряд: третий стоит 1 + 15 очков".format(common.name(g, p))}}


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
        notes_en.append("ball {} goes on the head spot".format(fifteenth))
        notes_ru.append("шар {} ставится на переднюю отметку".format(fifteenth))
    if c == "rack":
        if "SP.RACK-CONFLICT" not in cl:
            cl.append("SP.RACK-CONFLICT")
        if not full and f == "kitchen":
            cue = "head spot"
            notes_en.append("the cue ball goes on the head spot (the centre spot if taken)")
            notes_ru.append("биток ставится на переднюю отметку (на центральную, если занята)")
        else:
            cue = "kitchen"
    g["on_table"] = _full_rack()
    x["rerack"] = {"start_us": shot["start_us"], "both": both, "full": full,
                   "fifteenth": None if full else fifteenth, "cue": cue, "facts": dict(facts)}
    if full:
        en = "All 15 balls re-racked; {} goes on".format(common.name(g, p))
        ru = "Все 15 шаров ставятся в пирамиду; продолжает {}".format(common.name(g, p))
    else:
        en = "14 balls re-racked, apex spot empty; ball {} and the cue ball stay; {} goes on".format(
            fifteenth, common.name(g, p))
        ru = "14 шаров в пирамиду без шара на вершине; шар {} и биток остаются; продолжает {}".format(
            fifteenth, common.name(g, p))
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
def _rack_all(g, breaker, clauses, events, en, ru):
    g["on_table"] = _full_rack()
    g["shooter"] = breaker
    g["breaker"] = breaker
    g["phase"] = "break"
    g["ball_in_hand"] = "kitchen"
    _x(g)["rerack"] = None
    events.append(event("rerack", breaker, clauses, en, ru, {"balls": 15}))


def choose(g, option, settings, events):
    x = _x(g)
    d = g["decision"] or {}
    g["decision"] = None
    g["phase"] = "play"
    chooser = d.get("player", g["shooter"])
    if option == "rebreak":
        b = x["breaker"] if x["breaker"] is not None else common.other(chooser)
        _rack_all(g, b, ["SP.BREAK"], events,
                  "Balls re-racked: {} breaks again".format(common.name(g, b)),
                  "Пирамида установлена заново: {} разбивает снова".format(common.name(g, b)))
    elif option == "rerack_offender_breaks":
        b = x["offender"] if x["offender"] is not None else common.other(chooser)
        _rack_all(g, b, ["SP.3-FOULS"], events,
                  "All 15 balls re-racked: {} must break".format(common.name(g, b)),
                  "Все 15 шаров в пирамиду: разбивает {}".format(common.name(g, b)))
    else:
        g["shooter"] = chooser
        events.append(event("turn", chooser, d.get("clauses", []),
                            "{} plays the table as it lies".format(common.name(g, chooser)),
                            "{} играет позицию как есть".format(common.name(g, chooser))))
    x["offender"] = None
    _remind(g)
