"""Nine-ball (seed 000): nothing is called, the lowest ball is hit first, the legally pocketed 9 wins.

Push-out after the break, ball in hand anywhere after a foul, three fouls in a
row lose, and the organisers' miss option (setting `miss_option`).
Game-specific state lives in g["x"]: `push_ok` (the next shot may be a
push-out) and `missed` (the player whose last shot was a miss under the miss
option, for the second-miss rule).
"""
from collections import namedtuple

from shared_rules.rules import common
from shared_rules.rules.messages import say
from shared_rules.rules.games.base import guess, needs_for, unknown_drops  # noqa: F401 (guess: interface)
from shared_rules.rules.shot import known_pocketed
from shared_rules.rules.verdict import verdict

SETUP_CLAUSE = "NB.SETUP"
CALL_CLAUSE = "NB.NO-CALL"       # nothing is called: a call is refused by this clause
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
    return ("nb.no_calls", (lowest(g),))


def check_safety(g):
    return ("nb.no_safety",)


def check_push_out(g):
    if g["phase"] == "break":
        return ("nb.push_on_break",)
    if not _x(g).get("push_ok"):
        if g["shot"] == 1:
            return ("nb.push_after_foul",)
        return ("nb.push_too_late",)
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


# ------------------------------------------------------------------ the shot, read once
ShotFacts = namedtuple("ShotFacts", ("p", "o", "brk", "push", "push_was_allowed", "push_fouls_waived",
                                     "spotted", "down", "jumped", "jumped_all", "fouls", "interference",
                                     "fouls_before", "missed_before", "miss_option", "cue_on_table",
                                     "push_out_declared"))


def read_shot(g, shot, settings):
    """What the judge reads of a shot: who shot, what dropped and what jumped, the shooter's fouls
    and what the rules carry from earlier shots (the foul run, the last miss, a push-out allowed)."""
    x = _x(g)
    p = shot["shooter"]
    brk = shot["break"]
    push_ok = bool(x.get("push_ok"))
    push = bool(shot["push_out"]) and push_ok and not brk
    return ShotFacts(
        p=p, o=common.other(p), brk=brk, push=push, push_was_allowed=push_ok,
        push_fouls_waived=bool([c for c in shot["fouls"] if c in NOT_ON_PUSH]),
        spotted=tuple(b for b in shot["spotted"] if b in g["on_table"]),
        down=tuple(b for b in known_pocketed(shot) if b not in shot["spotted"]),
        jumped=tuple(b for b in shot["jumped"] if b != 0), jumped_all=tuple(shot["jumped"]),
        fouls=tuple(shooter_fouls(shot, settings, push)), interference="interference" in shot["fouls"],
        fouls_before=g["players"][p]["fouls"], missed_before=x.get("missed"),
        miss_option=bool(settings.get("miss_option")),
        cue_on_table=not shot["cue_pocketed"] and 0 not in shot["jumped"], push_out_declared=bool(shot["push_out"]))


def shooter_fouls(shot, settings, push):
    """The shooter's foul codes (the opponent's `interference` is not among them). NB.BREAK: a break
    that pockets nothing and brings too few balls to a rail is illegal; NB.PUSH: a push-out need
    not touch a ball nor reach a rail."""
    if shot["break"]:
        fouls = common.sensor_fouls(shot, False)
        dropped = [d for d in shot["pocketed"] if d[0] != 0 and d[0] not in shot["spotted"]]
        if "illegal_break" not in fouls and not dropped and not break_rails_ok(shot, settings):
            fouls.append("illegal_break")
        return fouls
    if push:
        return [c for c in common.sensor_fouls(shot, False) if c not in NOT_ON_PUSH]
    return common.sensor_fouls(shot, True)


# ------------------------------------------------------------------ the seed's clauses, as predicates
def wins(f):
    """NB.WIN, NB.BREAK-9: the 9 pocketed by a legal shot (not on a push-out) wins the game."""
    return not f.fouls and NINE in f.down and not f.push


def nine_goes_back(f):
    """NB.FOUL-9 (NB.BREAK-FOUL-9 on the break), NB.JUMP: a 9 pocketed on a foul, or jumped, is spotted."""
    return bool(f.fouls) and (NINE in f.down or NINE in f.jumped)


def is_third_foul(f):
    """NB.3-FOULS: the shooter's third foul in a row loses the game (the second one was warned)."""
    return f.fouls_before + 1 >= 3


def is_second_foul(f):
    """NB.3-FOULS: the second foul in a row is warned, so that the third may count."""
    return f.fouls_before + 1 == 2


def is_miss(f):
    """NB.MISS-OPTION (when the match plays it): the lowest ball missed, with the cue ball still on
    the table, on a shot that was neither the break nor a push-out."""
    return (not f.brk and not f.push_out_declared and f.miss_option and f.cue_on_table
            and bool([c for c in f.fouls if c in MISSES]))


def is_second_miss(f):
    """NB.MISS-OPTION: «При повторном промахе соперник имеет право играть с руки с любого места»."""
    return f.missed_before == f.p


def shot_outcome(f):
    """Which clause decides the shot, in the seed's order."""
    if f.fouls:
        if is_third_foul(f):
            return "NB.3-FOULS"
        return "NB.MISS-OPTION" if is_miss(f) else "NB.FOUL-BIH"
    if wins(f):
        return "NB.WIN"
    if f.interference:
        return "GEN.OPPONENT"
    if f.push:
        return "NB.PUSH"
    if f.brk:
        return "NB.BREAK-CONTINUE"        # NB.BREAK-CONTINUE: pocketed or not, the breaker goes on
    return "NB.CONTINUE" if f.down else "NB.PASS"


# ------------------------------------------------------------------ the verdict
def decide(f):
    """The shot's verdict, from its facts alone."""
    outcome = shot_outcome(f)
    if f.fouls:
        return _decide_foul(f, outcome)
    clauses = ["NB.BREAK" if f.brk else "NB.PUSH" if f.push else "NB.LEGAL-SHOT"]
    if f.down and not f.push:
        clauses.append("NB.NO-CALL")     # no call: whatever dropped on a legal shot counts
    credited = list(f.down)
    if outcome == "NB.WIN":
        return verdict(outcome, (), clauses + _win_clauses(f), credited, f.brk)
    if f.push and NINE in f.down:
        credited.remove(NINE)             # NB.PUSH: the 9 pocketed on a push-out is spotted
    if outcome in ("GEN.OPPONENT", "NB.BREAK-CONTINUE", "NB.CONTINUE", "NB.PASS"):
        clauses.append(outcome)
    return verdict(outcome, (), clauses, credited, f.brk)


def _decide_foul(f, outcome):
    clauses = _foul_clauses(f)
    if nine_goes_back(f):
        common.add_new(clauses, _nine_back_clauses(f))
    if is_third_foul(f) or is_second_foul(f):
        clauses.append("NB.3-FOULS")
    if outcome != "NB.3-FOULS":
        clauses.append(outcome)
    return verdict(outcome, f.fouls, clauses)


def _win_clauses(f):
    return ["NB.BREAK-9", "NB.WIN"] if f.brk else ["NB.WIN"]


def _nine_back_clauses(f):
    return (["NB.BREAK-FOUL-9"] if f.brk else ["NB.FOUL-9"]) + (["NB.JUMP"] if NINE in f.jumped else [])


def _foul_clauses(f):
    cl = []
    for c in f.fouls:
        if f.brk and c in ("illegal_break", "wrong_first_contact", "no_contact"):
            common.add_new(cl, ["NB.BREAK"])
        elif c == "wrong_first_contact":
            common.add_new(cl, ["NB.WRONG-FIRST", "NB.LOWEST"])
        elif c in ("no_contact", "no_rail"):
            common.add_new(cl, ["NB.LEGAL-SHOT"])
        elif c == "jumped_ball":
            common.add_new(cl, (["NB.JUMP"] if f.jumped else []) + (["GEN.JUMPED-CUE"] if 0 in f.jumped_all else []))
        common.add_new(cl, ["NB.FOULS"])
    return common.add_new(cl, common.foul_clauses(f.fouls))


# ------------------------------------------------------------------ applied to the game
def judge(g, shot, settings, events):
    """Read the shot, decide its verdict, apply it to `g`; the verdict (verdict.py)."""
    f = read_shot(g, shot, settings)
    v = decide(f)
    apply(g, f, v, events)
    return v


def apply(g, f, v, events):
    """The table after the shot: balls rolled in on purpose go back (GEN.POCKETED), the pocketed
    and jumped ones stay off (NB.JUMP; the 9 has its own clauses), then the verdict's step."""
    x = _x(g)
    x["push_ok"] = False
    if f.spotted:
        common.take_down(g, f.spotted)
        common.spot(g, f.spotted, ["GEN.POCKETED"], events)
    common.take_down(g, f.down + f.jumped)
    g["phase"] = "play"
    g["ball_in_hand"] = None
    if f.fouls:
        _apply_foul(g, f, v, events)
        return
    g["players"][f.p]["fouls"] = 0          # a legal shot ends the run of fouls (NB.3-FOULS)
    x["missed"] = None
    if v.outcome == "NB.WIN":
        common.announce_pocketed(g, f.p, f.down, _win_clauses(f), events)
        common.game_over(g, f.p, _win_clauses(f), events, *say("nb.win_break" if f.brk else "nb.win"))
        return
    _announce_legal(g, f, events)
    _LEGAL_STEPS[v.outcome](g, f, events)


def _announce_legal(g, f, events):
    if not f.push:
        common.announce_pocketed(g, f.p, f.down, ["NB.CONTINUE"], events)
        return
    common.announce_pocketed(g, f.p, f.down, ["NB.PUSH"], events)
    if f.push_fouls_waived:
        # "Биток после этого объявления не обязательно должен коснуться ... прицельного шара или дойти до борта."
        common.tell(events, "warning", f.p, ["NB.PUSH"], "nb.push_no_foul")
    if NINE in f.down:
        # NB.PUSH: "Если после объявления выставки в лузу зашел шар с номером девять, то он выставляется."
        common.spot(g, [NINE], ["NB.PUSH"], events)


def _opponent_fouled(g, f, events):
    """GEN.OPPONENT: the opponent's foul; the position is restored and the shooter plays on in hand
    (a push-out the break allowed stays allowed)."""
    common.record_foul(g, f.o, ["interference"], ["GEN.OPPONENT", "NB.FOULS"], events)
    _x(g)["push_ok"] = f.push_was_allowed or f.brk
    g["decision"] = None
    g["phase"] = "play"
    g["shooter"] = f.p
    common.give_ball_in_hand(g, f.p, "table", ["GEN.OPPONENT", "NB.FOUL-BIH"], events)


def _pushed_out(g, f, events):
    """NB.PUSH: the opponent plays the position or passes the shot back."""
    common.pass_turn(g, events, ["NB.PUSH"])
    common.offer(g, f.o, ["accept", "pass_back"], ["NB.PUSH"], events,
                 *say("nb.offer_push", common.name(g, f.o), common.name(g, f.p)))


def _legal_break(g, f, events):
    """NB.BREAK-CONTINUE: "Если первоначальный удар выполнен правильно, то игрок имеет право
    на выполнение следующего удара", pocketed or not; NB.PUSH may follow."""
    _x(g)["push_ok"] = True
    common.tell(events, "turn", f.p, ["NB.BREAK-CONTINUE"], "nb.break_continue", common.name(g, f.p))


def _continues(g, f, events):
    """NB.CONTINUE: a ball pocketed by a legal shot: the shooter goes on."""


def _passes(g, f, events):
    """NB.PASS: a legal shot that pockets nothing passes the table."""
    common.pass_turn(g, events, ["NB.PASS", "GEN.TURN"])


_LEGAL_STEPS = {"GEN.OPPONENT": _opponent_fouled, "NB.PUSH": _pushed_out, "NB.BREAK-CONTINUE": _legal_break,
                "NB.CONTINUE": _continues, "NB.PASS": _passes}


def _apply_foul(g, f, v, events):
    """NB.FOULS: balls pocketed on a foul stay down (the 9 goes back); the run of fouls grows; the
    opponent gets the cue ball in hand, or the miss option's choice, or the game (NB.3-FOULS)."""
    x = _x(g)
    common.announce_pocketed(g, f.p, f.down, ["GEN.FOUL-BALLS"], events)
    common.record_foul(g, f.p, f.fouls, _foul_clauses(f), events)
    if nine_goes_back(f):
        common.spot(g, [NINE], _nine_back_clauses(f), events)
    g["players"][f.p]["fouls"] = f.fouls_before + 1
    if v.outcome == "NB.3-FOULS":
        x["missed"] = None
        common.game_over(g, f.o, ["NB.3-FOULS"], events, *say("nb.three_fouls", common.name(g, f.p)))
        return
    if is_second_foul(f):
        common.warn(g, f.p, ["NB.3-FOULS"], *say("nb.two_fouls", common.name(g, f.p)), events=events)
    if v.outcome == "NB.MISS-OPTION" and not is_second_miss(f):
        x["missed"] = f.p
        common.pass_turn(g, events, ["NB.MISS-OPTION"])
        common.offer(g, f.o, ["accept", "reshoot"], ["NB.MISS-OPTION"], events,
                     *say("nb.offer_miss", common.name(g, f.p), common.name(g, f.o), common.name(g, f.p)))
        return
    x["missed"] = None
    if v.outcome == "NB.MISS-OPTION":
        common.give_ball_in_hand(g, f.o, "table", ["NB.MISS-OPTION", "NB.FOUL-BIH"], events)
    else:
        common.give_ball_in_hand(g, f.o, "table", ["NB.BREAK", "NB.FOUL-BIH"] if f.brk else ["NB.FOUL-BIH"],
                                 events)


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
