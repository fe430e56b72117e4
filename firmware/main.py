# Runs at power-up. Ctrl-C goes off before anything else: the daemon's frames often hold
# 0x03, and one arriving while main.py can still be interrupted leaves the board in the
# REPL for good. Then the safe-mode jumper; the firmware itself is imported only after.
import micropython
micropython.kbd_intr(-1)


def safe_mode(path="board.json"):
    """True when the board configuration's safe_pin is jumpered to GND: give the REPL back."""
    import machine
    import json
    try:
        with open(path) as f:
            n = json.load(f).get("safe_pin")
    except (OSError, ValueError, AttributeError):
        return False
    return n is not None and machine.Pin(n, machine.Pin.IN, machine.Pin.PULL_UP).value() == 0


def main():
    if safe_mode():
        micropython.kbd_intr(3)
        print("safe mode: link not started, REPL free")
        return
    from tableboard import boot
    boot.run("board.json")


for _ in range(5):
    try:
        main()
        break
    except KeyboardInterrupt:
        pass    # a Ctrl-C that came before kbd_intr(-1) is raised late, once: start again
