"""How long each match is: race per round, the final's race, points for straight pool, and
handicaps by rating gap. Pure."""

GAMES = ("eight-ball", "nine-ball", "straight-pool")
MAX_RACE = 99          # the referee's own bounds (shared_rules/rules/commands.py)
MAX_TARGET = 1000
HANDICAP_STEP = 100    # rating points per game of handicap (--handicap without a number)


def race_for(match, race, race_final=None, per_round=None):
    """Games (points in straight pool) a match is played to: the round's own race if the
    tournament names one (per_round = {"W1": 3, "L2": 2, "GF": 7}), else the final's race for a
    deciding match, else the tournament's race."""
    per_round = per_round or {}
    if match["round"] in per_round:
        return int(per_round[match["round"]])
    if match.get("final") and race_final:
        return int(race_final)
    return int(race)


def check(game, race):
    """The race a table will take for this game, or ValueError in words."""
    if game not in GAMES:
        raise ValueError("game must be one of %s" % ", ".join(GAMES))
    top = MAX_TARGET if game == "straight-pool" else MAX_RACE
    if not isinstance(race, int) or not 1 <= race <= top:
        what = "points" if game == "straight-pool" else "games"
        raise ValueError("race must be 1 to %d %s for %s" % (top, what, game))
    return race


def new_game_body(game, names, race, breaker=0):
    """The `new_game` command a table takes for this match (docs/mqtt.md): the race goes in
    `race_to` (each player's, [a, b], when handicapped), or in `target` for straight pool."""
    body = {"game": game, "players": list(names), "breaker": breaker}
    body["target" if game == "straight-pool" else "race_to"] = list(race) if isinstance(race, (list, tuple)) else race
    return body


def one_race(race):
    """A race as the tables compare it: two equal races are one number."""
    if isinstance(race, (list, tuple)) and len(race) == 2:
        return race[0] if race[0] == race[1] else [race[0], race[1]]
    return race


def check_handicap(game, step):
    """The handicap step a tournament may use, or ValueError in words: rating points per game
    off the weaker player's race (racks only: a 14.1 race is points, which no table splits)."""
    if game == "straight-pool":
        raise ValueError("a handicap needs a race of racks (eight-ball or nine-ball), not straight pool")
    if not isinstance(step, int) or isinstance(step, bool) or not 10 <= step <= 1000:
        raise ValueError("--handicap takes 10 to 1000 rating points per game")
    return step


def handicap(race, rating_a, rating_b, step=100, most=None):
    """Races (for a, for b) with a handicap by rating gap: the weaker player needs one game less
    for every `step` rating points between them (never below 1, at most `most` games off).
    The director chooses it per tournament (`--handicap STEP`); the table gets both races in
    its `new_game` (`"race_to": [a, b]`, docs/mqtt.md)."""
    gap = abs(float(rating_a) - float(rating_b))
    off = int(gap // step)
    if most is not None:
        off = min(off, most)
    off = min(off, race - 1)
    return (race, race - off) if rating_a >= rating_b else (race - off, race)
