"""The board configuration declared once (issue 15): the shape check, the per-chip rules and the
Board builder all read each module's declaration.

Plain test functions: pytest collects them under CPython; under MicroPython `run(globals())`
runs them (tests/firmware/test_on_micropython.py).
"""
from tests.firmware.rig import load_cfg
from tableboard import config, chips
from tableboard.board import Board
from vboard.fakemachine import FakeMachine, FakeTime

SHIPPED = (("pico.json", "rp2040"), ("esp32.json", "esp32"), ("virtual.json", "virtual"))


def test_the_shipped_boards_pass_with_no_warning():
    for name, chip in SHIPPED:
        cfg = load_cfg(name)
        assert config.review(cfg) == ([], []), name
        assert config.review_chip(cfg, chip) == ([], []), name


def test_every_pin_the_builder_sets_up_is_declared_with_a_role():
    # The builder and the chip check read the same declarations: the pins a board really
    # configures are the pins the chip check saw (and main.py's safe-mode pin besides).
    for name, chip in SHIPPED[:2]:
        cfg = load_cfg(name)
        declared = {}
        for where, n, role in config.pins(cfg):
            declared.setdefault(n, []).append(where)
        m = FakeMachine(port="esp32" if chip == "esp32" else "rp2")
        Board(cfg, m, FakeTime(), boot_id=1)
        used = set(m.pins)
        assert used <= set(declared), (name, sorted(used - set(declared)))
        assert set(declared) - used == {cfg["safe_pin"]}, name


def test_a_strapping_pin_warns_and_an_explicit_opt_out_silences_it():
    cfg = load_cfg("esp32.json")
    cfg["pockets"][4]["beam"] = 15
    bad, warn = config.review_chip(cfg, "esp32")
    assert bad == [] and len(warn) == 1 and "pockets[4].beam: GPIO 15 is a strapping pin" in warn[0]
    cfg["ignore_strapping"] = [15]
    assert config.review_chip(cfg, "esp32") == ([], [])
    cfg["ignore_strapping"] = [15, 4]                     # GPIO 4 is no strapping pin
    assert config.review_chip(cfg, "esp32")[1] == ["ignore_strapping: GPIO 4 is not a strapping pin on esp32"]


def test_values_of_the_wrong_kind_are_named_before_the_builder_meets_them():
    cfg = load_cfg("pico.json")
    cfg["i2c"]["0"]["freq"] = "fast"                      # issue 16's board that reset 38 times
    cfg["motion"]["every_ms"] = 2.5
    cfg["buttons"]["mcp23017"] = {"addr": 32}             # and a shift register: which one?
    cfg["lamps"]["order"] = [0, "one"]
    cfg["edges"] = "poll"
    assert config.check(cfg) == [
        'edges: one of "irq", "scan"',
        "i2c.0.freq: a whole number",
        "motion.every_ms: a whole number from 1 to 60000",
        "buttons: exactly one of pins, shift_in, mcp23017",
        "lamps.order: a list of bit numbers (null for none)"]


def test_keys_nobody_reads_are_warned_about():
    cfg = load_cfg("pico.json")
    cfg["rail"]["treshold"] = 900
    bad, warn = config.review(cfg)
    assert bad == [] and warn == ["rail: unknown key treshold (ignored)"]


def test_a_uart_link_needs_its_pins_and_they_are_checked_on_the_chip():
    cfg = load_cfg("pico.json")
    cfg["link"] = {"uart": 0}
    assert config.check(cfg) == ["link: missing tx", "link: missing rx"]
    cfg["link"] = {"uart": 0, "tx": 0, "rx": 29}
    assert config.review_chip(cfg, "rp2040")[0] == ["link.rx: GPIO 29 does not exist on rp2040"]


def test_per_chip_rules_come_from_the_registry():
    # A chip is an entry of chips.CHIPS: its pins, what they can do and its own rules; the
    # generic check has no chip's name in it.
    spec = dict(chips.RP2040)
    spec["rules"] = (lambda cfg: [] if cfg.get("edges") == "scan" else ["edges: scan only"],)
    spec["strapping"] = (2,)
    chips.CHIPS["test-chip"] = spec
    try:
        cfg = load_cfg("pico.json")
        del cfg["chip"]
        bad, warn = config.review_chip(cfg, "test-chip")
        assert bad == ["edges: scan only"] and warn[0].startswith("pockets[0].beam: GPIO 2 is a strapping pin")
    finally:
        del chips.CHIPS["test-chip"]


if __name__ == "__main__":
    from tests.firmware.mptest import run
    run(globals())
