"""THROWAWAY stand-in for shared_rules/rules/referee.py until the real referee lands.

Same API (`Referee(table, settings)`, `apply(entry)`, `state()`); it only counts
pocketed balls and rails and alternates the shooter. Delete when the real one exists.
"""
import copy

from shared_rules.link.names import POCKET, RAIL, MOTION, POCKETS

COMMANDS = ("new_game", "call", "safety", "push_out", "choose", "foul", "identify",
            "end_shot", "undo")


class Referee:
    def __init__(self, table="t1", settings=None):
        self._s = {"table": table, "game": None, "players": [], "shooter": 0,
                   "phase": "break", "ball_in_hand": None, "table_open": True,
                   "on_table": [], "decision": None, "needs": [], "winner": None,
                   "shot": 0, "last_shot": None, "shot_open": False, "called": None}
        self._pocketed = []
        self._rails = 0

    def state(self):
        return copy.deepcopy(self._s)

    def apply(self, e):
        if not isinstance(e, dict):
            return {"ok": False, "error": "entry is not an object", "events": []}
        src = e.get("src")
        if src == "hello":
            return {"ok": True, "error": None, "events": []}
        if src == "board":
            return self._board(e)
        if src == "cmd":
            return self._cmd(e.get("cmd"), e.get("body"))
        return {"ok": False, "error": "unknown entry", "events": []}

    def _board(self, e):
        s = self._s
        if s["game"] is None or s["phase"] == "over":
            return {"ok": True, "error": None, "events": []}
        kind = e.get("kind")
        if kind == POCKET:
            s["shot_open"] = True
            ball = e.get("value")
            self._pocketed.append(ball)
            if ball in s["on_table"]:
                s["on_table"].remove(ball)
            return {"ok": True, "error": None,
                    "events": [{"event": "pocketed", "player": s["shooter"], "ball": ball,
                                "pocket": POCKETS[e.get("index", 0) % 6], "clause": [],
                                "text": {"en": "Ball %s pocketed" % ball,
                                         "ru": "Шар %s забит" % ball}}]}
        if kind == RAIL:
            s["shot_open"] = True
            self._rails += 1
        if kind == MOTION and e.get("value") == 0 and s["shot_open"]:
            return self._end_shot()
        return {"ok": True, "error": None, "events": []}

    def _end_shot(self):
        s = self._s
        fouls = ["cue_pocketed"] if 0 in self._pocketed else []
        s["last_shot"] = {"pocketed": self._pocketed, "rails": self._rails, "fouls": fouls,
                          "clauses": []}
        s["shot"] += 1
        s["phase"] = "play"
        s["shot_open"] = False
        s["called"] = None
        ev = []
        if fouls or not [b for b in self._pocketed if b]:
            s["shooter"] = 1 - s["shooter"]
            ev.append({"event": "turn", "player": s["shooter"], "clause": ["GEN.TURN"],
                       "text": {"en": "Turn passes", "ru": "Переход хода"}})
        s["ball_in_hand"] = "table" if fouls else None
        if 8 not in s["on_table"] and s["game"] == "eight-ball":
            s["phase"] = "over"
            s["winner"] = s["shooter"]
        self._pocketed = []
        self._rails = 0
        return {"ok": True, "error": None, "events": ev}

    def _cmd(self, name, body):
        s = self._s
        if name not in COMMANDS:
            return {"ok": False, "error": "unknown command %r" % (name,), "events": []}
        if not isinstance(body, dict):
            return {"ok": False, "error": "body must be an object", "events": []}
        if name == "new_game":
            players = body.get("players") or ["Player 1", "Player 2"]
            if not isinstance(players, list) or len(players) != 2:
                return {"ok": False, "error": "players must be two names", "events": []}
            s.update({"game": body.get("game", "eight-ball"), "shooter": 0, "phase": "break",
                      "players": [{"name": str(p), "score": 0, "group": None, "fouls": 0}
                                  for p in players],
                      "on_table": list(range(1, 16)), "winner": None, "shot": 0,
                      "last_shot": None, "shot_open": False, "ball_in_hand": "kitchen"})
            return {"ok": True, "error": None, "events": []}
        if s["game"] is None:
            return {"ok": False, "error": "no game", "events": []}
        if name == "end_shot":
            if not s["shot_open"]:
                return {"ok": False, "error": "no shot is being played", "events": []}
            return self._end_shot()
        if name == "call":
            if "ball" not in body or "pocket" not in body:
                return {"ok": False, "error": "call needs ball and pocket", "events": []}
            s["called"] = {"ball": body["ball"], "pocket": body["pocket"]}
            return {"ok": True, "error": None, "events": []}
        return {"ok": True, "error": None, "events": []}
