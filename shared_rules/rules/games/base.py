"""What every game module provides, with the behaviour most games share.

A game module exposes: SETUP_CLAUSE, CALL_CLAUSE, SAFETY_CLAUSE, setup, check_call,
check_safety, check_push_out, resolve, guess, judge, choose, jump_is_foul,
extra_state. Modules import the defaults they keep from here.

check_call, check_safety and check_push_out return None when the declaration is allowed, else
why not: a refusal (messages `refused.<code>`) as (code,) or (code, English args[, Russian args]).

judge(g, shot, settings, events) mutates the game dict `g` and returns the
verdict: {"fouls": [codes], "clauses": [IDs], "credited": [balls scored for
the shooter], "legal_break": bool (breaks only), "run": points for the run
(optional; defaults to len(credited))}.
"""
from shared_rules.link.names import POCKETS
from shared_rules.rules.messages import say


def check_call(g, ball, pocket):
    return None


def check_safety(g):
    return None


def check_push_out(g):
    return ("push_out_only_nine_ball",)


def jump_is_foul(g, shot, ball):
    return True


def extra_state(g):
    return {}


def unknown_drops(shot):
    return [d for d in shot["pocketed"] if d[0] is None]


def resolve_called(shot):
    """A single unknown ball in the called pocket after a call is the called ball."""
    c = shot["called"]
    if not c or c.get("ball") is None or c.get("pocket") is None:
        return
    if c["ball"] in [d[0] for d in shot["pocketed"]]:
        return
    pocket = POCKETS.index(c["pocket"])
    here = [d for d in shot["pocketed"] if d[1] == pocket]
    if len(here) == 1 and here[0][0] is None:
        here[0][0] = c["ball"]


def needs_for(shot):
    out = []
    for d in unknown_drops(shot):
        where = POCKETS[d[1]] if d[1] is not None else "?"
        en, ru = say("identify", where)
        out.append({"cmd": "identify", "pocket": where, "text": {"en": en, "ru": ru}})
    return out


def resolve(g, shot, settings):
    """Fill what identities can be known; list what must still be asked (CONTRACT `needs`)."""
    resolve_called(shot)
    return needs_for(shot)


def guess(g, shot):
    """Best guess for unknown balls: the lowest balls still on the table not already counted."""
    taken = [d[0] for d in shot["pocketed"] if d[0] is not None]
    for d in shot["pocketed"]:
        if d[0] is None:
            for b in g["on_table"]:
                if b not in taken:
                    d[0] = b
                    taken.append(b)
                    break
            else:
                d[0] = 0
