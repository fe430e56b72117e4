"""The people outputs fed by the real referee (shared_rules/rules), the way the
daemon will: journal entries in, state and events out, outputs after each.

Catches drift between the engine's state/event shapes and what the outputs read.
"""

import json

import pytest

referee = pytest.importorskip("shared_rules.rules.referee")
jinja2 = pytest.importorskip("jinja2")

from host.outputs.awtrix import AwtrixOutput  # noqa: E402
from host.outputs.display import DisplayOutput  # noqa: E402
from host.outputs.ha_discovery import HADiscovery  # noqa: E402
from host.shot_clock import ShotClock, remaining  # noqa: E402

ENV = jinja2.Environment(undefined=jinja2.StrictUndefined)
POCKET, RAIL, CUE, MOTION = 1, 2, 3, 4


class Table:
    """A referee plus every people output, driven by journal entries."""

    def __init__(self):
        self.ref = referee.Referee(table="t1")
        self.seq = 0
        self.display = DisplayOutput("t1")
        self.awtrix = AwtrixOutput()
        self.clock = ShotClock()
        self.ha = {t.split("/")[3]: json.loads(p) for t, p, _ in HADiscovery("t1").on_connect()}
        self.published = []
        self.apply({"src": "hello", "boot_id": 7, "seq": 0, "t_us": 0, "proto": 1, "fw": [1, 0],
                    "pockets": 6, "rails": 6, "features": 15, "name": "sim", "wall": 0.0})

    def apply(self, entry):
        res = self.ref.apply(entry)
        assert res["ok"], res["error"]
        state = self.ref.state()
        state["link"] = {"state": "up", "dropped": 0}
        state["shot_clock"] = self.clock.update(state, res["events"], entry["wall"])
        self.state = state
        self.events = res["events"]
        self.published = (self.display.on_change(state, res["events"])
                          + self.awtrix.on_change(state, res["events"]))
        return state

    def command(self, cmd, body, wall):
        return self.apply({"src": "cmd", "cmd": cmd, "body": body, "t_us": None, "wall": wall})

    def shot(self, t_s, sensors):
        """One shot: balls start moving, the sensor events, the table goes still 8 s later."""
        t = int(t_s * 1e6)
        entries = [(MOTION, 0, 1)] + list(sensors)
        for n, (kind, index, value) in enumerate(entries):
            self.seq += 1
            self.apply({"src": "board", "boot_id": 7, "seq": self.seq, "t_us": t + n * 100000,
                        "kind": kind, "index": index, "value": value, "flags": 0,
                        "wall": 1000.0 + t_s + n * 0.1})
        self.seq += 1
        still = 1000.0 + t_s + 8
        self.apply({"src": "board", "boot_id": 7, "seq": self.seq, "t_us": t + 8000000,
                    "kind": MOTION, "index": 0, "value": 0, "flags": 0, "wall": still})
        return still

    def ha_shows(self, obj):
        return ENV.from_string(self.ha[obj]["value_template"]).render(
            value_json=json.loads(json.dumps(self.state))).strip()

    def sent(self, topic):
        return [json.loads(p) for t, p, _ in self.published if t == topic]


def test_a_break_and_a_scratch_through_every_output():
    table = Table()
    table.command("new_game", {"game": "eight-ball", "players": ["Anna", "Bob"],
                               "shot_clock": 60}, 1000.0)
    assert table.sent("billiards/t1/display")[0]["lines"] == [">ANNA 0", "BOB 0"]
    assert table.ha_shows("shooter") == "Anna"
    assert table.ha_shows("phase") == "break"

    still = table.shot(10, [(RAIL, 0, 900), (POCKET, 2, 3), (POCKET, 3, 10),
                            (RAIL, 3, 900), (RAIL, 1, 900), (RAIL, 4, 900), (RAIL, 5, 900)])
    assert table.state["shot"] == 1
    assert table.state["shot_clock"]["started_wall"] == still       # from the end of the shot
    assert remaining(table.state["shot_clock"], still + 20) == 40
    assert table.ha_shows("balls_left") == "13"

    still = table.shot(40, [(CUE, 1, 1), (POCKET, 1, 0), (RAIL, 0, 900)])
    assert table.state["shot"] == 2
    display = table.sent("billiards/t1/display")
    assert display == [{"lines": ["ANNA 0", ">BOB 0"], "alert": "FOUL"}]
    notes = table.sent("awtrix/notify")
    assert [n["text"] for n in notes] == ["FOUL ANNA: scratch"]
    assert table.ha_shows("last_foul") == "Anna: cue_pocketed"
    assert table.ha_shows("ball_in_hand") == "table"
    assert table.ha_shows("shooter") == "Bob"
    assert table.state["shot_clock"]["started_wall"] == still

    table.command("undo", {}, still + 5)
    assert table.state["shot"] == 1
    assert table.state["shot_clock"]["started_wall"] == still + 5     # undo restarts it
    assert table.sent("billiards/t1/display")[0]["alert"] is None
