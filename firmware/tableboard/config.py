"""Board configuration: a JSON file naming pins and fitted sensors (see firmware/boards/)."""
import json

REQUIRED_POCKET = ("beam",)
REQUIRED_RAIL = ("comp", "adc")


def check(cfg):
    """A list of problems a person can fix; empty when the configuration is usable."""
    bad = []
    if not isinstance(cfg, dict):
        return ["configuration is not a JSON object"]
    pk = cfg.get("pockets", [])
    if not isinstance(pk, list) or len(pk) > 6:
        bad.append("pockets: a list of at most 6")
        pk = []
    for i, p in enumerate(pk):
        for k in REQUIRED_POCKET:
            if not isinstance(p, dict) or k not in p:
                bad.append("pockets[%d]: missing %s" % (i, k))
    rl = cfg.get("rails", [])
    if not isinstance(rl, list) or len(rl) > 6:
        bad.append("rails: a list of at most 6")
        rl = []
    for i, r in enumerate(rl):
        for k in REQUIRED_RAIL:
            if not isinstance(r, dict) or k not in r:
                bad.append("rails[%d]: missing %s" % (i, k))
    name = cfg.get("name", "table")
    if not isinstance(name, str) or len(name.encode()) > 32:
        bad.append("name: a string of at most 32 bytes")
    return bad


def load(path):
    with open(path) as f:
        cfg = json.load(f)
    bad = check(cfg)
    if bad:
        raise ValueError("; ".join(bad))
    return cfg


def check_chip(cfg, chip):
    """Problems of a configuration on `chip` (see tableboard/chips.py); empty when fine."""
    from tableboard import chips
    return chips.check(cfg, chip)


def minimal(cfg):
    """A configuration with no sensors: the board only speaks the link and reports its fault."""
    return {"name": cfg.get("name", "table") if isinstance(cfg, dict) else "table",
            "link": cfg.get("link", {}) if isinstance(cfg, dict) else {}}


def load_checked(path, chip):
    """(configuration, problems): the configuration, or a minimal one with the reasons it was refused."""
    try:
        with open(path) as f:
            cfg = json.load(f)
    except (OSError, ValueError) as e:
        return minimal({}), ["%s: %s" % (path, e)]
    bad = check(cfg)
    if not bad:
        bad = check_chip(cfg, chip)
    if bad:
        return minimal(cfg), bad
    return cfg, []
