"""The test match of the venue tests: nine-ball, race to 2, Anna v Bob.

Game 1: Anna breaks, pockets the 1 and runs 2-9 (a break-and-run).
Game 2: Bob breaks dry, Bob's turn ends, Anna runs 1-9 and wins the match 2-0.
Steps are ("cmd", name, body) or ("shot", rails, [balls pocketed], pocket) for a shot
with the motion sensor (MOTION 1, RAIL x rails, POCKET per ball, MOTION 0).
"""
from shared_rules.link.names import MOTION, RAIL, POCKET

NEW_GAME = {"game": "nine-ball", "players": ["Anna", "Bob"], "race_to": 2}


def steps():
    out = [("cmd", "new_game", NEW_GAME), ("shot", 4, [1], 2)]
    out += [("shot", 1, [b], b % 6) for b in range(2, 10)]
    out += [("shot", 4, [], 0)]                      # game 2: Bob's dry break
    out += [("shot", 1, [b], b % 6) for b in range(1, 10)]
    return out


def board_events(step):
    """(kind, index, value) of one shot step, in order."""
    _, rails, balls, pocket = step
    ev = [(MOTION, 0, 1)]
    ev += [(RAIL, i % 6, 30000) for i in range(rails)]
    ev += [(POCKET, pocket, b) for b in balls]
    ev += [(MOTION, 0, 0)]
    return ev


def journal(wall0=1764540000.0):
    """The journal a daemon would write for the match (hello, then every step), with walls."""
    entries = [{"src": "hello", "features": 0x0D, "t_us": 0, "wall": wall0}]
    t_ms = 1000
    for st in steps():
        if st[0] == "cmd":
            entries.append({"src": "cmd", "cmd": st[1], "body": dict(st[2]), "t_us": t_ms * 1000,
                            "wall": wall0 + t_ms / 1000.0})
            t_ms += 1000
            continue
        for kind, index, value in board_events(st):
            entries.append({"src": "board", "t_us": t_ms * 1000, "kind": kind, "index": index,
                            "value": value, "flags": 0, "wall": wall0 + t_ms / 1000.0})
            t_ms += 100
        t_ms += 5000
    return entries
