"""Short words for small displays, English and Russian.

LED scoreboards have 16 columns per line, so every word here is short; the
engine's long event texts ({en, ru}) are for people reading a screen. Foul names
are the short ones of the referee's vocabulary (`messages.vocabulary()`).
"""
from shared_rules.rules.data import is_int
from shared_rules.rules.messages import vocabulary

WORDS = {
    "en": {
        "foul": "FOUL",
        "ball_in_hand": "BALL IN HAND",
        "winner": "WINNER",
        "wins": "WINS",
        "warning": "WARNING",
        "decision": "DECISION",
        "identify": "IDENTIFY BALL",
        "no_link": "NO SENSORS",
        "board": "BOARD",
        "game_over": "GAME OVER",
        "next_break": "BREAK:",
        "breaks": "BREAKS",
        "hill_hill": "HILL-HILL",
        "lag": "LAG FOR BREAK",
        "hill_hill_lag": "HILL-HILL: LAG",
        "wins_rack": "WINS RACK",
        "race": "RACE TO",
        "time_up": "TIME UP",
    },
    "ru": {
        "foul": "ФОЛ",
        "ball_in_hand": "ШАР С РУКИ",
        "winner": "ПОБЕДА",
        "wins": "ПОБЕДА",
        "warning": "ПРЕДУПР.",
        "decision": "ВЫБОР",
        "identify": "УКАЖИТЕ ШАР",
        "no_link": "НЕТ ДАТЧИКОВ",
        "board": "ПЛАТА",
        "game_over": "КОНЕЦ ИГРЫ",
        "next_break": "РАЗБИВАЕТ",
        "breaks": "РАЗБИВАЕТ",
        "hill_hill": "РЕШАЮЩАЯ",
        "lag": "РОЗЫГРЫШ",
        "hill_hill_lag": "РЕШАЮЩАЯ ПАРТИЯ",
        "wins_rack": "БЕРЁТ ПАРТИЮ",
        "race": "МАТЧ ДО",
        "time_up": "ВРЕМЯ ВЫШЛО",
    },
}

def _foul_names():
    """{lang: {code: short name}} from the referee's one foul vocabulary (rules/messages.py)."""
    fouls = vocabulary()["fouls"]
    return dict((lang, dict((c, fouls[c]["short"][lang]) for c in fouls)) for lang in ("en", "ru"))


FOUL_NAMES = _foul_names()


def match_score(state):
    """Racks won in the match, [a, b] (states before issue 17 carry none: eight-ball's and
    nine-ball's scores are it)."""
    ms = state.get("match_score")
    if isinstance(ms, list) and len(ms) == 2 and all(is_int(x) for x in ms):
        return ms
    if state.get("game") == "straight-pool":
        return None
    players = state.get("players") or []
    out = [p.get("score") if isinstance(p, dict) else None for p in players[:2]]
    return out if len(out) == 2 and all(is_int(x) for x in out) else None


def races(state):
    """Each player's race [a, b] when the match is handicapped (`race_to_each` differs), else None."""
    each = state.get("race_to_each")
    if isinstance(each, list) and len(each) == 2 and all(is_int(r) for r in each) and each[0] != each[1]:
        return each
    return None


def race_text(state):
    """The race as a line shows it: "5/3" (player 1's race / player 2's) when handicapped, "5"
    for a race longer than one rack, else None."""
    each = races(state)
    if each:
        return "%d/%d" % (each[0], each[1])
    race = state.get("race_to")
    return str(race) if is_int(race) and race > 1 else None


def next_breaker(state):
    """Between racks: ("lag", None) while a lag decides the next rack's break, ("breaks", player)
    once it is known; None otherwise."""
    if not state.get("between_racks"):
        return None
    nb = state.get("next_break")
    if not isinstance(nb, dict):
        return None
    p = nb.get("player")
    return ("breaks", p) if p in (0, 1) else ("lag", None)


def word(key, lang="en"):
    """The short word for `key` in `lang`, English when unknown."""
    table = WORDS.get(lang) or WORDS["en"]
    return table.get(key) or WORDS["en"].get(key, key.upper())


def foul_name(code, lang="en"):
    """A person's name for a foul code; the code itself when unknown."""
    table = FOUL_NAMES.get(lang) or FOUL_NAMES["en"]
    return table.get(code) or FOUL_NAMES["en"].get(code) or str(code)
