"""Names and numbers of CONTRACT section 1: frame types, event kinds, pockets, rails, buttons."""

HELLO = 0x01
EVENT = 0x02
HEARTBEAT = 0x03
FAULT_TEXT = 0x04        # firmware 1.2+: the text of a board FAULT (docs/protocol.md)
LOOP_RATE = 0x05         # firmware 1.2+: the sensor loop's measured rate
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

# The firmware version (HELLO fw_major, fw_minor) from which a board offers each addition
# to CONTRACT section 1: a host tells from HELLO what the board may send.
FW_BOARD_FAULT = (1, 1)      # FAULT 255, values 16-21
FW_FAULT_TEXT = (1, 2)       # FAULT_TEXT frames before a FAULT 255 that has a text
FW_LOOP_RATE = (1, 2)        # LOOP_RATE frames

# FAULT with index 255 is the board itself (firmware 1.1+): sent once after HELLO when the
# board restarted for a reason other than power-on, or cannot run its configuration.
# Values start at 16 so that a host knowing only the sensor faults 1-3 never mistakes them.
FAULT_BOARD = 255
BOARD_WATCHDOG = 16
BOARD_CRASH = 17
BOARD_BROWNOUT = 18
BOARD_HARD_RESET = 19
BOARD_SOFT_RESET = 20
BOARD_CONFIG = 21
BOARD_FAULTS = {BOARD_WATCHDOG: "watchdog", BOARD_CRASH: "crash", BOARD_BROWNOUT: "brownout",
                BOARD_HARD_RESET: "reset_button", BOARD_SOFT_RESET: "soft_reset",
                BOARD_CONFIG: "bad_config"}
