"""Match and table settings; the defaults are the seed texts' own behaviour.

A setting that departs from the seed is a named house rule (docs/referee.md lists each with the
clause it changes); CHOICES says which values a `new_game` body may give it.
"""
from shared_rules.rules.data import clone

DEFAULTS = {
    # NB.MISS-OPTION: on a miss of the lowest ball the opponent may make the offender shoot again.
    "miss_option": False,
    # SP.STRICT-JUMP: in straight pool any ball leaving the table is a foul.
    "strict_jump": False,
    # SP.BREAK: an opening break with neither a called ball made nor a safe break costs two points
    # and the opponent plays on ("penalty", the seed); "wpa": the opponent also chooses to accept
    # the table or make the breaker break again (WPA rules).
    "sp_illegal_break": "penalty",
    # SP.CALL: in straight pool a ball counts only if it was called; a shot without a call is a
    # safety (true, the seed). false: an uncalled ball is an obvious shot and scores.
    "call_required": True,
    # GEN.SLOW-PLAY: seconds a player has to prepare and play a shot; None is no limit.
    "shot_clock": None,
    # SP.TARGET: points that win a straight-pool game.
    "target": 150,
    # Games needed to win the match (in 14.1: games to `target` points each). Who breaks each next
    # rack: GEN.LAG, «В последующих партиях принято соблюдать очередность. Прежде чем начать
    # решающую партию, производится еще один розыгрыш» (breaks alternate, the deciding rack is
    # lagged for).
    "race_to": 1,
    # House rule: the winner of a rack breaks the next one (and the deciding rack is not lagged
    # for). False is the seed's rule above.
    "winner_breaks": False,
    # GEN.HANGING: a ball dropping later than this after the shot ended is put back.
    "hanging_s": 5,
    # Tables without a motion sensor: a gap this long between sensor events ends a shot.
    "quiet_s": 3,
    # Shots that undo can take back, one after the other (the oldest kept shot is forgotten first).
    "undo_depth": 10,
    # Legal-break estimator parameters (rules/break_estimator.py); None is its calibrated default.
    "break_estimator": None,
}

# House-rule settings a `new_game` body may set, with their allowed values.
CHOICES = {
    "miss_option": (False, True),
    "strict_jump": (False, True),
    "call_required": (True, False),
    "sp_illegal_break": ("penalty", "wpa"),
    "winner_breaks": (False, True),
}

# The settings of a match a `new_game` body may give, as the state shows them (`settings`).
MATCH_KEYS = ("shot_clock", "miss_option", "strict_jump", "call_required", "sp_illegal_break", "winner_breaks")


def merge(given):
    s = clone(DEFAULTS)
    if isinstance(given, dict):
        for k in given:
            if k in DEFAULTS:
                s[k] = clone(given[k])
    return s
