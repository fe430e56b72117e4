"""A tournament as stored (plain dict) -> its matches, its winner and what `show --json` prints.
Pure.

The stored tournament: {"id", "name", "game", "format", "race", "race_final", "per_round",
"seeding", "tables", "options" ({"groups", "advance", "win_points", "league", "winner_breaks"}), "status"
("waiting" | "running"), "players" (names in seed order: a player's id is their seed),
"results" ({match id: result}), "playing" ({match id: table}), "races" ({match id: [a, b]}: each
player's race of a handicapped match, as sent)}; options may have "handicap" (rating points per game).
"""
from host.tournament import advance, brackets, races

SHOW_STATUS = {"waiting": "waiting", "ready": "waiting", "playing": "playing", "done": "done",
               "bye": "done"}


def slots(t):
    o = t.get("options") or {}
    return brackets.build(t["format"], len(t["players"]), o.get("groups", 2), o.get("advance", 2))


def matches(t):
    o = t.get("options") or {}
    return advance.resolve(slots(t), list(range(len(t["players"]))), t.get("results") or {},
                           t.get("playing") or {}, o.get("win_points", 1))


def winner(t, ms=None):
    ms = matches(t) if ms is None else ms
    o = t.get("options") or {}
    return advance.champion(t["format"], ms, list(range(len(t["players"]))), o.get("win_points", 1))


def status(t, ms=None):
    if t.get("status") != "running":
        return t.get("status") or "waiting"
    return "finished" if winner(t, ms) is not None else "running"


def name(t, pid):
    if pid is None or pid == advance.BYE:
        return None
    return t["players"][pid]


def race(t, m):
    return races.race_for(m, t["race"], t.get("race_final"), t.get("per_round"))


def handicap_step(t):
    """Rating points per game of handicap (`--handicap`), or None: no handicap."""
    step = (t.get("options") or {}).get("handicap")
    return step if t["game"] != "straight-pool" and isinstance(step, int) and step > 0 else None


def match_races(t, m, rated):
    """Each player's race [a, b] (the match's player order) in a handicapped tournament, from
    the players' ratings when the match goes to its table (rated: {name: rating}; a player
    never rated starts at 1500); None when both race the same."""
    step = handicap_step(t)
    if step is None:
        return None
    a, b = [name(t, p) for p in m["players"]]
    rated = rated or {}
    each = races.handicap(race(t, m), rated.get(a, 1500.0), rated.get(b, 1500.0), step)
    return list(each) if each[0] != each[1] else None


def assignment(t, m, table, sent_at, body=None):
    """What the referee module checks a table's record against: the race that was sent (a
    handicapped match's two races, from the stored new_game `body`)."""
    sent = race(t, m)
    if body is not None:
        sent = races.one_race(body.get("target" if t["game"] == "straight-pool" else "race_to", sent))
    return {"table": table, "game": t["game"], "race": sent,
            "names": [name(t, p) for p in m["players"]], "sent_at": sent_at}


def new_game(t, m, rated=None):
    """The `new_game` body for match m: higher seed first and breaking the first rack; after that
    the referee follows the seed's rule (the breaks alternate, the deciding rack is lagged for),
    or the house rule `winner_breaks` when the tournament says the winner breaks. A handicapped
    tournament sends each player's race (`match_races`, from `rated`)."""
    each = match_races(t, m, rated)
    body = races.new_game_body(t["game"], [name(t, p) for p in m["players"]], each or race(t, m), 0)
    if (t.get("options") or {}).get("winner_breaks"):
        body["winner_breaks"] = True
    return body


def show(t):
    """The JSON of `billiards tournament show ID --json` (docs/tournament.md)."""
    ms = matches(t)
    w = winner(t, ms)
    out = []
    for m in ms:
        if m["status"] == "void":
            continue
        out.append({"id": m["id"], "round": m["round"], "label": m["label"],
                    "players": [name(t, p) for p in m["players"]],
                    "table": m["table"], "status": SHOW_STATUS[m["status"]],
                    "score": list(m["score"]) if m["score"] else None,
                    "winner": name(t, m["winner"]) if m["status"] in ("done", "bye") else None,
                    "race": race(t, m), "how": m["how"] or ("bye" if m["status"] == "bye" else None),
                    "races": (t.get("races") or {}).get(m["id"])})
    return {"id": t["id"], "name": t["name"], "game": t["game"], "format": t["format"],
            "status": status(t, ms), "winner": name(t, w), "players": list(t["players"]),
            "tables": list(t.get("tables") or []), "matches": out}


def find_match(t, match_id, ms=None):
    for m in (matches(t) if ms is None else ms):
        if m["id"] == match_id:
            return m
    return None


def with_result(t, match_id, result):
    t2 = dict(t)
    t2["results"] = dict(t.get("results") or {})
    if result is None:
        t2["results"].pop(match_id, None)
    else:
        t2["results"][match_id] = result
    return t2


def correction(t, match_id, winner_name, score, how, table=None, at=None):
    """(result, None) for the director's ruling on a match, or (None, why not) in words."""
    ms = matches(t)
    m = find_match(t, match_id, ms)
    if m is None:
        return None, "no match %s in tournament %s" % (match_id, t["id"])
    if m["status"] in ("waiting", "void", "bye"):
        return None, "match %s has no two players yet" % match_id if m["status"] == "waiting" else \
            "match %s is not played" % match_id
    names = [name(t, p) for p in m["players"]]
    if winner_name not in names:
        return None, "%s does not play match %s (%s)" % (winner_name, match_id, " v ".join(names))
    if score is not None:
        if len(score) != 2 or max(score) < 0:
            return None, "a score is two numbers, e.g. 3-1"
        won = score[names.index(winner_name)]
        if won <= score[1 - names.index(winner_name)]:
            return None, "the score %d-%d does not make %s the winner" % (score[0], score[1], winner_name)
    result = {"players": list(m["players"]), "winner": m["players"][names.index(winner_name)],
              "score": list(score) if score is not None else None, "how": how, "table": table, "at": at}
    after = matches(with_result(t, match_id, result))
    clash = advance.downstream_changes(ms, after)
    if clash:
        return None, ("that changes who plays %s, already played or on a table; reopen those "
                      "matches first, latest first (billiards tournament reopen)" % ", ".join(clash))
    return result, None


def reopen(t, match_id):
    """None if match_id's result may be taken back (nothing played after it depends on it),
    else why not, in words."""
    ms = matches(t)
    m = find_match(t, match_id, ms)
    if m is None or m["status"] != "done":
        return "match %s has no result to take back" % match_id
    clash = advance.downstream_changes(ms, matches(with_result(t, match_id, None)))
    if clash:
        return "%s already depend on it: reopen them first" % ", ".join(clash)
    return None
