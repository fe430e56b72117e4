"""The LIGHTS mask the board shows, derived from the table state (pure)."""
from shared_rules.link.names import pocket_index, LIGHT_BALL_IN_HAND, LIGHT_FOUL


def lights_for(state):
    """(mask, mode): bit n = lamp at called pocket n, bit 8 ball in hand, bit 9 foul last shot.

    Blinks while the game waits for a player's decision.
    """
    mask = 0
    if not isinstance(state, dict):
        return 0, 0
    call = state.get("called", state.get("call"))
    if isinstance(call, dict):
        p = pocket_index(call.get("pocket"))
        if p is not None:
            mask |= 1 << p
    if state.get("ball_in_hand"):
        mask |= LIGHT_BALL_IN_HAND
    last = state.get("last_shot")
    if isinstance(last, dict) and last.get("fouls"):
        mask |= LIGHT_FOUL
    mode = 1 if state.get("decision") else 0
    return mask, mode
