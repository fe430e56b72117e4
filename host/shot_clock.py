"""Shot clock (GEN.SLOW-PLAY): a one-minute limit to prepare and play a shot.

Its own part of the daemon, with its own state key: in the published state,
`state["shot_clock"]` is always this clock (the dict below) or null. The referee's own
state names the game's setting there (seconds or null): the daemon reads it, then puts the
clock in its place.

The rule lets the referee impose it, so it is a setting. It runs only while a shot is due:
from the end of the previous shot, which is when the engine judged it (the table went still),
restarting with every judged shot. No clock runs (null) before a rack's break (the players rack
and lag: the break phase), between racks, once the match is over, while a decision or an input
(an identity, the lag) is pending, or while the link to the sensors is down; it starts afresh
when play resumes. A new game restarts it; the next rack of a match keeps the game's setting.

Value, as put in `state["shot_clock"]`:
`{"limit_s": 60, "started_wall": 1764480000.0, "shot": 17, "rack": 2, "match": 5}`; `shot`,
`rack` and `match` are the judged-shot count, the rack and the match it started at, so a new
judged shot (or an undo, a new rack or a new game) restarts it without remembering the previous
state. Once the time is up it also says `"expired": true` (the daemon publishes the state again,
with the `warning` event).
"""

from shared_rules.rules.events import event
from shared_rules.rules.messages import say

LIMIT_S = 60


def _paused(state):
    """No shot is due: racking and the lag (the break phase), a rack or the match over, a choice
    or an input pending, or the table's sensors unheard."""
    if state.get("phase") in ("break", "over", "decision") or state.get("winner") is not None:
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
    shot, rack = _count(state.get("shot")), _count(state.get("rack"))
    match = state.get("match")
    match = _count(match.get("id")) if isinstance(match, dict) else None
    if (isinstance(prev, dict) and prev.get("shot") == shot and prev.get("rack") == rack
            and prev.get("match") == match and prev.get("limit_s") == limit_s
            and isinstance(prev.get("started_wall"), (int, float))):
        return prev
    return {"limit_s": limit_s, "started_wall": float(now), "shot": shot, "rack": rack, "match": match}


def _count(v):
    return v if isinstance(v, int) and not isinstance(v, bool) else 0


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
        self.warned = None          # (shot, started_wall) of the clock last said to have run out

    def update(self, state, events, now):
        on, limit = setting(state, self.enabled, self.limit_s)
        self.value = next_shot_clock(self.value, state, events, now, on, limit)
        return self.value

    def time_up(self, state, now):
        """The `warning` event for the shooter, once, when the clock of `state` has run out; else None."""
        sc = state and state.get("shot_clock")
        if not sc or state.get("shot_open") or not expired(sc, now):
            return None
        key = (sc.get("shot"), sc.get("started_wall"))
        if key == self.warned:
            return None
        self.warned = key
        if self.value is not None and self.value.get("started_wall") == sc.get("started_wall"):
            self.value = dict(self.value, expired=True)      # the state says so until the next shot
        p = state.get("shooter")
        who = state["players"][p]["name"] if p is not None and state.get("players") else ""
        en, ru = say("shot_clock_up", who)
        return event("warning", p, ["GEN.SLOW-PLAY"], en, ru, {"shot_clock": True})
