"""A board configuration's shape, declared once by the module that uses each part of it.

Each module declares the keys it reads in `CONFIG`: the beams declare `pockets`, `beam` and
`cue`, the rails `rail` and `rails`, and so on. Three readers share the declarations, as
ESPHome's components share their config and pin schemas:

- config.check says what is wrong with a configuration's shape (at boot and before a
  deploy), and warns about keys nobody declared (a typo is not silent);
- config.pins lists every pin a configuration names with its role (what the pin must be
  able to do), for the per-chip rules of chips.py;
- `get` here gives a part's settings with their declared defaults, for the Board builder.
The checks live in config.py, which the board needs only while it boots.

A key is a tuple (name, kind, default, detail[, when]):
- default: `...` when the key is required, else the value taken when it is absent. An
  optional key whose default is None may also be null;
- kind and detail:
    "int"     a whole number; detail (lowest, highest) or None
    "num"     a number
    "str"     a string of at most `detail` UTF-8 bytes (None: any length)
    "bool"    true or false
    "level"   0 or 1
    "pull"    "up", "down" or null
    "choice"  one of the values in `detail`
    "pin"     a GPIO number; detail: its role
    "pins"    a list of GPIO numbers (null: not fitted); detail: their role (None: none)
    "analog"  a GPIO number with an ADC, or {"adc": GPIO, "mux": channel}
    "order"   a list of bit numbers (null: not wired)
    "obj"     a section; detail: its keys. Default None: a part that may be fitted
              (empty or null: absent); default {}: settings, with their defaults
    "map"     sections by name (the I2C buses by number); detail: each one's keys
    "list"    a list of sections; detail: (their keys, most)
    "any"     free text for people (a description)
- roles: "in" (a digital input, no pull resistor), "in_pull" (an input with the chip's
  pull resistor), "by_pull" (one of the two, as the section's "pull" key says), "out",
  "adc", "i2c", "boot_pull" (read once at power-up with a pull-up: the safe-mode jumper);
- when: the name of a sibling key; the key is required, and its pins used, only while that
  sibling is set (a UART's pins, only with a UART).
A tuple (None, "one_of", names) in a section asks for exactly one of those keys.

Plain tuples of literals: they stay on the board's heap for its whole run, and every new
name costs a board's heap room too (MicroPython interns each one).
"""


def fill(sec, keys):
    """Section `sec` (a dict; None or empty: absent) with every key `keys` declares: its value,
    or its declared default (None for a required key that is absent). Nested sections are
    filled too; an absent optional one stays None."""
    sec = sec or {}
    out = {}
    for key in keys:
        name = key[0]
        if name is None:
            continue
        v = sec.get(name)
        kind = key[1]
        if v is None and name not in sec:
            v = None if key[2] is ... else key[2]
        if not v:
            # An absent section of settings ({} by default) has its defaults; others stay absent.
            out[name] = fill(v, key[3]) if kind == "obj" and v is not None else v
        elif kind == "obj":
            out[name] = fill(v, key[3])
        elif kind == "list":
            out[name] = [fill(x, key[3][0]) for x in v]
        elif kind == "map":
            out[name] = dict((n, fill(v[n], key[3])) for n in v)
        else:
            out[name] = v
    return out


def get(cfg, config, name):
    """The configuration's top-level `name`, as `config` (a module's CONFIG) declares it,
    with every default filled in (see fill)."""
    for key in config:
        if key[0] == name:
            return fill({name: cfg.get(name)} if name in cfg else {}, (key,))[name]
    raise KeyError(name)
