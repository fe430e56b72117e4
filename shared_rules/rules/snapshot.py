"""Referee snapshots: a journal segment starts from one instead of from the table's first game.

Importing this module gives `Referee` its `snapshot()` and `restore(snap)` methods. They
live here, host side, because the board's 192K heap (tests/rules/test_scenarios.py, all
games in one process) has no room left for them in referee.py.

Attributes are taken generically, so one the rules add later is carried without change
here. Shots shared between attributes stay shared: `pending` and the shot of `chosen`
are the very objects of the undo `history` (and likewise inside the game `new_game`
replaced, `before_new`), so a snapshot names their place in the history.
"""
from shared_rules.rules.data import clone


def attach(cls):
    """Give the referee class its `snapshot()` and `restore(snap)` methods."""
    cls.snapshot = take
    cls.restore = give_back


def take(ref):
    """Everything the fold has built, as JSON-able data (a journal segment's head)."""
    fields = {}
    for k in ref.__dict__:
        fields[k] = _plain(ref.__dict__[k])
    refs = _refs(ref.history, ref.pending, ref.chosen)
    old = getattr(ref, "before_new", None)
    if old:
        refs["before_new"] = _refs(old[1], old[2], old[4])
    return {"referee": 1, "fields": fields, "refs": refs}


def give_back(ref, snap):
    """`ref` made what `snap` was taken of, so the fold goes on as if it had never stopped."""
    fields = snap["fields"]
    for k in fields:
        setattr(ref, k, clone(fields[k]))
    refs = snap.get("refs") or {}
    ref.history, ref.pending, ref.chosen = _shared(ref.history, ref.pending, ref.chosen, refs)
    if getattr(ref, "before_new", None):
        old = list(ref.before_new)
        old[1], old[2], old[4] = _shared(old[1], old[2], old[4], refs.get("before_new") or {})
        ref.before_new = tuple(old)
    return ref


def _plain(x):
    """JSON-able deep copy (tuples become lists)."""
    if isinstance(x, dict):
        d = {}
        for k in x:
            d[k] = _plain(x[k])
        return d
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    return x


def _refs(history, pending, chosen):
    """Where `pending` and the shot of `chosen` sit in `history` (they are the same objects)."""
    shots = [h[1] for h in history]
    return {"pending": _place(shots, pending), "chosen": _place(shots, chosen[1]) if chosen else None}


def _shared(history, pending, chosen, refs):
    """(history, pending, chosen) with the shots `_refs` named made one object again."""
    history = [tuple(h) for h in history]
    if refs.get("pending") is not None:
        pending = history[refs["pending"]][1]
    if chosen:
        i = refs.get("chosen")
        chosen = (chosen[0], history[i][1] if i is not None else chosen[1])
    return history, pending, chosen


def _place(shots, shot):
    """Index of `shot` (the very object) in `shots`, or None."""
    if shot is None:
        return None
    for i in range(len(shots)):
        if shots[i] is shot:
            return i
    return None


from shared_rules.rules.referee import Referee  # noqa: E402 (after the functions it attaches)

attach(Referee)
