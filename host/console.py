"""One compact line describing the table, for the terminal the daemon runs in (pure)."""


def status_line(state, counts=None):
    s = state or {}
    players = s.get("players") or []
    names = []
    for i, p in enumerate(players[:2]):
        if not isinstance(p, dict):
            continue
        mark = ">" if s.get("shooter") == i and s.get("phase") != "over" else " "
        grp = p.get("group")
        names.append("%s%s %s%s" % (mark, p.get("name", "P%d" % (i + 1)), p.get("score", 0),
                                    " (%s)" % grp if grp else ""))
    link = s.get("link") or {}
    parts = ["[%s]" % s.get("table", "?"), s.get("game") or "no game", " | ".join(names),
             "shot %s %s" % (s.get("shot", 0), s.get("phase", ""))]
    last = s.get("last_shot")
    if isinstance(last, dict):
        txt = "last: pocketed %s rails %s" % (last.get("pocketed", []), last.get("rails", 0))
        if last.get("fouls"):
            txt += " FOUL " + ",".join(str(f) for f in last["fouls"])
        parts.append(txt)
    if s.get("winner") is not None:
        parts.append("winner: %s" % s.get("winner"))
    parts.append("link %s dropped %s" % (link.get("state", "?"), link.get("dropped", 0)))
    if counts and counts.get("corrupt"):
        parts.append("corrupt %d" % counts["corrupt"])
    return "  ".join(parts)
