"""Writes to-150.jsonl: a whole straight-pool game to 150 (SP.WIN) with several re-racks (SP.RERACK,
SP.14-15), an illegal opening break (SP.BREAK, -2 and the opponent plays on), a three-foul -18 (SP.3-FOULS) and runs from the kitchen.

The script keeps its own small ledger of the table (balls left, scores, foul runs, who shoots)
and writes an `expect` step after every inning, so the file checks the referee against an
independent count.  The header names undo's depth (10 shots, the default) so the file says
what it was written with.  Run: `python tests/scenarios/straight-pool/make_to_150.py` (rewrites the file).
"""
import json
import os

POCKETS = ("foot-left", "foot-right", "side-left", "side-right", "head-left", "head-right")


class Ledger:
    def __init__(self):
        self.steps = []
        self.score = [0, 0]
        self.fouls = [0, 0]
        self.on = list(range(1, 16))
        self.shooter = 0
        self.bih = "kitchen"
        self.shots = 0
        self.racks = 0

    def add(self, step):
        self.steps.append(step)

    def expect(self, **more):
        e = {"shooter": self.shooter, "on_table": list(self.on), "ball_in_hand": self.bih,
             "players": [{"score": self.score[0], "fouls": self.fouls[0]},
                         {"score": self.score[1], "fouls": self.fouls[1]}]}
        e.update(more)
        self.steps[-1]["expect"] = e

    def pot(self, n=1, unknown=False):
        """One called shot pocketing `n` balls: the lowest on the table in the called pocket, the rest elsewhere."""
        self.shots += 1
        called = self.on[0]
        pocket = POCKETS[self.shots % 6]
        self.add({"cmd": "call", "body": {"ball": called, "pocket": pocket}})
        balls = self.on[:n]
        drops = [[None if unknown else called, pocket]]
        for i, b in enumerate(balls[1:]):
            drops.append([None if unknown else b, POCKETS[(self.shots + 1 + i) % 6]])
        self.add({"shot": {"rails": 1, "pocketed": drops}})
        for b in balls:
            self.on.remove(b)
        self.score[self.shooter] += len(balls)
        self.fouls[self.shooter] = 0
        self.bih = None
        if len(self.on) <= 1:
            self.racks += 1
            full = not self.on
            self.on = list(range(1, 16))
            self.steps[-1]["events"] = [{"event": "rerack", "clause": ["SP.FULL-RERACK" if full else "SP.RERACK"],
                                         "balls": 15 if full else 14}]

    def run(self, points, pairs_every=0, unknown_every=0):
        """A run of `points` balls; every `pairs_every`-th shot drops two balls."""
        k = 0
        while points > 0:
            k += 1
            n = 2 if pairs_every and k % pairs_every == 0 and points >= 2 else 1
            self.pot(n, unknown=bool(unknown_every) and k % unknown_every == 0)
            points -= n

    def miss(self):
        self.add({"cmd": "call", "body": {"ball": self.on[0], "pocket": "foot-left"}})
        self.add({"shot": {"rails": 2}})
        self.fouls[self.shooter] = 0
        self.shooter = 1 - self.shooter
        self.bih = None
        self.expect()

    def safety(self):
        self.add({"cmd": "safety"})
        self.add({"shot": {"rails": 2}})
        self.fouls[self.shooter] = 0
        self.shooter = 1 - self.shooter
        self.bih = None
        self.expect()

    def foul(self, scratch=False):
        """A foul: no rail (SP.LEGAL-SHOT) or the cue ball in a pocket (SP.CUE-OUT)."""
        self.add({"shot": {"rails": 2, "cue": True} if scratch else {"rails": 0}})
        p = self.shooter
        self.fouls[p] += 1
        self.score[p] -= 1
        third = self.fouls[p] == 3
        if third:
            self.score[p] -= 15
            self.fouls[p] = 0
        self.shooter = 1 - p
        self.bih = "kitchen" if scratch else None
        if third:
            self.expect(phase="decision", decision={"player": self.shooter,
                                                    "options": ["accept", "rerack_offender_breaks"]})
            self.steps[-1]["events"] = [{"event": "foul", "player": p, "clause": ["SP.3-FOULS"], "points": -16}]
        elif self.fouls[p] == 2:
            self.expect(warning={"player": p})
        else:
            self.expect()


def game():
    g = Ledger()
    g.add({"cmd": "new_game", "body": {"game": "straight-pool", "players": ["Anna", "Bob"], "target": 150}})
    # SP.BREAK: a break with two rails and no call costs 2, and that is all; Bob plays the table.
    g.add({"shot": {"rails": 2}})
    g.score[0] -= 2
    g.shooter = 1
    g.bih = None
    g.expect(phase="play", decision=None)

    g.run(20, unknown_every=7)              # Bob: re-rack after 14, shoots on
    g.miss()
    g.foul()                                # Anna's first foul
    g.run(5)
    g.miss()
    g.foul(scratch=True)                    # second: the warning; Bob from the kitchen
    g.run(3)
    g.miss()
    g.foul()                                # third in a row: 1 + 15
    g.add({"cmd": "choose", "body": {"option": "rerack_offender_breaks"}})
    g.on = list(range(1, 16))
    g.shooter = 0
    g.bih = "kitchen"
    g.expect(phase="break")
    g.add({"shot": {"rails": 8}})
    g.shooter = 1
    g.bih = None
    g.expect(phase="play")

    g.run(30, pairs_every=4)
    g.miss()
    g.run(40, pairs_every=5, unknown_every=3)
    g.safety()
    g.run(25)
    g.miss()
    g.run(15, pairs_every=2)
    g.miss()
    left = 150 - g.score[1]
    g.run(left - 1, unknown_every=4)
    g.pot(1)
    g.steps[-1]["expect"] = {"phase": "over", "winner": 1,
                             "players": [{"score": g.score[0]}, {"score": g.score[1]}]}
    g.steps[-1]["events"] = [{"event": "over", "player": 1, "clause": ["SP.WIN"]}]
    return g


def main():
    g = game()
    scenario = {
        "name": "A whole straight-pool game to 150: an illegal opening break (-2), runs across {} re-racks, three fouls for -18, "
                "a safety, and the winning ball (final score Anna {} : Bob {})".format(g.racks, g.score[0], g.score[1]),
        "clauses": ["SP.BREAK", "SP.RERACK", "SP.14-15", "SP.3-FOULS", "SP.WIN", "SP.POINT", "SP.CONTINUE"],
        "steps": g.steps,
        "settings": {"undo_depth": 10},
    }
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "to-150.jsonl")
    with open(path, "w") as f:
        # .jsonl: a header line, then one step per line, read a step at a time.
        f.write(json.dumps({"name": scenario["name"], "clauses": scenario["clauses"],
                            "settings": scenario["settings"]}, ensure_ascii=False) + "\n")
        for st in g.steps:
            f.write(json.dumps(st) + "\n")
    print(path, len(g.steps), "steps;", g.racks, "re-racks; final", g.score)


if __name__ == "__main__":
    main()
