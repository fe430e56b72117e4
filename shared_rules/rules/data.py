"""Plain-data helpers that run on CPython and MicroPython alike (MicroPython has no copy module)."""


def clone(x):
    """Deep copy of plain data: dicts, lists, tuples and scalars."""
    if isinstance(x, dict):
        d = x.copy()
        for k in d:
            v = d[k]
            if isinstance(v, (dict, list, tuple)):
                d[k] = clone(v)
        return d
    if isinstance(x, list):
        out = list(x)
        for i in range(len(out)):
            v = out[i]
            if isinstance(v, (dict, list, tuple)):
                out[i] = clone(v)
        return out
    if isinstance(x, tuple):
        return tuple(clone(v) for v in x)
    return x


def is_int(x):
    return isinstance(x, int) and not isinstance(x, bool)
