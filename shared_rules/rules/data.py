"""Plain-data helpers the board's interpreter lacks (no copy module on MicroPython)."""


def clone(x):
    """Deep copy of plain data: dicts, lists, tuples and scalars."""
    if isinstance(x, dict):
        d = {}
        for k in x:
            d[k] = clone(x[k])
        return d
    if isinstance(x, list):
        return [clone(v) for v in x]
    if isinstance(x, tuple):
        return tuple(clone(v) for v in x)
    return x


def is_int(x):
    return isinstance(x, int) and not isinstance(x, bool)
