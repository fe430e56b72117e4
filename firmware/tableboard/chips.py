"""Per-chip rules, in a registry (as ESPHome validates pins per platform).

Each chip says which GPIOs exist and what each can do, the configuration rules of its
own (`rules`), and what its MicroPython port can tell about why it restarted (`restart`).
`check` holds every pin of a configuration (with its role, from the declarations of
schema.py) against the chip: errors refuse the configuration (FAULT 255 value 21 at boot,
no sensors run; tools/deploy_board.py refuses to copy it); warnings are shown and the
board runs. A strapping pin is a warning: it works if the circuit leaves it at its boot
level at power-up, which only the installer can check; listing it in "ignore_strapping"
says so and silences the warning.
"""
from shared_rules.link import names

# machine.reset_cause() values, by name (ports/rp2/modmachine.c, ports/esp32/modmachine.c).
PWRON, HARD, WDT, SOFT = "PWRON_RESET", "HARD_RESET", "WDT_RESET", "SOFT_RESET"


def _cause(machine):
    """The name of machine.reset_cause()'s value (PWRON_RESET, WDT_RESET...), or None."""
    try:
        c = machine.reset_cause()
    except Exception:
        return None
    for name in (PWRON, HARD, WDT, SOFT, "DEEPSLEEP_RESET", "BROWNOUT_RESET"):
        if c == getattr(machine, name, None):
            return name
    return None


# --- rp2 -----------------------------------------------------------------------------------

# ports/rp2/modmachine.c: reset_cause() is WDT_RESET whenever the watchdog's REASON register
# has a bit set (pico-sdk watchdog_caused_reboot), and machine.reset() itself reboots through
# the watchdog (watchdog_reboot(0, SRAM_END, 0): REASON.FORCE), so reset_cause() alone cannot
# tell a watchdog bite from machine.reset(). REASON can: TIMER (bit 0) is the watchdog, FORCE
# (bit 1) a reset by software. Its address, by the MCU in sys.implementation._machine
# (pico-sdk hardware_regs: WATCHDOG_BASE + WATCHDOG_REASON_OFFSET).
WATCHDOG_REASON = (("RP2040", 0x40058008), ("RP2350", 0x400D8008))
REASON_TIMER = 1
REASON_FORCE = 2


def _rp2_watchdog_reason(machine, mcu):
    """The watchdog's REASON bits, or None where this MCU's register is not known."""
    for name, addr in WATCHDOG_REASON:
        if name in mcu:
            try:
                return machine.mem32[addr] & 3
            except Exception:
                return None
    return None


def _rp2_restart(machine, mcu):
    """rp2: PWRON_RESET is a power-on, the RUN pin or a brown-out (none told apart): nothing
    to report. WDT_RESET is the watchdog or machine.reset(), told apart by REASON."""
    if _cause(machine) != WDT:
        return None, None
    why = _rp2_watchdog_reason(machine, mcu)
    if why == REASON_TIMER:
        return names.BOARD_WATCHDOG, None
    if why == REASON_FORCE:
        return names.BOARD_SOFT_RESET, "reset by software: machine.reset()"
    return names.BOARD_WATCHDOG, "the watchdog or machine.reset(): cannot tell"


# --- ESP32 ---------------------------------------------------------------------------------

def _esp32_restart(machine, mcu):
    """ports/esp32/modmachine.c (esp_reset_reason): PWRON_RESET is a power-on, the EN button
    or a brown-out (nothing to report); WDT_RESET any watchdog; HARD_RESET machine.reset() or
    a panic (ESP_RST_SW, ESP_RST_PANIC: not told apart); SOFT_RESET Ctrl-D or
    machine.soft_reset(); DEEPSLEEP_RESET a wake from deep sleep (never used here)."""
    c = _cause(machine)
    if c == WDT:
        return names.BOARD_WATCHDOG, None
    if c == HARD:
        return names.BOARD_SOFT_RESET, "machine.reset() or a panic: cannot tell"
    if c == SOFT:
        return names.BOARD_SOFT_RESET, "soft reset: Ctrl-D or machine.soft_reset()"
    return None, None


def _esp32_edges(cfg):
    if cfg.get("edges") != "scan":
        return ['edges: ESP32 has no hard GPIO interrupts; set "edges": "scan"']
    return []


def _esp32_atten(cfg):
    if cfg.get("adc_atten_db") not in (6, 11):
        return ["adc_atten_db: 0 dB (the default) reads only up to 1 V; set 11"]
    return []


def _named_restart(machine, mcu):
    """A port whose reset causes mean what their names say."""
    c = _cause(machine)
    if c == WDT:
        return names.BOARD_WATCHDOG, None
    if c == SOFT:
        return names.BOARD_SOFT_RESET, None
    if c == "BROWNOUT_RESET":
        return names.BOARD_BROWNOUT, None
    return None, None


NONE = ()
RP2040 = {
    "pins": [n for n in range(29) if n not in (23, 24)],    # 23, 24: Pico's SMPS and VBUS sense
    "adc": (26, 27, 28),
    "input_only": NONE, "strapping": NONE, "flash": NONE, "adc2": NONE, "edge_glitch": NONE,
    "rules": NONE,
    "restart": _rp2_restart,
}
ESP32 = {
    "pins": [n for n in range(40) if n not in (20, 24, 28, 29, 30, 31)],
    "adc": (32, 33, 34, 35, 36, 37, 38, 39, 0, 2, 4, 12, 13, 14, 15, 25, 26, 27),
    "adc2": (0, 2, 4, 12, 13, 14, 15, 25, 26, 27),           # unusable while Wi-Fi runs
    "input_only": (34, 35, 36, 37, 38, 39),                  # no pull-ups, no outputs
    "strapping": (0, 2, 5, 12, 15),
    "flash": (6, 7, 8, 9, 10, 11),
    "edge_glitch": (36, 39),    # Espressif ESP32 errata 3.11: false edges while ADC1 runs
    "rules": (_esp32_edges, _esp32_atten),
    "restart": _esp32_restart,
}
# The virtual board (vboard: the unix port on fake pins): any pin number, every pin can do
# anything; the fake machine's reset causes mean what their names say.
VIRTUAL = {
    "pins": None, "adc": None,
    "input_only": NONE, "strapping": NONE, "flash": NONE, "adc2": NONE, "edge_glitch": NONE,
    "rules": NONE,
    "restart": _named_restart,
}
CHIPS = {"rp2040": RP2040, "esp32": ESP32, "virtual": VIRTUAL}
PLATFORMS = {"rp2": "rp2040", "esp32": "esp32"}     # sys.platform -> chip


def of_platform(platform):
    """The chip a MicroPython sys.platform runs on, as configurations name it (None: unknown)."""
    return PLATFORMS.get(platform)


def _exists(spec, n):
    ok = spec["pins"] is None or n in spec["pins"]
    return isinstance(n, int) and ok and n not in spec["flash"]


def _pin(spec, chip, where, n, role, ignore, bad, warn):
    """The problems of GPIO `n` doing `role` on the chip of `spec`."""
    if role == "boot_pull":           # read once at power-up: strapping pins are fine
        if not _exists(spec, n) or n in spec["input_only"]:
            bad.append("%s: GPIO %s cannot have a pull-up on %s" % (where, n, chip))
        return
    if not _exists(spec, n):
        bad.append("%s: GPIO %s does not exist on %s" % (where, n, chip))
        return
    if role in ("out", "i2c", "in_pull") and n in spec["input_only"]:
        bad.append("%s: GPIO %d is input-only (no pull-up, no output)" % (where, n))
    if role == "adc" and spec["adc"] is not None and n not in spec["adc"]:
        bad.append("%s: GPIO %d has no ADC" % (where, n))
    if role == "adc" and n in spec["adc2"]:
        bad.append("%s: GPIO %d is on ADC2 (unusable with Wi-Fi): use ADC1" % (where, n))
    if role in ("in", "in_pull") and n in spec["edge_glitch"]:
        bad.append("%s: GPIO %d gives false edges while ADC1 runs (errata 3.11)" % (where, n))
    if n in spec["strapping"] and n not in ignore:
        warn.append("%s: GPIO %d is a strapping pin: it must be at its boot level at power-up "
                    "(checked? list it in \"ignore_strapping\")" % (where, n))


def check(cfg, chip, uses):
    """(errors, warnings) of a configuration on `chip`, for `uses`, its (where, GPIO, role)
    (config.pins); no rules for an unknown chip."""
    spec = CHIPS.get(chip)
    if spec is None:
        return [], []
    bad = []
    warn = []
    said = cfg.get("chip")
    if said is not None and said != chip:
        bad.append("configuration is for %s, this board is %s" % (said, chip))
    ignore = cfg.get("ignore_strapping") or ()
    for where, n, role in uses:
        _pin(spec, chip, where, n, role, ignore, bad, warn)
    for n in ignore:
        if n not in spec["strapping"]:
            warn.append("ignore_strapping: GPIO %s is not a strapping pin on %s" % (n, chip))
    for rule in spec["rules"]:
        bad.extend(rule(cfg))
    return bad, warn


def restart(machine, chip, mcu=None):
    """(FAULT 255 value, text or None) of why the board restarted, as far as `chip` can tell;
    (None, None) after a plain power-on or when it cannot tell. `mcu`: the board and MCU as
    sys.implementation._machine names them ("Raspberry Pi Pico with RP2040")."""
    if mcu is None:
        import sys
        mcu = getattr(sys.implementation, "_machine", "")
    spec = CHIPS.get(chip) or VIRTUAL
    return spec["restart"](machine, mcu)
