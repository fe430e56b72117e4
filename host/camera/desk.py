"""The daemon's side of the camera: what the camera's thread hands the loop, checked, put on the
board's clock, judged and journaled; and the wait for a held shot's facts (issue 18).

The camera edge (host/camera/edge.py, its own thread) puts two kinds of items in the daemon's
Inbox (bounded), each `("camera", (what, body))`:

    ("health", {"state": "online" | "offline" | "fault", "faults": [codes], "table_mm": [L, W]})
    ("facts", <live facts, docs/camera.md, on the host's clock>)

The loop hands them to `on_item`. Nothing the camera sends is trusted: an item of another shape,
facts of another shape or size (rules/camera.check_entry, normal_facts) are counted and
dropped before anything journals them, and what is journaled is the referee's own bounded copy
of the facts, the host clock turned into the board's through the link's offset
(TableLink.board_time). A journaled camera entry is judged like a command (RecordedTable:
judged, then kept only if the journal took it), so `billiards replay` judges the same.

The referee holds a shot that ended before its facts came (rules/camera.py); `tick` writes the
`none` entry that ends the wait DEADLINE_MS after the loop first saw it, so the verdict waits at
most that long and a replay releases it at the same place.

This module imports no OpenCV: a daemon without a camera loads it to say, once, that the table
it restored from the journal has none any more.
"""
import json
import logging
import time

from shared_rules.rules import camera as rules_camera

log = logging.getLogger("billiards")

MAX_ITEM_BYTES = 16384       # a facts record as JSON (one shot of 16 balls is ~2 KB)
HEALTH_STATES = ("online", "offline", "fault")


class CameraDesk:
    def __init__(self, recorded, link, changed, clock=time.monotonic):
        self.recorded = recorded
        self.link = link
        self.changed = changed          # the daemon's _changed(events)
        self.clock = clock
        self.edge = None                # the CameraEdge of --camera, if any (attach)
        self.health = None              # the last health journaled: (state, faults, table_mm)
        self.held = None                # (shot n, host time the loop first saw it held)
        self.counts = {"facts": 0, "health": 0, "refused": 0, "late": 0}

    # --- set-up -------------------------------------------------------------

    def attach(self, edge):
        self.edge = edge

    def start(self):
        """After start-up's fold: a restored camera that is not here now is said to be so (gone
        without --camera, offline until the edge reports with it)."""
        cam = self.referee.state().get("camera")
        if self.edge is None:
            if cam is not None:
                self._journal({"kind": "health", "state": "none", "faults": []})
        elif cam is not None and cam.get("state") != "offline":
            self._journal({"kind": "health", "state": "offline", "faults": []})

    @property
    def referee(self):
        return self.recorded.referee

    # --- what the edge sends (the loop's thread) ------------------------------

    def on_item(self, data):
        """One ("health" | "facts", body) from the camera edge."""
        if not (isinstance(data, tuple) and len(data) == 2):
            self._refuse("not a (what, body) pair")
            return
        what, body = data
        if what == "health":
            self._health(body)
        elif what == "facts":
            self._facts(body)
        else:
            self._refuse("unknown item %r" % (str(what)[:20],))

    def _health(self, h):
        if not isinstance(h, dict) or h.get("state") not in HEALTH_STATES:
            self._refuse("health of another shape")
            return
        entry = {"kind": "health", "state": h["state"], "faults": h.get("faults", []),
                 "table_mm": h.get("table_mm")}
        said = (entry["state"], entry["faults"], entry["table_mm"])
        if said == self.health:
            return
        if self._journal(entry):
            self.health = said
            self.counts["health"] += 1

    def _facts(self, f):
        try:
            size = len(json.dumps(f, allow_nan=False)) if isinstance(f, dict) else None
        except (TypeError, ValueError, RecursionError):
            size = None
        facts = rules_camera.normal_facts(f) if size is not None and size <= MAX_ITEM_BYTES else None
        if facts is None:
            self._refuse("facts of another shape or size")
            return
        entry = {"kind": "shot", "start_us": self._board_us(f.get("t_start"), f.get("clock")),
                 "end_us": self._board_us(f.get("t_end"), f.get("clock")), "facts": facts}
        if self._journal(entry):
            self.counts["facts"] += 1

    def _board_us(self, t, clock):
        """A host monotonic time (s) on the board's clock (µs), or None (no HEARTBEAT yet, or a
        clock other than the host's)."""
        if clock != "host" or not isinstance(t, (int, float)) or isinstance(t, bool) or not t - t == 0:
            return None
        us = self.link.board_time(t)
        return us if us is not None and us >= 0 else None

    # --- the wait -------------------------------------------------------------

    def tick(self, now):
        """Each loop step: a shot held for the camera's facts longer than DEADLINE_MS gets its
        `none` entry (rules/camera.py), which the referee judges as without a camera."""
        if self.edge is not None:
            self.edge.set_game(self.referee.game_name())
        n = self.referee.camera_wait()
        if n is None:
            self.held = None
            return
        if self.held is None or self.held[0] != n:
            self.held = (n, now)
            if self.edge is not None:
                self.edge.close_shot(now)     # the board's word that the balls stopped
            return
        if now - self.held[1] >= rules_camera.DEADLINE_MS / 1000.0:
            if self._journal({"kind": "none", "shot": n}):
                self.counts["late"] += 1
                self.held = None

    # --- journaling -----------------------------------------------------------

    def _journal(self, body):
        """A camera entry checked, judged and journaled (RecordedTable.command: a refused or
        unrecorded one leaves nothing); True if it was kept."""
        entry = {"src": "camera"}
        entry.update(body)
        entry["t_us"] = self.link.board_time(self.clock())
        entry["wall"] = time.time()
        refused = rules_camera.check_entry(entry)
        if refused:
            self._refuse(refused["error"])
            return False
        res = self.recorded.command(entry, self.link)
        if not res.get("ok"):
            self._refuse(res.get("error"))
            return False
        self.changed(res.get("events") or [])
        return True

    def _refuse(self, why):
        self.counts["refused"] += 1
        if self.counts["refused"] <= 3 or self.counts["refused"] % 100 == 0:
            log.warning("camera: refused %s (%d so far)", why, self.counts["refused"])
