"""The referee with a camera under the MicroPython unix port (1 MB heap, rules/camera.py is pure):
a break judged without facts (late), a wrong ball first judged from facts, a fault, a hostile entry."""
from shared_rules.rules.referee import Referee

def b(kind, index, value, t):
    return {"src": "board", "t_us": t, "kind": kind, "index": index, "value": value, "flags": 0}
facts = {"first_contact": {"ball": 5, "confidence": 0.97}, "railed_after_contact": {"balls": [5], "confidence": {"0": 0.9, "5": 0.95}},
         "break": None, "pocketed": {"balls": [], "confidence": {}}, "rest_mm": {"0": {"x": 1.0, "y": 2.0, "confidence": 0.9}},
         "identity_confidence": 0.95, "lost": [], "notes": ["x"]}
r = Referee()
for e in [{"src": "hello", "features": 15, "t_us": 0},
          {"src": "camera", "kind": "health", "state": "online", "faults": [], "table_mm": [2540.0, 1270.0]},
          {"src": "cmd", "cmd": "new_game", "body": {"game": "nine-ball", "players": ["A", "B"]}, "t_us": None},
          b(4, 0, 1, 1000000)] + [b(2, i, 20000, 1100000 + i * 1000) for i in range(9)] + [
          b(1, 2, 2, 1600000), b(4, 0, 0, 3000000), {"src": "camera", "kind": "none", "shot": 1},
          b(4, 0, 1, 6000000), b(2, 1, 20000, 6300000), b(4, 0, 0, 9000000),
          {"src": "camera", "kind": "shot", "start_us": 5990000, "end_us": 7500000, "facts": facts},
          {"src": "camera", "kind": "health", "state": "fault", "faults": ["camera_flash"]}]:
    res = r.apply(e)
    assert res["ok"], res
s = r.state()
print(s["last_foul"]["codes"], s["camera"]["last_shot"]["used"], [f["fault"] for f in s["faults"]])
bad = dict(facts); bad["notes"] = ["x"] * 100
print(r.apply({"src": "camera", "kind": "shot", "start_us": 1, "end_us": 2, "facts": bad})["code"])
# Where the balls lay: a nine-ball break from past the head string (start_mm), the kitchen foul.
r = Referee()
brk = dict(facts)
brk["first_contact"] = {"ball": 1, "confidence": 0.97}
brk["railed_after_contact"] = {"balls": [0, 3, 5, 7], "confidence": dict((str(i), 0.95) for i in range(10))}
brk["start_mm"] = {"0": {"x": 800.0, "y": 600.0, "confidence": 0.95}, "1": {"x": 1905.0, "y": 635.0, "confidence": 0.95}}
for i in range(2, 10):            # the rest of the diamond behind the 1 (every ball seen at the stroke)
    brk["start_mm"][str(i)] = {"x": 1905.0 + 50.0 * ((i + 1) // 3), "y": 635.0 + 29.0 * (i % 3 - 1), "confidence": 0.95}
brk["cue_reach_mm"] = {"x": 1850.0, "confidence": 0.95}
for e in [{"src": "hello", "features": 15, "t_us": 0},
          {"src": "camera", "kind": "health", "state": "online", "faults": [], "table_mm": [2540.0, 1270.0]},
          {"src": "cmd", "cmd": "new_game", "body": {"game": "nine-ball", "players": ["A", "B"]}, "t_us": None},
          b(4, 0, 1, 1000000), b(2, 1, 20000, 1100000),
          {"src": "camera", "kind": "shot", "start_us": 990000, "end_us": 2500000, "facts": brk},
          b(4, 0, 0, 3000000)]:
    res = r.apply(e)
    assert res["ok"], res
s = r.state()
print(s["last_foul"]["codes"], s["camera"]["last_shot"]["used"])
