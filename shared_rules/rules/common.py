"""Rule steps every game shares: turns, fouls, ball in hand, spotting, the foul run."""
from shared_rules.rules import break_estimator
from shared_rules.rules.events import event
from shared_rules.rules.messages import say, say_each, words


# Fouls any shot can carry (CONTRACT section 2), with the clause that makes each a foul.
MANUAL_FOULS = {
    "wrong_first_contact": "GEN.FOULS",
    "no_contact": "GEN.FOULS",
    "jumped_ball": "GEN.JUMPED",
    "double_hit": "GEN.FOULS",
    "push_shot": "GEN.FOULS",
    "touched_ball": "GEN.FOULS",
    "no_foot_on_floor": "GEN.STRIKE",
    "bad_stroke": "GEN.STRIKE",
    "near_ball": "GEN.NEAR-BALL",
    "moving_ball": "GEN.FOULS",
    "kitchen": "GEN.KITCHEN",
    "interference": "GEN.OPPONENT",
    "cue_pocketed": "GEN.FOULS",
    "no_rail": "GEN.FOULS",
    "illegal_break": "GEN.FOULS",
}

def tell(events, kind, player, clauses, key, *args, extra=None):
    """Add an event worded by message `key` (messages.py)."""
    en, ru = say(key, *args)
    events.append(event(kind, player, clauses, en, ru, extra))


def add_new(lst, items):
    """Append the items `lst` lacks (clause and foul lists keep one of each); returns `lst`."""
    for i in items:
        if i not in lst:
            lst.append(i)
    return lst


def other(p):
    return 1 - p


def name(g, p):
    return g["players"][p]["name"]


def foul_text(codes):
    """The foul codes in words, per language (messages.py)."""
    named = [words(c) for c in codes]
    return ", ".join(w[0] for w in named), ", ".join(w[1] for w in named)


def sensor_fouls(shot, need_rail=True):
    """Foul codes of a shot: what the sensors saw plus what was entered by hand.

    `need_rail` is off for shots that need no rail (the break, a push-out); then
    only a hand-entered `no_rail` counts.
    """
    codes = []
    if shot["cue_pocketed"]:
        codes.append("cue_pocketed")
    if 0 in shot["jumped"] and "jumped_ball" not in codes:
        codes.append("jumped_ball")
    # A cushion after the contact as the camera saw it (rules/camera.py), else any rail hit.
    railed = shot["rails"] if shot.get("rails_seen") is None else shot["rails_seen"]
    if need_rail and not railed and not [b for b in shot["pocketed"] if b[0] != 0]:
        codes.append("no_rail")
    for c in shot["fouls"]:
        if c not in codes and c != "interference":
            codes.append(c)
    return codes


def foul_clauses(codes):
    out = []
    for c in codes:
        cl = MANUAL_FOULS.get(c)
        if cl and cl not in out:
            out.append(cl)
    return out


def record_foul(g, p, codes, clauses, events):
    """One foul event for the shot, however many rules it broke (GEN.MULTI-FOUL)."""
    en, ru = foul_text(codes)
    cl = list(clauses)
    if len(codes) > 1 and "GEN.MULTI-FOUL" not in cl:
        cl.append("GEN.MULTI-FOUL")
    g["last_foul"] = {"player": p, "codes": list(codes), "clauses": cl}
    en, ru = say_each("foul", (name(g, p), en), (name(g, p), ru))
    events.append(event("foul", p, cl, en, ru, {"codes": list(codes)}))


def pass_turn(g, events, clauses=("GEN.TURN",)):
    g["shooter"] = other(g["shooter"])
    p = g["shooter"]
    tell(events, "turn", p, clauses, "turn", name(g, p))


def give_ball_in_hand(g, p, where, clauses, events):
    """`p` shoots next with the cue ball in hand (`kitchen` or `table`)."""
    if g["shooter"] != p:
        pass_turn(g, events)
    g["ball_in_hand"] = where
    tell(events, "ball_in_hand", p, clauses, "ball_in_hand_kitchen" if where == "kitchen" else "ball_in_hand",
         name(g, p), extra={"where": where})


def take_down(g, balls):
    for b in balls:
        if b in g["on_table"]:
            g["on_table"].remove(b)


def spot(g, balls, clauses, events, where="foot spot"):
    """Put balls back on the table (GEN.SPOT); the table is told with a `respot` event."""
    back = []
    for b in balls:
        if b is not None and b != 0 and b not in g["on_table"]:
            g["on_table"].append(b)
            back.append(b)
    if back:
        g["on_table"].sort()
        cl = list(clauses)
        if "GEN.SPOT" not in cl:
            cl.append("GEN.SPOT")
        bl = ", ".join(str(b) for b in back)
        tell(events, "respot", g["shooter"], cl, "respot", bl, where, extra={"balls": back})
    return back


def announce_pocketed(g, p, balls, clauses, events):
    if balls:
        bl = ", ".join(str(b) for b in balls)
        tell(events, "pocketed", p, clauses, "pocketed", name(g, p), bl, extra={"balls": list(balls)})


def warn(g, p, clauses, en, ru, events):
    g["warning"] = {"player": p, "text": {"en": en, "ru": ru}}
    events.append(event("warning", p, clauses, en, ru))


def offer(g, p, options, clauses, events, en, ru):
    """Hand player `p` a choice (CONTRACT decision); the game waits for `choose`."""
    g["decision"] = {"player": p, "options": list(options), "clauses": list(clauses), "text": {"en": en, "ru": ru}}
    g["phase"] = "decision"
    events.append(event("decision", p, clauses, en, ru, {"options": list(options)}))


def game_over(g, winner, clauses, events, en_why, ru_why):
    g["phase"] = "over"
    g["game_winner"] = winner
    g["decision"] = None
    g["ball_in_hand"] = None
    en, ru = say_each("over", (name(g, winner), en_why), (name(g, winner), ru_why))
    events.append(event("over", winner, clauses, en, ru))


def break_rails_reached(shot, settings, needed, cue_ball=False, rack=15):
    """Did `needed` balls (object balls, plus the cue ball when `cue_ball`) reach a rail on the break?

    The referee's `legal_break` (shot.rails_ruled) settles it; otherwise the calibrated
    estimator over the rail impacts (break_estimator) says. Bad estimator parameters must not
    leave a break unjudged, so they fall back to counting the impacts.
    """
    if shot.get("rails_ruled"):
        return True
    seen = (shot.get("camera") or {}).get("break_rails")
    if seen is not None:
        return seen                 # the camera counted the balls (rules/camera.py)
    impacts = [tuple(r) for r in shot["rails"]]
    try:
        return break_estimator.break_reached_rails(impacts, needed, settings.get("break_estimator"),
                                                   cue_ball=cue_ball, rack=rack)
    except Exception:
        return len(impacts) >= needed + (1 if cue_ball else 0)
