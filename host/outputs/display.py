"""`…/display`: the table state as two short lines and one alert.

For 2x16 LED matrices and similar boards that cannot parse the whole state.
Payload (CONTRACT section 2): `{"lines": [">ANNA 3", "BOB 5"], "alert": "FOUL"}`.
The shooter's line starts with `>`; the alert is the one thing a player must
notice now, or null. Published retained, and only when it changes.
"""

import json

from host.outputs.texts import match_score, next_breaker, races, word

WIDTH = 16


def _player(state, i):
    players = state.get("players") or []
    if i < len(players) and isinstance(players[i], dict):
        return players[i]
    return {}


def _name(state, i):
    name = _player(state, i).get("name")
    if not isinstance(name, str) or not name.strip():
        name = "P%d" % (i + 1)
    return " ".join(name.split()).upper()


def _fit(text, width):
    return text[:width]


def _with_name(label, name, width):
    """`label NAME`, the name cut so the whole fits; the label alone if no room."""
    room = width - len(label) - 1
    if room < 2:
        return _fit(label, width)
    return label + " " + name[:room]


def _race(state, i):
    """The race when it is longer than one rack: player i's own race when the match is
    handicapped (a race of 1 shown too: it is not the other's), else `race_to`."""
    each = races(state)
    if each:
        return each[i]
    race = state.get("race_to")
    return race if isinstance(race, int) and not isinstance(race, bool) and race > 1 else None


def _score_text(state, i):
    """Points/target in straight pool (between the games of a 14.1 match: games/race); racks
    won, and the race when it is longer than one rack, in the other games."""
    race = _race(state, i)
    won = match_score(state)
    if state.get("game") == "straight-pool" and race and state.get("between_racks") and won:
        return "%d/%d" % (won[i], race)
    score = _player(state, i).get("score", 0)
    if not isinstance(score, (int, float)) or isinstance(score, bool):
        score = 0
    text = str(int(score))
    target = state.get("target")
    if state.get("game") == "straight-pool" and isinstance(target, int) and target > 0:
        text += "/" + str(target)
    elif state.get("game") != "straight-pool" and race:
        text += "/" + str(race)
    return text


def lines(state, width=WIDTH):
    """Two lines, one per player: `>NAME SCORE` for the shooter, `NAME SCORE` else."""
    out = []
    over = state.get("phase") == "over"
    for i in (0, 1):
        mark = ">" if (state.get("shooter") == i and not over) else ""
        score = _score_text(state, i)
        room = width - len(mark) - 1 - len(score)
        name = _name(state, i)[:max(room, 1)]
        out.append(_fit(mark + name + " " + score, width))
    return out


def _fouled(state, events):
    last_shot = state.get("last_shot")
    if isinstance(last_shot, dict) and last_shot.get("fouls"):
        return True
    return any(isinstance(e, dict) and e.get("event") == "foul" for e in events or ())


BOARD_WORDS = {
    "en": {"watchdog": "WATCHDOG", "crash": "CRASH", "brownout": "POWER DIP", "reset_button": "RESET",
           "soft_reset": "RESTART", "bad_config": "CONFIG"},
    "ru": {"watchdog": "СТОРОЖ", "crash": "СБОЙ", "brownout": "ПИТАНИЕ", "reset_button": "СБРОС",
           "soft_reset": "ПЕРЕЗАПУСК", "bad_config": "КОНФИГ"},
}


def _board_fault(state):
    """The board's own fault code (state.faults entry with "what": "board"), or None."""
    for f in state.get("faults") or ():
        if isinstance(f, dict) and f.get("what") == "board" and isinstance(f.get("fault"), str):
            return f["fault"]
    return None


def alert(state, events=(), lang="en", width=WIDTH):
    """The single most urgent thing to show, or None.

    Order: winner, between racks who breaks the next one (or the lag for it, hill-hill), sensors
    down, decision pending, ball to identify, the shot clock run out, the board restarted by
    itself (until the next game), warning (second consecutive foul), foul on the last shot,
    ball in hand, and in the deciding rack (hill-hill) that it is the deciding rack.
    """
    phase = state.get("phase")
    winner = state.get("winner")
    if phase == "over":
        if winner in (0, 1):
            return _with_name(word("winner", lang), _name(state, winner), width)
        nxt = next_breaker(state)
        if nxt is not None and nxt[0] == "lag":
            return _fit(word("hill_hill_lag" if state.get("hill_hill") else "lag", lang), width)
        if nxt is not None:
            return _with_name(word("next_break", lang), _name(state, nxt[1]), width)
        return _fit(word("game_over", lang), width)
    link = state.get("link")
    if isinstance(link, dict) and link.get("state") == "down":
        return _fit(word("no_link", lang), width)
    decision = state.get("decision")
    if phase == "decision" or isinstance(decision, dict):
        who = decision.get("player") if isinstance(decision, dict) else None
        if who in (0, 1):
            return _with_name(word("decision", lang), _name(state, who), width)
        return _fit(word("decision", lang), width)
    needs = state.get("needs")
    if needs:
        lag = isinstance(needs, list) and all(isinstance(n, dict) and n.get("cmd") == "lag" for n in needs)
        return _fit(word("lag" if lag else "identify", lang), width)
    clock = state.get("shot_clock")
    if isinstance(clock, dict) and clock.get("expired") is True:
        who = state.get("shooter")
        return _with_name(word("time_up", lang), _name(state, who), width) if who in (0, 1) else \
            _fit(word("time_up", lang), width)
    board = _board_fault(state)
    if board:
        return _fit(word("board", lang) + ": " + BOARD_WORDS.get(lang, {}).get(board, board.upper()), width)
    warning = state.get("warning")
    if isinstance(warning, dict):
        who = warning.get("player")
        if who in (0, 1):
            return _with_name(word("warning", lang), _name(state, who), width)
        return _fit(word("warning", lang), width)
    if _fouled(state, events):
        return _fit(word("foul", lang), width)
    if state.get("ball_in_hand") and state.get("shot", 0):
        return _fit(word("ball_in_hand", lang), width)
    if state.get("hill_hill") is True:
        return _fit(word("hill_hill", lang), width)
    return None


def render(state, events=(), lang="en", width=WIDTH):
    """The display payload as a dict."""
    if not isinstance(state, dict):
        state = {}
    return {"lines": lines(state, width), "alert": alert(state, events, lang, width)}


class DisplayOutput:
    """Output for `<prefix>/<table>/display`, retained, sent only on change."""

    def __init__(self, table, prefix="billiards", lang="en", width=WIDTH):
        self.topic = "%s/%s/display" % (prefix, table)
        self.lang = lang if lang in ("en", "ru") else "en"
        self.width = width
        self._last = None

    def on_connect(self):
        # The broker may have lost its retained copy; send the last one again.
        if self._last is None:
            return []
        return [(self.topic, self._last, True)]

    def on_change(self, state, events):
        try:
            payload = json.dumps(render(state, events, self.lang, self.width),
                                 ensure_ascii=False)
        except (TypeError, ValueError, AttributeError):
            return []
        if payload == self._last:
            return []
        self._last = payload
        return [(self.topic, payload, True)]

    def subscriptions(self):
        return []

    def on_message(self, topic, payload):
        return []
