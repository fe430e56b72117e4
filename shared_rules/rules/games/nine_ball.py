"""Nine-ball (seed 000): nothing is called, the lowest ball is hit first, the legally pocketed 9 wins.

Push-out after the break, ball in hand anywhere after a foul, three fouls in a
row lose, and the organisers' miss option (setting `miss_option`).
Game-specific state lives in g["x"]: `push_ok` (the next shot may be a
push-out) and `missed` (the player whose last shot was a miss under the miss
option, for the second-miss rule).
"""
from shared_rules.rules import common
from shared_rules.rules.messages import say
from shared_rules.rules.games.base import guess, needs_for, unknown_drops  # noqa: F401 (guess: interface)
from shared_rules.rules.shot import known_pocketed

SETUP_CLAUSE = "NB.SETUP"
SAFETY_CLAUSE = "NB.NO-CALL"

NINE = 9
# Fouls that are a miss of the lowest ball (NB.MISS-OPTION).
MISSES = ("wrong_first_contact", "no_contact")
# A push-out needs no contact and no rail (NB.PUSH).
NOT_ON_PUSH = ("wrong_first_contact", "no_contact", "no_rail")


def setup(g, settings):
    """NB.SETUP: balls 1-9 racked in a diamond, the break from the kitchen."""
    g["on_table"] = list(range(1, NINE + 1))
    g["x"] = {"push_ok": False, "missed": None}


def _x(g):
    x = g["x"]
    if not isinstance(x, dict):
        x = {}
        g["x"] = x
    return x


def lowest(g):
    return min(g["on_table"]) if g["on_table"] else None


def check_call(g, ball, pocket):
    return ("nine-ball is played without calls (NB.NO-CALL): hit the lowest ball ({}) first; "
            "any ball may drop".format(lowest(g)))


def check_safety(g):
    return ("nine-ball has no declared safety (NB.NO-CALL): a legal shot that pockets nothing "
            "simply passes the table")


def check_push_out(g):
    if g["phase"] == "break":
        return "a push-out is allowed only on the first shot after the break, not on the break itself"
    if not _x(g).get("push_ok"):
        if g["shot"] == 1:
            return "a push-out is allowed only on the first shot after a legal break; this break was a foul"
        return "a push-out is allowed only on the first shot after the break; that shot has been played"
    return None


def jump_is_foul(g, shot, ball):
    """NB.JUMP: any object ball leaving the table is a foul."""
    return True


def extra_state(g):
    x = _x(g)
    return {"lowest": lowest(g), "push_out_allowed": bool(x.get("push_ok")) and g["phase"] == "play",
            "miss_option": bool(g["settings"].get("miss_option"))}


def resolve(g, shot, settings):
    """Unknown balls: nothing is called, so an identity is known only when the drops use up the table.

    Which ball dropped always matters (the 9 wins; the lowest ball is the next target),
    so anything that cannot be inferred is asked for.
    """
    unknown = unknown_drops(shot)
    if not unknown:
        return []
    known = [d[0] for d in shot["pocketed"] if d[0] is not None]
    left = [b for b in g["on_table"] if b not in known and b not in shot["jumped"]]
    if len(left) == len(unknown):
        for i in range(len(unknown)):
            unknown[i][0] = left[i]
        return []
    return needs_for(shot)


def break_rails_ok(shot, settings):
    """NB.BREAK: "какие-либо четыре шара должны коснуться бортов": any four balls, the cue ball may be one."""
    return common.break_rails_reached(shot, settings, 3, cue_ball=True, rack=9)


def _foul_clauses(fouls, shot):
    cl = []

    def add(c):
        if c not in cl:
            cl.append(c)

    for c in fouls:
        if shot["break"] and c in ("illegal_break", "wrong_first_contact", "no_contact"):
            add("NB.BREAK")
        elif c == "wrong_first_contact":
            add("NB.WRONG-FIRST")
            add("NB.LOWEST")
        elif c in ("no_contact", "no_rail"):
            add("NB.LEGAL-SHOT")
        elif c == "jumped_ball":
            if [b for b in shot["jumped"] if b != 0]:
                add("NB.JUMP")
            if 0 in shot["jumped"]:
                add("GEN.JUMPED-CUE")
        add("NB.FOULS")
    for c in common.foul_clauses(fouls):
        add(c)
    return cl


def _shot_fouls(g, shot, settings, push):
    """Foul codes of the shooter on this shot (the opponent's `interference` is not among them)."""
    if shot["break"]:
        fouls = common.sensor_fouls(shot, False)
        dropped = [d for d in shot["pocketed"] if d[0] != 0 and d[0] not in shot["spotted"]]
        if "illegal_break" not in fouls and not dropped and not break_rails_ok(shot, settings):
            fouls.append("illegal_break")
        return fouls
    if push:
        return [c for c in common.sensor_fouls(shot, False) if c not in NOT_ON_PUSH]
    return common.sensor_fouls(shot, True)


def judge(g, shot, settings, events):
    x = _x(g)
    p = shot["shooter"]
    opp = common.other(p)
    push_ok = bool(x.get("push_ok"))
    x["push_ok"] = False
    push = bool(shot["push_out"]) and push_ok and not shot["break"]
    brk = shot["break"]

    # GEN.POCKETED: a ball rolled in on purpose is put back, no penalty.
    spotted = [b for b in shot["spotted"] if b in g["on_table"]]
    if spotted:
        common.take_down(g, spotted)
        common.spot(g, spotted, ["GEN.POCKETED"], events)
    down = [b for b in known_pocketed(shot) if b not in shot["spotted"]]
    jumped = [b for b in shot["jumped"] if b != 0]
    fouls = _shot_fouls(g, shot, settings, push)
    common.take_down(g, down + jumped)     # NB.JUMP: jumped balls stay off, bar the 9 (below)
    g["phase"] = "play"
    g["ball_in_hand"] = None

    if fouls:
        return _foul(g, shot, settings, events, fouls, down, jumped, brk)

    # A legal shot: the run of fouls is over (NB.3-FOULS).
    g["players"][p]["fouls"] = 0
    x["missed"] = None
    clauses = ["NB.BREAK" if brk else "NB.PUSH" if push else "NB.LEGAL-SHOT"]
    if down and not push:
        clauses.append("NB.NO-CALL")     # no call: whatever dropped on a legal shot counts
    credited = list(down)
    verdict = {"fouls": [], "clauses": clauses, "credited": credited, "legal_break": brk}

    if NINE in down and not push:
        cl = ["NB.BREAK-9", "NB.WIN"] if brk else ["NB.WIN"]
        common.announce_pocketed(g, p, down, cl, events)
        for c in cl:
            clauses.append(c)
        common.game_over(g, p, cl, events, *say("nb.win_break" if brk else "nb.win"))
        return verdict
    if push:
        common.announce_pocketed(g, p, down, ["NB.PUSH"], events)
        if [c for c in shot["fouls"] if c in NOT_ON_PUSH]:
            # "Биток после этого объявления не обязательно должен коснуться ... прицельного шара или дойти до борта."
            common.tell(events, "warning", p, ["NB.PUSH"], "nb.push_no_foul")
        if NINE in down:
            # NB.PUSH: "Если после объявления выставки в лузу зашел шар с номером девять, то он выставляется."
            common.spot(g, [NINE], ["NB.PUSH"], events)
            credited.remove(NINE)
    else:
        common.announce_pocketed(g, p, down, ["NB.CONTINUE"], events)

    if "interference" in shot["fouls"]:
        return _interference(g, shot, events, verdict, push_ok or brk)
    if push:
        common.pass_turn(g, events, ["NB.PUSH"])
        common.offer(g, opp, ["accept", "pass_back"], ["NB.PUSH"], events,
                     *say("nb.offer_push", common.name(g, opp), common.name(g, p)))
    elif brk:
        # NB.BREAK-CONTINUE: "Если первоначальный удар выполнен правильно, то игрок имеет право
        # на выполнение следующего удара", pocketed or not; NB.PUSH may follow.
        clauses.append("NB.BREAK-CONTINUE")
        x["push_ok"] = True
        common.tell(events, "turn", p, ["NB.BREAK-CONTINUE"], "nb.break_continue", common.name(g, p))
    elif down:
        clauses.append("NB.CONTINUE")
    else:
        clauses.append("NB.PASS")
        common.pass_turn(g, events, ["NB.PASS", "GEN.TURN"])
    return verdict


def _interference(g, shot, events, verdict, push_ok):
    """GEN.OPPONENT: the opponent's foul; the position is restored and the shooter plays on in hand."""
    p = shot["shooter"]
    fouler = common.other(p)
    common.record_foul(g, fouler, ["interference"], ["GEN.OPPONENT", "NB.FOULS"], events)
    _x(g)["push_ok"] = push_ok
    g["decision"] = None
    g["phase"] = "play"
    g["shooter"] = p
    common.give_ball_in_hand(g, p, "table", ["GEN.OPPONENT", "NB.FOUL-BIH"], events)
    verdict["clauses"].append("GEN.OPPONENT")
    return verdict


def _foul(g, shot, settings, events, fouls, down, jumped, brk):
    x = _x(g)
    p = shot["shooter"]
    opp = common.other(p)
    cl = _foul_clauses(fouls, shot)
    verdict = {"fouls": fouls, "clauses": list(cl), "credited": [], "legal_break": False}
    common.announce_pocketed(g, p, down, ["GEN.FOUL-BALLS"], events)
    common.record_foul(g, p, fouls, cl, events)
    if NINE in down or NINE in jumped:
        # NB.FOUL-9 (NB.BREAK-FOUL-9 on the break; NB.JUMP for a jumped 9): the 9 goes back.
        why = ["NB.BREAK-FOUL-9"] if brk else ["NB.FOUL-9"]
        if NINE in jumped:
            why.append("NB.JUMP")
        common.spot(g, [NINE], why, events)
        for c in why:
            if c not in verdict["clauses"]:
                verdict["clauses"].append(c)

    run = g["players"][p]["fouls"] + 1
    g["players"][p]["fouls"] = run
    if run >= 3:
        # NB.3-FOULS: the warning after the second foul was given (below), so the third counts.
        verdict["clauses"].append("NB.3-FOULS")
        x["missed"] = None
        common.game_over(g, opp, ["NB.3-FOULS"], events, *say("nb.three_fouls", common.name(g, p)))
        return verdict
    if run == 2:
        verdict["clauses"].append("NB.3-FOULS")
        common.warn(g, p, ["NB.3-FOULS"], *say("nb.two_fouls", common.name(g, p)), events=events)

    cue_on_table = not shot["cue_pocketed"] and 0 not in shot["jumped"]
    miss = (not brk and not shot["push_out"] and settings.get("miss_option") and cue_on_table and
            [c for c in fouls if c in MISSES])
    if miss:
        verdict["clauses"].append("NB.MISS-OPTION")
        if x.get("missed") == p:
            # "При повторном промахе соперник имеет право играть с руки с любого места игрового поля стола."
            x["missed"] = None
            common.give_ball_in_hand(g, opp, "table", ["NB.MISS-OPTION", "NB.FOUL-BIH"], events)
            return verdict
        x["missed"] = p
        common.pass_turn(g, events, ["NB.MISS-OPTION"])
        common.offer(g, opp, ["accept", "reshoot"], ["NB.MISS-OPTION"], events,
                     *say("nb.offer_miss", common.name(g, p), common.name(g, opp), common.name(g, p)))
        return verdict
    x["missed"] = None
    verdict["clauses"].append("NB.FOUL-BIH")
    common.give_ball_in_hand(g, opp, "table", ["NB.BREAK", "NB.FOUL-BIH"] if brk else ["NB.FOUL-BIH"], events)
    return verdict


def choose(g, option, settings, events):
    """NB.PUSH (accept | pass_back) and NB.MISS-OPTION (accept | reshoot); the chooser is the shooter now."""
    d = g["decision"] or {}
    chooser = d.get("player", g["shooter"])
    cl = d.get("clauses") or []
    g["decision"] = None
    g["phase"] = "play"
    g["ball_in_hand"] = None
    g["shooter"] = chooser
    if option in ("pass_back", "reshoot"):
        other = common.other(chooser)
        g["shooter"] = other
        common.tell(events, "turn", other, cl, "nb.pass_back" if option == "pass_back" else "nb.reshoot",
                    common.name(g, chooser), common.name(g, other), extra={"option": option})
        return
    common.tell(events, "turn", chooser, cl, "nb.accept", common.name(g, chooser), extra={"option": option})
