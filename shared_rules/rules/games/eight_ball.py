"""PLACEHOLDER until the game's rules land: racks the balls and passes the turn on a miss."""
from shared_rules.rules import common
from shared_rules.rules.games.base import (check_call, check_safety, check_push_out, resolve, guess,
                                           jump_is_foul, extra_state)
from shared_rules.rules.shot import known_pocketed

SETUP_CLAUSE = "EB.SETUP"
SAFETY_CLAUSE = "EB.SAFETY"


def setup(g, settings):
    g["on_table"] = list(range(1, 15 + 1))


def judge(g, shot, settings, events):
    balls = known_pocketed(shot)
    common.take_down(g, balls)
    common.announce_pocketed(g, shot["shooter"], balls, ["GEN.POCKETED"], events)
    fouls = common.sensor_fouls(shot, not shot["break"])
    if fouls:
        common.record_foul(g, shot["shooter"], fouls, common.foul_clauses(fouls), events)
        common.give_ball_in_hand(g, common.other(shot["shooter"]), "table", ["GEN.FOULS"], events)
    elif not balls:
        common.pass_turn(g, events)
        g["ball_in_hand"] = None
    g["phase"] = "play"
    return {"fouls": fouls, "clauses": [], "credited": balls, "legal_break": True}


def choose(g, option, settings, events):
    g["decision"] = None
    g["phase"] = "play"
