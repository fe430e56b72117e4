"""Which table is free and which match goes to it. Pure, over the tables' retained MQTT messages.

A table is free when its daemon is online, its board is heard, and its table holds no game in
play: no game yet, a finished match (a winner), or a new game nobody has shot in yet. A table
with a match assigned is never free, whatever it shows (the match is being set up, played,
or waits for its record).
"""
import re

TABLE_ID = re.compile(r"^[A-Za-z0-9_-]{1,32}$")     # a table's id in its topics (`--tables`, a move)


def is_free(view):
    """view: {"status": "online" | "offline" | None, "state": table state or None}."""
    if view.get("status") != "online":
        return False
    s = view.get("state")
    if not isinstance(s, dict):
        return True
    if (s.get("link") or {}).get("state") not in (None, "up"):
        return False
    if s.get("winner") is not None:
        return True
    return s.get("shot") == 0 and s.get("rack") in (None, 1)


def shows_match(state, names):
    """True if the table's state is a game between these two names (in either order)."""
    if not isinstance(state, dict) or not isinstance(state.get("players"), list):
        return False
    got = [p.get("name") for p in state["players"] if isinstance(p, dict)]
    return sorted(got) == sorted(names)


def started(state, names):
    """The table took the match: its state is these players' game."""
    return shows_match(state, names)


def plan(ready, tables, views, busy):
    """[(match, table)]: ready matches (in playing order) onto the tournament's free tables (in
    the order the director listed them). busy: tables with a match assigned."""
    free = [t for t in tables if t not in busy and is_free(views.get(t) or {})]
    return list(zip(ready, free))
