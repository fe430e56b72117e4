"""Runs scenario files (events and commands in, expected state and events out) through the referee.

Pure: it runs the same under pytest and under the MicroPython unix port
(`micropython tests/scenarios/runner.py FILE...` or `@LISTFILE` prints one line per scenario
and a closing 'N passed, N failed').

Scenario file: {"name", "clauses": [IDs], "settings": {...}, "features": 15,
"steps": [step, ...]}, optionally "seed" (the rule text it checks) and "xfail" (why it is
expected to fail: a known engine defect; strict, so it turns red once the engine is fixed). A step is one of:
  {"cmd": name, "body": {...}, "ok": true|false, "error": "substring"}
  {"shot": {"pocketed": [[ball|null, pocket], ...], "rails": N | [[rail, strength], ...],
            "cue": true, "ms": 1500}}   -- MOTION 1, the events, MOTION 0 (or end_shot
            when the table has no motion sensor and "end": "cmd")
  {"board": {"kind": k, "index": i, "value": v, "flags": f}}   -- one raw sensor event now
  {"wait_ms": 6000}
  {"expect": {state subset}}  -- dicts match by their keys, lists element by element
  {"events": [{event subset}]}  -- each must match an event of the previous step;
                                   list values in them must be contained in the event's list
  {"no_events": ["foul", ...]}  -- the previous step produced none of these kinds
Any step may carry "expect" and "events" itself.
"""
import json
import sys

from shared_rules.rules.referee import Referee

POCKET_NAMES = ("head-left", "side-left", "foot-left", "foot-right", "side-right", "head-right")


def pocket_no(p):
    if isinstance(p, int):
        return p
    return POCKET_NAMES.index(p)


def match(expected, actual, path="state"):
    """None if `actual` has everything `expected` says, else a readable difference."""
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return "{}: expected an object, got {}".format(path, json.dumps(actual))
        for k in expected:
            if k not in actual:
                return "{}.{}: missing".format(path, k)
            d = match(expected[k], actual[k], path + "." + k)
            if d:
                return d
        return None
    if isinstance(expected, list):
        if not isinstance(actual, list) or len(actual) != len(expected):
            return "{}: expected {}, got {}".format(path, json.dumps(expected), json.dumps(actual))
        for i in range(len(expected)):
            d = match(expected[i], actual[i], "{}[{}]".format(path, i))
            if d:
                return d
        return None
    if expected != actual or isinstance(expected, bool) != isinstance(actual, bool):
        return "{}: expected {}, got {}".format(path, json.dumps(expected), json.dumps(actual))
    return None


def event_matches(expected, ev):
    for k in expected:
        if k not in ev:
            return False
        want, got = expected[k], ev[k]
        if isinstance(want, list) and isinstance(got, list):
            for w in want:
                if w not in got:
                    return False
        elif isinstance(want, dict) and isinstance(got, dict):
            if match(want, got):
                return False
        elif want != got:
            return False
    return True


class Run:
    def __init__(self, scenario, record=True):
        self.s = scenario
        scenario = header_of(scenario)
        self.record = record
        self.ref = Referee(scenario.get("table", "t1"), scenario.get("settings"))
        self.t_ms = 1000
        self.features = scenario.get("features", 15)
        self.journal = [{"src": "hello", "features": self.features, "t_us": 0}]
        self.ref.apply(self.journal[0])
        self.events = []

    def board(self, kind, index, value, flags=0):
        e = {"src": "board", "t_us": self.t_ms * 1000, "kind": kind, "index": index, "value": value,
             "flags": flags}
        if self.record:
            self.journal.append(e)
        r = self.ref.apply(e)
        if not r["ok"]:
            raise AssertionError("board event refused: {}".format(r["error"]))
        self.events.extend(r["events"])

    def shot(self, sh):
        motion = bool(self.features & 4)
        ms = sh.get("ms", 1500)
        start = self.t_ms
        if motion:
            self.board(4, 0, 1)
        rails = sh.get("rails", 0)
        if isinstance(rails, int):
            rails = [[i % 6, sh.get("strength", 30000)] for i in range(rails)]
        drops = sh.get("pocketed", [])
        n = len(rails) + len(drops) + 1
        step = max(1, (ms - 100) // n)
        i = 0
        for r in rails:
            i += 1
            self.t_ms = start + i * step
            self.board(2, r[0], r[1])
        for d in drops:
            i += 1
            self.t_ms = start + i * step
            ball = 255 if d[0] is None else d[0]
            self.board(1, pocket_no(d[1]), ball, 1 if len(d) > 2 and d[2] else 0)
        if sh.get("cue"):
            self.t_ms += 10
            self.board(3, 255, 1)
        self.t_ms = start + ms
        if motion and sh.get("end") != "open":
            self.board(4, 0, 0)
        elif not motion and sh.get("end", "cmd") == "cmd":
            self.command("end_shot", {}, True, None)
        self.t_ms += sh.get("gap_ms", 2000)

    def command(self, name, body, ok, error):
        e = {"src": "cmd", "cmd": name, "body": body, "t_us": self.t_ms * 1000}
        r = self.ref.apply(e)
        if r["ok"] and self.record:
            self.journal.append(e)    # the daemon journals only accepted commands
        self.events.extend(r["events"])
        if ok is not None and r["ok"] != ok:
            raise AssertionError("command {} {}: ok={} error={}".format(name, json.dumps(body), r["ok"],
                                                                       r["error"]))
        if error is not None and (r["error"] is None or error not in r["error"]):
            raise AssertionError("command {}: error {!r} does not mention {!r}".format(name, r["error"], error))

    def step(self, st):
        self.events = []
        if "cmd" in st:
            self.command(st["cmd"], st.get("body", {}), st.get("ok", True), st.get("error"))
        elif "shot" in st:
            self.shot(st["shot"])
        elif "board" in st:
            b = st["board"]
            self.board(b["kind"], b.get("index", 0), b.get("value", 0), b.get("flags", 0))
        elif "wait_ms" in st:
            self.t_ms += st["wait_ms"]
        if "expect" in st:
            d = match(st["expect"], self.ref.state())
            if d:
                raise AssertionError(d)
        for want in st.get("events", []):
            if not [e for e in self.events if event_matches(want, e)]:
                raise AssertionError("no event like {} among {}".format(
                    json.dumps(want), json.dumps([{"event": e["event"], "player": e.get("player"),
                                                   "clause": e.get("clause")} for e in self.events])))
        for kind in st.get("no_events", []):
            if [e for e in self.events if e["event"] == kind]:
                raise AssertionError("unexpected '{}' event".format(kind))

    def run(self):
        i = 0
        for st in steps_of(self.s):
            try:
                self.step(st)
            except AssertionError as e:
                raise AssertionError("step {} {}: {}".format(i, json.dumps(st)[:160], e))
            i += 1


def new_game(game, **body):
    """A Run with a fresh game of `game` between Anna and Bob (body keys override)."""
    r = Run({"steps": []})
    b = {"game": game, "players": ["Anna", "Bob"]}
    for k in body:
        b[k] = body[k]
    r.command("new_game", b, True, None)
    return r


def apply_command(r, name, body=None):
    """Apply a command to a Run without asserting its outcome; the answer, with r.events set."""
    res = r.ref.apply({"src": "cmd", "cmd": name, "body": body or {}, "t_us": r.t_ms * 1000})
    r.events = res["events"]
    return res


def win_nine_ball_racks(r, winners):
    """Each rack of a nine-ball race won in turn by the player named in `winners` (0 or 1):
    by the breaker on the break (the 9 down), else after it; between racks the next one is
    begun by `next_rack`, and a deciding rack's lag goes to that rack's winner."""
    for w in winners:
        s = r.ref.state()
        if s["between_racks"]:
            assert apply_command(r, "next_rack")["ok"]
            s = r.ref.state()
        if s["needs"]:
            assert apply_command(r, "lag", {"winner": w})["ok"]
            s = r.ref.state()
        if w == s["breaker"]:
            r.shot({"rails": 8, "pocketed": [[9, "foot-left"]]})
        else:
            r.shot({"rails": 8, "pocketed": [[1, "foot-left"]]})
            r.shot({"rails": 2})
            r.shot({"rails": 2, "pocketed": [[9, "foot-right"]]})
    return r


def run_scenario(scenario, record=True):
    r = Run(scenario, record)
    r.run()
    return r


def load(path):
    """A scenario from .json (one object) or .jsonl (a header object, then one step per line)."""
    if path.endswith(".jsonl"):
        return {"stream": path}
    with open(path) as f:
        return json.load(f)


def steps_of(scenario):
    """Steps one at a time: a long game (.jsonl) is read a line at a time."""
    if "stream" not in scenario:
        for st in scenario["steps"]:
            yield st
        return
    with open(scenario["stream"]) as f:
        f.readline()
        for line in f:
            line = line.strip()
            if line:
                yield json.loads(line)


def header_of(scenario):
    if "stream" not in scenario:
        return scenario
    with open(scenario["stream"]) as f:
        return json.loads(f.readline())


def paths_in(args):
    """The files to judge: the arguments, or with `@LIST` the lines of that file."""
    for a in args:
        if not a.startswith("@"):
            yield a
            continue
        with open(a[1:]) as f:
            for line in f:
                line = line.strip()
                if line:
                    yield line


def expected_failure(scenario):
    """The scenario's "xfail" reason: a known engine defect it shows, strict (it must still fail)."""
    return header_of(scenario).get("xfail")


def main(paths):
    passed = failed = 0
    for p in paths_in(paths):
        s = load(p)
        why = expected_failure(s)
        try:
            run_scenario(s, False)
        except Exception as e:
            if why:
                passed += 1
                print("XFAIL", p, why)
            else:
                failed += 1
                print("FAIL", p, e)
            continue
        if why:
            failed += 1
            print("FAIL", p, "passes but is marked as an expected failure (xfail: {}); drop the mark".format(why))
        else:
            passed += 1
            print("PASS", p)
    print("{} passed, {} failed".format(passed, failed))
    return failed


if __name__ == "__main__":
    sys.exit(1 if main(sys.argv[1:]) else 0)
