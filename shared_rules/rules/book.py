"""The referee's book: everything the fold has built, in one record.

A referee is its construction-time table name and default settings plus this book. Undo,
the safety net of `Referee.apply` and a journal segment's head all work on the whole book:
`copy()` for the first two, `to_json()`/`from_json()` for the third, so a field added here is
carried by all three without another line elsewhere.

Nothing in the book is shared between two of its fields. A shot is named by its serial number
(`shot["n"]`) where another field must point at it (`chosen`), never by being the same object.
Undo entries and the replaced game are never changed in place, so `copy()` shares them with
the copy (it runs before every entry: sharing keeps it cheap); a fact entered on the shot just
played changes a copy of the newest entry (`amend_last_shot`).
"""
from shared_rules.rules.data import clone

# The match a head from before match identities belongs to, and the one its replaced game
# belonged to: unknown to the referee (the host may know when it began: Referee.adopt_match_start).
UNKNOWN_MATCH = 0
UNKNOWN_REPLACED_MATCH = -1

FIELDS = ("game", "open_shot", "last_activity", "ended_us", "history", "pending", "facts_open", "chosen",
          "shots", "faults", "replaced", "last_game", "last_players", "features", "has_motion", "match",
          "camera")

# The fields `copy` clones (the others are numbers, flags or shared by design).
CONTAINERS = ("game", "open_shot", "pending", "chosen", "faults", "last_players", "match", "camera")


def new_match(number, wall):
    """A match's identity: its number at this table and the wall time of the entry that began it."""
    return {"id": number, "started": wall}


class Book:
    """What the referee has folded so far (see the module docstring for who shares what)."""

    def __init__(self):
        self.game = None            # the game being played (rules/game.py), or None before the first
        self.open_shot = None       # the shot being played (rules/shot.py), or None while the balls are still
        self.last_activity = None   # t_us of the last pocket or rail event of the open shot
        self.ended_us = None        # when the last shot ended (GEN.HANGING)
        self.history = []           # undo entries {"before": game, "shot": shot}, newest last
        self.pending = None         # a finished shot waiting for `identify`
        self.facts_open = False     # the last judged shot can still take fouls and identities
        self.chosen = None          # {"option", "shot": n}: a choice that left the table as it lies
        self.shots = 0              # shots opened so far: the next shot's serial number
        self.faults = []            # sensor and board faults shown in the state
        self.replaced = None        # the game a new_game replaced, while undo can still bring it back
        self.last_game = None       # what a new_game with no body plays
        self.last_players = ["Player 1", "Player 2"]
        self.features = 0           # the board's HELLO features
        self.has_motion = False
        self.match = new_match(0, None)
        self.camera = None          # the overhead camera (rules/camera.py), or None on a table without one

    def copy(self):
        """A book that changes independently of this one (the safety net of every entry)."""
        b = Book()
        for k in FIELDS:
            v = getattr(self, k)
            setattr(b, k, clone(v) if k in CONTAINERS else v)   # the entries shared, as said above
        b.history = list(self.history)
        return b

    def amend_last_shot(self):
        """The newest kept shot, to enter a fact on: a copy that replaces it in this book's newest
        entry (earlier books share the entry itself)."""
        last = self.history[-1]
        shot = clone(last["shot"])
        self.history[-1] = {"before": last["before"], "shot": shot}
        return shot

    # ------------------------------------------------------------ the replaced game
    def game_record(self):
        """The game as `undo` of a new_game brings it back: its position, its shots, its match."""
        return {"game": self.game, "pending": self.pending, "history": self.history, "last_game": self.last_game,
                "last_players": self.last_players, "match": self.match}

    def take_back(self, record):
        """Put a replaced game back (copied: the record may still be held by an earlier book)."""
        self.game = clone(record["game"])
        self.pending = clone(record["pending"])
        self.history = list(record["history"])
        self.last_game = record["last_game"]
        self.last_players = list(record["last_players"])
        self.match = dict(record["match"])

    # ------------------------------------------------------------ journal heads
    def to_json(self):
        """Plain data (a journal segment's head); `from_json` gives the same book back."""
        d = {}
        for k in FIELDS:
            d[k] = clone(getattr(self, k))
        return d

    @staticmethod
    def from_json(d):
        b = Book()
        for k in FIELDS:
            if k in d:
                setattr(b, k, clone(d[k]))
        return b
