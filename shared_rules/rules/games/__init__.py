"""One module per game, all with the interface of games/base.py."""

GAMES = ("eight-ball", "nine-ball", "straight-pool")

_modules = {}


def module_for(game):
    m = _modules.get(game)
    if m is None:
        if game == "eight-ball":
            from shared_rules.rules.games import eight_ball as m
        elif game == "nine-ball":
            from shared_rules.rules.games import nine_ball as m
        elif game == "straight-pool":
            from shared_rules.rules.games import straight_pool as m
        else:
            raise ValueError("unknown game")
        _modules[game] = m
    return m
