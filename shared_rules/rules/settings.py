"""Match and table settings; the defaults are the seed texts' own behaviour."""
from shared_rules.rules.data import clone

DEFAULTS = {
    # NB.MISS-OPTION: on a miss of the lowest ball the opponent may make the offender shoot again.
    "miss_option": False,
    # SP.STRICT-JUMP: in straight pool any ball leaving the table is a foul.
    "strict_jump": False,
    # GEN.SLOW-PLAY: seconds a player has to prepare and play a shot; None is no limit.
    "shot_clock": None,
    # SP.TARGET: points that win a straight-pool game.
    "target": 150,
    # Games needed to win the match in eight-ball and nine-ball; breaks alternate.
    "race_to": 1,
    # GEN.HANGING: a ball dropping later than this after the shot ended is put back.
    "hanging_s": 5,
    # Tables without a motion sensor: a gap this long between sensor events ends a shot.
    "quiet_s": 3,
    # Shots that undo can take back (bounded so the board's heap holds the history).
    "undo_depth": 10,
    # Legal-break estimator parameters (rules/break_estimator.py); None is its calibrated default.
    "break_estimator": None,
}


def merge(given):
    s = clone(DEFAULTS)
    if isinstance(given, dict):
        for k in given:
            if k in DEFAULTS:
                s[k] = clone(given[k])
    return s
