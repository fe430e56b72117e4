"""Journal entries of a table with a camera, as the daemon writes them (ARCHITECTURE.md, rules/camera.py)."""
from shared_rules.link import names
from shared_rules.rules.referee import Referee

HELLO = {"src": "hello", "boot_id": 7, "seq": 0, "t_us": 0, "features": 15}


def cmd(name, body=None, t_ms=None):
    return {"src": "cmd", "cmd": name, "body": body or {}, "t_us": None if t_ms is None else t_ms * 1000}


def board(kind, index, value, t_ms, flags=0):
    return {"src": "board", "boot_id": 7, "seq": 0, "t_us": int(t_ms * 1000), "kind": kind, "index": index,
            "value": value, "flags": flags}


def motion(on, t_ms):
    return board(names.MOTION, 0, 1 if on else 0, t_ms)


def rail(r, t_ms, strength=30000):
    return board(names.RAIL, r, strength, t_ms)


def pocket(ball, p, t_ms):
    return board(names.POCKET, p, names.UNKNOWN_BALL if ball is None else ball, t_ms)


def health(state="online", faults=(), table_mm=(2540.0, 1270.0)):
    return {"src": "camera", "kind": "health", "state": state, "faults": list(faults),
            "table_mm": None if table_mm is None else list(table_mm), "t_us": None}


def facts(first=None, first_conf=0.97, railed=(), followed=None, pocketed=(), id_conf=0.95, lost=(),
          rail_conf=0.95, brk=None, start=None, reach=None, rest=None, second=None, first_id=None,
          may_be=None, way=None, still=None):
    """Live facts (docs/camera.md) of a shot: every ball in `followed` seen, the `railed` ones at a
    cushion after the contact with `rail_conf`, the others surely not. `start` / `rest`: {ball:
    (x, y) or (x, y, confidence)} where balls lay when the shot began / came to rest (rest: else
    a row of places); `reach`: the cue ball's farthest x before the contact, or (x, confidence);
    `second`: the second contact, (ball, after_ms) or (ball, after_ms, confidence); "old": the
    facts of an analyser from before it (no `second_contact` key at all); `first_id`: the first
    ball's own identity confidence (None: not given, as older analysers did); `may_be`: the balls
    the first ball may be (None: not given); `way`: how sure the cue ball's way was clear, `still`:
    that nothing the camera did not follow moved (None: not given, as older analysers did)."""
    followed = sorted(set(followed if followed is not None else (0,) + tuple(railed)) | set(railed))
    conf = dict((str(b), rail_conf if b in railed else 0.9) for b in followed)
    if rest is None:
        rest = dict((str(b), {"x": 300.0 + 100 * b, "y": 400.0, "confidence": 0.95})
                    for b in followed if b not in pocketed and b not in lost)
    else:
        rest = places(rest)
    out = {"t_start": 10.0, "t_end": 14.0, "clock": "host",
           "first_contact": dict({"ball": first, "confidence": first_conf, "t": 10.2},
                                 **dict({} if first_id is None else {"identity_confidence": first_id},
                                        **({} if may_be is None else {"may_be": list(may_be)}))),
           "railed_after_contact": {"balls": sorted(railed), "confidence": conf},
           "break": None if brk is None else {"object_balls_railed": brk, "confidence": 0.9},
           "pocketed": {"balls": sorted(pocketed), "confidence": dict((str(b), 0.95) for b in pocketed)},
           "rest_mm": rest, "identity_confidence": id_conf, "lost": sorted(lost), "notes": [],
           "start_mm": None if start is None else places(start),
           "cue_reach_mm": None if reach is None else dict(zip(("x", "confidence"),
                                                                reach if isinstance(reach, tuple) else (reach, 0.95))),
           "second_contact": None if second in (None, "old") else dict(
               zip(("ball", "after_ms", "confidence"), tuple(second) + (0.95,) * (3 - len(second))))}
    if second == "old":
        del out["second_contact"]
    if way is not None:
        out["way_clear"] = {"confidence": way}
    if still is not None:
        out["others_still"] = {"confidence": still}
    return out


def places(balls):
    """{ball: (x, y[, confidence])} as the facts' {"ball": {"x", "y", "confidence"}}."""
    return dict((str(b), {"x": float(p[0]), "y": float(p[1]), "confidence": p[2] if len(p) > 2 else 0.95})
                for b, p in balls.items())


def seen(start_ms, end_ms, **kw):
    """A camera `shot` entry: the facts of the stroke from `start_ms` to `end_ms` (board clock)."""
    return {"src": "camera", "kind": "shot", "start_us": int(start_ms * 1000), "end_us": int(end_ms * 1000),
            "facts": facts(**kw), "t_us": None}


def no_facts(shot_n):
    return {"src": "camera", "kind": "none", "shot": shot_n, "t_us": None}


class Table:
    """A referee fed journal entries one by one, keeping the journal and the events of the last step."""

    def __init__(self, game="nine-ball", camera=True, **body):
        self.ref = Referee("t1")
        self.journal = []
        self.events = []
        self.t = 1000
        self.feed(HELLO)
        if camera:
            self.feed(health())
        b = {"game": game, "players": ["Anna", "Bob"]}
        b.update(body)
        self.feed(cmd("new_game", b))

    def feed(self, *entries):
        self.events = []
        for e in entries:
            res = self.ref.apply(e)
            assert res["ok"], res
            self.journal.append(e)
            self.events.extend(res["events"])
        return self.events

    def shot(self, rails=1, drops=(), camera=None, first=None, end=True, **kw):
        """A stroke: MOTION 1, `rails` rail hits, `drops` ([ball, pocket]), the camera's facts
        (`camera`: "before" the board's MOTION 0, "after" it, or None), MOTION 0."""
        t0 = self.t
        es = [motion(True, t0)] + [rail(i % 6, t0 + 100 + 50 * i) for i in range(rails)]
        es += [pocket(b, p, t0 + 600 + 50 * i) for i, (b, p) in enumerate(drops)]
        view = seen(t0 - 20, t0 + 1400, first=first, **kw)
        if camera == "before":
            es.append(view)
        if end:
            es.append(motion(False, t0 + 2900))
        if camera == "after":
            es.append(view)
        self.t = t0 + 6000
        return self.feed(*es)

    @property
    def state(self):
        return self.ref.state()

    def kinds(self):
        return [e["event"] for e in self.events]


def solids_for_anna():
    """Eight-ball: Anna broke (the 3 down), then made the called 1: she has the solids and shoots."""
    t = Table("eight-ball")
    t.shot(rails=12, drops=[(3, 2)], camera="before", first=1, railed=(1, 2, 4, 9, 10),
           followed=range(16), pocketed=(3,))
    t.feed(cmd("call", {"ball": 1, "pocket": "foot-left"}))
    t.shot(rails=1, drops=[(1, 2)], camera="before", first=1, railed=(), followed=range(16), pocketed=(1,))
    assert t.state["players"][0]["group"] == "solids" and t.state["shooter"] == 0
    return t
