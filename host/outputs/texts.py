"""Short words for small displays, English and Russian.

LED scoreboards have 16 columns per line, so every word here is short; the
engine's long event texts ({en, ru}) are for people reading a screen.
"""

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
    },
}

FOUL_NAMES = {
    "en": {
        "cue_pocketed": "scratch",
        "no_rail": "no rail",
        "illegal_break": "illegal break",
        "wrong_first_contact": "wrong ball first",
        "no_contact": "no contact",
        "jumped_ball": "ball off the table",
        "double_hit": "double hit",
        "push_shot": "push shot",
        "touched_ball": "touched a ball",
        "no_foot_on_floor": "no foot on the floor",
        "bad_stroke": "bad stroke",
        "near_ball": "near-ball stroke",
        "moving_ball": "ball still moving",
        "kitchen": "kitchen",
    },
    "ru": {
        "cue_pocketed": "свой шар",
        "no_rail": "нет борта",
        "illegal_break": "неправильный разбой",
        "wrong_first_contact": "не тот шар",
        "no_contact": "нет касания",
        "jumped_ball": "шар за бортом",
        "double_hit": "двойной удар",
        "push_shot": "толчок",
        "touched_ball": "касание шара",
        "no_foot_on_floor": "нет ноги на полу",
        "bad_stroke": "неправильный удар",
        "near_ball": "близкий шар",
        "moving_ball": "шары в движении",
        "kitchen": "дом",
    },
}


def word(key, lang="en"):
    """The short word for `key` in `lang`, English when unknown."""
    table = WORDS.get(lang) or WORDS["en"]
    return table.get(key) or WORDS["en"].get(key, key.upper())


def foul_name(code, lang="en"):
    """A person's name for a foul code; the code itself when unknown."""
    table = FOUL_NAMES.get(lang) or FOUL_NAMES["en"]
    return table.get(code) or FOUL_NAMES["en"].get(code) or str(code)
