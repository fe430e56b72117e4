"""Names and numbers of CONTRACT section 1: frame types, event kinds, pockets, rails, buttons."""

HELLO = 0x01
EVENT = 0x02
HEARTBEAT = 0x03
ACK = 0x81
LIGHTS = 0x82

RELIABLE = (HELLO, EVENT)

POCKET = 1
RAIL = 2
CUE = 3
MOTION = 4
BUTTON = 5
FAULT = 6

KIND_NAMES = {POCKET: "pocket", RAIL: "rail", CUE: "cue", MOTION: "motion",
              BUTTON: "button", FAULT: "fault"}

POCKETS = ("head-left", "side-left", "foot-left", "foot-right", "side-right", "head-right")
RAILS = ("head", "left-head", "left-foot", "foot", "right-foot", "right-head")

UNKNOWN_BALL = 255
FLAG_UNCERTAIN = 1

FEATURE_BALL_ID = 1
FEATURE_CUE_DETECTOR = 2
FEATURE_MOTION = 4
FEATURE_BUTTONS = 8

BUTTON_SAFETY = 6
BUTTON_CONFIRM = 7
BUTTON_UNDO = 8
BUTTON_NEW_GAME = 9
PRESS = 1
LONG_PRESS = 2

FAULT_BLOCKED = 1
FAULT_CLEAR = 2
FAULT_SILENT = 3

LIGHT_BALL_IN_HAND = 1 << 8
LIGHT_FOUL = 1 << 9


def pocket_index(p):
    """Pocket number from a name or a number (int or digit string); None if no such pocket."""
    if isinstance(p, bool):
        return None
    if isinstance(p, int):
        return p if 0 <= p < 6 else None
    if isinstance(p, str):
        if p in POCKETS:
            return POCKETS.index(p)
        if len(p) == 1 and p in "012345":
            return int(p)
    return None
