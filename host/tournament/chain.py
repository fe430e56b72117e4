"""Leagues across venues: a venue's league results as it publishes them, and another venue's
results as this one takes them in. Pure.

Each venue service publishes, retained, the finished matches of its nights of a league on
`billiards-venue/<venue>/league/<slug>/results`; the venue broker's bridge carries them to the
chain's central broker as `venues/<venue>/league/<slug>/results` and brings every venue's back as
`billiards-chain/<venue>/league/<slug>/results` (hardware/mosquitto/bridge.conf). A league is
known across venues by its slug, given (or made from its name) when it is created at each venue.

What comes from another venue is not trusted: the topic names the venue (central's ACL lets a
venue publish under its own id only), and the payload must be one bounded, well-formed object of
that venue and that league, or it is refused as a whole (`parse`); only the fields the standings
use are kept.
"""
import json
import re

ID = re.compile(r"^[A-Za-z0-9_-]{1,40}$")     # a venue id or a league slug, as topics carry them
MAX_PAYLOAD = 256 * 1024     # bytes of one venue's results for one league
MAX_MATCHES = 1000           # matches of one venue in one league (a season of long nights)
MAX_NAME = 32                # a player's name, as the tables take it
MAX_TEXT = 60                # a league's, a night's or a venue's name
MAX_SCORE = 99               # racks: the referee's own race bound
MAX_VENUES = 32              # other venues whose results one league keeps
CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def slug(name):
    """A league's venue-independent id from its name: "Winter League 2026" -> "winter-league-2026"."""
    s = re.sub(r"[^a-z0-9]+", "-", str(name).casefold()).strip("-")[:33].strip("-")
    return "league-" + s if not s or s.isdigit() else s       # never a number: /league/<id> is one


def is_id(text):
    return isinstance(text, str) and bool(ID.match(text))


def topic(prefix, venue, league_slug):
    """Where this venue publishes a league's results (its own `billiards-venue/<venue>/#`)."""
    return "%s-venue/%s/league/%s/results" % (prefix, venue, league_slug)


def chain_topic(prefix, league_slug, venue="+"):
    """Where the bridge hands every venue's results of a league to this venue's broker."""
    return "%s-chain/%s/league/%s/results" % (prefix, venue, league_slug)


def from_topic(prefix, topic_name):
    """(venue, slug) of a chain topic, or None."""
    parts = topic_name.split("/")
    if (len(parts) != 5 or parts[0] != prefix + "-chain" or parts[2] != "league" or parts[4] != "results"
            or not is_id(parts[1]) or not is_id(parts[3])):
        return None
    return parts[1], parts[3]


def results(venue, league, nights, venue_name=None):
    """The object a venue publishes for one league: league = {"slug", "name", "win_points"};
    nights = [(tournament, [finished match])], a finished match {"id", "players": [a, b],
    "winner": name, "score": [x, y] or None, "walkover": bool}. Newest matches kept if there are
    more than MAX_MATCHES."""
    out = []
    for t, ms in nights:
        for m in ms:
            out.append({"night": t["id"], "match": m["id"], "players": list(m["players"]),
                        "winner": m["winner"], "score": list(m["score"]) if m.get("score") else None,
                        "walkover": bool(m.get("walkover"))})
    return {"league": league["slug"], "name": league["name"], "venue": venue,
            "venue_name": venue_name or venue, "win_points": league["win_points"],
            "nights": [{"id": t["id"], "name": t["name"]} for t, _ms in nights],
            "matches": out[-MAX_MATCHES:]}


def encode(doc):
    """The payload of `results(...)`, within MAX_PAYLOAD: the oldest matches are left out of a
    league too big for it (long names in two-byte letters), as the other venues would refuse it."""
    doc = dict(doc)
    while True:
        text = json.dumps(doc, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        if len(text) <= MAX_PAYLOAD:
            return text
        doc["matches"] = doc["matches"][len(doc["matches"]) // 10 + 1:]


def _text(v, limit):
    return isinstance(v, str) and 0 < len(v.strip()) <= limit and not CONTROL.search(v)


def _match(m):
    """A remote match as the standings take it, or (None, why)."""
    if not isinstance(m, dict):
        return None, "a match that is not an object"
    players = m.get("players")
    if not (isinstance(players, list) and len(players) == 2 and all(_text(p, MAX_NAME) for p in players)):
        return None, "a match without two named players"
    a, b = [p.strip() for p in players]
    if a == b:
        return None, "a match of %s against himself" % a
    winner = m.get("winner")
    if not isinstance(winner, str) or winner.strip() not in (a, b):
        return None, "a match whose winner is not one of its players"
    score = m.get("score")
    if score is not None and not (isinstance(score, list) and len(score) == 2 and all(
            isinstance(x, int) and not isinstance(x, bool) and 0 <= x <= MAX_SCORE for x in score)):
        return None, "a score that is not two numbers of racks"
    walkover = m.get("walkover", False)
    if not isinstance(walkover, bool):
        return None, "walkover is not true or false"
    night = m.get("night")
    if night is not None and not ((isinstance(night, int) and not isinstance(night, bool) and
                                   0 <= night < 10 ** 9) or _text(night, MAX_TEXT)):
        return None, "a night that is not a short id"
    return {"night": night, "players": [a, b], "winner": winner.strip(),
            "score": list(score) if score is not None else None, "walkover": walkover}, None


def parse(venue, league_slug, payload):
    """(the results as kept, None) or (None, why in words) for a payload from
    `billiards-chain/<venue>/league/<league_slug>/results`."""
    if len(payload) > MAX_PAYLOAD:
        return None, "%d bytes (at most %d)" % (len(payload), MAX_PAYLOAD)
    try:
        doc = json.loads(payload, parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c)))
    except (ValueError, RecursionError):
        return None, "not JSON"
    if not isinstance(doc, dict):
        return None, "not a JSON object"
    if doc.get("league") != league_slug:
        return None, "says league %r on the topic of league %r" % (str(doc.get("league"))[:40], league_slug)
    if doc.get("venue") != venue:
        return None, "says venue %r on the topic of venue %r" % (str(doc.get("venue"))[:40], venue)
    ms = doc.get("matches")
    if not isinstance(ms, list) or len(ms) > MAX_MATCHES:
        return None, "no list of at most %d matches" % MAX_MATCHES
    kept = []
    for i, m in enumerate(ms):
        one, why = _match(m)
        if one is None:
            return None, "match %d: %s" % (i + 1, why)
        kept.append(one)
    name = doc.get("venue_name")
    league_name = doc.get("name")
    nights = doc.get("nights") if isinstance(doc.get("nights"), list) else []
    return {"venue": venue, "league": league_slug,
            "venue_name": name.strip() if _text(name, MAX_TEXT) else venue,
            "name": league_name.strip() if _text(league_name, MAX_TEXT) else league_slug,
            "nights": sum(1 for n in nights[:1000] if isinstance(n, dict)),
            "matches": kept}, None
