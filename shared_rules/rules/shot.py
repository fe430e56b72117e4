"""A shot: what the sensors and the players said between the cue strike and the balls stopping.

Plain dict so it can be kept for re-judging, journaled and compared on both interpreters.
Set only when entered: "stopped", the ball the opponent stopped on its way to a pocket
(GEN.OPPONENT); "rack", the 14.1 rack facts (the `rack` command's, or the camera's); "camera", the camera's facts of the shot and whether it
was faulty meanwhile, and "rails_seen", whether it saw a cushion after the contact (rules/camera.py). `n` is the shot's serial number at the table: the
referee's book names a shot by it (book.py).
"""


def new_shot(g, t_us, n):
    return {
        "n": n,
        "shooter": g["shooter"],
        "break": g["phase"] == "break",
        "start_us": t_us,
        "end_us": None,
        "pocketed": [],          # [ball or None, pocket, t_us, uncertain]
        "cue_pocketed": False,
        "rails": [],             # [t_us, rail, strength]
        "called": g["called"],
        "safety": bool(g["safety"]),
        "push_out": bool(g["push_out"]),
        "from": g["ball_in_hand"],
        "fouls": [],             # codes entered by hand for this shot
        "fouler": None,          # the player who committed an `interference` foul
        "jumped": [],            # balls that left the table (entered by hand)
        "spotted": [],           # balls put back without penalty (GEN.POCKETED)
        "rails_ruled": False,    # the referee ruled that enough balls reached a rail (`legal_break`)
    }


def known_pocketed(shot):
    return [p[0] for p in shot["pocketed"] if p[0] is not None and p[0] != 0]


def pocket_of(shot, ball):
    for p in shot["pocketed"]:
        if p[0] == ball:
            return p[1]
    return None
