"""The state of one game at the table, with its declared shape.

FIELDS are CONTRACT section 2's state fields plus the engine's own (`settings`, `x`, the
game module's own state); `new_game_state` is the one place a game's state is made, so the
shape is declared here and nowhere else. It is plain data (a dict of dicts, lists and
scalars) because it is what undo keeps, what a journal head writes and what `state()` shows:
`data.clone` copies it and JSON carries it as it is.
"""

FIELDS = ("game", "players", "shooter", "breaker", "phase", "ball_in_hand", "table_open", "on_table",
          "decision", "needs", "winner", "game_winner", "shot", "last_shot", "called", "safety",
          "push_out", "last_foul", "warning", "run", "rack", "race_to", "target", "race_to_each", "settings", "stats", "x",
          "break_and_runs", "visited", "won_wall", "match_score", "racks", "next_break", "innings", "inning_of")


def new_game_state(game, names, breaker, settings, race_to, target):
    """A fresh game: who plays, whose turn, what is on the table, what is pending. `race_to` is
    the games both need to win the match, or each player's own [a, b] (a handicap): `race_to`
    then keeps the longer one, so a reader of one number still sees how long the match can go."""
    each = list(race_to) if isinstance(race_to, (list, tuple)) else [race_to, race_to]
    return {
        "game": game,
        "players": [{"name": n, "score": 0, "group": None, "fouls": 0} for n in names],
        "shooter": breaker, "breaker": breaker,
        "phase": "break",              # break | play | decision | over
        "ball_in_hand": "kitchen",     # None | kitchen | table
        "table_open": False,
        "on_table": [],
        "decision": None,              # {"player", "options", "clauses"} while a choice is pending
        "needs": [],                   # inputs the referee waits for (CONTRACT `needs`)
        "winner": None,                # the match winner
        "game_winner": None,           # the winner of this rack's game
        "shot": 0, "last_shot": None,
        "called": None,                # {"ball", "pocket"} for the next shot
        "safety": False, "push_out": False,
        "last_foul": None, "warning": None, "run": 0, "rack": 1,
        "race_to": max(each), "target": target,
        "race_to_each": each,          # each player's race (equal unless handicapped)
        "settings": settings,          # the match's settings; never changed during the game
        "stats": [{"pocketed": 0, "fouls": 0, "breaks": 0, "legal_breaks": 0, "high_run": 0} for _ in names],
        "x": {},                       # the game module's own state
        "break_and_runs": [0 for _ in names],   # racks won by their breaker before the opponent's turn
        "visited": False,              # the breaker's opponent has come to the table in this rack
        "won_wall": None,              # the `wall` of the entry that won the match (a label, never read by a rule)
        "match_score": [0 for _ in names],     # racks (games) won in the match, in every game
        "racks": [],                   # the match's finished racks: {"rack", "winner", "breaker", "shots", "break_and_run"}
        "next_break": None,            # between racks: {"rack", "player" (None: a lag decides), "rule"}
        "innings": [0 for _ in names],  # visits to the table in the match, per player
        "inning_of": None,             # whose inning (visit to the table) the last judged shot was in
    }
