"""Eight-ball (seed 000): solids 1-7 against stripes 9-15, called shots, then the called 8 wins.

The break is not called and never chooses a group; the first called ball
legally pocketed after it closes the table. Every pocketed object ball stays
down; the 8 only ever drops to win or to lose, except on the break. There is
no three-foul rule in this game, so players' `fouls` stays 0.
Game-specific state in g["x"]: `dk`, the kind of pending decision
(`illegal_break`, `break_8`, `break_8_scratch`), and `accept_bih`, where the
cue ball goes if an illegal break is accepted.
"""
from collections import namedtuple

from shared_rules.link.names import POCKETS
from shared_rules.rules import common
from shared_rules.rules.events import event
from shared_rules.rules.messages import say, say_each, words
from shared_rules.rules.games.base import (check_push_out, unknown_drops, resolve_called, needs_for,
                                           extra_state)
from shared_rules.rules.shot import known_pocketed, pocket_of
from shared_rules.rules.verdict import verdict, with_opponent_foul

SETUP_CLAUSE = "EB.SETUP"
CALL_CLAUSE = "EB.CALL"
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


def _grp_words(grp):
    return words("eb.solids" if grp == "solids" else "eb.stripes")


# ------------------------------------------------------------------ setup and declarations
def setup(g, settings):
    """EB.SETUP: fifteen balls, the 8 in the middle; the table is open until a group is taken."""
    g["on_table"] = list(range(1, 16))
    g["table_open"] = True
    g["x"] = {"dk": None, "accept_bih": None}


def check_call(g, ball, pocket):
    """EB.CALL: a ball and a pocket for the next shot; the 8 only once the group is down."""
    if g["phase"] == "break":
        return ("eb.break_not_called",)
    p = g["shooter"]
    if ball is None:
        return None
    if ball == 8:
        if not cleared(g, p):
            return ("eb.eight_too_early",)
        return None
    grp = g["players"][p]["group"]
    if grp is not None and group_of(ball) != grp:
        if cleared(g, p):
            return ("eb.call_the_eight",)
        en, ru = _grp_words(grp)
        return ("eb.not_your_group", (ball, en), (ball, ru))
    return None


def check_safety(g):
    if g["phase"] == "break":
        return ("eb.no_safety_on_break",)
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


# ------------------------------------------------------------------ named reasons
# EB.LOSS: the seed's five losing errors, by their number in the seed (the `loss` of the `over` event).
LOSS_8_ON_FOUL = 1        # «восьмерка забита в лузу с нарушением правил игры»
LOSS_8_WITH_LAST = 2      # «восьмерку и последний шар своей группы игрок забил в лузы одним ударом»
LOSS_8_OFF_TABLE = 3      # «восьмерка вылетела за борт в процессе игры»
LOSS_8_WRONG_POCKET = 4   # «восьмерка забита не в заказанную лузу»
LOSS_8_EARLY = 5          # «восьмерку забил в лузу игрок до того, как он сыграл в лузы все шары своей группы»

# Pending decisions (g["x"]["dk"]) and the clause each comes from.
DK_ILLEGAL_BREAK = "illegal_break"       # EB.BREAK-ILLEGAL
DK_BREAK_8 = "break_8"                   # EB.BREAK-8
DK_BREAK_8_SCRATCH = "break_8_scratch"   # EB.BREAK-8-SCRATCH
_DK_CLAUSE = {DK_ILLEGAL_BREAK: "EB.BREAK-ILLEGAL", DK_BREAK_8: "EB.BREAK-8",
              DK_BREAK_8_SCRATCH: "EB.BREAK-8-SCRATCH"}


# ------------------------------------------------------------------ helpers
def _respot(g, balls, clauses, events, where="foot spot"):
    """Put balls back (they may still be listed on the table when they jumped)."""
    common.take_down(g, balls)
    return common.spot(g, balls, clauses, events, where)


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
    common.tell(events, "rerack", breaker, common.add_new(list(clauses), ["GEN.RACK"]), "eb.rerack",
                common.name(g, breaker))


def _lose(g, p, why, clauses, events, key, *args):
    """EB.LOSS: `p` loses by error `why` (LOSS_*); the event carries the number."""
    cl = common.add_new(["EB.LOSS"], clauses)
    en, ru = say(key, *args)
    who = common.name(g, p)
    common.game_over(g, common.other(p), cl, events, *say_each("eb.lose", (who, en), (who, ru)))
    events[-1]["loss"] = why
    return cl


def _offer(g, player, options, clauses, events, key, *args):
    en, ru = say(key, *args)
    common.offer(g, player, options, clauses, events, en, ru)


# ------------------------------------------------------------------ judging
def judge(g, shot, settings, events):
    """Read the shot, decide its verdict, apply it to `g`; the verdict (verdict.py)."""
    g["x"]["dk"] = None
    if shot["break"]:
        f = read_break(shot, settings)
        own = decide_break(f)
        apply_break(g, f, own, events)
        # GEN.OPPONENT: the 8 the opponent stopped is judged as the breaker's own break; his foul besides.
        return with_opponent_foul(own) if f.stopped_eight else own
    f = read_play(g, shot)
    v = decide_play(f)
    apply_play(g, f, v, events)
    return v


def _stopped_eight(shot):
    """GEN.OPPONENT: the opponent stopped the 8 on its way to a pocket (`foul interference` with
    ball 8): «шар считается сыгранным», it counts as pocketed there."""
    return "interference" in shot["fouls"] and shot.get("stopped") == 8 and 8 not in shot["spotted"]


def _shot_balls(shot):
    """(object balls pocketed and not spotted, object balls off the table and not pocketed)."""
    balls = tuple(b for b in known_pocketed(shot) if b not in shot["spotted"])
    return balls, tuple(b for b in shot["jumped"] if b != 0 and b not in balls)


# ------------------------------------------------------------------ the break
BreakFacts = namedtuple("BreakFacts", ("p", "o", "spotted", "balls", "jumped", "scratch", "cue_jumped",
                                       "hand_illegal", "fouls", "legal", "interference", "stopped_eight"))


def read_break(shot, settings):
    """What the judge reads of a break. A referee's `illegal_break` overrides the rail estimate
    (an illegal break, not a foul); an object ball off the table is EB.BREAK-JUMP's own violation,
    not a foul, while the cue ball off the table is a foul like a scratch (EB.FOULS 7,
    GEN.JUMPED-CUE). With the 8 stopped by the opponent the breaker's own shot is what is read."""
    p = shot["shooter"]
    balls, jumped = _shot_balls(shot)
    hand_illegal = "illegal_break" in shot["fouls"]
    stopped = _stopped_eight(shot)
    return BreakFacts(
        p=p, o=common.other(p), spotted=tuple(shot["spotted"]), balls=balls, jumped=jumped,
        scratch=shot["cue_pocketed"] or 0 in shot["jumped"], cue_jumped=0 in shot["jumped"],
        hand_illegal=hand_illegal,
        fouls=tuple(c for c in common.sensor_fouls(shot, False)
                    if c != "illegal_break" and (c != "jumped_ball" or 0 in shot["jumped"])),
        legal=is_legal_break(hand_illegal, balls, shot, settings),
        interference="interference" in shot["fouls"] and not stopped, stopped_eight=stopped)


def is_legal_break(hand_illegal, balls, shot, settings):
    """EB.BREAK-LEGAL: an object ball pocketed, or at least four object balls at a rail."""
    return not hand_illegal and (bool(balls) or break_reached_rails(shot, settings))


def eight_returns_on_break(f):
    """EB.STAY-DOWN: an 8 pocketed on a break that was a violation anyway (a jump, an illegal
    break) goes back; with a foul it stays for the EB.BREAK-8-SCRATCH choice."""
    return 8 in f.balls and not f.fouls and bool(f.jumped or f.hand_illegal)


def break_outcome(f):
    """Which clause judges the break, in the seed's order of precedence."""
    if f.interference:
        return "EB.FOUL-BIH"            # GEN.OPPONENT: the opponent's foul
    if f.fouls and 8 in f.balls:
        return "EB.BREAK-8-SCRATCH"
    if f.fouls:
        return "EB.BREAK-SCRATCH"
    if f.jumped:
        return "EB.BREAK-JUMP"
    if 8 in f.balls and not eight_returns_on_break(f):
        return "EB.BREAK-8"
    if not f.legal:
        return "EB.BREAK-ILLEGAL"
    return "EB.BREAK-LEGAL"


def break_fouls(f):
    """The breaker's fouls: the sensors' and the referee's, a jumped object ball among them."""
    return common.add_new(list(f.fouls), ["jumped_ball"] if f.jumped else [])


def break_foul_terms(f):
    """EB.BREAK-SCRATCH (or another foul on the break): (fouls, clauses); an illegal break besides
    is one of them (EB.BREAK-ILLEGAL)."""
    fouls = break_fouls(f)
    clauses = ["EB.BREAK-SCRATCH"] if f.scratch else ["EB.FOULS", "EB.FOUL-BIH"]
    if f.cue_jumped:
        clauses += ["EB.FOULS", "GEN.JUMPED-CUE"]
    if not f.legal:
        fouls = common.add_new(fouls, ["illegal_break"])
        clauses.append("EB.BREAK-ILLEGAL")
    return fouls, clauses


def decide_break(f):
    """The break's verdict, from its facts alone."""
    outcome = break_outcome(f)
    if outcome == "EB.FOUL-BIH":
        return verdict(outcome, ["interference"], ["GEN.OPPONENT", "EB.OPEN"], [b for b in f.balls if b != 8],
                       f.legal)
    if outcome == "EB.BREAK-8-SCRATCH":
        return verdict(outcome, break_fouls(f), [outcome])
    if outcome == "EB.BREAK-SCRATCH":
        fouls, clauses = break_foul_terms(f)
        return verdict(outcome, fouls, common.add_new(clauses, ["EB.OPEN"]), (), f.legal)
    if outcome == "EB.BREAK-JUMP":
        return verdict(outcome, ["jumped_ball"], [outcome, "EB.OPEN"], (), f.legal)
    if outcome == "EB.BREAK-8":
        return verdict(outcome, (), [outcome], [b for b in f.balls if b != 8], True)
    if outcome == "EB.BREAK-ILLEGAL":
        return verdict(outcome, ["illegal_break"], [outcome])
    clauses = ["EB.BREAK-LEGAL", "EB.OPEN"] + (["EB.BREAK-CONTINUE", "EB.BREAK-NO-GROUP"] if f.balls else [])
    return verdict(outcome, (), clauses, f.balls, True)


def apply_break(g, f, v, events):
    """The table after the break: what dropped stays down and the table is open (EB.BREAK-NO-GROUP);
    EB.BREAK-JUMP: jumped balls go into the pockets, the 8 back to the table."""
    if f.stopped_eight:
        common.record_foul(g, f.o, ["interference"], ["GEN.OPPONENT"], events)
    g["phase"] = "play"
    g["table_open"] = True
    common.take_down(g, f.balls)
    common.announce_pocketed(g, f.p, f.balls, ["EB.BREAK-NO-GROUP"], events)
    if f.spotted:
        _respot(g, f.spotted, ["GEN.POCKETED"], events)
    common.take_down(g, f.jumped)
    if v.outcome == "EB.FOUL-BIH":
        _break_interference(g, f, events)
        return
    if eight_returns_on_break(f):
        _respot(g, [8], ["EB.BREAK-JUMP" if f.jumped else "EB.BREAK-ILLEGAL", "EB.STAY-DOWN"], events)
    if 8 in f.jumped:
        _respot(g, [8], ["EB.BREAK-JUMP"], events)
    _BREAK_STEPS[v.outcome](g, f, v, events)


def _break_interference(g, f, events):
    """GEN.OPPONENT: the opponent's foul; the position is restored, so an 8 that dropped returns
    (EB.STAY-DOWN), and the breaker plays on in hand."""
    if 8 in f.balls or 8 in f.jumped:
        _respot(g, [8], ["GEN.OPPONENT", "EB.STAY-DOWN"], events)
    common.record_foul(g, f.o, ["interference"], ["GEN.OPPONENT"], events)
    common.give_ball_in_hand(g, f.p, "table", ["GEN.OPPONENT", "EB.FOUL-BIH"], events)


def _break_eight_and_foul(g, f, v, events):
    """EB.BREAK-8-SCRATCH: a violation; the opponent re-breaks or spots the 8 and plays from the kitchen."""
    common.record_foul(g, f.p, v.fouls, common.add_new(list(v.clauses), common.foul_clauses(v.fouls)), events)
    common.pass_turn(g, events, ("EB.BREAK-8-SCRATCH", "GEN.TURN"))
    g["x"]["dk"] = DK_BREAK_8_SCRATCH
    _offer(g, f.o, ["rerack", "spot_eight"], v.clauses, events, "eb.offer_break_8_scratch", common.name(g, f.o))


def _break_foul(g, f, v, events):
    """EB.BREAK-SCRATCH (or another foul on the break): balls stay down, the table is open; the
    opponent has the cue ball in hand (from the kitchen after a scratch). An illegal break besides
    gives the opponent the EB.BREAK-ILLEGAL choice."""
    fouls, clauses = break_foul_terms(f)
    common.record_foul(g, f.p, fouls, common.add_new(clauses, common.foul_clauses(fouls)), events)
    where = "kitchen" if f.scratch else "table"
    if not f.legal:
        common.pass_turn(g, events, ("EB.BREAK-ILLEGAL", "GEN.TURN"))
        _offer_illegal(g, f.o, where, events)
    else:
        common.give_ball_in_hand(g, f.o, where, v.clauses, events)


def _break_jump(g, f, v, events):
    """EB.BREAK-JUMP: the opponent plays the position as it lies or from the kitchen."""
    common.record_foul(g, f.p, ["jumped_ball"], ["EB.BREAK-JUMP", "GEN.JUMPED"], events)
    common.pass_turn(g, events, ("EB.BREAK-JUMP", "GEN.TURN"))
    g["ball_in_hand"] = "kitchen"
    common.tell(events, "ball_in_hand", f.o, ["EB.BREAK-JUMP"], "eb.break_jump_bih", common.name(g, f.o),
                extra={"where": "kitchen"})


def _break_eight(g, f, v, events):
    """EB.BREAK-8: the breaker re-breaks or spots the 8 and plays on from where the cue ball lies."""
    g["x"]["dk"] = DK_BREAK_8
    _offer(g, f.p, ["rebreak", "spot_eight"], v.clauses, events, "eb.offer_break_8", common.name(g, f.p))


def _break_illegal(g, f, v, events):
    """EB.BREAK-ILLEGAL: nothing pocketed and fewer than four balls at a rail."""
    common.record_foul(g, f.p, ["illegal_break"], ["EB.BREAK-ILLEGAL", "EB.BREAK-LEGAL"], events)
    common.pass_turn(g, events, ("EB.BREAK-ILLEGAL", "GEN.TURN"))
    _offer_illegal(g, f.o, None, events)


def _break_legal(g, f, v, events):
    """EB.BREAK-CONTINUE / EB.BREAK-NO-GROUP: a ball down lets the breaker shoot again, the table open."""
    if not f.balls:
        common.pass_turn(g, events, ("GEN.TURN",))


_BREAK_STEPS = {"EB.BREAK-8-SCRATCH": _break_eight_and_foul, "EB.BREAK-SCRATCH": _break_foul,
                "EB.BREAK-JUMP": _break_jump, "EB.BREAK-8": _break_eight, "EB.BREAK-ILLEGAL": _break_illegal,
                "EB.BREAK-LEGAL": _break_legal}


def _offer_illegal(g, o, where, events):
    """EB.BREAK-ILLEGAL: accept the table, re-rack and break yourself, or have the breaker break again."""
    g["x"]["dk"] = DK_ILLEGAL_BREAK
    g["x"]["accept_bih"] = where
    _offer(g, o, ["accept", "rerack", "rebreak"], ["EB.BREAK-ILLEGAL"], events, "eb.offer_illegal_break",
           common.name(g, o))


# ------------------------------------------------------------------ a shot after the break
PlayFacts = namedtuple("PlayFacts", ("p", "o", "group", "was_open", "on_8", "spotted", "pocketed", "balls",
                                     "jumped", "jumped_all", "interference", "stopped_eight", "own_fouls",
                                     "fouls", "eight_first", "remaining", "made", "safety", "called",
                                     "eight_pocket", "simultaneous"))


def read_play(g, shot):
    """What the judge reads of a shot after the break. `pocketed` is what dropped; `balls` what
    stays down (an 8 that dropped while the opponent interfered goes back: GEN.OPPONENT).
    EB.OPEN-8-FIRST: on an open table the only wrong first ball is the 8, no foul; GEN.OPPONENT:
    the opponent's foul spoils the shot, the shooter's own are not judged then."""
    p = shot["shooter"]
    group = g["players"][p]["group"]
    was_open = group is None
    pocketed, jumped = _shot_balls(shot)
    interference = "interference" in shot["fouls"]
    stopped = _stopped_eight(shot)
    balls = tuple(b for b in pocketed if b != 8) if interference and not stopped else pocketed
    codes = common.sensor_fouls(shot, True)
    own_fouls = tuple(c for c in codes if not (was_open and c == "wrong_first_contact"))
    return PlayFacts(
        p=p, o=common.other(p), group=group, was_open=was_open, on_8=cleared(g, p),
        spotted=tuple(shot["spotted"]), pocketed=pocketed, balls=balls, jumped=jumped,
        jumped_all=tuple(shot["jumped"]), interference=interference, stopped_eight=stopped,
        own_fouls=own_fouls, fouls=() if interference else own_fouls,
        eight_first=was_open and "wrong_first_contact" in codes and not interference,
        remaining=tuple(group_left(g, group)) if group is not None else (),
        made=tuple(made_balls(shot, balls, was_open, group)), safety=shot["safety"], called=shot["called"],
        eight_pocket=pocket_of(shot, 8),
        simultaneous=bool((shot.get("camera") or {}).get("simultaneous")))


def eight_off_table(f):
    """EB.LOSS 3: the 8 left the table (not when the opponent's interference spoiled the shot)."""
    return 8 in f.jumped and not f.interference


def eight_dropped_on_interference(f):
    """GEN.OPPONENT: the 8 dropped by itself while the opponent touched another ball: the position
    is restored and the 8 goes back."""
    return 8 in f.pocketed and f.interference and not f.stopped_eight


def eight_loss(f, fouls):
    """EB.LOSS for an 8 that is down: (LOSS_*, message key, args), or None when it wins (EB.CONTINUE)."""
    if fouls:
        return LOSS_8_ON_FOUL, "eb.loss_on_foul"
    if not f.on_8:
        if f.remaining and not [b for b in f.remaining if b not in f.balls]:
            return LOSS_8_WITH_LAST, "eb.loss_with_last"
        return LOSS_8_EARLY, "eb.loss_early"
    if f.safety:
        return LOSS_8_WRONG_POCKET, "eb.loss_on_safety"
    c = f.called
    where = POCKETS[f.eight_pocket] if f.eight_pocket is not None else None
    if c and ((c.get("ball") is not None and c["ball"] != 8) or
              (c.get("pocket") is not None and c["pocket"] != where)):
        return LOSS_8_WRONG_POCKET, "eb.loss_wrong_pocket", where
    return None


def eight_down_fouls(f):
    """The shooter's own fouls on a shot that put the 8 down (the 8 the opponent stopped is judged
    with them)."""
    return f.own_fouls if f.interference else f.fouls


def is_turn_over(f):
    """GEN.TURN: the inning ends unless a legal ball was made (EB.CONTINUE) or the opponent fouled."""
    return not f.made and not f.interference


def new_group(f):
    """EB.CLOSE: the balls made on an open table give their group if they are all of one; None
    when they are of both (the table stays open)."""
    groups = []
    for b in f.made:
        common.add_new(groups, [group_of(b)])
    return groups[0] if len(groups) == 1 else None


def play_outcome(f):
    """Which rule judges the shot, in order: the 8 off the table, the 8 down, a foul, the 8 first
    on an open table, or a legal shot."""
    if eight_off_table(f):
        return "eight_off_table"
    if 8 in f.balls:
        return "eight_down"
    if f.fouls:
        return "foul"
    if f.eight_first:
        return "open_eight_first"
    return "legal"


def decide_play(f):
    """A shot's verdict after the break, from its facts alone."""
    outcome = play_outcome(f)
    if outcome == "eight_off_table":
        return verdict(outcome, f.fouls, _lose_clauses(["GEN.JUMPED"]))
    if outcome == "eight_down":
        fouls = eight_down_fouls(f)
        opp = ["GEN.OPPONENT"] if f.interference else []
        if eight_loss(f, fouls) is None:
            return verdict(outcome, ["interference"] if f.interference else [], ["EB.CONTINUE", "EB.GROUPS"] + opp,
                           [8])
        return verdict(outcome, (["interference"] if f.interference else []) + list(fouls), _lose_clauses(opp))
    if outcome == "foul":
        clauses = common.add_new(_foul_clauses(f.fouls, f.was_open, f.on_8, f.balls, f.jumped_all), ["EB.FOUL-BIH"])
        return verdict(outcome, f.fouls, common.add_new(clauses, _stay_down(f)))
    if outcome == "open_eight_first":
        return verdict(outcome, (), ["EB.OPEN-8-FIRST", "EB.OPEN"] + (["EB.OPEN-STAY"] if f.balls else []))
    return _decide_legal(f)


def _decide_legal(f):
    """A shot with no foul of the shooter's.

    No `wrong_first_contact` entered: the first contact was legal. A hit on own and opponent
    ball too close to tell apart goes the shooter's way (EB.SIMULTANEOUS), and a combination
    off own ball through the 8 is allowed (EB.8-COMBO), so both simply play on. The camera names
    the clause when it saw own and opponent ball hit too close together (rules/camera.simultaneous).
    """
    clauses = ["EB.SIMULTANEOUS"] if f.simultaneous else []
    group = f.group
    if f.was_open and f.made:
        group = new_group(f)
        clauses.append("EB.CLOSE" if group is not None else "EB.OPEN")
    if group is not None:
        credited = [b for b in f.balls if group_of(b) == group] if f.made else []
    else:
        credited = f.made
    if f.interference:
        return verdict("legal", ["interference"], common.add_new(clauses, ["GEN.OPPONENT"]), credited)
    if not is_turn_over(f):
        clauses = common.add_new(clauses, ["EB.CONTINUE"])
        if [b for b in f.balls if b not in f.made]:
            clauses.append("EB.EXTRA")
            if not f.was_open and [b for b in f.balls if group_of(b) == other_group(group)]:
                clauses = common.add_new(clauses, ["EB.SIMULTANEOUS"])   # own and opponent ball hit: the doubt is the shooter's
        if f.called is None:
            clauses += ["EB.CALL", "EB.SAFETY"]    # an obvious ball made without a safety: shoot again
        return verdict("legal", (), clauses, credited)
    if f.safety:
        clauses.append("EB.SAFETY")
    return verdict("legal", (), common.add_new(clauses, _stay_down(f)) if f.balls else clauses, credited)


def _stay_down(f):
    """EB.STAY-DOWN (EB.OPEN-STAY on an open table): balls pocketed on a shot that ends the inning."""
    if not f.balls:
        return []
    return ["EB.STAY-DOWN"] + (["EB.OPEN-STAY"] if f.was_open else [])


def _lose_clauses(clauses):
    return common.add_new(["EB.LOSS"], clauses)


def apply_play(g, f, v, events):
    """The table after the shot: every pocketed object ball stays down (EB.STAY-DOWN), jumped ones
    go on the foot spot (EB.JUMP), then the verdict's own step."""
    common.take_down(g, f.pocketed)
    if f.pocketed:
        common.announce_pocketed(g, f.p, f.pocketed, ["GEN.POCKETED"], events)
    if f.spotted:
        _respot(g, f.spotted, ["GEN.POCKETED"], events)
    if v.outcome == "eight_off_table":
        _eight_off_table(g, f, events)
        return
    if eight_dropped_on_interference(f):
        _respot(g, [8], ["EB.STAY-DOWN", "GEN.OPPONENT"], events)
    if v.outcome == "eight_down":
        _eight_down(g, f, events)
        return
    if f.jumped:
        # EB.JUMP: jumped object balls go on the foot spot (or down the long string behind it).
        _respot(g, f.jumped, ["EB.JUMP", "GEN.JUMPED-OBJECT"], events, "foot spot (or the long string behind it)")
    g["phase"] = "play"
    _PLAY_STEPS[v.outcome](g, f, events)


def _eight_off_table(g, f, events):
    """EB.LOSS 3: the 8 off the table loses, whatever else happened."""
    if f.fouls:
        common.record_foul(g, f.p, f.fouls, _foul_clauses(f.fouls, f.was_open, False, f.pocketed, f.jumped_all),
                           events)
    common.take_down(g, [8])      # it is on the floor, not on the table
    _lose(g, f.p, LOSS_8_OFF_TABLE, ["GEN.JUMPED"], events, "eb.loss_jumped")


def _eight_down(g, f, events):
    """The 8 is down: the win (EB.CONTINUE) or one of EB.LOSS 1, 2, 4, 5.

    GEN.OPPONENT: «Если соперник намеренно препятствует движению шара по направлению к лузе,
    шар считается сыгранным»: an 8 the opponent stopped is judged as if it dropped in the pocket
    it was heading to, with the shooter's own fouls; the opponent's foul is recorded besides.
    """
    fouls = eight_down_fouls(f)
    opp = ["GEN.OPPONENT"] if f.interference else []
    if f.interference:
        common.record_foul(g, f.o, ["interference"], ["GEN.OPPONENT"], events)
    if fouls:
        common.record_foul(g, f.p, fouls, _foul_clauses(fouls, f.was_open, False, f.balls, f.jumped_all), events)
    why = eight_loss(f, fouls)
    if why is None:
        common.game_over(g, f.p, ["EB.CONTINUE", "EB.GROUPS", "EB.CALL"] + opp, events, *say("eb.win"))
    else:
        _lose(g, f.p, why[0], opp, events, why[1], *why[2:])


def _play_foul(g, f, events):
    """EB.FOULS, EB.FOUL-BIH: the opponent has the cue ball in hand anywhere; balls stay down."""
    common.record_foul(g, f.p, f.fouls, _foul_clauses(f.fouls, f.was_open, f.on_8, f.balls, f.jumped_all), events)
    common.give_ball_in_hand(g, f.o, "table", ["EB.FOUL-BIH"], events)


def _open_eight_first(g, f, events):
    """EB.OPEN-8-FIRST: the 8 hit first on an open table: no group, the inning ends, no foul."""
    common.pass_turn(g, events, ("EB.OPEN-8-FIRST", "GEN.TURN"))


def _play_legal(g, f, events):
    """A legal shot: the group closes (EB.CLOSE), the opponent's foul gives the cue ball in hand
    (GEN.OPPONENT), a legal ball made plays on (EB.CONTINUE), else the turn passes."""
    if f.was_open and f.made:
        group = new_group(f)
        if group is not None:
            _close(g, f.p, group, events)
        else:
            common.warn(g, f.p, ["EB.OPEN", "EB.CALL"], *say("eb.both_groups"), events=events)
    if f.interference:
        common.record_foul(g, f.o, ["interference"], ["GEN.OPPONENT"], events)
        common.give_ball_in_hand(g, f.p, "table", ["GEN.OPPONENT", "EB.FOUL-BIH"], events)
    elif is_turn_over(f):
        common.pass_turn(g, events, ("EB.SAFETY", "GEN.TURN") if f.safety else ("GEN.TURN",))


_PLAY_STEPS = {"foul": _play_foul, "open_eight_first": _open_eight_first, "legal": _play_legal}


def made_balls(shot, balls, was_open, group):
    """The balls that count for a continuation: legal balls as called (or obvious, EB.CALL)."""
    if shot["safety"]:
        return []
    if was_open:
        legal = [b for b in balls if b != 8]
    else:
        legal = [b for b in balls if group_of(b) == group]
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
    en, ru = say_each("eb.group", (common.name(g, p), en, common.name(g, o), en2),
                      (common.name(g, p), ru, common.name(g, o), ru2))
    events.append(event("group", p, ["EB.CLOSE", "EB.GROUPS"], en, ru, {"group": grp}))


def _foul_clauses(codes, was_open, on_8, balls, jumped=()):
    cl = common.add_new(["EB.FOULS"], common.foul_clauses(codes))
    if "no_rail" in codes or "no_contact" in codes or "wrong_first_contact" in codes:
        cl.append("EB.LEGAL-SHOT")
    if "wrong_first_contact" in codes and not was_open:
        cl.append("EB.CLOSED-FIRST")
        if not on_8:
            cl.append("EB.8-COMBO")     # the 8 (or any ball) off a wrong first contact is no combination
    if "jumped_ball" in codes:
        # EB.JUMP is the object balls' rule; the cue ball off the table is GEN.JUMPED-CUE.
        common.add_new(cl, (["EB.JUMP"] if [b for b in jumped if b != 0] else []) +
                       (["GEN.JUMPED-CUE"] if 0 in jumped else []))
    if "kitchen" in codes:
        common.add_new(cl, ["EB.KITCHEN", "GEN.KITCHEN-ONLY-OUT"])
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
        breaker = chooser if dk == DK_BREAK_8 else common.other(chooser)
        _rerack(g, breaker, [_DK_CLAUSE.get(dk, "EB.BREAK-ILLEGAL")], events)
    elif option == "spot_eight":
        common.spot(g, [8], [_DK_CLAUSE.get(dk, "EB.BREAK-8")], events)
        g["shooter"] = chooser
        if dk == DK_BREAK_8_SCRATCH:
            common.give_ball_in_hand(g, chooser, "kitchen", ["EB.BREAK-8-SCRATCH"], events)
    elif option == "accept":
        g["shooter"] = chooser
        where = g["x"].get("accept_bih")
        if where:
            common.give_ball_in_hand(g, chooser, where, ["EB.BREAK-ILLEGAL"], events)
        else:
            common.tell(events, "turn", chooser, ["EB.BREAK-ILLEGAL"], "eb.accept", common.name(g, chooser))
    g["x"]["accept_bih"] = None
