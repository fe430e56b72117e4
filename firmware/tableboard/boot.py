"""Why the board last restarted, and the guard that restarts it on any error.

`run(path)` (main.py calls it) builds the board and runs it; any exception is written
to CRASH_FILE on flash and the board resets (machine.reset). The watchdog started by
app.start resets a board that stops stepping its sensors. At the next boot `reason`
turns the crash file or `machine.reset_cause()` into a FAULT 255 code
(shared_rules/link/names.py), sent once right after HELLO. A normal power-on sends none.
"""
from shared_rules.link import names

CRASH_FILE = "crash.txt"


def reason(machine, path=CRASH_FILE):
    """(code, text) of the last restart, or (None, None) after a plain power-on."""
    text = None
    try:
        with open(path) as f:
            text = f.read(200)
        import os
        os.remove(path)
    except OSError:
        pass
    if text:
        return names.BOARD_CRASH, text
    try:
        c = machine.reset_cause()
    except Exception:
        return None, None
    if c == getattr(machine, "WDT_RESET", None):
        return names.BOARD_WATCHDOG, "watchdog"
    if c == getattr(machine, "SOFT_RESET", None):
        return names.BOARD_SOFT_RESET, "soft reset"
    if c == getattr(machine, "HARD_RESET", None):
        return names.BOARD_HARD_RESET, "reset button"
    if c == getattr(machine, "BROWNOUT_RESET", None):
        return names.BOARD_BROWNOUT, "brown-out"
    return None, None


def record(e, path=CRASH_FILE):
    """Write an exception's one-line reason to flash (never raises: we are going down anyway)."""
    try:
        with open(path, "w") as f:
            f.write("%s: %s" % (type(e).__name__, e))
    except Exception:
        pass


def run(path="board.json"):
    """Start the board; on any error record why and reset, so it never sits dead in the REPL."""
    import machine
    from tableboard import app
    try:
        app.start(path)
    except Exception as e:
        try:
            import sys
            sys.print_exception(e)
        except Exception:
            pass
        record(e)
        machine.reset()
