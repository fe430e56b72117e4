"""Every finished match updates its two players' ratings: a fold over the match records.

Each match is a rating period of its own for its two players (Glicko-2, host/tournament/
glicko2.py), in the order the matches ended, both players rated from their ratings before it.
A walkover is no game and rates nobody. Players are their names on the tables (two people of the
same name are told apart when they enter a tournament, seeding.told_apart). Pure: the service
folds again from the stored records after a correction, so a corrected result is rated as if it
had always been right.
"""
from host.tournament import glicko2


def fold(records, tau=glicko2.TAU):
    """records: [{"key", "ended", "players": [a, b], "winner": name, "score": [x, y] or None,
    "walkover": bool, "game"}], any order. Returns {name: player} with "rating", "rd", "vol",
    "matches", "wins", "losses" and "history" (newest last: key, ended, opponent, won, score,
    before, after)."""
    people = {}

    def person(name):
        if name not in people:
            r, rd, vol = glicko2.START
            people[name] = {"name": name, "rating": r, "rd": rd, "vol": vol, "matches": 0, "wins": 0,
                            "losses": 0, "history": []}
        return people[name]
    for rec in sorted(records, key=lambda r: (r.get("ended") or 0, str(r.get("key")))):
        a, b = rec["players"]
        if rec.get("walkover") or rec.get("winner") not in (a, b) or a == b:
            continue
        pa, pb = person(a), person(b)
        ra, rb = (pa["rating"], pa["rd"], pa["vol"]), (pb["rating"], pb["rd"], pb["vol"])
        sa = 1.0 if rec["winner"] == a else 0.0
        na = glicko2.update(ra, [(rb, sa)], tau)
        nb = glicko2.update(rb, [(ra, 1.0 - sa)], tau)
        score = rec.get("score")
        for p, new, old, opp, s, sc in ((pa, na, ra, b, sa, score),
                                        (pb, nb, rb, a, 1.0 - sa, list(reversed(score)) if score else None)):
            p["rating"], p["rd"], p["vol"] = new
            p["matches"] += 1
            p["wins" if s else "losses"] += 1
            p["history"].append({"key": rec.get("key"), "ended": rec.get("ended"), "opponent": opp,
                                 "won": bool(s), "score": sc, "game": rec.get("game"),
                                 "before": round(old[0], 1), "after": round(new[0], 1)})
    return people


def table(people):
    """Rows for the ratings page, best first: name, rating, deviation, matches, wins, losses."""
    rows = sorted(people.values(), key=lambda p: (-p["rating"], p["name"]))
    return [{"name": p["name"], "rating": round(p["rating"]), "rd": round(p["rd"]),
             "matches": p["matches"], "wins": p["wins"], "losses": p["losses"]} for p in rows]
