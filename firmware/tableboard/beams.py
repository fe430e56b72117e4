"""Break-beam channels (pocket beams, the cue-ball return): one event per ball, stuck-beam faults.

Pure state machines fed with (level, t) edges and ticked with the time; they
call `emit(t, kind, index, value, flags)`. Times are raw `ticks_us`, compared only
with `clock.diff` (see clock.py), so nothing here allocates after any uptime.
`CONFIG` declares the configuration's `pockets`, `beam` and `cue` (tableboard/schema.py);
`build_pockets` and `build_cue` make them for the Board.
"""
from tableboard import clock, colour, schema
from shared_rules.link.names import POCKET, CUE, FAULT, UNKNOWN_BALL, FLAG_UNCERTAIN
from shared_rules.link.names import FAULT_BLOCKED, FAULT_CLEAR, FAULT_SILENT
from shared_rules.link.names import FEATURE_BALL_ID, FEATURE_CUE_DETECTOR

CONFIG = (
    ("pockets", "list", [], ((
        ("beam", "pin", ..., "by_pull"),         # the receiver's output
        ("blocked", "level", 0, None),           # its level while a ball blocks the beam
        ("pull", "pull", "up", None),
        ("colour", "obj", None, colour.SENSOR),  # the pocket's colour sensor, if fitted
    ), 6)),
    ("beam", "obj", {}, (                        # every pocket beam
        ("debounce_ms", "num", 30, None),
        ("min_block_us", "num", 1000, None),
        ("stuck_ms", "num", 3000, None),
    )),
    ("cue", "obj", None, (                       # the cue-ball detector
        ("pin", "pin", ..., "by_pull"),
        ("index", "int", 255, None),             # its pocket, or 255 in a shared ball return
        ("active", "level", 0, None),
        ("pull", "pull", "up", None),
        ("debounce_ms", "num", 100, None),
        ("min_block_us", "num", 1000, None),
        ("fault", "int", 32, None),              # the sensor number of its faults
    )),
)


class Beam:
    """A beam is `blocked` when its input reads `blocked_level`.

    A block counts as a ball once it has lasted `min_block_us` (shorter is noise) and
    only if the beam had been clear for `debounce_us` since the last ball left it,
    so a ball that chatters on the edge of the beam gives one event. A beam blocked
    for `stuck_us` gives FAULT 1, and FAULT 2 when it clears.
    """

    def __init__(self, index, emit, kind=POCKET, value=UNKNOWN_BALL, fault_index=None,
                 blocked_level=0, debounce_us=30000, min_block_us=1000, stuck_us=3000000,
                 reader=None):
        self.index = index
        self.emit = emit
        self.kind = kind
        self.value = value
        self.fault_index = index if fault_index is None else fault_index
        self.blocked_level = blocked_level
        self.debounce_us = debounce_us
        self.min_block_us = min_block_us
        self.stuck_us = stuck_us
        self.reader = reader          # colour reader for ball identity, or None
        self.blocked = False
        self.block_t = 0
        self.pending = False
        self.pend_t = 0
        self.last_clear = None        # when the last counted ball left the beam
        self.ball_on = False          # the current block was counted as a ball
        self.stuck = False
        self.balls = 0

    def init(self, level, t):
        """The level at power-up: a beam already blocked is not a ball (but may be stuck)."""
        self.blocked = level == self.blocked_level
        self.block_t = t
        self.ball_on = self.blocked

    def edge(self, level, t):
        blocked = level == self.blocked_level
        if blocked == self.blocked:
            return
        self.blocked = blocked
        if blocked:
            self.block_t = t
            if self.last_clear is None or clock.diff(t, self.last_clear) >= self.debounce_us:
                self.pending = True
                self.pend_t = t
            else:
                self.ball_on = True   # chatter: the same ball again
        else:
            if self.pending and clock.diff(t, self.pend_t) >= self.min_block_us:
                self._confirm()
            self.pending = False
            if self.ball_on:
                self.last_clear = t
                self.ball_on = False
            if self.stuck:
                self.stuck = False
                self.emit(t, FAULT, self.fault_index, FAULT_CLEAR, 0)

    def _confirm(self):
        self.pending = False
        self.ball_on = True
        self.balls += 1
        if self.reader is None:
            self.emit(self.pend_t, self.kind, self.index, self.value, 0)
        else:
            self.reader.start(self.pend_t)

    def tick(self, t):
        if self.pending and self.blocked and clock.diff(t, self.pend_t) >= self.min_block_us:
            self._confirm()
        # A raw time means nothing after half a ticks period: forget it once it no longer matters.
        if self.last_clear is not None and clock.diff(t, self.last_clear) >= self.debounce_us:
            self.last_clear = None
        if self.blocked and not self.stuck and clock.diff(t, self.block_t) >= self.stuck_us:
            self.stuck = True
            self.emit(t, FAULT, self.fault_index, FAULT_BLOCKED, 0)
        r = self.reader
        if r is not None and r.busy:
            res = r.step(t, self.blocked)
            if res is not None:
                ball, flags, t0, failed = res
                self.emit(t0, self.kind, self.index, ball, flags)
                if failed:
                    self.emit(t, FAULT, self.fault_index, FAULT_SILENT, 0)


def uncertain(flags):
    return flags & FLAG_UNCERTAIN


def build_pockets(board, cfg):
    """The pocket beams (with their colour readers) a configuration names; their feature bits."""
    pockets = schema.get(cfg, CONFIG, "pockets")
    beam = schema.get(cfg, CONFIG, "beam")
    table = None
    if any(p["colour"] for p in pockets):
        table = colour.load_table(schema.get(cfg, colour.CONFIG, "colour_table"))
    features = 0
    for i in range(len(pockets)):
        p = pockets[i]
        reader = None
        if p["colour"]:
            features |= FEATURE_BALL_ID
            reader = colour.make_reader(board.wiring, p["colour"], table, board.sleep_us)
        b = Beam(i, board.emit, kind=POCKET, blocked_level=p["blocked"],
                 debounce_us=beam["debounce_ms"] * 1000, min_block_us=beam["min_block_us"],
                 stuck_us=beam["stuck_ms"] * 1000, reader=reader)
        board.beams.append(b)
        board.wiring.input(p["beam"], b, p["pull"])
    return features


def build_cue(board, cfg):
    """The cue-ball detector, if the configuration has one."""
    c = schema.get(cfg, CONFIG, "cue")
    if not c:
        return 0
    stuck_ms = schema.get(cfg, CONFIG, "beam")["stuck_ms"]
    b = Beam(c["index"], board.emit, kind=CUE, value=1, fault_index=c["fault"],
             blocked_level=c["active"], debounce_us=c["debounce_ms"] * 1000,
             min_block_us=c["min_block_us"], stuck_us=stuck_ms * 1000)
    board.beams.append(b)
    board.wiring.input(c["pin"], b, c["pull"])
    return FEATURE_CUE_DETECTOR
