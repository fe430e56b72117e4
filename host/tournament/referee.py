"""Which table result counts: a match record from `billiards/<t>/match` against the match
assigned to table t. Pure; the service logs every refusal with its reason.

A record counts only if it comes from the table the match was assigned to (the topic names the
table, and the broker's ACL lets only that table's daemon account publish there), says the same
table inside, is the game, race and players that were sent, started after the match was sent
(allowing for the two machines' clocks), and was never counted before (its key: table and start
time). A duplicate, a late record of a match moved elsewhere or a forged one changes nothing.
"""
import math

CLOCK_SKEW_S = 120.0      # how far the table's clock may be behind the service's
MAX_NAME = 32


def record_key(table, record):
    """A finished match's identity: its table and its start time (the daemon's journal wall time)."""
    return "%s@%.3f" % (table, float(record["started"]))


def well_formed(table, record):
    """The record's problem in words, or None. Anything on the broker may be malformed."""
    if not isinstance(record, dict):
        return "not a JSON object"
    if record.get("table") != table:
        return "says table %r on the topic of table %r" % (record.get("table"), table)
    for k in ("started", "ended"):
        v = record.get(k)
        if not isinstance(v, (int, float)) or isinstance(v, bool) or not math.isfinite(v):
            return "no %s time" % k
    players = record.get("players")
    if not isinstance(players, list) or len(players) != 2 or not all(
            isinstance(p, dict) and isinstance(p.get("name"), str) and 0 < len(p["name"]) <= MAX_NAME
            for p in players):
        return "no two named players"
    if record.get("winner") not in (0, 1) or isinstance(record.get("winner"), bool):
        return "no winner"
    score = record.get("score")
    if score is not None and not (isinstance(score, list) and len(score) == 2 and all(
            isinstance(x, int) and not isinstance(x, bool) and 0 <= x <= 1000 for x in score)):
        return "a score that is not two numbers"
    return None


def names(record):
    return [p["name"] for p in record["players"]]


def plain(table, record):
    """The record as the ratings fold and the store keep it."""
    n = names(record)
    return {"key": record_key(table, record), "table": table, "started": record["started"],
            "ended": record["ended"], "game": record.get("game"), "players": n,
            "winner": n[record["winner"]], "score": record.get("score"), "walkover": False,
            "race_to": record.get("race_to"), "target": record.get("target"),
            "race_to_each": record.get("race_to_each") if _is_race_pair(record.get("race_to_each")) else None}


def _is_race_pair(x):
    return isinstance(x, list) and len(x) == 2 and all(
        isinstance(r, int) and not isinstance(r, bool) and 1 <= r <= 1000 for r in x)


def record_race(record, field):
    """The race a record was played to: each player's [a, b] for a handicapped match (its
    `race_to_each`), else the one number in `field` (`race_to`, or `target` in 14.1)."""
    each = record.get("race_to_each")
    if field == "race_to" and _is_race_pair(each) and each[0] != each[1]:
        return list(each)
    return record.get(field)


def verdict(table, record, assignment, seen, label=None):
    """("count", {"winner": name, "score": [x, y] in the assignment's order}) or ("ignore", why).

    assignment: {"table", "game", "race", "names": [a, b], "sent_at"} or None; seen: a container
    of record keys counted before; label: the assignment's label, which a record of a table
    that knows it (`assignment` in the match record) must carry."""
    bad = well_formed(table, record)
    if bad:
        return "ignore", "malformed match record: " + bad
    if record_key(table, record) in seen:
        return "ignore", "duplicate: this match record was counted before"
    if assignment is None:
        return "ignore", "no tournament match is assigned to table %s" % table
    if assignment["table"] != table:
        return "ignore", "the match is assigned to table %s, not %s" % (assignment["table"], table)
    if label is not None and record.get("assignment") not in (None, label):
        return "ignore", "the record is of assignment %s, not %s" % (record.get("assignment"), label)
    got = names(record)
    if sorted(got) != sorted(assignment["names"]):
        return "ignore", "players %s are not the assigned %s" % (" v ".join(got), " v ".join(assignment["names"]))
    if record.get("game") != assignment["game"]:
        return "ignore", "game %s is not the assigned %s" % (record.get("game"), assignment["game"])
    race_field = "target" if assignment["game"] == "straight-pool" else "race_to"
    played = record_race(record, race_field)
    if played != assignment["race"]:
        return "ignore", "%s %s is not the assigned %s" % (race_field, played, assignment["race"])
    if record["started"] < assignment["sent_at"] - CLOCK_SKEW_S:
        return "ignore", "late: the match started before this one was sent to the table"
    winner = got[record["winner"]]
    score = record.get("score")
    if score is not None and got != list(assignment["names"]):
        score = [score[1], score[0]]
    return "count", {"winner": winner, "score": score}
