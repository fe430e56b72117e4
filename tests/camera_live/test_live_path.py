"""The live path end to end (issue 18): rendered footage (tools/footage, kinematic) fed as a
video-file camera source while a fake board sends the matching MOTION/RAIL events on the host
clock; the camera's facts are journaled on the board's clock, the referee judges the wrong ball
first without a person, and `billiards replay` of the journal gives the same verdict.

Two boards: one that says "still" 1.5 s after the last vibration (the firmware's default: the
analyser has closed the shot by then, its facts are in first), and one that says it after 0.3 s
(the referee holds the shot; the camera closes it at once, within the 500 ms)."""
import json

import pytest

from host.cli import main
from shared_rules.link import names
from tests.camera_live.footage import board_events
from tests.camera_live.rig import Rig

pytest.importorskip("cv2")

START = 104.0          # host time of the clip's first frame


def after_the_break(rig):
    """Nine-ball: Anna's break (felt by the board only, before the camera's first frame)
    pockets the 3, 4, 5, 6 and 7: she shoots again at the 1, the 2, 8 and 9 around it."""
    rig.shot(rails=9, drops=[(3, 2), (4, 3), (5, 0), (6, 5), (7, 1)], t=100.5)
    s = rig.state
    assert s["on_table"] == [1, 2, 8, 9] and s["shooter"] == 0 and s["phase"] == "play"
    return s


@pytest.fixture(scope="module", params=[1500, 300], ids=["facts-first", "held"])
def played(request, wrong_first_clip, tmp_path_factory):
    clip = wrong_first_clip
    rig = Rig(tmp_path_factory.mktemp("journal")).with_camera(clip["path"], clip["corners"]).start()
    after_the_break(rig)
    rig.still_ms = request.param
    rig.play(clip, board_events(clip, request.param), START)
    yield rig
    rig.close()


def test_the_camera_calls_the_wrong_ball_first(played, wrong_first_clip):
    s = played.state
    assert wrong_first_clip["truth"]["first_contact"] == 2
    assert s["last_foul"]["codes"] == ["wrong_first_contact"]
    assert "NB.WRONG-FIRST" in s["last_foul"]["clauses"]
    assert s["shooter"] == 1 and s["ball_in_hand"] == "table"
    said = [e for e in played.events if e["event"] == "camera"]
    assert said and said[-1]["first_contact"] == 2 and "hit 2 first" in said[-1]["text"]["en"]
    assert s["camera"]["state"] in ("online", "offline")      # the file has ended by now
    assert s["camera"]["last_shot"]["first_contact"]["ball"] == 2
    assert s["camera"]["last_shot"]["fallback"] is None and "first_contact" in s["camera"]["last_shot"]["used"]
    assert not [f for f in s["faults"] if f["what"] == "camera"]


def test_the_facts_are_journaled_on_the_board_clock_next_to_the_board_events(played):
    entries = played.journal()
    cams = [e for e in entries if e.get("src") == "camera"]
    assert [e["state"] for e in cams if e["kind"] == "health"][0] == "online"
    shots = [e for e in cams if e["kind"] == "shot"]
    assert len(shots) == 1
    stroke = [e for e in entries if e.get("src") == "board" and e.get("kind") == names.MOTION
              and e.get("value") == 1][-1]
    assert abs(shots[0]["start_us"] - stroke["t_us"]) < 100000, "the stroke on both clocks, within 0.1 s"
    assert shots[0]["facts"]["first_contact"]["ball"] == 2
    # Nothing else than what the referee reads is journaled (bounded by construction).
    assert set(shots[0]["facts"]) == {"first_contact", "railed_after_contact", "pocketed", "rest_mm", "lost",
                                      "break", "identity_confidence", "notes", "start_mm", "cue_reach_mm",
                                      "second_contact", "way_clear", "others_still"}
    laid = shots[0]["facts"]["start_mm"]["0"]          # where the cue ball lay when struck
    assert abs(laid["x"] - 500) < 15 and abs(laid["y"] - 495) < 15 and laid["confidence"] >= 0.85
    still = [e for e in entries if e.get("src") == "board" and e.get("kind") == names.MOTION
             and e.get("value") == 0][-1]
    facts_first = entries.index(shots[0]) < entries.index(still)
    assert facts_first == (played.still_ms == 1500), \
        "a board slow to say still finds the facts in; a quick one makes the referee wait for them"


def test_the_verdict_waited_less_than_half_a_second_after_the_balls_stopped(played):
    """Held, the shot was closed by the camera at once (edge.close_shot): its facts reached the
    journal within the deadline, so no `none` entry was needed."""
    entries = played.journal()
    assert not [e for e in entries if e.get("src") == "camera" and e.get("kind") == "none"]
    assert played.d.camera.counts["late"] == 0


def test_replay_of_the_journal_reproduces_the_verdict(played, capsys):
    live = played.state
    assert main(["replay", played.d.journal.path]) == 0
    replayed = json.loads(capsys.readouterr().out)
    for k in ("last_foul", "shooter", "ball_in_hand", "on_table", "camera", "faults", "stats", "last_shot"):
        assert replayed[k] == live[k], k
