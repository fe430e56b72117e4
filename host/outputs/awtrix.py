"""Optional AWTRIX 3 output (Ulanzi TC001 and other 32x8 pixel clocks).

A custom app `<awtrix prefix>/custom/<app>` shows the score with each
player's part in the player's colour (AWTRIX 3 takes `text` as a list of
`{"t": text, "c": "RRGGBB"}` fragments); a notification on
`<awtrix prefix>/notify` pops up on each foul and at the end of the game.
"""

import json

from host.outputs.texts import foul_name, match_score, next_breaker, race_text, word

DEFAULT_COLORS = ("00A0FF", "FFA000")
WHITE = "FFFFFF"
RED = "FF0000"
YELLOW = "FFFF00"


def _name(state, i, length=6):
    players = state.get("players") or []
    name = ""
    if i < len(players) and isinstance(players[i], dict):
        name = players[i].get("name") or ""
    if not isinstance(name, str) or not name.strip():
        name = "P%d" % (i + 1)
    return " ".join(name.split()).upper()[:length]


def _score(state, i):
    players = state.get("players") or []
    if i < len(players) and isinstance(players[i], dict):
        s = players[i].get("score", 0)
        if isinstance(s, int) and not isinstance(s, bool):
            return s
    return 0


def app_payload(state, colors=DEFAULT_COLORS, lang="en"):
    """The custom app: `>ANNA 3 : 5 BOB`, each side in its player's colour; between the racks
    of a match, who breaks the next one (or the lag for it) follows in white."""
    over = state.get("phase") == "over"
    shooter = state.get("shooter")
    frags = []
    for i in (0, 1):
        mark = ">" if (shooter == i and not over) else ""
        if i == 0:
            frags.append({"t": "%s%s %d" % (mark, _name(state, 0), _score(state, 0)),
                          "c": colors[0]})
            frags.append({"t": ":", "c": WHITE})
        else:
            frags.append({"t": "%d %s%s" % (_score(state, 1), _name(state, 1),
                                            "<" if mark else ""),
                          "c": colors[1]})
    wait = _waiting(state, lang)
    if wait:
        frags.append({"t": " " + wait, "c": WHITE})
    return {"text": frags, "textCase": 2, "noScroll": False}


def _waiting(state, lang):
    """`BOB BREAKS` / `LAG FOR BREAK` (`HILL-HILL: LAG`) between racks, else None."""
    nxt = next_breaker(state)
    if nxt is None:
        return None
    if nxt[0] == "lag":
        return word("hill_hill_lag" if state.get("hill_hill") else "lag", lang)
    return "%s %s" % (_name(state, nxt[1], 10), word("breaks", lang))


def _rack_won(state, who, lang):
    """`ANNA WINS RACK 2-1 · RACE TO 3 · BOB BREAKS` when a rack of a match is over."""
    won = match_score(state) or [0, 0]
    text = "%s %s %d-%d" % (_name(state, who, 10), word("wins_rack", lang), won[0], won[1])
    race = race_text(state)
    if race:
        text += " · %s %s" % (word("race", lang), race)
    if state.get("hill_hill"):
        text += " · " + word("hill_hill", lang)
    wait = _waiting(state, lang)
    return text + (" · " + wait if wait else "")


def notifications(state, events, lang="en", colors=DEFAULT_COLORS):
    """Notifications for the events of one change: fouls and the winner."""
    out = []
    for e in events or ():
        if not isinstance(e, dict):
            continue
        kind = e.get("event")
        who = e.get("player")
        if kind == "foul":
            codes = e.get("codes") or e.get("fouls") or []
            last = state.get("last_foul")
            if not codes and isinstance(last, dict) and last.get("player") == who:
                codes = last.get("codes") or []
            if isinstance(codes, str):
                codes = [codes]
            text = word("foul", lang)
            if who in (0, 1):
                text += " " + _name(state, who, 10)
            if codes:
                text += ": " + ", ".join(foul_name(c, lang) for c in codes)
            out.append({"text": text, "color": "#" + RED, "duration": 6,
                        "stack": True, "textCase": 2})
        elif kind == "over" and state.get("between_racks") and who in (0, 1):
            out.append({"text": _rack_won(state, who, lang), "color": "#" + colors[who], "duration": 8,
                        "stack": True, "textCase": 2})
        elif kind == "warning" and e.get("shot_clock") and who in (0, 1):
            out.append({"text": "%s %s" % (word("time_up", lang), _name(state, who, 10)), "color": "#" + YELLOW,
                        "duration": 6, "stack": True, "textCase": 2})
        elif kind == "over":
            winner = state.get("winner")
            if winner not in (0, 1):
                winner = who
            if winner in (0, 1):
                text = "%s %s" % (_name(state, winner, 10), word("wins", lang))
                out.append({"text": text, "color": "#" + colors[winner],
                            "rainbow": True, "duration": 12, "stack": True,
                            "textCase": 2})
    return out


class AwtrixOutput:
    """Output for one AWTRIX 3 clock listening under `awtrix_prefix`."""

    def __init__(self, awtrix_prefix="awtrix", app="billiards", lang="en",
                 colors=DEFAULT_COLORS):
        self.app_topic = "%s/custom/%s" % (awtrix_prefix, app)
        self.notify_topic = awtrix_prefix + "/notify"
        self.lang = lang
        self.colors = tuple(c.lstrip("#").upper() for c in colors)
        self._last = None

    def on_connect(self):
        return [] if self._last is None else [(self.app_topic, self._last, False)]

    def on_change(self, state, events):
        if not isinstance(state, dict):
            return []
        out = []
        app = json.dumps(app_payload(state, self.colors, self.lang), ensure_ascii=False)
        if app != self._last:
            self._last = app
            out.append((self.app_topic, app, False))
        for n in notifications(state, events, self.lang, self.colors):
            out.append((self.notify_topic, json.dumps(n, ensure_ascii=False), False))
        return out

    def subscriptions(self):
        return []

    def on_message(self, topic, payload):
        return []
