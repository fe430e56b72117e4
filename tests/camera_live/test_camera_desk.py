"""The daemon's side of the camera (host/camera/desk.py): the 500 ms wait, what the edge may hand
the loop (and what is refused before anything journals it), faults in the state, restarts."""
import json

import pytest

from shared_rules.link import names
from shared_rules.rules.camera import DEADLINE_MS
from tests.camera_live.helpers import facts
from tests.camera_live.rig import Rig


def put(rig, what, body):
    assert rig.d.queue.put(("camera", (what, body)))


def online(rig, table_mm=(1981.2, 990.6)):
    put(rig, "health", {"state": "online", "faults": [], "table_mm": list(table_mm)})
    rig.loop()
    assert rig.state["camera"]["state"] == "online"


def nine_ball_in_play(tmp_path):
    rig = Rig(tmp_path).start()
    online(rig)
    rig.shot(rails=9, drops=[(2, 2), (4, 3)], t=100.5)     # the break, no facts: judged without them
    rig.at(rig.clock.now + 0.6)
    assert rig.state["shooter"] == 0 and rig.state["phase"] == "play"
    return rig


def stroke(rig):
    """A stroke a second from now, a rail hit 0.3 s later; the stroke's host time."""
    t0 = rig.clock.now + 1.0
    rig.at(t0)
    rig.sensor(names.MOTION, 0, 1)
    rig.at(t0 + 0.3)
    rig.sensor(names.RAIL, 1, 20000)
    return t0


def camera_facts(rig, t_start, t_end, **kw):
    f = facts(**kw)
    f["t_start"], f["t_end"] = t_start, t_end
    return f


def test_no_facts_within_half_a_second_the_verdict_goes_on_without_them(tmp_path):
    rig = nine_ball_in_play(tmp_path)
    t0 = stroke(rig)
    rig.at(t0 + 3.0)
    rig.sensor(names.MOTION, 0, 0)               # the referee waits for the camera's facts
    stopped = rig.clock.now
    assert rig.state["camera"]["waiting"] and rig.state["shot_open"]
    while rig.state["shot_open"]:
        rig.at(rig.clock.now + 0.02)
        assert rig.clock.now - stopped <= DEADLINE_MS / 1000.0 + 0.05, "the verdict waited too long"
    assert rig.clock.now - stopped >= DEADLINE_MS / 1000.0
    late = [e["shot"] for e in rig.journal() if e.get("src") == "camera" and e.get("kind") == "none"]
    assert late == [1, 2], "the break's and this shot's"
    assert rig.state["camera"]["last_shot"]["fallback"] == "late"
    assert [e for e in rig.events if e.get("reason") == "late"]
    rig.close()


def test_facts_on_the_host_clock_judge_the_shot_they_belong_to(tmp_path):
    rig = nine_ball_in_play(tmp_path)
    t0 = stroke(rig)
    rig.at(t0 + 2.0)
    put(rig, "facts", camera_facts(rig, t0 - 0.01, t0 + 1.6, first=5, railed=(5,),
                                   followed=(0, 1, 3, 5, 6, 7, 8, 9)))
    rig.loop()
    rig.at(t0 + 3.0)
    rig.sensor(names.MOTION, 0, 0)
    assert rig.state["last_foul"]["codes"] == ["wrong_first_contact"] and not rig.state["camera"]["waiting"]
    shot = [e for e in rig.journal() if e.get("src") == "camera" and e.get("kind") == "shot"][0]
    assert abs(shot["start_us"] - rig.board_us(t0 - 0.01)) <= 1
    rig.close()


def hostile_items():
    deep = {}
    d = deep
    for _ in range(5000):
        d["x"] = {}
        d = d["x"]
    big = facts(first=3, railed=(3,))
    big["rest_mm"] = dict((str(i), {"x": 1.0, "y": 1.0, "confidence": 1.0}) for i in range(100000))
    long_note = facts(first=3, railed=(3,))
    long_note["notes"] = ["x" * 1000000]
    nan = facts(first=3, railed=(3,))
    nan["first_contact"]["confidence"] = float("nan")
    return {"not a dict": ("facts", "not a dict"), "5000 deep": ("facts", deep), "100000 balls": ("facts", big),
            "a 1 MB note": ("facts", long_note), "NaN": ("facts", nan), "ball 99": ("facts", facts(first=99)),
            "no such state": ("health", {"state": "on fire"}),
            "a 100 kB fault": ("health", {"state": "fault", "faults": ["x" * 100000]}),
            "a table 1e300 long": ("health", {"state": "online", "faults": [], "table_mm": [1e300, 1]}),
            "a frame": ("frame", b"\x00" * 1000), "no pair": "not a pair", "half a pair": ("facts",)}


ITEMS = hostile_items()


@pytest.mark.parametrize("name", sorted(ITEMS))
def test_what_the_camera_sends_of_another_shape_is_refused_before_the_journal(tmp_path, name):
    item = ITEMS[name]
    rig = nine_ball_in_play(tmp_path)
    lines = len(rig.journal())
    state = json.dumps(rig.state, sort_keys=True)
    refused = rig.d.camera.counts["refused"]
    rig.d.queue.put(("camera", item))
    rig.loop()
    assert rig.d.camera.counts["refused"] == refused + 1
    assert len(rig.journal()) == lines
    assert json.dumps(rig.state, sort_keys=True) == state
    rig.close()


def test_a_flood_from_the_camera_cannot_grow_the_queue(tmp_path):
    rig = Rig(tmp_path).start()
    for _ in range(5000):
        rig.d.queue.put(("camera", ("health", {"state": "online", "faults": []})))
    assert len(rig.d.queue) <= rig.d.queue.max_items and rig.d.queue.dropped > 0
    rig.loop()
    assert len([e for e in rig.journal() if e.get("src") == "camera"]) == 1, "one change, one entry"
    rig.close()


def test_camera_faults_are_in_state_faults_and_clear(tmp_path):
    rig = nine_ball_in_play(tmp_path)
    put(rig, "health", {"state": "fault", "faults": ["camera_frozen"], "table_mm": [1981.2, 990.6]})
    rig.loop()
    assert rig.state["faults"] == [{"sensor": None, "what": "camera", "fault": "camera_frozen",
                                    "text": "the camera's picture is frozen"}]
    assert rig.state["camera"]["state"] == "fault"
    online(rig)
    assert rig.state["faults"] == []
    rig.close()


def test_a_restart_without_the_camera_says_the_table_has_none(tmp_path):
    rig = nine_ball_in_play(tmp_path)
    rig.close()
    again = Rig(tmp_path).start()
    assert again.state["camera"] is None
    assert [e for e in again.journal() if e.get("src") == "camera"][-1]["state"] == "none"
    again.close()


def test_a_restart_with_the_camera_waits_for_it_to_say_it_is_online(tmp_path):
    rig = nine_ball_in_play(tmp_path)
    rig.close()

    class Edge:                                   # an edge that has not seen a frame yet
        def close_shot(self, t):
            pass

        def set_game(self, game):
            pass
    again = Rig(tmp_path)
    again.d.camera.attach(Edge())
    again.start()
    assert again.state["camera"]["state"] == "offline"
    again.close()


def test_the_camera_names_balls_from_the_game_on_the_table(tmp_path):
    """In nine-ball there is no 11: the live analyser is told the referee's game at the loop's
    next step and again when the table changes games, as `camera analyse --game` is."""
    from host.camera.analyse import Analyser
    from host.camera.edge import CameraEdge
    rig = nine_ball_in_play(tmp_path)
    edge = CameraEdge("unused.mp4", put=rig.d.queue.put, clock=rig.clock)
    edge.analyser = Analyser(fps=60.0, clock="host")        # made before the game was known
    rig.d.camera.attach(edge)
    rig.loop()
    assert edge.game == "nineball" and edge.analyser.balls == list(range(10))
    res = rig.d.submit_command("new_game", {"game": "eight-ball", "players": ["Anna", "Bob"]})
    assert res["ok"], res
    rig.loop()
    assert edge.game == "eightball" and edge.analyser.balls == list(range(16))
    rig.close()
