"""Why the board last restarted, and the guard that restarts it on any error.

`run(path)` (main.py calls it) builds the board and runs it; an exception in the running
board is written to CRASH_FILE on flash and the board resets (machine.reset). The watchdog
started by app.start resets a board that stops stepping its sensors. At the next boot
`reason` turns the crash file, or what the chip can tell (tableboard/chips.py), into a
FAULT 255 code (shared_rules/link/names.py) and a text, sent right after HELLO. A normal
power-on sends none. The crash file stays until the host has acknowledged the FAULT that
told it (`forget`), and is written only when its text changes: a failure that comes back
at every boot writes flash once.
"""
from shared_rules.link import names

CRASH_FILE = "crash.txt"
# main.py reads it before anything else: jumpered to GND at power-up, the REPL stays free.
CONFIG = (("safe_pin", "pin", None, "boot_pull"),)


def read(path=CRASH_FILE):
    """The text in the crash file, or None."""
    try:
        with open(path) as f:
            return f.read(200) or None
    except OSError:
        return None


def reason(machine, chip=None, path=CRASH_FILE):
    """(code, text) of the last restart, or (None, None) after a plain power-on."""
    text = read(path)
    if text:
        return names.BOARD_CRASH, text
    from tableboard import chips
    return chips.restart(machine, chip)


def describe(e):
    """An exception's one-line reason."""
    return "%s: %s" % (type(e).__name__, e)


def show(e):
    """The traceback for a person at the REPL, then a 0x00 (see app.say)."""
    try:
        import sys
        sys.print_exception(e)
        print(end="\x00")
    except Exception:
        pass


def record(e, path=CRASH_FILE):
    """Write a failure's reason (an exception or its text) to flash, unless the file holds it
    already; never raises (we may be going down). Returns the text."""
    text = e if isinstance(e, str) else describe(e)
    if read(path) == text[:200]:
        return text
    try:
        with open(path, "w") as f:
            f.write(text[:200])
    except Exception:
        pass
    return text


def forget(text, path=CRASH_FILE):
    """The host has acknowledged `text`: remove the crash file if it still holds it."""
    if text and read(path) == text:
        try:
            import os
            os.remove(path)
        except Exception:
            pass


def run(path="board.json"):
    """Start the board; on any error record why and reset, so it never sits dead in the REPL."""
    import machine
    from tableboard import app
    try:
        app.start(path)
    except Exception as e:
        show(e)
        record(e)
        machine.reset()
