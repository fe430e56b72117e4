"""Plausible eight-ball shots as timed sensor events (pure apart from the random generator).

Keeps its own idea of which balls are still on the table, so pocket events
name balls that can really drop. Times are seconds from the start of the shot.
"""
import random

from shared_rules.link.names import POCKET, RAIL, MOTION, BUTTON, BUTTON_NEW_GAME, LONG_PRESS

SOLIDS = (1, 2, 3, 4, 5, 6, 7)
STRIPES = (9, 10, 11, 12, 13, 14, 15)


class TablePlay:
    def __init__(self, seed=None, scratch_rate=0.07):
        self.rng = random.Random(seed)
        self.scratch_rate = scratch_rate
        self.rack()

    def rack(self):
        self.on_table = set(range(1, 16))
        self.shots = 0

    def _rail_hits(self, n, start, spread):
        r = self.rng
        return [(start + r.uniform(0, spread), RAIL, r.randrange(6),
                 r.randint(800, 40000), 0) for _ in range(n)]

    def _pocket(self, t, ball):
        return (t, POCKET, self.rng.randrange(6), ball, 0)

    def next_shot(self):
        """(events, pause_after_s): one shot's events [(t_s, kind, index, value, flags)], time-ordered."""
        r = self.rng
        if not self.on_table:
            self.rack()
            # The new-game button is held down (a short press is refused as accidental).
            return [(0.0, BUTTON, BUTTON_NEW_GAME, LONG_PRESS, 0)], 2.0
        ev = [(0.0, MOTION, 0, 1, 0)]
        if self.shots == 0:
            # The break: many rails, often a ball or two down, sometimes a scratch.
            duration = r.uniform(4.0, 7.0)
            ev += self._rail_hits(r.randint(4, 12), 0.3, duration - 1.0)
            down = r.choice((0, 0, 1, 1, 1, 2, 2, 3))
            choices = [b for b in self.on_table if b != 8]
            for b in r.sample(choices, down):
                ev.append(self._pocket(r.uniform(0.5, duration - 1.0), b))
                self.on_table.discard(b)
            if r.random() < self.scratch_rate:
                ev.append(self._pocket(r.uniform(1.0, duration - 0.5), 0))
        else:
            duration = r.uniform(2.0, 5.0)
            ev += self._rail_hits(r.choice((0, 1, 1, 2, 2, 3, 4)), 0.4, duration - 0.8)
            others = [b for b in self.on_table if b != 8]
            if r.random() < 0.45:
                # A pot: the 8 only once few balls are left.
                if others and (len(others) > 3 or r.random() < 0.6):
                    b = r.choice(others)
                else:
                    b = 8
                ev.append(self._pocket(r.uniform(0.6, duration - 0.5), b))
                self.on_table.discard(b)
                if b == 8:
                    self.on_table = set()
            if r.random() < self.scratch_rate:
                ev.append(self._pocket(r.uniform(1.0, duration - 0.3), 0))
        ev.append((duration, MOTION, 0, 0, 0))
        self.shots += 1
        ev.sort(key=lambda e: e[0])
        return ev, r.uniform(3.0, 8.0)
