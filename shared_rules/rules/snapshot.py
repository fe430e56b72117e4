"""Referee snapshots: a journal segment starts from one instead of from the table's first game.

Importing this module gives `Referee` its `snapshot()` and `restore(snap)` methods. They
live here, host side, because the board's 192K heap (tests/rules/test_scenarios.py, all
games in one process) has no room left for them in referee.py.

Attributes are taken generically, so one the rules add later is carried without change
here. Objects shared between attributes stay shared: a pending shot or a chosen option's
shot is the very object in the undo history (the rules test it with `is`), so the second
time a dict or list is met it is written as {"$same": "<path of its first place>"}.
Tuples come back as lists (the rules only unpack and index them).
"""
SAME = "$same"


def attach(cls):
    """Give the referee class its `snapshot()` and `restore(snap)` methods."""
    cls.snapshot = take
    cls.restore = give_back


def take(ref):
    """Everything the fold has built, as JSON-able data (a journal segment's head)."""
    seen = {}
    fields = {}
    for k in ref.__dict__:
        fields[k] = _plain(ref.__dict__[k], k, seen)
    return {"referee": 2, "fields": fields}


def give_back(ref, snap):
    """`ref` made what `snap` was taken of, so the fold goes on as if it had never stopped."""
    made = {}
    fields = snap["fields"]
    for k in fields:
        setattr(ref, k, _build(fields[k], k, made))
    return ref


def _plain(x, path, seen):
    if isinstance(x, (dict, list)):
        first = seen.get(id(x))
        if first is not None:
            return {SAME: first[0]}
        seen[id(x)] = (path, x)          # x kept alive, so its id is not reused meanwhile
    if isinstance(x, dict):
        d = {}
        for k in x:
            d[k] = _plain(x[k], path + "/" + str(k), seen)
        return d
    if isinstance(x, (list, tuple)):
        return [_plain(x[i], path + "/" + str(i), seen) for i in range(len(x))]
    return x


def _build(x, path, made):
    if isinstance(x, dict):
        if len(x) == 1 and SAME in x:
            return made[x[SAME]]
        d = {}
        made[path] = d
        for k in x:
            d[k] = _build(x[k], path + "/" + str(k), made)
        return d
    if isinstance(x, list):
        out = []
        made[path] = out
        for i in range(len(x)):
            out.append(_build(x[i], path + "/" + str(i), made))
        return out
    return x


from shared_rules.rules.referee import Referee  # noqa: E402 (after the functions it attaches)

attach(Referee)
