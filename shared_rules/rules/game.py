"""The state of one game at the table, with its declared shape.

FIELDS are CONTRACT section 2's state fields plus the engine's own (`settings`, `x`, the
game module's own state); `new_game_state` is the one place a game's state is made, so the
shape is declared here and nowhere else. It is a plain dict, not a class with __slots__: on
MicroPython __slots__ is ignored and an instance's attribute map grows by rehashing as its
fields are set, while a dict literal is allocated once at its size; with ten copies kept for
undo and one per journal entry for the safety net, the class version needed more than the
192K heap of the board-sized test run (measured: it failed where the dict passed).
"""

FIELDS = ("game", "players", "shooter", "breaker", "phase", "ball_in_hand", "table_open", "on_table",
          "decision", "needs", "winner", "game_winner", "shot", "last_shot", "called", "safety",
          "push_out", "last_foul", "warning", "run", "rack", "race_to", "target", "settings", "stats", "x")


def new_game_state(game, names, breaker, settings, race_to, target):
    """A fresh game: who plays, whose turn, what is on the table, what is pending."""
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
        "race_to": race_to, "target": target,
        "settings": settings,          # the match's settings; never changed during the game
        "stats": [{"pocketed": 0, "fouls": 0, "breaks": 0, "legal_breaks": 0, "high_run": 0} for _ in names],
        "x": {},                       # the game module's own state
    }
