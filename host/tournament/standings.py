"""Standings of a round robin, a group or a league: points per match won, then racks.

Pure: finished matches in, sorted rows out. Order: points, then rack difference, then racks
won, then the result between the two (when exactly two are level), then the given order (seed).
"""

WIN_POINTS = 1


def rows(players, finished, win_points=WIN_POINTS):
    """players: ids in seed order. finished: [{"players": [a, b], "winner": id, "score": [x, y] or
    None, "walkover": bool}]. A walkover counts the match, not racks."""
    table = {p: {"player": p, "played": 0, "won": 0, "lost": 0, "racks_for": 0, "racks_against": 0,
                 "points": 0} for p in players}
    beat = set()
    for m in finished:
        a, b = m["players"]
        if a not in table or b not in table or m.get("winner") not in (a, b):
            continue
        w = m["winner"]
        l = b if w == a else a
        beat.add((w, l))
        for p in (a, b):
            table[p]["played"] += 1
        table[w]["won"] += 1
        table[w]["points"] += win_points
        table[l]["lost"] += 1
        if m.get("score") and not m.get("walkover"):
            x, y = m["score"]
            table[a]["racks_for"] += x
            table[a]["racks_against"] += y
            table[b]["racks_for"] += y
            table[b]["racks_against"] += x
    order = {p: i for i, p in enumerate(players)}

    def key(r):
        return (-r["points"], -(r["racks_for"] - r["racks_against"]), -r["racks_for"])
    out = sorted(table.values(), key=lambda r: (key(r), order[r["player"]]))
    for i in range(len(out) - 1):          # two level on everything: their own match decides
        x, y = out[i], out[i + 1]
        level = key(x) == key(y) and (i + 2 >= len(out) or key(out[i + 2]) != key(y)) and \
            (i == 0 or key(out[i - 1]) != key(x))
        if level and (y["player"], x["player"]) in beat:
            out[i], out[i + 1] = y, x
    for rank, r in enumerate(out, start=1):
        r["rank"] = rank
    return out
