"""Eight-ball (seed 000): solids 1-7 against stripes 9-15, called shots, then the called 8 wins.

The break is not called and never chooses a group; the first called ball
legally pocketed after it closes the table. Every pocketed object ball stays
down; the 8 only ever drops to win or to lose, except on the break. There is
no three-foul rule in this game, so players' `fouls` stays 0.
Game-specific state in g["x"]: `dk`, the kind of pending decision
(`illegal_break`, `break_8`, `break_8_scratch`), and `accept_bih`, where the
cue ball goes if an illegal break is accepted.
"""
from shared_rules.link.names import POCKETS
from shared_rules.rules import common
from shared_rules.rules.events import event
from shared_rules.rules.games.base import (check_push_out, unknown_drops, resolve_called, needs_for,
                                           extra_state)
from shared_rules.rules.shot import known_pocketed, pocket_of

SETUP_CLAUSE = "EB.SETUP"
SAFETY_CLAUSE = "EB.SAFETY"
BREAK_RAILS = 4          # EB.BREAK-LEGAL: object balls that must reach a rail


def break_reached_rails(shot, settings):
    """EB.BREAK-LEGAL by rail impacts: at least four object balls reached a rail."""
    return common.break_rails_reached(shot, settings, BREAK_RAILS, rack=15)


# ------------------------------------------------------------------ groups
def group_of(b):
    if 1 <= b <= 7:
        return "solids"
    if 9 <= b <= 15:
        return "stripes"
    return None


def other_group(grp):
    return "stripes" if grp == "solids" else "solids"


def group_left(g, grp):
    return [b for b in g["on_table"] if group_of(b) == grp]


def cleared(g, p):
    """EB.CONTINUE: the shooter's group is all down, so the 8 is the legal ball."""
    grp = g["players"][p]["group"]
    return grp is not None and not group_left(g, grp)


def legal_balls(g, p):
    """Balls the shooter may pocket for a continuation: any but the 8 on an open table (EB.OPEN)."""
    grp = g["players"][p]["group"]
    if grp is None:
        return [b for b in g["on_table"] if b != 8]
    if cleared(g, p):
        return [8]
    return group_left(g, grp)


def _grp_words(grp):
    if grp == "solids":
        return "solids (1-7)", "цветные (1-7)"
    return "stripes (9-15)", "полосатые (9-15)"


# ------------------------------------------------------------------ setup and declarations
def setup(g, settings):
    """EB.SETUP: fifteen balls, the 8 in the middle; the table is open until a group is taken."""
    g["on_table"] = list(range(1, 16))
    g["table_open"] = True
    g["x"] = {"dk": None, "accept_bih": None}


def check_call(g, ball, pocket):
    """EB.CALL: a ball and a pocket for the next shot; the 8 only once the group is down."""
    if g["phase"] == "break":
        return "the break is not a called shot (EB.BREAK-CONTINUE)"
    p = g["shooter"]
    if ball is None:
        return None
    if ball == 8:
        if not cleared(g, p):
            return "the 8 may be called only when your group is cleared"
        return None
    grp = g["players"][p]["group"]
    if grp is not None and group_of(ball) != grp:
        if cleared(g, p):
            return "your group is cleared: call the 8"
        return "ball {} is not in your group ({})".format(ball, _grp_words(grp)[0])
    return None


def check_safety(g):
    if g["phase"] == "break":
        return "the break is not a called shot; there is no safety on the break"
    return None


def jump_is_foul(g, shot, ball):
    """EB.FOULS (7) and EB.BREAK-JUMP: any ball leaving the table is a violation."""
    return True


# ------------------------------------------------------------------ identities
def _cue_unseen(shot):
    """The cue ball dropped but no pocket named it: its own beam drop may be one of the unknown ones."""
    return shot["cue_pocketed"] and 0 not in [d[0] for d in shot["pocketed"]] and bool(unknown_drops(shot))


def resolve(g, shot, settings):
    """The called ball in the called pocket, or the one ball that can still be missing; ask for the rest.

    After a scratch an unknown drop may be the cue ball, so nothing is inferred then (EB.8-MISS
    against EB.LOSS hangs on it): the players identify it.
    """
    if _cue_unseen(shot):
        return needs_for(shot)
    resolve_called(shot)
    unknown = unknown_drops(shot)
    if len(unknown) == 1:
        taken = [d[0] for d in shot["pocketed"] if d[0] is not None]
        cands = [b for b in g["on_table"] if b not in taken]
        if len(cands) == 1:
            unknown[0][0] = cands[0]
    return needs_for(shot)


def guess(g, shot):
    """Play went on without `identify`: the called ball, else the shooter's own balls, the 8 last."""
    taken = [d[0] for d in shot["pocketed"] if d[0] is not None]
    c = shot["called"] or {}
    p = shot["shooter"]
    grp = g["players"][p]["group"]
    order = []
    if c.get("ball") is not None:
        order.append(c["ball"])
    order.extend([b for b in g["on_table"] if grp is not None and group_of(b) == grp])
    order.extend([b for b in g["on_table"] if b != 8])
    order.append(8)
    if _cue_unseen(shot):
        # A scratch is certain and its beam drop is among the unknowns: take the last one outside
        # the called pocket (else the last one) as the cue ball.
        unknown = unknown_drops(shot)
        away = [d for d in unknown if c.get("pocket") is None or d[1] is None or POCKETS[d[1]] != c["pocket"]]
        (away or unknown)[-1][0] = 0
    for d in shot["pocketed"]:
        if d[0] is None:
            d[0] = 0
            for b in order:
                if b not in taken and b in g["on_table"]:
                    d[0] = b
                    taken.append(b)
                    break


# ------------------------------------------------------------------ helpers
def _respot(g, balls, clauses, events, where="foot spot"):
    """Put balls back (they may still be listed on the table when they jumped)."""
    common.take_down(g, balls)
    return common.spot(g, balls, clauses, events, where)


def _add(lst, items):
    for i in items:
        if i not in lst:
            lst.append(i)
    return lst


def _rerack(g, breaker, clauses, events):
    """A fresh rack in the same game (EB.BREAK-ILLEGAL, EB.BREAK-8, EB.BREAK-8-SCRATCH)."""
    g["on_table"] = list(range(1, 16))
    g["phase"] = "break"
    g["shooter"] = breaker
    g["breaker"] = breaker
    g["ball_in_hand"] = "kitchen"
    g["table_open"] = True
    g["decision"] = None
    for pl in g["players"]:
        pl["group"] = None
    nm = common.name(g, breaker)
    events.append(event("rerack", breaker, _add(list(clauses), ["GEN.RACK"]),
                        "Re-rack: {} breaks".format(nm), "Новая пирамида: разбивает {}".format(nm)))


def _lose(g, p, why, clauses, events, en, ru):
    o = common.other(p)
    cl = _add(["EB.LOSS"], clauses)
    common.game_over(g, o, cl, events, "{} {}".format(common.name(g, p), en),
                     "{} {}".format(common.name(g, p), ru))
    events[-1]["loss"] = why      # which of the seed's five losing errors (1-5)
    return cl


# ------------------------------------------------------------------ judging
def judge(g, shot, settings, events):
    g["x"]["dk"] = None
    if shot["break"]:
        return _judge_break(g, shot, settings, events)
    return _judge_play(g, shot, settings, events)


def _stopped_eight(shot):
    """GEN.OPPONENT: the opponent stopped the 8 on its way to a pocket (`foul interference` with
    ball 8): it counts as pocketed there."""
    return ("interference" in shot["fouls"] and shot.get("stopped") == 8 and 8 not in shot["spotted"])


def _judge_break(g, shot, settings, events):
    if _stopped_eight(shot):
        # GEN.OPPONENT: "шар считается сыгранным": the 8 the opponent stopped counts as pocketed on the
        # break (EB.BREAK-8, EB.BREAK-8-SCRATCH); the opponent's foul is recorded besides.
        common.record_foul(g, common.other(shot["shooter"]), ["interference"], ["GEN.OPPONENT"], events)
        own = dict(shot)
        own["fouls"] = [c for c in shot["fouls"] if c != "interference"]
        v = _judge_break_shot(g, own, settings, events)
        v["fouls"] = ["interference"] + v["fouls"]
        v["clauses"] = _add(list(v["clauses"]), ["GEN.OPPONENT"])
        return v
    return _judge_break_shot(g, shot, settings, events)


def _judge_break_shot(g, shot, settings, events):
    p = shot["shooter"]
    o = common.other(p)
    spotted = shot["spotted"]
    balls = [b for b in known_pocketed(shot) if b not in spotted]
    jumped = [b for b in shot["jumped"] if b != 0 and b not in balls]
    scratch = shot["cue_pocketed"] or 0 in shot["jumped"]
    eight = 8 in balls or 8 in jumped
    # An object ball off the table is EB.BREAK-JUMP's own violation; the cue ball off the table
    # is a foul like a scratch (EB.FOULS 7, GEN.JUMPED-CUE). A referee's `illegal_break` overrides
    # the rail estimate (EB.BREAK-LEGAL): it is judged as an illegal break, not a foul.
    hand_illegal = "illegal_break" in shot["fouls"]
    codes = [c for c in common.sensor_fouls(shot, False)
             if c != "illegal_break" and (c != "jumped_ball" or 0 in shot["jumped"])]
    legal = not hand_illegal and (bool(balls) or break_reached_rails(shot, settings))
    g["phase"] = "play"
    g["table_open"] = True

    common.take_down(g, balls)
    common.announce_pocketed(g, p, balls, ["EB.BREAK-NO-GROUP"], events)
    if spotted:
        _respot(g, spotted, ["GEN.POCKETED"], events)
    # EB.BREAK-JUMP: jumped balls go into the pockets, the 8 back to the table.
    common.take_down(g, jumped)
    clauses = []
    if "interference" in shot["fouls"]:
        # GEN.OPPONENT: the opponent's foul; the position is restored, so an 8 that dropped returns
        # (EB.STAY-DOWN), and the breaker plays on in hand.
        if eight:
            _respot(g, [8], ["GEN.OPPONENT", "EB.STAY-DOWN"], events)
        common.record_foul(g, o, ["interference"], ["GEN.OPPONENT"], events)
        common.give_ball_in_hand(g, p, "table", ["GEN.OPPONENT", "EB.FOUL-BIH"], events)
        return {"fouls": ["interference"], "clauses": ["GEN.OPPONENT", "EB.OPEN"],
                "credited": [b for b in balls if b != 8], "legal_break": legal}
    if 8 in balls and (codes or jumped or hand_illegal):
        # The 8 returns (EB.STAY-DOWN) when the break was a violation anyway.
        if not codes:
            _respot(g, [8], ["EB.BREAK-JUMP" if jumped else "EB.BREAK-ILLEGAL", "EB.STAY-DOWN"], events)
            eight = False
    if 8 in jumped:
        _respot(g, [8], ["EB.BREAK-JUMP"], events)
    fouls = list(codes)
    if codes and 8 in balls:
        # EB.BREAK-8-SCRATCH: a violation; the opponent re-breaks or spots the 8 and plays from the kitchen.
        fouls = _add(fouls, ["jumped_ball"] if jumped else [])
        clauses = ["EB.BREAK-8-SCRATCH"]
        common.record_foul(g, p, fouls, _add(list(clauses), common.foul_clauses(fouls)), events)
        common.pass_turn(g, events, ("EB.BREAK-8-SCRATCH", "GEN.TURN"))
        g["x"]["dk"] = "break_8_scratch"
        common.offer(g, o, ["rerack", "spot_eight"], clauses, events,
                     "{}: break again, or spot the 8 and shoot from the kitchen".format(common.name(g, o)),
                     "{}: разбить заново или выставить восьмёрку и бить с руки из дома".format(common.name(g, o)))
        return {"fouls": fouls, "clauses": clauses, "credited": [], "legal_break": False}
    if codes:
        # EB.BREAK-SCRATCH (or another foul on the break): balls stay down, table open.
        fouls = _add(fouls, ["jumped_ball"] if jumped else [])
        where = "kitchen" if scratch else "table"
        clauses = ["EB.BREAK-SCRATCH"] if scratch else ["EB.FOULS", "EB.FOUL-BIH"]
        if 0 in shot["jumped"]:
            clauses += ["EB.FOULS", "GEN.JUMPED-CUE"]
        if not legal:
            fouls = _add(fouls, ["illegal_break"])
            clauses.append("EB.BREAK-ILLEGAL")
        common.record_foul(g, p, fouls, _add(list(clauses), common.foul_clauses(fouls)), events)
        clauses = _add(clauses, ["EB.OPEN"])
        if not legal:
            common.pass_turn(g, events, ("EB.BREAK-ILLEGAL", "GEN.TURN"))
            _offer_illegal(g, o, where, events)
            return {"fouls": fouls, "clauses": clauses, "credited": [], "legal_break": False}
        common.give_ball_in_hand(g, o, where, clauses, events)
        return {"fouls": fouls, "clauses": clauses, "credited": [], "legal_break": legal}
    if jumped:
        # EB.BREAK-JUMP: the opponent plays the position as it lies or from the kitchen.
        fouls = ["jumped_ball"]
        clauses = ["EB.BREAK-JUMP", "EB.OPEN"]
        common.record_foul(g, p, fouls, ["EB.BREAK-JUMP", "GEN.JUMPED"], events)
        common.pass_turn(g, events, ("EB.BREAK-JUMP", "GEN.TURN"))
        g["ball_in_hand"] = "kitchen"
        nm = common.name(g, o)
        events.append(event("ball_in_hand", o, ["EB.BREAK-JUMP"],
                            "{}: play the cue ball where it lies or take it in hand in the kitchen".format(nm),
                            "{}: играть с места или с руки из дома".format(nm), {"where": "kitchen"}))
        return {"fouls": fouls, "clauses": clauses, "credited": [], "legal_break": legal}
    if eight:
        # EB.BREAK-8: the breaker re-breaks or spots the 8 and plays on from where the cue ball lies.
        clauses = ["EB.BREAK-8"]
        g["x"]["dk"] = "break_8"
        common.offer(g, p, ["rebreak", "spot_eight"], clauses, events,
                     "{}: the 8 dropped on the break: break again or spot the 8 and play on".format(
                         common.name(g, p)),
                     "{}: восьмёрка упала при разбитии: разбить заново или выставить её и продолжить".format(
                         common.name(g, p)))
        return {"fouls": [], "clauses": clauses, "credited": [b for b in balls if b != 8], "legal_break": True}
    if not legal:
        # EB.BREAK-ILLEGAL: nothing pocketed and fewer than four balls at a rail.
        fouls = ["illegal_break"]
        common.record_foul(g, p, fouls, ["EB.BREAK-ILLEGAL", "EB.BREAK-LEGAL"], events)
        common.pass_turn(g, events, ("EB.BREAK-ILLEGAL", "GEN.TURN"))
        _offer_illegal(g, o, None, events)
        return {"fouls": fouls, "clauses": ["EB.BREAK-ILLEGAL"], "credited": [], "legal_break": False}
    clauses = ["EB.BREAK-LEGAL", "EB.OPEN"]
    if balls:
        # EB.BREAK-CONTINUE / EB.BREAK-NO-GROUP: the breaker shoots again, the table stays open.
        clauses += ["EB.BREAK-CONTINUE", "EB.BREAK-NO-GROUP"]
    else:
        common.pass_turn(g, events, ("GEN.TURN",))
    return {"fouls": [], "clauses": clauses, "credited": balls, "legal_break": True}


def _offer_illegal(g, o, where, events):
    """EB.BREAK-ILLEGAL: accept the table, re-rack and break yourself, or have the breaker break again."""
    g["x"]["dk"] = "illegal_break"
    g["x"]["accept_bih"] = where
    nm = common.name(g, o)
    common.offer(g, o, ["accept", "rerack", "rebreak"], ["EB.BREAK-ILLEGAL"], events,
                 "{}: play the table as it lies, re-rack and break, or make the breaker break again".format(nm),
                 "{}: играть из позиции, разбить новую пирамиду самому или передать разбитие сопернику".format(nm))


def _judge_play(g, shot, settings, events):
    p = shot["shooter"]
    o = common.other(p)
    pl = g["players"][p]
    grp = pl["group"]
    was_open = grp is None
    on_8 = cleared(g, p)                 # the 8 is the shooter's legal ball (EB.CONTINUE)
    spotted = shot["spotted"]
    balls = [b for b in known_pocketed(shot) if b not in spotted]
    jumped = [b for b in shot["jumped"] if b != 0 and b not in balls]
    interference = "interference" in shot["fouls"]
    codes = [] if interference else common.sensor_fouls(shot, True)
    eight_first = False
    if was_open and "wrong_first_contact" in codes:
        # EB.OPEN-8-FIRST: on an open table the only wrong first ball is the 8: the inning ends, no foul.
        codes.remove("wrong_first_contact")
        eight_first = True
    remaining = group_left(g, grp) if grp is not None else []
    credited = []
    clauses = []

    common.take_down(g, balls)
    if balls:
        common.announce_pocketed(g, p, balls, ["GEN.POCKETED"], events)
    if spotted:
        _respot(g, spotted, ["GEN.POCKETED"], events)

    # EB.LOSS: the 8 off the table or down at the wrong time ends the game.
    if 8 in jumped and not interference:
        if codes:
            common.record_foul(g, p, codes, _foul_clauses(g, codes, was_open, False, balls, shot["jumped"]),
                               events)
        common.take_down(g, [8])      # it is on the floor, not on the table
        clauses = _lose(g, p, 3, ["GEN.JUMPED"], events, "jumped the 8 off the table",
                        "выбил восьмёрку за борт")
        return {"fouls": codes, "clauses": clauses, "credited": []}
    if 8 in balls and interference and not _stopped_eight(shot):
        # The 8 dropped while the opponent touched another ball: his foul spoiled the shot and the
        # position is restored (GEN.OPPONENT); the 8 goes back (EB.STAY-DOWN).
        _respot(g, [8], ["EB.STAY-DOWN", "GEN.OPPONENT"], events)
        balls = [b for b in balls if b != 8]
    if 8 in balls:
        why = None
        if interference:
            # GEN.OPPONENT: "Если соперник намеренно препятствует движению шара по направлению к лузе,
            # шар считается сыгранным": the 8 is judged as if it dropped in the pocket it was heading
            # to (EB.LOSS or the win), with the shooter's own fouls; the opponent's foul is recorded.
            common.record_foul(g, o, ["interference"], ["GEN.OPPONENT"], events)
            codes = [c for c in common.sensor_fouls(shot, True)
                     if not (was_open and c == "wrong_first_contact")]
        if codes:
            common.record_foul(g, p, codes, _foul_clauses(g, codes, was_open, False, balls, shot["jumped"]),
                               events)
            why = (1, "pocketed the 8 on a foul", "забил восьмёрку с нарушением правил")
        elif not on_8:
            if remaining and not [b for b in remaining if b not in balls]:
                why = (2, "pocketed the 8 with the last ball of the group",
                       "забил восьмёрку вместе с последним шаром своей группы")
            else:
                why = (5, "pocketed the 8 before clearing the group",
                       "забил восьмёрку, не сыграв все шары своей группы")
        else:
            c = shot["called"]
            where = POCKETS[pocket_of(shot, 8)] if pocket_of(shot, 8) is not None else None
            if shot["safety"]:
                why = (4, "pocketed the 8 on a safety, with no pocket called",
                       "забил восьмёрку при отыгрыше, без заказа лузы")
            elif c and ((c.get("ball") is not None and c["ball"] != 8) or
                        (c.get("pocket") is not None and c["pocket"] != where)):
                why = (4, "pocketed the 8 in a pocket that was not called ({})".format(where),
                       "забил восьмёрку не в заказанную лузу ({})".format(where))
            else:
                opp = ["GEN.OPPONENT"] if interference else []
                common.game_over(g, p, ["EB.CONTINUE", "EB.GROUPS", "EB.CALL"] + opp, events,
                                 "the 8 pocketed after clearing the group",
                                 "восьмёрка забита после своей группы")
                return {"fouls": ["interference"] if interference else [],
                        "clauses": ["EB.CONTINUE", "EB.GROUPS"] + opp, "credited": [8]}
        clauses = _lose(g, p, why[0], ["GEN.OPPONENT"] if interference else [], events, why[1], why[2])
        return {"fouls": (["interference"] if interference else []) + codes, "clauses": clauses,
                "credited": []}

    if jumped:
        # EB.JUMP: jumped object balls go on the foot spot (or down the long string behind it).
        _respot(g, jumped, ["EB.JUMP", "GEN.JUMPED-OBJECT"], events,
                "foot spot (or the long string behind it)")

    if codes:
        cl = _foul_clauses(g, codes, was_open, on_8, balls, shot["jumped"])
        common.record_foul(g, p, codes, cl, events)
        common.give_ball_in_hand(g, o, "table", ["EB.FOUL-BIH"], events)
        clauses = _add(cl, ["EB.FOUL-BIH"])
        if balls:
            clauses = _add(clauses, ["EB.STAY-DOWN"] + (["EB.OPEN-STAY"] if was_open else []))
        g["phase"] = "play"
        return {"fouls": codes, "clauses": clauses, "credited": []}

    if eight_first:
        clauses = ["EB.OPEN-8-FIRST", "EB.OPEN"] + (["EB.OPEN-STAY"] if balls else [])
        common.pass_turn(g, events, ("EB.OPEN-8-FIRST", "GEN.TURN"))
        g["phase"] = "play"
        return {"fouls": [], "clauses": clauses, "credited": []}

    # No `wrong_first_contact` entered: the first contact was legal. A hit on own and opponent
    # ball too close to tell apart goes the shooter's way (EB.SIMULTANEOUS), and a combination
    # off own ball through the 8 is allowed (EB.8-COMBO), so both simply play on.
    made = _made(g, shot, balls, p, was_open, grp)
    if was_open and made:
        groups = []
        for b in made:
            _add(groups, [group_of(b)])
        if len(groups) == 1:
            _close(g, p, groups[0], events)
            clauses.append("EB.CLOSE")
            grp = groups[0]
        else:
            common.warn(g, p, ["EB.OPEN", "EB.CALL"],
                        "Both groups dropped without a call: the table stays open; call a ball",
                        "Без заказа забиты шары обеих групп: стол остаётся открытым; закажите шар", events)
            clauses.append("EB.OPEN")
    if grp is not None:
        credited = [b for b in balls if group_of(b) == grp] if made else []
    else:
        credited = list(made)
    if interference:
        # GEN.OPPONENT: the opponent is penalised; the shooter plays on with the cue ball in hand.
        common.record_foul(g, o, ["interference"], ["GEN.OPPONENT"], events)
        common.give_ball_in_hand(g, p, "table", ["GEN.OPPONENT", "EB.FOUL-BIH"], events)
        g["phase"] = "play"
        return {"fouls": ["interference"], "clauses": _add(clauses, ["GEN.OPPONENT"]), "credited": credited}
    if made:
        clauses = _add(clauses, ["EB.CONTINUE"])
        if [b for b in balls if b not in made]:
            clauses.append("EB.EXTRA")
            if not was_open and [b for b in balls if group_of(b) == other_group(grp)]:
                clauses.append("EB.SIMULTANEOUS")   # own and opponent ball hit: the doubt is the shooter's
        if shot["called"] is None:
            clauses += ["EB.CALL", "EB.SAFETY"]    # an obvious ball made without a safety: shoot again
    else:
        if shot["safety"]:
            clauses.append("EB.SAFETY")
            turn = ("EB.SAFETY", "GEN.TURN")
        else:
            turn = ("GEN.TURN",)
        if balls:
            clauses = _add(clauses, ["EB.STAY-DOWN"] + (["EB.OPEN-STAY"] if was_open else []))
        common.pass_turn(g, events, turn)
    g["phase"] = "play"
    return {"fouls": [], "clauses": clauses, "credited": credited}


def _made(g, shot, balls, p, was_open, grp):
    """The balls that count for a continuation: legal balls as called (or obvious, EB.CALL)."""
    if shot["safety"]:
        return []
    if was_open:
        legal = [b for b in balls if b != 8]
    else:
        legal = [b for b in balls if group_of(b) == grp]
    c = shot["called"]
    if not c:
        return legal
    out = []
    for b in legal:
        pk = pocket_of(shot, b)
        if c.get("ball") is not None and c["ball"] != b:
            continue
        if c.get("pocket") is not None and (pk is None or POCKETS[pk] != c["pocket"]):
            continue
        out.append(b)
    return out


def _close(g, p, grp, events):
    """EB.CLOSE: the first called ball legally pocketed after the break gives its group."""
    o = common.other(p)
    g["players"][p]["group"] = grp
    g["players"][o]["group"] = other_group(grp)
    g["table_open"] = False
    en, ru = _grp_words(grp)
    en2, ru2 = _grp_words(other_group(grp))
    events.append(event("group", p, ["EB.CLOSE", "EB.GROUPS"],
                        "{} takes {}; {} has {}".format(common.name(g, p), en, common.name(g, o), en2),
                        "{} играет {}; {} — {}".format(common.name(g, p), ru, common.name(g, o), ru2),
                        {"group": grp}))


def _foul_clauses(g, codes, was_open, on_8, balls, jumped=()):
    cl = _add(["EB.FOULS"], common.foul_clauses(codes))
    if "no_rail" in codes or "no_contact" in codes or "wrong_first_contact" in codes:
        cl.append("EB.LEGAL-SHOT")
    if "wrong_first_contact" in codes and not was_open:
        cl.append("EB.CLOSED-FIRST")
        if not on_8:
            cl.append("EB.8-COMBO")     # the 8 (or any ball) off a wrong first contact is no combination
    if "jumped_ball" in codes:
        # EB.JUMP is the object balls' rule; the cue ball off the table is GEN.JUMPED-CUE.
        _add(cl, (["EB.JUMP"] if [b for b in jumped if b != 0] else []) +
             (["GEN.JUMPED-CUE"] if 0 in jumped else []))
    if "kitchen" in codes:
        _add(cl, ["EB.KITCHEN", "GEN.KITCHEN-ONLY-OUT"])
    if on_8:
        cl.append("EB.8-MISS")
    if balls:
        cl.append("GEN.FOUL-BALLS")
    return cl


# ------------------------------------------------------------------ decisions
def choose(g, option, settings, events):
    dk = g["x"].get("dk")
    d = g["decision"] or {}
    chooser = d.get("player", g["shooter"])
    g["decision"] = None
    g["x"]["dk"] = None
    g["phase"] = "play"
    if option == "rerack":
        _rerack(g, chooser, [_DK_CLAUSE.get(dk, "EB.BREAK-ILLEGAL")], events)
    elif option == "rebreak":
        breaker = chooser if dk == "break_8" else common.other(chooser)
        _rerack(g, breaker, [_DK_CLAUSE.get(dk, "EB.BREAK-ILLEGAL")], events)
    elif option == "spot_eight":
        common.spot(g, [8], [_DK_CLAUSE.get(dk, "EB.BREAK-8")], events)
        g["shooter"] = chooser
        if dk == "break_8_scratch":
            common.give_ball_in_hand(g, chooser, "kitchen", ["EB.BREAK-8-SCRATCH"], events)
    elif option == "accept":
        g["shooter"] = chooser
        where = g["x"].get("accept_bih")
        if where:
            common.give_ball_in_hand(g, chooser, where, ["EB.BREAK-ILLEGAL"], events)
        else:
            nm = common.name(g, chooser)
            events.append(event("turn", chooser, ["EB.BREAK-ILLEGAL"],
                                "{} plays the table as it lies".format(nm),
                                "{} играет из сложившейся позиции".format(nm)))
    g["x"]["accept_bih"] = None


_DK_CLAUSE = {"illegal_break": "EB.BREAK-ILLEGAL", "break_8": "EB.BREAK-8",
              "break_8_scratch": "EB.BREAK-8-SCRATCH"}
