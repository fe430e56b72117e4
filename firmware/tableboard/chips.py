"""Per-chip pin validation at boot, ESPHome-style: every pin a board configuration names must
exist on the chip and be able to do its job; a refused configuration is reported as FAULT 255
value 21 and on the REPL, and the board runs no sensors at all (app.start).
"""

RP2040 = {
    "pins": [n for n in range(29) if n not in (23, 24)],    # 23, 24: Pico's SMPS and VBUS sense
    "adc": (26, 27, 28),
    "input_only": (), "strapping": (), "flash": (), "adc2": (), "edge_glitch": (),
}
ESP32 = {
    "pins": [n for n in range(40) if n not in (20, 24, 28, 29, 30, 31)],
    "adc": (32, 33, 34, 35, 36, 37, 38, 39, 0, 2, 4, 12, 13, 14, 15, 25, 26, 27),
    "adc2": (0, 2, 4, 12, 13, 14, 15, 25, 26, 27),           # unusable while Wi-Fi runs
    "input_only": (34, 35, 36, 37, 38, 39),                  # no pull-ups, no outputs
    "strapping": (0, 2, 5, 12, 15),
    "flash": (6, 7, 8, 9, 10, 11),
    "edge_glitch": (36, 39),    # Espressif ESP32 errata 3.11: false edges while ADC1 runs
}
CHIPS = {"rp2040": RP2040, "esp32": ESP32}


def _uses(cfg):
    """(where, pin, use) for every pin a configuration names; use in in/in_pull/out/adc/i2c."""
    out = []
    for i, p in enumerate(cfg.get("pockets", [])):
        pull = p.get("pull", "up")
        out.append(("pockets[%d].beam" % i, p.get("beam"), "in_pull" if pull else "in"))
    c = cfg.get("cue")
    if c:
        out.append(("cue.pin", c.get("pin"), "in_pull" if c.get("pull", "up") else "in"))
    for i, r in enumerate(cfg.get("rails", [])):
        out.append(("rails[%d].comp" % i, r.get("comp"), "in"))
        a = r.get("adc")
        out.append(("rails[%d].adc" % i, a.get("adc") if isinstance(a, dict) else a, "adc"))
    m = cfg.get("motion")
    if m:
        a = m.get("adc")
        out.append(("motion.adc", a.get("adc") if isinstance(a, dict) else a, "adc"))
    for k, n in enumerate((cfg.get("analog_mux") or {}).get("select", [])):
        out.append(("analog_mux.select[%d]" % k, n, "out"))
    for bus, c in (cfg.get("i2c") or {}).items():
        out.append(("i2c.%s.sda" % bus, c.get("sda"), "i2c"))
        out.append(("i2c.%s.scl" % bus, c.get("scl"), "i2c"))
    b = cfg.get("buttons") or {}
    for n in b.get("pins", []) or []:
        if n is not None:
            out.append(("buttons.pins", n, "in_pull"))
    for k in ("load", "clock"):
        if k in (b.get("shift_in") or {}):
            out.append(("buttons.shift_in." + k, b["shift_in"][k], "out"))
    if "data" in (b.get("shift_in") or {}):
        out.append(("buttons.shift_in.data", b["shift_in"]["data"], "in"))
    lm = cfg.get("lamps") or {}
    for n in lm.get("pins", []) or []:
        if n is not None:
            out.append(("lamps.pins", n, "out"))
    for k in ("latch", "clock", "data"):
        if k in (lm.get("shift_out") or {}):
            out.append(("lamps.shift_out." + k, lm["shift_out"][k], "out"))
    lk = cfg.get("link") or {}
    if lk.get("uart") is not None:
        out.append(("link.tx", lk.get("tx"), "out"))
        out.append(("link.rx", lk.get("rx"), "in"))
    return out


def check(cfg, chip):
    """Problems of a configuration on `chip` (pins that do not exist or cannot do their job);
    empty when fine or when the chip is unknown (the virtual board)."""
    spec = CHIPS.get(chip)
    if spec is None:
        return []
    bad = []
    said = cfg.get("chip")
    if said is not None and said != chip:
        bad.append("configuration is for %s, this board is %s" % (said, chip))
    outs = {}
    for where, n, use in _uses(cfg):
        if not isinstance(n, int) or n not in spec["pins"] or n in spec["flash"]:
            bad.append("%s: GPIO %s does not exist on %s" % (where, n, chip))
            continue
        if use in ("out", "i2c", "in_pull") and n in spec["input_only"]:
            bad.append("%s: GPIO %d is input-only (no pull-up, no output)" % (where, n))
        if n in spec["strapping"]:
            bad.append("%s: GPIO %d is a strapping pin" % (where, n))
        if use == "adc" and n not in spec["adc"]:
            bad.append("%s: GPIO %d has no ADC" % (where, n))
        if use == "adc" and n in spec["adc2"]:
            bad.append("%s: GPIO %d is on ADC2 (unusable with Wi-Fi): use ADC1" % (where, n))
        if use in ("in", "in_pull") and n in spec["edge_glitch"]:
            bad.append("%s: GPIO %d gives false edges while ADC1 runs (errata 3.11)" % (where, n))
        if use == "out":
            outs.setdefault(n, []).append(where)
    sp = cfg.get("safe_pin")
    if sp is not None and (sp not in spec["pins"] or sp in spec["input_only"]):
        bad.append("safe_pin: GPIO %s cannot have a pull-up on %s" % (sp, chip))
    if chip == "esp32":
        if cfg.get("edges") != "scan":
            bad.append('edges: ESP32 has no hard GPIO interrupts; set "edges": "scan"')
        if cfg.get("adc_atten_db") not in (6, 11):
            bad.append("adc_atten_db: 0 dB (the default) reads only up to 1 V; set 11")
    return bad


