"""The live path end to end for a ball in hand from the kitchen (issue 18, rules/camera.py "where
the balls lay"): eight-ball, Anna scratched on the break (EB.BREAK-SCRATCH), so Bob plays from the
kitchen. Rendered footage (tools/footage, kinematic; 7 ft table, the head string at 495 mm): Bob's
cue ball lies behind the head string and is sent at the 2, then comes to rest far past the string.
The referee must judge where it lay when struck (the facts' start_mm), not where it stopped: a
legal shot from the kitchen, judged without a person."""
import pytest

from tests.camera_live.footage import FPS, LIGHT, SEED, SIZE, board_events
from tests.camera_live.rig import Rig

pytest.importorskip("cv2")

START = 104.0
BALLS = {0: (300, 600), 1: (1500, 200), 2: (1000, 600), 8: (1750, 820)}


@pytest.fixture(scope="module")
def kitchen_clip(tmp_path_factory):
    from tools.footage import kinematic
    from tools.footage.render import render_clip
    path = str(tmp_path_factory.mktemp("footage") / "eb_kitchen.mp4")
    traj = kinematic.simulate(BALLS, strokes=[(1.0, 1800.0, 0.0)], post_roll=2.0,
                              meta={"kind": "shot", "game": "eightball"})
    truth, _ = render_clip(traj, path, SEED, fps=FPS, size=SIZE, light=LIGHT, players=False, frames_truth=False)
    return {"path": path, "truth": truth["shots"][0], "corners": truth["corners_px"],
            "cushions": sorted(float(e["t"]) for e in traj.events if e["kind"] == "cushion")}


@pytest.fixture(scope="module")
def played(kitchen_clip, tmp_path_factory):
    rig = Rig(tmp_path_factory.mktemp("journal"), game="eight-ball").with_camera(
        kitchen_clip["path"], kitchen_clip["corners"]).start()
    # The break, felt by the board only before the camera's first frame: the 3 and the cue ball drop.
    rig.shot(rails=9, drops=[(3, 2), (0, 0)], t=100.5)
    s = rig.state
    assert s["shooter"] == 1 and s["ball_in_hand"] == "kitchen" and s["table_open"]
    rig.play(kitchen_clip, board_events(kitchen_clip), START)
    yield rig
    rig.close()


@pytest.mark.clause("GEN.KITCHEN")
@pytest.mark.clause("EB.BREAK-SCRATCH")
def test_the_cue_ball_struck_from_the_kitchen_is_legal_though_it_stopped_past_the_string(played, kitchen_clip):
    assert kitchen_clip["truth"]["first_contact"] == 2
    assert kitchen_clip["truth"]["rest_mm"]["0"][0] > 495 + 100, "the clip's cue ball stops past the string"
    s = played.state
    last = s["camera"]["last_shot"]
    assert last["fallback"] is None and "kitchen" in last["used"], last
    assert s["last_foul"] is None or s["last_foul"]["player"] != 1
    assert s["shooter"] == 0, "a legal shot that pocketed nothing: the turn passes"
    said = [e for e in played.events if e["event"] == "camera"]
    assert said and "behind the head string" in said[-1]["text"]["en"]
    shots = [e for e in played.journal() if e.get("src") == "camera" and e.get("kind") == "shot"]
    laid = shots[-1]["facts"]["start_mm"]["0"]
    assert abs(laid["x"] - 300) < 15 and laid["confidence"] >= 0.85
