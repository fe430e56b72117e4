"""A shot's verdict: what the rules decided about it, before anything on the table changed.

Each game judges a shot in three steps (pooltool's ruleset does the same: a frozen record of
the shot, then advance the game): read the shot once into an immutable facts record, decide
a Verdict from those facts alone, then apply the verdict to the game state, telling the
table what happened. Records are namedtuples, immutable on CPython and MicroPython alike.
"""
from collections import namedtuple

# outcome: the name of the rule step that applies the verdict (a clause ID where one decides it)
# fouls: the shot's foul codes (the opponent's `interference` included)
# clauses: the clause IDs that decided it, for `last_shot`
# credited: the object balls scored for the shooter; run: what the shot adds to the shooter's run
# legal_break: a break that met its game's legal-break clause (False for any other shot)
Verdict = namedtuple("Verdict", ("outcome", "fouls", "clauses", "credited", "legal_break", "run"))


def verdict(outcome, fouls=(), clauses=(), credited=(), legal_break=False):
    """A Verdict with its lists made tuples: nothing can change it once decided."""
    return Verdict(outcome, tuple(fouls), tuple(clauses), tuple(credited), bool(legal_break), len(credited))


def with_opponent_foul(v):
    """GEN.OPPONENT: the same verdict, with the opponent's `interference` foul and its clause."""
    clauses = list(v.clauses)
    if "GEN.OPPONENT" not in clauses:
        clauses.append("GEN.OPPONENT")
    return Verdict(v.outcome, ("interference",) + v.fouls, tuple(clauses), v.credited, v.legal_break, v.run)
