"""Journal heads written before the referee kept a book (`{"referee": 1 or 2, "fields": {...}}`).

Those heads are the referee's attributes of the day, written generically: an object met a second
time was written as {"$same": "<path of its first place>"}, tuples came out as lists, an undo
entry was a pair [game, shot] (the shot None for all but the newest), the replaced game was
[game, pending, last_game, last_players] and the choice made on the last shot was [option, the
very shot of the newest entry]. Journals written by those daemons open unchanged: this module
turns such a head into a Book.
"""
from shared_rules.rules.book import Book, new_match, UNKNOWN_MATCH, UNKNOWN_REPLACED_MATCH

SAME = "$same"


def book_from(fields):
    """The Book an old head describes (its match unknown: id 0, started null)."""
    f = _build(fields, "", {})
    b = Book()
    for k in ("last_activity", "ended_us", "facts_open", "faults", "last_game", "last_players", "features",
              "has_motion", "pending"):
        if k in f:
            setattr(b, k, f[k])
    b.game = f.get("g")
    b.open_shot = f.get("open")
    b.history = [{"before": h[0], "shot": h[1]} for h in f.get("history") or []]
    _number_shots(b)
    b.chosen = _chosen(f.get("chosen"), b)
    bn = f.get("before_new")
    if bn:
        b.replaced = {"game": bn[0], "pending": bn[1], "history": [], "last_game": bn[2], "last_players": bn[3],
                      "match": new_match(UNKNOWN_REPLACED_MATCH, None)}
    b.match = new_match(UNKNOWN_MATCH, None)
    return Book.from_json(b.to_json())     # nothing shared any more


def _number_shots(b):
    """Give every kept shot its serial number, in the order they were played."""
    for shot in [h["shot"] for h in b.history] + [b.pending, b.open_shot]:
        if shot is not None:
            b.shots += 1
            shot["n"] = b.shots


def _chosen(chosen, b):
    """The old choice counted only while its shot was the very shot of the newest entry."""
    if not chosen or not b.history or b.history[-1]["shot"] is not chosen[1]:
        return None
    return {"option": chosen[0], "shot": chosen[1]["n"]}


def _build(x, path, made):
    """Plain data with every {"$same": path} replaced by the object first written at that path."""
    if isinstance(x, dict):
        if len(x) == 1 and SAME in x:
            return made[x[SAME]]
        d = {}
        made[path] = d
        for k in x:
            d[k] = _build(x[k], path + "/" + str(k) if path else str(k), made)
        return d
    if isinstance(x, list):
        out = []
        made[path] = out
        for i in range(len(x)):
            out.append(_build(x[i], path + "/" + str(i), made))
        return out
    return x
