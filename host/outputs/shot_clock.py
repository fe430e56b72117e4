"""Shot clock (GEN.SLOW-PLAY): a one-minute limit to prepare and play a shot.

The rule lets the referee impose it, so it is a setting. The clock runs from
the end of the previous shot, which is when the engine judged it (the table
went still), and restarts with every judged shot. It stops (null) while the
game is over, a decision or an input is pending, or the link to the sensors
is down, and starts afresh when play resumes.

Value, as put in `state["shot_clock"]`:
`{"limit_s": 60, "started_wall": 1764480000.0, "shot": 17}`; `shot` is the
judged-shot count it started at, so a new judged shot (or an undo, or a new
game) restarts it without remembering the previous state.
"""

LIMIT_S = 60


def _paused(state):
    if state.get("phase") in ("over", "decision") or state.get("winner") is not None:
        return True
    if state.get("decision") or state.get("needs"):
        return True
    link = state.get("link")
    return isinstance(link, dict) and link.get("state") == "down"


def next_shot_clock(prev, state, events, now, enabled=True, limit_s=LIMIT_S):
    """The shot clock after a change of state.

    prev: the previous value (or None); state: the new table state; events:
    the events of this change (unused today: the shot count says all);
    now: wall time of the change (Unix seconds; for a replay, the journal
    entry's `wall`). Returns None or the dict described above.
    """
    if not enabled or not isinstance(state, dict) or _paused(state):
        return None
    shot = state.get("shot")
    if not isinstance(shot, int) or isinstance(shot, bool):
        shot = 0
    if (isinstance(prev, dict) and prev.get("shot") == shot
            and prev.get("limit_s") == limit_s
            and isinstance(prev.get("started_wall"), (int, float))):
        return prev
    return {"limit_s": limit_s, "started_wall": float(now), "shot": shot}


def remaining(shot_clock, now):
    """Seconds left (never below 0), or None when there is no clock."""
    if not isinstance(shot_clock, dict):
        return None
    try:
        left = float(shot_clock["limit_s"]) - (float(now) - float(shot_clock["started_wall"]))
    except (KeyError, TypeError, ValueError):
        return None
    return max(0.0, left)


def expired(shot_clock, now):
    """True once the limit has run out (the referee may then warn the shooter)."""
    left = remaining(shot_clock, now)
    return left is not None and left <= 0.0


def setting(state, enabled=False, limit_s=LIMIT_S):
    """(enabled, limit_s) for this state.

    The engine reports the game's setting (`new_game` body `shot_clock`:
    seconds, or null) as `state["shot_clock"]`; a number there turns the
    clock on with that limit. Otherwise the daemon's own setting applies.
    """
    sc = state.get("shot_clock") if isinstance(state, dict) else None
    if isinstance(sc, int) and not isinstance(sc, bool) and sc > 0:
        return True, sc
    return enabled, limit_s


class ShotClock:
    """Keeps the previous value for the daemon:
    `state["shot_clock"] = clock.update(state, events, entry_wall)`."""

    def __init__(self, enabled=False, limit_s=LIMIT_S):
        self.enabled = enabled
        self.limit_s = limit_s
        self.value = None

    def update(self, state, events, now):
        on, limit = setting(state, self.enabled, self.limit_s)
        self.value = next_shot_clock(self.value, state, events, now, on, limit)
        return self.value
