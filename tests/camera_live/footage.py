"""Rendered footage for the live path's tests: a kinematic shot (tools/footage, no pooltool) with
its exact truth and the board events a real table would send for it (docs/camera-footage.md).

The shot: nine-ball after the break, the cue ball sent straight at the 2 while the 1 is the
lowest ball on the table (wrong ball first, NB.WRONG-FIRST); the 2 runs to the foot cushion.
Small and fast: 640x360, 60 fps, no player, even light, about 7.4 s of video (4 s after the
balls stop: a board's MOTION 0 comes 1.5 s after them, and a loaded test machine may start the
board's clock late by the analyser's set-up, so the camera must still be playing then). The scene (seed
14: grey cloth, the lens and camera pose it draws) is one the analyser reads right today: the
test is of the live path, the analyser's accuracy is measured by tests/bench/bench_camera.py.
"""
from shared_rules.link import names

SIZE = (640, 360)
FPS = 60
SEED = 14
LIGHT = "even"
STROKE_S = 1.0
POST_ROLL_S = 4.0          # video after the balls stop
BALLS = {0: (500, 495), 1: (1500, 200), 2: (1200, 495), 8: (1750, 820), 9: (900, 900)}   # the table after the break
STILL_MS = 1500            # the firmware's default: "still" this long after the last vibration
SENSOR_LAG_S = 0.02        # MOTION 1 a little after the stroke
FOOT_RAIL = 3              # the referee counts the piezos' impacts, not which rail heard them


def render_wrong_first(path):
    """Render the clip at `path`: {"path", "truth" (its shot), "corners", "cushions" (video
    seconds of the cushion hits), "n_frames", "table_mm"}."""
    from tools.footage import kinematic
    from tools.footage.render import render_clip
    traj = kinematic.simulate(BALLS, strokes=[(STROKE_S, 1800.0, 0.0)], post_roll=POST_ROLL_S,
                              meta={"kind": "shot", "game": "nineball"})
    truth, _ = render_clip(traj, str(path), SEED, fps=FPS, size=SIZE, light=LIGHT, players=False,
                           frames_truth=False)
    return {"path": str(path), "truth": truth["shots"][0], "corners": truth["corners_px"],
            "cushions": sorted(float(e["t"]) for e in traj.events if e["kind"] == "cushion"),
            "n_frames": truth["n_frames"], "table_mm": truth["table_mm"]}


def board_events(clip, still_ms=STILL_MS):
    """[(video seconds, kind, index, value)]: what the table's own sensors send for the clip's
    shot, the bed sensor saying "still" `still_ms` after the balls' last motion."""
    shot = clip["truth"]
    out = [(shot["t_start"] + SENSOR_LAG_S, names.MOTION, 0, 1)]
    out += [(t, names.RAIL, FOOT_RAIL, 20000) for t in clip["cushions"]]
    out.append((shot["t_end"] + still_ms / 1000.0, names.MOTION, 0, 0))
    return sorted(out)
