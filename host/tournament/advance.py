"""Results in, every match's players and status out: the bracket as a fold.

`resolve(slots, seeds, results, playing)` walks the slots in order (each slot's sources come
before it) and works out who plays each match. Nothing here is stored: a corrected result, a
walkover or a moved match is a change of `results` or `playing`, and everything downstream
follows. A result counts only while its players are still the match's players (a correction
upstream that put someone else in the match leaves that result stale, and `downstream_changes`
lets the director's correction refuse such a change first).

Match status: "waiting" (a player is not known yet), "ready" (both known, not on a table),
"playing" (assigned to a table), "done", "bye" (one side is a bye: the other goes through),
"void" (a grand-final reset that is not needed).
"""
from host.tournament import standings

BYE = -1


def _winner_loser(m):
    return m.get("winner"), m.get("loser")


def resolve(slots, seeds, results, playing=None, win_points=standings.WIN_POINTS):
    """slots: brackets.build(...); seeds: player ids in seed order; results: {match id: result};
    playing: {match id: table}. Returns [match] in slot order."""
    playing = playing or {}
    by_id = {}
    out = []
    group_rank = {}

    def source(src):
        if "seed" in src:
            i = src["seed"]
            return seeds[i] if 0 <= i < len(seeds) else BYE
        if "winner" in src or "loser" in src:
            m = by_id.get(src.get("winner", src.get("loser")))
            if m is None or m["status"] not in ("done", "bye"):
                return None
            return m["winner"] if "winner" in src else m["loser"]
        if "group" in src:
            ranks = group_rank.get(src["group"])
            if ranks is None:
                ranks = group_rank[src["group"]] = _group_ranks(src["group"], out, win_points)
            return ranks[src["rank"] - 1] if ranks and src["rank"] <= len(ranks) else None
        return None

    for s in slots:
        m = {"id": s["id"], "round": s["round"], "label": s["label"], "final": s["final"],
             "group": s.get("group"), "players": [source(s["a"]), source(s["b"])],
             "status": "waiting", "winner": None, "loser": None, "score": None, "how": None,
             "table": None}
        _settle(m, s, by_id, results.get(s["id"]), playing.get(s["id"]))
        by_id[m["id"]] = m
        out.append(m)
    return out


def _settle(m, s, by_id, result, table):
    a, b = m["players"]
    need = s.get("needed_if")
    if need:
        first = by_id.get(need["match"])
        if first and first["status"] == "done":
            side = 0 if need["winner"] == "a" else 1
            if first["winner"] != first["players"][side]:
                m["status"] = "void"
                return
    if a is None or b is None:
        return
    if a == BYE or b == BYE:
        m["status"] = "bye"
        m["winner"], m["loser"] = (b, a) if a == BYE else (a, b)
        return
    if result and result.get("players") == [a, b] and result.get("winner") in (a, b):
        m["status"] = "done"
        m["winner"] = result["winner"]
        m["loser"] = b if result["winner"] == a else a
        m["score"] = result.get("score")
        m["how"] = result.get("how")
        m["table"] = result.get("table")
        return
    if table is not None:
        m["status"] = "playing"
        m["table"] = table
    else:
        m["status"] = "ready"


def _group_ranks(group, matches, win_points):
    """Player ids of a finished group, best first; None while a match of it is unfinished."""
    mine = [m for m in matches if m.get("group") == group]
    if not mine or any(m["status"] not in ("done", "bye") for m in mine):
        return None
    players = []
    for m in mine:
        for p in m["players"]:
            if p not in players and p != BYE:
                players.append(p)
    done = [{"players": m["players"], "winner": m["winner"], "score": m["score"],
             "walkover": m["how"] == "walkover"} for m in mine if m["status"] == "done"]
    return [r["player"] for r in standings.rows(sorted(players), done, win_points)]


def champion(fmt, matches, seeds, win_points=standings.WIN_POINTS):
    """The tournament's winner (a player id), or None while it is not decided."""
    live = [m for m in matches if m["status"] != "void"]
    if fmt == "round-robin":
        if any(m["status"] not in ("done", "bye") for m in live):
            return None
        done = [{"players": m["players"], "winner": m["winner"], "score": m["score"],
                 "walkover": m["how"] == "walkover"} for m in live if m["status"] == "done"]
        return standings.rows(list(seeds), done, win_points)[0]["player"]
    last = live[-1] if live else None
    if last is None or last["status"] not in ("done", "bye") or not last["final"]:
        return None
    return last["winner"]


def downstream_changes(before, after):
    """Matches that were being played or done in `before` whose players differ in `after`:
    a correction that would change them needs those results taken back first."""
    prev = {m["id"]: m for m in before}
    return [m["id"] for m in after if m["id"] in prev and prev[m["id"]]["status"] in ("done", "playing")
            and prev[m["id"]]["players"] != m["players"]]


def next_ready(matches):
    """Ready matches in playing order whose players are not on a table now (round robin:
    someone may be due in two matches at once)."""
    busy = {p for m in matches if m["status"] == "playing" for p in m["players"]}
    out = []
    for m in matches:
        if m["status"] == "ready" and not (set(m["players"]) & busy):
            out.append(m)
            busy.update(m["players"])
    return out
