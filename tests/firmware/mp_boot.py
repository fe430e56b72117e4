"""Boot, crash and restart of the real main.py on the rp2/esp32 port models. MicroPython only.

Run by tests/firmware/test_on_micropython.py (like the test_*.py scripts, but not collected
by pytest under CPython: app.start needs MicroPython's asyncio and the port models).
"""
import asyncio                       # noqa: F401  bound to the real time/select before any fake
import json

from shared_rules.link import frames
from shared_rules.link.names import HELLO, EVENT, FAULT, LIGHTS, LIGHT_FOUL, LIGHT_BALL_IN_HAND
from shared_rules.link.names import FAULT_TEXT
from shared_rules.link import names
from tableboard import app          # noqa: F401
from tests.firmware.bootrig import Boot, FW
from vboard import fakechip


def pico():
    with open(FW + "/boards/pico.json") as f:
        return json.load(f)


def foul_lamps(mask):
    """The daemon's LIGHTS with the foul lamp lit: most such frames hold a 0x03 byte."""
    return frames.encode({"type": LIGHTS, "seq": 0, "mask": mask | LIGHT_FOUL, "mode": 0})


def daemon_sending(chunk):
    """The daemon, already running, sends foul-lamp frames all the time, `chunk` bytes per VM check."""
    data = bytearray()
    for mask in range(64):
        data.extend(foul_lamps(mask | (LIGHT_BALL_IN_HAND if mask & 1 else 0)))
    pos = [0]

    def more():
        i = pos[0]
        pos[0] = (i + chunk) % (len(data) - chunk)
        return data[i:i + chunk]
    return more


def hellos(fs):
    return [f for f in fs if f["type"] == HELLO]


def board_faults(fs):
    return [f["value"] for f in fs if f["type"] == EVENT and f["kind"] == FAULT
            and f["index"] == names.FAULT_BOARD]


def test_the_lamp_frames_really_hold_ctrl_c():
    n = 0
    for mask in range(1024):
        if 3 in foul_lamps(mask):
            n += 1
    assert n > 500


def test_a_reset_while_the_daemon_lights_the_foul_lamp_comes_back_with_hello_every_time():
    b = Boot(pico())
    for trial in range(24):
        fs = b.boot(host_stream=daemon_sending(1 + trial % 7), pending_interrupt=trial % 3 == 0)
        assert b.reset is None, trial
        assert len(hellos(fs)) == 1, (trial, fs)
        assert b.machine.mp.interrupt_char == -1


def test_the_fake_port_stops_a_program_that_leaves_ctrl_c_on():
    # The port model itself: with Ctrl-C armed a 0x03 from the host clears stdin and stops
    # the program at the next check; with kbd_intr(-1) it is a byte like any other.
    from vboard.fakemachine import FakeMachine, FakeUSB
    m = FakeMachine()
    m.attach(None)
    usb = fakechip.usb_with_interrupt_char(FakeUSB(), m)
    usb.host_write(b"\x01\x03\x02")
    try:
        m.vm_check()
        stopped = False
    except KeyboardInterrupt:
        stopped = True
    assert stopped and usb.rxpipe.n == 1
    m.mp.kbd_intr(-1)
    usb.host_write(b"\x01\x03\x02")
    m.vm_check()
    assert usb.rxpipe.n == 4


def test_a_crash_writes_its_reason_resets_and_the_next_hello_is_followed_by_fault_crash():
    b = Boot(pico())
    fs = b.boot()
    assert hellos(fs) and board_faults(fs) == []          # a plain power-on reports nothing

    def on_fire(pin):
        if pin.id == 22:                                   # the buttons' 74HC165 data line
            raise RuntimeError("shift register on fire")
    b.boot(stop=lambda fs: False, on_read=on_fire)
    assert b.reset == fakechip.WDT_RESET                  # rp2 machine.reset() goes through the watchdog
    with open(b.dir + "/crash.txt") as f:
        assert "shift register on fire" in f.read()
    fs = b.boot(stop=lambda fs: [f for f in fs if f["type"] == EVENT])
    assert hellos(fs) and board_faults(fs) == [names.BOARD_CRASH], fs
    b.cause = fakechip.PWRON_RESET                        # then a power cycle
    fs = b.boot()
    assert board_faults(fs) == []                          # once only: the file is gone


def test_after_a_watchdog_reset_the_host_hears_fault_watchdog():
    b = Boot(pico())
    b.cause = fakechip.WDT_RESET
    fs = b.boot(stop=lambda fs: [f for f in fs if f["type"] == EVENT])
    assert board_faults(fs) == [names.BOARD_WATCHDOG]
    seqs = [f["seq"] for f in fs if f["type"] in (HELLO, EVENT)]
    assert seqs[:2] == [0, 1]                              # right after HELLO


def test_a_bad_esp32_configuration_gives_fault_config_and_no_sensors():
    with open(FW + "/boards/esp32.json") as f:
        cfg = json.load(f)
    cfg["pockets"][5]["beam"] = 5                          # a strapping pin
    del cfg["edges"]                                       # and hard interrupts ESP32 has not
    b = Boot(cfg, port="esp32", platform="esp32")
    fs = b.boot(stop=lambda fs: [f for f in fs if f["type"] == EVENT])
    h = hellos(fs)[0]
    assert h["pockets"] == 0 and h["rails"] == 0 and h["features"] == 0
    assert board_faults(fs) == [names.BOARD_CONFIG]


def test_the_shipped_esp32_configuration_boots_on_the_esp32_model():
    with open(FW + "/boards/esp32.json") as f:
        cfg = json.load(f)
    b = Boot(cfg, port="esp32", platform="esp32")
    fs = b.boot()
    h = hellos(fs)[0]
    assert h["pockets"] == 6 and h["rails"] == 6 and board_faults(fs) == []


# --- issue 16: a board that fails while it is built; the reason survives; reset reasons -------

def texts(fs):
    return [(f["value"], f["text"]) for f in fs if f["type"] == FAULT_TEXT]


def first_event(fs):
    return [f for f in fs if f["type"] == EVENT]


def read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None


def test_a_board_that_fails_while_it_is_built_speaks_and_writes_flash_once():
    def shorted(pin):
        if pin.id == 2:                                    # pocket 0's beam, read while building
            raise RuntimeError("beam receiver shorted")
    b = Boot(pico())
    for boot in range(3):                                  # it fails the same way at every boot
        fs = b.boot(stop=first_event, on_read=shorted)
        assert b.reset is None, boot                       # no reset loop: it stays up and speaks
        h = hellos(fs)[0]
        assert h["pockets"] == 0 and h["rails"] == 0 and h["features"] == 0
        assert board_faults(fs) == [names.BOARD_CRASH], (boot, fs)
        assert texts(fs) == [(17, "RuntimeError: beam receiver shorted")], boot
        b.cause = fakechip.PWRON_RESET                     # then a power cycle
    assert b.flash_writes == 1 and "beam receiver shorted" in read(b.dir + "/crash.txt")
    fs = b.boot(stop=first_event)                          # repaired: the board runs its sensors
    assert hellos(fs)[0]["pockets"] == 6
    assert board_faults(fs) == [names.BOARD_CRASH] and texts(fs)[0][1].endswith("shorted")
    assert read(b.dir + "/crash.txt") is None              # the host acknowledged the reason
    fs = b.boot()
    assert board_faults(fs) == [] and b.flash_writes == 1


def test_issue_16_s_i2c_fast_is_refused_with_its_reason_and_no_reset():
    cfg = pico()
    cfg["i2c"]["0"]["freq"] = "fast"
    b = Boot(cfg)
    fs = b.boot(stop=first_event)
    assert b.reset is None and hellos(fs)[0]["pockets"] == 0
    assert board_faults(fs) == [names.BOARD_CONFIG]
    assert texts(fs) == [(21, "i2c.0.freq: a whole number")]
    assert b.flash_writes == 0


def test_the_crash_reason_survives_until_the_host_has_acknowledged_it():
    b = Boot(pico())

    def on_fire(pin):
        if pin.id == 22:
            raise RuntimeError("shift register on fire")
    b.boot(stop=lambda fs: False, on_read=on_fire)
    assert b.reset == fakechip.WDT_RESET
    b.acking = False                                       # the daemon is not running
    for _ in range(2):
        fs = b.boot(stop=first_event)
        assert board_faults(fs) == [names.BOARD_CRASH]
        assert texts(fs) == [(17, "RuntimeError: shift register on fire")]
        assert "shift register on fire" in read(b.dir + "/crash.txt")
        b.cause = fakechip.PWRON_RESET
    b.acking = True                                        # now it is: it acknowledges the FAULT
    fs = b.boot(stop=first_event)
    assert board_faults(fs) == [names.BOARD_CRASH] and read(b.dir + "/crash.txt") is None
    assert board_faults(b.boot()) == []
    assert b.flash_writes == 1


def test_rp2_says_reset_by_software_after_machine_reset_not_watchdog():
    b = Boot(pico())
    b.cause = fakechip.WDT_RESET
    b.wdt_reason = fakechip.REASON_FORCE                  # mpremote reset: machine.reset()
    fs = b.boot(stop=first_event)
    assert board_faults(fs) == [names.BOARD_SOFT_RESET]
    assert texts(fs) == [(20, "reset by software: machine.reset()")]


if __name__ == "__main__":
    from tests.firmware.mptest import run
    run(globals())
