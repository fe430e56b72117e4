"""Bounded, validated command input: what a careless or hostile client sends stops here.

A command body comes from MQTT (bytes), HTTP (text or a dict) or buttons. Before
it reaches the referee or the journal it is checked for size and nesting depth
over the raw text (json.loads recurses and a deep payload raises RecursionError),
parsed, and walked: every string valid Unicode (no lone surrogates, which JSON's
\\uXXXX escapes can produce and UTF-8 cannot store) and of a sane length, every
number finite and of a sane size. Nothing here raises; refusals are readable.
"""
import json
import math
import re

MAX_PAYLOAD = 64 * 1024       # bytes of one command payload
MAX_DEPTH = 16                # nesting of [ and { (a real command needs 3)
MAX_STRING = 200              # characters of one string: names, notes, ids, pockets
MAX_ITEMS = 256               # members of one object or array
MAX_INT = 2 ** 53             # integers beyond what any JSON client agrees on
COMMAND_NAME = re.compile(r"^[a-z][a-z0-9_]{0,31}$")


def check_name(name):
    """Error text if `name` cannot be a command name (topic level or HTTP path part), else None."""
    if not isinstance(name, str) or not COMMAND_NAME.match(name):
        return "a command name is 1 to 32 lowercase letters, digits or '_', like 'call'"
    return None


def nesting_depth(text):
    """Deepest nesting of [ and { in JSON text, counted without recursion (strings skipped)."""
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
        elif ch in "]}":
            depth -= 1
    return deepest


def _reject_constant(name):
    raise ValueError("%s is not a number JSON allows" % name)


def _finite_float(text):
    x = float(text)
    if not math.isfinite(x):
        raise ValueError("number %s is too large" % text[:20])
    return x


def _bounded_int(text):
    if len(text) > 20:
        raise ValueError("number %s... is too large" % text[:20])
    return int(text)


def check_value(x, where="body", depth=0):
    """Error text for the first value in `x` a command may not carry, else None."""
    if depth > MAX_DEPTH:
        return "%s is nested deeper than %d levels" % (where, MAX_DEPTH)
    if isinstance(x, str):
        if len(x) > MAX_STRING:
            return "%s is a text longer than %d characters" % (where, MAX_STRING)
        try:
            x.encode("utf-8")
        except UnicodeEncodeError:
            return "%s is not valid Unicode text (a lone surrogate \\ud800-\\udfff)" % where
        return None
    if isinstance(x, bool) or x is None:
        return None
    if isinstance(x, int):
        if abs(x) > MAX_INT:
            return "%s is a number beyond +-2^53" % where
        return None
    if isinstance(x, float):
        if not math.isfinite(x) or abs(x) > MAX_INT:
            return "%s is a number beyond +-2^53" % where
        return None
    if isinstance(x, (list, tuple)):
        if len(x) > MAX_ITEMS:
            return "%s has more than %d items" % (where, MAX_ITEMS)
        for i, v in enumerate(x):
            err = check_value(v, "%s[%d]" % (where, i), depth + 1)
            if err:
                return err
        return None
    if isinstance(x, dict):
        if len(x) > MAX_ITEMS:
            return "%s has more than %d keys" % (where, MAX_ITEMS)
        for k, v in x.items():
            if not isinstance(k, str):
                return "%s has a key that is not text" % where
            err = check_value(k, "a key of " + where, depth + 1)
            if err:
                return err
            err = check_value(v, "%s.%s" % (where, k[:40]), depth + 1)
            if err:
                return err
        return None
    return "%s holds a %s, which is not JSON" % (where, type(x).__name__)


def parse_command(payload):
    """(body, error) from a command payload (bytes, str or dict): empty means {}; never raises."""
    body, _cid, err = read_command(payload)
    return body, err


def read_command(payload):
    """(body without "id", id, error): the id is echoed even when the body is refused, if it is sane."""
    try:
        obj, err = _parse(payload)
    except Exception as e:      # a last guard: whatever slipped through is a refusal, not a crash
        return None, None, "payload refused (%s)" % (type(e).__name__,)
    cid = None
    if isinstance(obj, dict):
        cid = obj.get("id")
        if check_value(cid, "id") is not None or isinstance(cid, (dict, list)):
            cid = None
        if err is None:
            obj = dict(obj)
            obj.pop("id", None)
    return (None if err else obj), cid, err


def _parse(payload):
    if isinstance(payload, dict):
        return payload, check_value(payload)
    if payload is None:
        return {}, None
    if isinstance(payload, (bytes, bytearray, memoryview)):
        if len(payload) > MAX_PAYLOAD:
            return None, "payload is %d bytes; at most %d are accepted" % (len(payload), MAX_PAYLOAD)
        try:
            text = bytes(payload).decode("utf-8")
        except UnicodeDecodeError as e:
            return None, "payload is not UTF-8 text (%s)" % (e.reason,)
    elif isinstance(payload, str):
        text = payload
        if len(text) > MAX_PAYLOAD:
            return None, "payload is %d characters; at most %d are accepted" % (len(text), MAX_PAYLOAD)
    else:
        return None, "payload must be JSON text"
    if not text.strip():
        return {}, None
    if nesting_depth(text) > MAX_DEPTH:
        return None, "payload is nested deeper than %d levels" % MAX_DEPTH
    try:
        body = json.loads(text, parse_constant=_reject_constant, parse_float=_finite_float,
                          parse_int=_bounded_int)
    except ValueError as e:
        return None, "payload is not valid JSON (%s)" % (e,)
    if not isinstance(body, dict):
        return None, "payload must be a JSON object, like {} or {\"ball\": 3, \"pocket\": \"foot-left\"}"
    return body, check_value(body)


def answer(name, res, cid=None):
    """The `…/cmd/result` of a referee's (or the daemon's) answer `res`: {"cmd", "ok", "error",
    "id"}, plus, when refused, the refusal's stable "code" and its "text" in each language."""
    ok = bool(res.get("ok"))
    out = {"cmd": name, "ok": ok, "error": None if ok else (res.get("error") or "refused"), "id": cid}
    if not ok and res.get("code"):
        out["code"] = res["code"]
        out["text"] = res.get("text")
    return out
