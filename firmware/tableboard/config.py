"""Board configuration: a JSON file naming pins and fitted sensors (see firmware/boards/).

Its shape is declared once, by the modules that use each part (their `CONFIG`, in
tableboard/schema.py's terms); this module gathers the declarations and checks a
configuration against them and against its chip (tableboard/chips.py). The Board builder
reads the same declarations for every default.
"""
import json

from tableboard import boot, transport, wiring, colour
from tableboard import beams, rails, motion, buttons, lamps
from tableboard import board

# The check's own key: strapping pins the installer has checked (see tableboard/chips.py).
CONFIG = (("ignore_strapping", "pins", None, None),)
KEYS = (board.CONFIG + boot.CONFIG + CONFIG + transport.CONFIG + wiring.CONFIG + colour.CONFIG +
        beams.CONFIG + rails.CONFIG + motion.CONFIG + buttons.CONFIG + lamps.CONFIG)
WARNING = "warning: "


# --- the shape, against the declarations (tableboard/schema.py) ---------------------------

WHAT = {"int": "a whole number", "num": "a number", "bool": "true or false", "level": "0 or 1",
        "pull": '"up", "down" or null', "pin": "a GPIO number",
        "pins": "a list of GPIO numbers (null for none)",
        "analog": 'a GPIO number or {"adc": GPIO, "mux": channel}',
        "order": "a list of bit numbers (null for none)", "obj": "an object", "map": "an object"}


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _gpio(v):
    return _is_int(v) and v >= 0


def _fits(kind, arg, v):
    """True when `v` is a value of `kind` (sections are checked by their keys, not here)."""
    if kind == "int":
        return _is_int(v) and (arg is None or arg[0] <= v <= arg[1])
    if kind == "num":
        return (_is_int(v) or isinstance(v, float))
    if kind == "str":
        return isinstance(v, str) and (arg is None or len(v.encode()) <= arg)
    if kind == "bool":
        return isinstance(v, bool)
    if kind == "level":
        return v in (0, 1) and not isinstance(v, bool)
    if kind == "pull":
        return v in ("up", "down", None)
    if kind == "choice":
        return v in arg
    if kind == "pin":
        return _gpio(v)
    if kind in ("pins", "order"):
        if not isinstance(v, list):
            return False
        for n in v:
            if n is not None and not _gpio(n):
                return False
        return True
    if kind == "analog":
        if isinstance(v, dict):
            return _gpio(v.get("adc")) and (v.get("mux") is None or _gpio(v.get("mux")))
        return _gpio(v)
    if kind in ("obj", "map"):
        return isinstance(v, dict)
    return True


def _what(kind, arg):
    if kind == "str":
        return "a string" if arg is None else "a string of at most %d bytes" % arg
    if kind == "choice":
        return "one of " + ", ".join(_shown(x) for x in arg)
    if kind == "list":
        return "a list of at most %d" % arg[1]
    if kind == "int" and arg is not None:
        return "a whole number from %d to %d" % arg
    return WHAT.get(kind, "a value")


def _shown(x):
    if x is None:
        return "null"
    return '"%s"' % x if isinstance(x, str) else str(x)


def _path(where, name):
    return name if not where else where + "." + name


def _off(sec, key):
    """True when `key` applies only while a sibling is set, and that sibling is not."""
    return len(key) > 4 and sec.get(key[4]) is None


def check_keys(sec, keys, where, bad, warn):
    """Append to `bad` what is wrong with section `sec` (a dict) against `keys`, and to `warn`
    the keys nobody declared."""
    names = []
    for key in keys:
        name = key[0]
        if name is None:
            if key[1] == "one_of":
                n = 0
                for k in key[2]:
                    if sec.get(k) is not None:
                        n += 1
                if n != 1:
                    bad.append("%s: exactly one of %s" % (where, ", ".join(key[2])))
            continue
        names.append(name)
        if name not in sec or (sec[name] is None and key[2] is ...):
            if key[2] is ... and not _off(sec, key):
                bad.append("%s: missing %s" % (where, name))
            continue
        _value(sec[name], key, _path(where, name), bad, warn)
    for name in sec:
        if name not in names:
            warn.append("%s: unknown key %s (ignored)" % (where or "configuration", name))


def _value(v, key, here, bad, warn):
    kind, default, arg = key[1], key[2], key[3]
    if v is None and (default is None or kind in ("pull", "any")):
        return
    if kind in ("obj", "map", "list") and not v and default is None:
        return                                   # an optional section left empty: absent
    if kind == "list":
        if not isinstance(v, list) or len(v) > arg[1]:
            bad.append("%s: %s" % (here, _what(kind, arg)))
            return
        for i in range(len(v)):
            item = "%s[%d]" % (here, i)
            if isinstance(v[i], dict):
                check_keys(v[i], arg[0], item, bad, warn)
            else:
                for k in arg[0]:
                    if k[0] is not None and k[2] is ...:
                        bad.append("%s: missing %s" % (item, k[0]))
        return
    if not _fits(kind, arg, v):
        bad.append("%s: %s" % (here, _what(kind, arg)))
        return
    if kind == "obj":
        check_keys(v, arg, here, bad, warn)
    elif kind == "map":
        for name in v:
            if isinstance(v[name], dict):
                check_keys(v[name], arg, _path(here, name), bad, warn)
            else:
                bad.append("%s: %s" % (_path(here, name), WHAT["obj"]))


def pins_of(sec, keys, where, out):
    """Append (where, GPIO, role) for every pin `sec` names (defaults included) to `out`.
    Run on a configuration that `check` accepts."""
    for key in keys:
        name, kind = key[0], key[1]
        if name is None or _off(sec, key):
            continue
        v = sec.get(name, None if key[2] is ... else key[2])
        if v is None or (kind in ("obj", "map", "list") and not v):
            continue
        here = _path(where, name)
        if kind == "pin":
            role = key[3]
            if role == "by_pull":
                role = "in_pull" if sec.get("pull", "up") else "in"
            out.append((here, v, role))
        elif kind == "pins" and key[3] is not None:
            for k in range(len(v)):
                if v[k] is not None:
                    out.append(("%s[%d]" % (here, k), v[k], key[3]))
        elif kind == "analog":
            out.append((here, v.get("adc") if isinstance(v, dict) else v, "adc"))
        elif kind == "obj":
            pins_of(v, key[3], here, out)
        elif kind == "map":
            for n in v:
                pins_of(v[n], key[3], _path(here, n), out)
        elif kind == "list":
            for i in range(len(v)):
                pins_of(v[i], key[3][0], "%s[%d]" % (here, i), out)
    return out


# --- a configuration --------------------------------------------------------------------

def review(cfg):
    """(problems, warnings) of a configuration's shape: problems a person can fix (empty when
    it is usable), and keys nobody reads."""
    if not isinstance(cfg, dict):
        return ["configuration is not a JSON object"], []
    bad = []
    warn = []
    check_keys(cfg, KEYS, "", bad, warn)
    return bad, warn


def check(cfg):
    """A list of problems a person can fix; empty when the configuration is usable."""
    return review(cfg)[0]


def pins(cfg):
    """(where, GPIO, role) of every pin the configuration names."""
    return pins_of(cfg, KEYS, "", [])


def review_chip(cfg, chip):
    """(errors, warnings) of a usable configuration on `chip` (see tableboard/chips.py, loaded
    only for this: a board needs its registry only while it boots)."""
    from tableboard import chips
    return chips.check(cfg, chip, pins(cfg))


def check_chip(cfg, chip):
    """Problems of a configuration on `chip`, then its warnings (marked "warning: ")."""
    bad, warn = review_chip(cfg, chip)
    return bad + [WARNING + w for w in warn]


def load(path):
    with open(path) as f:
        cfg = json.load(f)
    bad = check(cfg)
    if bad:
        raise ValueError("; ".join(bad))
    return cfg


def minimal(cfg):
    """A configuration with no sensors: the board only speaks the link and reports its fault.
    It keeps the name and the link when they are usable (else "table" on USB stdio)."""
    out = {"name": "table", "link": {}}
    if isinstance(cfg, dict):
        for key in board.CONFIG[:1] + transport.CONFIG[:1]:
            bad = []
            if key[0] in cfg:
                check_keys({key[0]: cfg[key[0]]}, (key,), "", bad, [])
                if not bad and cfg[key[0]] is not None:
                    out[key[0]] = cfg[key[0]]
    return out


def load_checked(path, chip, warn=None):
    """(configuration, problems): the configuration, or a minimal one with the reasons it was
    refused. Warnings (a strapping pin, an unknown key) go to the list `warn` if given."""
    try:
        with open(path) as f:
            cfg = json.load(f)
    except (OSError, ValueError) as e:
        return minimal({}), ["%s: %s" % (path, e)]
    bad, w = review(cfg)
    if not bad:
        bad, w2 = review_chip(cfg, chip)
        w = w + w2
    if warn is not None:
        warn.extend(w)
    if bad:
        return minimal(cfg), bad
    return cfg, []
