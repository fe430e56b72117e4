"""The camera in the daemon (issue 18): how long after the balls stop the verdict comes.

    .venv/bin/python tests/bench/bench_camera_live.py [--runs 5] [--fps 60]

Renders the live-path test's clip (tests/camera_live/footage.py: nine-ball, wrong ball first,
640x360, tools/footage's kinematic generator), then:

* live: the daemon (in-process, its loop in a thread) with a fake board on a pty (the shared
  reliable sender, as tests/host/harness.FakeBoard) and `--camera CLIP` (the camera edge's thread
  playing the file at its own pace on the host clock). The board sends MOTION 1 at the stroke,
  its rail hits, and MOTION 0 `still_ms` after the balls' last motion in the truth: 1.5 s (the
  firmware's default: the analyser has closed the shot itself by then) and 0.3 s (a board set
  quicker than the camera: the referee holds the shot and the camera closes it at once). Printed: from the board's MOTION 0 pushed to the verdict's events in the
  daemon's stream (median, max over the runs), where the facts came from (the analyser's own
  close, or `close_shot` when the referee held the shot), and the camera thread's lag behind
  the frames' times. From the balls truly still to the verdict is that plus STILL_MS.
* facts first: the referee's part alone when the facts are in before the board's MOTION 0 (the
  analyser closes a shot 0.5 s after the last motion it sees, the board 1.5 s after the last
  vibration): MOTION 0 journaled (fsync) and judged, on the in-process rig.
"""
import argparse
import os
import statistics
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from shared_rules.link import names  # noqa: E402
from tests.camera_live.footage import board_events  # noqa: E402


def live_run(clip, folder, still_ms):
    from host.camera.edge import CameraEdge
    from host.daemon import Daemon
    from tests.host.harness import FakeBoard, PtyLink
    link = PtyLink(os.path.join(folder, "tty"))
    board = FakeBoard(link, features=15)
    d = Daemon("t1", link.path, journal_dir=folder, outputs=[], game="nine-ball", players=("Anna", "Bob"))
    verdicts = []
    d.listeners.append(lambda state, events: verdicts.extend(
        (time.monotonic(), e) for e in events if e["event"] in ("foul", "turn", "camera", "warning")))
    edge = CameraEdge(clip["path"], put=d.queue.put, corners=clip["corners"], table="7ft")
    d.camera.attach(edge)
    d.start_journal()
    loop = threading.Thread(target=d.run, daemon=True)
    loop.start()
    try:
        wait(lambda: d.state and d.state.get("link", {}).get("state") == "up", 15)
        for k, i, v in [(names.MOTION, 0, 1)] + [(names.RAIL, r, 20000) for r in range(6)] + \
                [(names.POCKET, 2, 3), (names.POCKET, 3, 4), (names.POCKET, 0, 5), (names.POCKET, 5, 6), (names.POCKET, 1, 7),
                 (names.MOTION, 0, 0)]:
            board.push(k, i, v)
        wait(lambda: d.state.get("on_table") == [1, 2, 8, 9], 15)
        edge.start()
        wait(lambda: edge.counts["frames"] > 0, 15)
        start = time.monotonic() - (edge.last_frame - edge._pace0)        # the clip's time 0, host clock
        still_at = None
        facts0 = d.camera.counts["facts"]
        for t_video, kind, index, value in board_events(clip, still_ms):
            delay = start + t_video - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            if kind == names.MOTION and value == 0:
                still_at = time.monotonic()
                n = len(verdicts)
                came = "the analyser's own close" if d.camera.counts["facts"] > facts0 else "close_shot"
            board.push(kind, index, value)
        wait(lambda: [e for t, e in verdicts[n:] if e["event"] in ("foul", "turn")], 10)
        t_verdict = [t for t, e in verdicts[n:] if e["event"] in ("foul", "turn")][0]
        foul = (d.state.get("last_foul") or {}).get("codes")
        lag = edge.clock() - edge.last_frame if edge.last_frame else None
        return {"ms": (t_verdict - still_at) * 1000.0, "facts_from": came, "foul": foul,
                "late": d.camera.counts["late"], "frames": edge.counts["frames"], "lag_ms": (lag or 0) * 1000.0}
    finally:
        edge.stop()
        d.stopping = True
        loop.join(5)
        d.close()
        board.stop()
        link.close()


def facts_first_runs(n):
    """MOTION 0 judged with the facts already in, on the rig (journal fsync included)."""
    from tests.camera_live.helpers import facts
    from tests.camera_live.rig import Rig
    out = []
    for _ in range(n):
        with tempfile.TemporaryDirectory() as folder:
            rig = Rig(folder).start()
            rig.d.queue.put(("camera", ("health", {"state": "online", "faults": [], "table_mm": [1981.2, 990.6]})))
            rig.loop()
            rig.shot(rails=9, drops=[(2, 2), (4, 3)], t=100.5)
            rig.at(rig.clock.now + 0.6)
            t0 = rig.clock.now + 1.0
            rig.at(t0)
            rig.sensor(names.MOTION, 0, 1)
            rig.at(t0 + 0.4)
            rig.sensor(names.RAIL, 3, 20000)
            f = facts(first=5, railed=(5,), followed=(0, 1, 3, 5, 6, 7, 8, 9))
            f["t_start"], f["t_end"] = t0, t0 + 1.0
            rig.d.queue.put(("camera", ("facts", f)))
            rig.at(t0 + 1.5)
            begin = time.perf_counter()
            rig.sensor(names.MOTION, 0, 0)
            out.append((time.perf_counter() - begin) * 1000.0)
            assert rig.state["last_foul"]["codes"] == ["wrong_first_contact"]
            rig.close()
    return out


def wait(pred, timeout):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(0.005)
    raise SystemExit("timed out")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    from tests.camera_live.footage import render_wrong_first
    with tempfile.TemporaryDirectory() as tmp:
        t = time.monotonic()
        clip = render_wrong_first(os.path.join(tmp, "clip.mp4"))
        print("clip: %d frames, 640x360 at 60 fps, rendered in %.1f s" % (clip["n_frames"], time.monotonic() - t))
        for still_ms in (1500, 300):
            runs = []
            for i in range(args.runs):
                folder = os.path.join(tmp, "run%d-%d" % (still_ms, i))
                os.makedirs(folder)
                r = live_run(clip, folder, still_ms)
                runs.append(r)
                print("still_ms %d, run %d: MOTION 0 -> verdict %.1f ms (facts from %s; foul %s; none entries %d; "
                      "%d frames, camera %.0f ms behind at the end)" % (
                          still_ms, i + 1, r["ms"], r["facts_from"], r["foul"], r["late"], r["frames"], r["lag_ms"]))
            ms = [r["ms"] for r in runs]
            print("live, board still_ms %d: MOTION 0 -> verdict median %.1f ms, max %.1f ms over %d runs; balls "
                  "still -> verdict = that + %d ms" % (still_ms, statistics.median(ms), max(ms), len(ms), still_ms))
    first = facts_first_runs(max(args.runs, 20))
    print("facts first: MOTION 0 -> verdict median %.2f ms, max %.2f ms over %d runs (journal fsync + referee)"
          % (statistics.median(first), max(first), len(first)))


if __name__ == "__main__":
    main()
