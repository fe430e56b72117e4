"""A match of racks: who breaks the next rack, and what the state says about the match.

The seed's rule is the general rules' (GEN.LAG), the same for eight-ball, nine-ball and 14.1
(neither game's own text says otherwise: nine-ball's «Кто из игроков выполняет начальный удар,
определяется розыгрышем» and 14.1's SP.BREAK-CHOICE name the lag for the first break only):
«В последующих партиях принято соблюдать очередность. Прежде чем начать решающую партию,
производится еще один розыгрыш.» The breaks alternate (the player who did not break the rack
just won breaks the next), and the deciding rack (hill-hill: both one rack from the race) is
lagged for. The house rule `winner_breaks` (a named setting, off by default) has the winner of
each rack break the next one, the deciding rack too.
"""
from shared_rules.rules import common
from shared_rules.rules.data import clone

ALTERNATE = "alternate"      # the seed: breaks alternate
LAG = "lag"                  # the seed: the deciding rack is lagged for (player None until the lag)
WINNER_BREAKS = "winner_breaks"   # the house rule


def races(g):
    """Each player's race [a, b]: a handicapped match gives the players races of their own
    (`new_game` `"race_to": [a, b]`); a game without them (an old head) races both to `race_to`."""
    each = g.get("race_to_each")
    if isinstance(each, list) and len(each) == 2:
        return list(each)
    return [g["race_to"], g["race_to"]]


def is_hill_hill(score, race):
    """Both players one rack from winning their race (`race`: one for both, or each player's),
    in a match longer than one rack: the deciding rack."""
    each = list(race) if isinstance(race, (list, tuple)) else [race, race]
    return (max(each) > 1 and len(score) == 2 and len(each) == 2 and
            score[0] == each[0] - 1 and score[1] == each[1] - 1)


def next_breaker(g, winner, winner_breaks):
    """(who is marked to shoot while the next rack waits, `next_break`) after `winner` won the
    rack of game `g`, whose `match_score` already counts it."""
    rack = g["rack"] + 1
    if winner_breaks:
        return winner, {"rack": rack, "player": winner, "rule": WINNER_BREAKS}
    alternate = common.other(g["breaker"])
    if is_hill_hill(g["match_score"], races(g)):
        return alternate, {"rack": rack, "player": None, "rule": LAG}
    return alternate, {"rack": rack, "player": alternate, "rule": ALTERNATE}


def lagged(g, breaker):
    """The next rack's break, decided by the lag between racks."""
    return {"rack": g["rack"] + 1, "player": breaker, "rule": LAG}


def between_racks(g):
    """A rack is over and the match goes on (the phase stays `over`: that rack's game is over)."""
    return g["phase"] == "over" and g["winner"] is None


def lag_pending(g):
    """The players are asked to lag for the break (new_game `lag`, or the deciding rack)."""
    return any(n.get("cmd") == "lag" for n in g["needs"])


def _waiting_break(g):
    """`next_break` between racks (a game from an old head has none: it is worked out)."""
    nb = g.get("next_break")
    if nb is not None:
        return clone(nb)
    lag = lag_pending(g)
    return {"rack": g["rack"] + 1, "player": None if lag else g["shooter"], "rule": LAG if lag else ALTERNATE}


def match_score(g):
    """Racks won in the match (a game from an old head has no count: eight-ball's and nine-ball's
    scores are it; a straight-pool game was then a match of one game)."""
    if "match_score" in g:
        return g["match_score"]
    if g["game"] != "straight-pool":
        return [p["score"] for p in g["players"]]
    return [0 for _ in g["players"]]


def match_state(g):
    """The state's fields about the match as a whole (docs/mqtt.md)."""
    score = match_score(g)
    between = between_racks(g)
    return {"match_score": list(score), "racks": clone(g.get("racks") or []),
            "between_racks": between, "next_break": _waiting_break(g) if between else None,
            "hill_hill": g["winner"] is None and is_hill_hill(score, races(g)),
            "race_to_each": races(g)}
