"""A real-looking eight-ball game as the sequence of states and events the
daemon would publish (CONTRACT section 2 plus the engine's extra fields).

Anna breaks and pockets 3 and 10; Anna takes solids with the 1; Anna
scratches (foul, Bob has ball in hand); Bob misses; Bob fouls twice in a row
and gets a warning; ... Anna pockets the 8 and wins.
"""

import copy


def base_state(table="t1"):
    return {
        "table": table, "game": "eight-ball",
        "players": [
            {"name": "Anna", "score": 0, "group": None, "fouls": 0},
            {"name": "Bob", "score": 0, "group": None, "fouls": 0},
        ],
        "shooter": 0, "phase": "break", "ball_in_hand": "kitchen",
        "table_open": True, "on_table": list(range(1, 16)),
        "decision": None, "needs": [], "winner": None, "shot": 0,
        "last_shot": None,
        "link": {"state": "up", "dropped": 0},
        "stats": [
            {"pocketed": 0, "fouls": 0, "breaks": 0, "legal_breaks": 0, "high_run": 0},
            {"pocketed": 0, "fouls": 0, "breaks": 0, "legal_breaks": 0, "high_run": 0},
        ],
        "last_foul": None, "warning": None, "called": None,
        "target": None, "race_to": 1, "shot_clock": None,
    }


def ev(event, player, en, ru, clauses=(), **more):
    d = {"event": event, "player": player, "clauses": list(clauses),
         "clause": list(clauses), "text": {"en": en, "ru": ru}}
    d.update(more)
    return d


def game(table="t1"):
    """[(label, state, events)] in order."""
    steps = []
    s = base_state(table)
    steps.append(("new game", copy.deepcopy(s), []))

    s["phase"] = "play"; s["ball_in_hand"] = None; s["shot"] = 1
    s["on_table"] = [1, 2, 4, 5, 6, 7, 8, 9, 11, 12, 13, 14, 15]
    s["last_shot"] = {"pocketed": [3, 10], "rails": 4, "fouls": [], "clauses": ["EB.BREAK-NO-GROUP"]}
    s["stats"][0]["breaks"] = 1; s["stats"][0]["legal_breaks"] = 1; s["stats"][0]["pocketed"] = 2
    steps.append(("break", copy.deepcopy(s), [
        ev("pocketed", 0, "Anna pocketed 3 and 10 on the break.", "Анна забила 3 и 10 с разбоя.",
           ["EB.BREAK-NO-GROUP"], balls=[3, 10])]))

    s["shot"] = 2; s["table_open"] = False
    s["players"][0]["group"] = "solids"; s["players"][1]["group"] = "stripes"
    s["on_table"].remove(1)
    s["last_shot"] = {"pocketed": [1], "rails": 1, "fouls": [], "clauses": ["EB.GROUPS"]}
    s["stats"][0]["pocketed"] = 3
    steps.append(("groups", copy.deepcopy(s), [
        ev("group", 0, "Anna plays solids.", "Анна играет сплошными.", ["EB.GROUPS"])]))

    s["shot"] = 3; s["shooter"] = 1; s["ball_in_hand"] = "table"
    s["players"][0]["fouls"] = 1
    s["last_shot"] = {"pocketed": [0], "rails": 2, "fouls": ["cue_pocketed"], "clauses": ["EB.FOULS"]}
    s["last_foul"] = {"player": 0, "codes": ["cue_pocketed"], "clauses": ["EB.FOULS"]}
    s["stats"][0]["fouls"] = 1
    steps.append(("scratch", copy.deepcopy(s), [
        ev("foul", 0, "Foul: Anna pocketed the cue ball.", "Фол: Анна забила биток.",
           ["EB.FOULS"], codes=["cue_pocketed"]),
        ev("turn", 1, "Bob has ball in hand.", "Боб играет с руки.", ["EB.FOULS"])]))

    s["shot"] = 4; s["shooter"] = 0; s["ball_in_hand"] = None
    s["players"][0]["fouls"] = 0
    s["last_shot"] = {"pocketed": [], "rails": 3, "fouls": [], "clauses": ["GEN.TURN"]}
    steps.append(("bob misses", copy.deepcopy(s), [
        ev("turn", 0, "Anna to shoot.", "Бьёт Анна.", ["GEN.TURN"])]))

    s["shot"] = 5; s["shooter"] = 1; s["ball_in_hand"] = "table"
    s["players"][0]["fouls"] = 1
    s["last_shot"] = {"pocketed": [], "rails": 0, "fouls": ["no_rail"], "clauses": ["EB.FOULS"]}
    s["last_foul"] = {"player": 0, "codes": ["no_rail"], "clauses": ["EB.FOULS"]}
    steps.append(("anna no rail", copy.deepcopy(s), [
        ev("foul", 0, "Foul: no ball reached a rail.", "Фол: ни один шар не коснулся борта.",
           ["EB.FOULS"], codes=["no_rail"])]))

    s["shot"] = 6; s["shooter"] = 0; s["ball_in_hand"] = "table"
    s["players"][1]["fouls"] = 1
    s["last_shot"] = {"pocketed": [], "rails": 0, "fouls": ["no_rail"], "clauses": ["EB.FOULS"]}
    s["last_foul"] = {"player": 1, "codes": ["no_rail"], "clauses": ["EB.FOULS"]}
    steps.append(("bob no rail", copy.deepcopy(s), [
        ev("foul", 1, "Foul: no ball reached a rail.", "Фол: ни один шар не коснулся борта.",
           ["EB.FOULS"], codes=["no_rail"])]))

    s["shot"] = 7; s["shooter"] = 1; s["ball_in_hand"] = "table"
    s["players"][0]["fouls"] = 2
    s["last_shot"] = {"pocketed": [], "rails": 1, "fouls": ["wrong_first_contact"], "clauses": ["EB.FOULS"]}
    s["last_foul"] = {"player": 0, "codes": ["wrong_first_contact"], "clauses": ["EB.FOULS"]}
    s["warning"] = {"player": 0, "text": {
        "en": "Anna is on two fouls: a third loses the game.",
        "ru": "У Анны два фола подряд: третий — проигрыш партии."}}
    steps.append(("warning", copy.deepcopy(s), [
        ev("foul", 0, "Foul: Anna hit the wrong ball first.", "Фол: Анна сначала попала не в тот шар.",
           ["EB.FOULS"], codes=["wrong_first_contact"]),
        ev("warning", 0, s["warning"]["text"]["en"], s["warning"]["text"]["ru"], ["EB.THREE-FOULS"])]))

    s["shot"] = 8; s["shooter"] = 0; s["ball_in_hand"] = None; s["warning"] = None
    s["players"][0]["fouls"] = 0
    s["on_table"] = [8, 9, 11, 12, 13, 14, 15]
    s["last_shot"] = {"pocketed": [2, 4, 5, 6, 7], "rails": 2, "fouls": [], "clauses": ["GEN.TURN"]}
    s["called"] = {"ball": 8, "pocket": "foot-left"}
    steps.append(("anna runs out", copy.deepcopy(s), [
        ev("pocketed", 0, "Anna pocketed 7.", "Анна забила 7.", ["GEN.TURN"], balls=[7])]))

    s["shot"] = 9; s["phase"] = "over"; s["winner"] = 0; s["called"] = None
    s["players"][0]["score"] = 1
    s["on_table"] = [9, 11, 12, 13, 14, 15]
    s["last_shot"] = {"pocketed": [8], "rails": 1, "fouls": [], "clauses": ["EB.WIN"]}
    steps.append(("anna wins", copy.deepcopy(s), [
        ev("pocketed", 0, "Anna pocketed the 8.", "Анна забила восьмёрку.", ["EB.WIN"], balls=[8]),
        ev("over", 0, "Anna wins.", "Анна выиграла.", ["EB.WIN"])]))
    return steps


def step(label, table="t1"):
    for lab, s, e in game(table):
        if lab == label:
            return s, e
    raise KeyError(label)
