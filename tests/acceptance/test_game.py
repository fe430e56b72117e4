"""A whole nine-ball game through the contract only, on a board with no motion sensor;
then `billiards replay` of the daemon's journal gives the same final state."""
import json
import os
import subprocess
import sys
import time

import pytest

from tests.host.harness import ROOT, wait_for
from tests.acceptance import wire
from tests.acceptance.helpers import Table
from tests.acceptance.test_mqtt import BREAK_RAILS, check_result, check_state_shape

pytestmark = pytest.mark.slow
BOOT = 0x9BA11001


class QuietBoard:
    """A board with pocket ball-ID only (features 0b0001): no MOTION events ever."""

    def __init__(self, t):
        self.t, self.seq, self.t_us = t, 1, 1_000_000
        t.write(wire.hello(BOOT, 0b0001, name=b"no-motion"))
        t.wait_ack(BOOT, 0)

    def send(self, items):
        frames = []
        for it in items:
            self.t_us += 40_000
            frames.append(wire.event(self.seq, self.t_us, *it))
            self.seq += 1
        self.t.write(*frames)
        self.t.wait_ack(BOOT, self.seq - 1)
        self.t_us += 2_000_000


def test_nine_ball_game_without_motion_sensor(tmp_path, broker, sub):
    t = Table(tmp_path, broker, sub, table="g9").start()
    try:
        board = QuietBoard(t)
        r = t.cmd("new_game", {"game": "nine-ball", "players": ["Anna", "Bob"], "breaker": 0})
        check_result(r, "new_game", r["id"], True)
        s = t.wait_state(lambda s: s["game"] == "nine-ball" and s["shot"] == 0)
        assert [p["name"] for p in s["players"]] == ["Anna", "Bob"] and s["shooter"] == 0
        assert s["phase"] == "break" and s["on_table"] == list(range(1, 10))
        ev0 = len(t.events())

        # 1. Anna breaks, the 2 drops in foot-left; she says the balls stopped.
        board.send(BREAK_RAILS + [(wire.POCKET, 2, 2)])
        r = t.cmd("end_shot")
        check_result(r, "end_shot", r["id"], True)
        s = t.wait_state(lambda s: s["shot"] == 1, what="break judged")
        check_state_shape(s, "g9")
        assert s["last_shot"]["pocketed"] == [2] and s["last_shot"]["fouls"] == []
        assert s["shooter"] == 0 and s["phase"] == "play" and 2 not in s["on_table"]

        # 2. Anna pots the 1 in foot-right; nobody says anything: the daemon ends the shot
        #    itself after the quiet time.
        board.send([(wire.RAIL, 3, 4000), (wire.POCKET, 3, 1)])
        t0 = time.monotonic()
        s = t.wait_state(lambda s: s["shot"] == 2, timeout=15, what="automatic end of shot")
        assert time.monotonic() - t0 > 1.0, "the shot must not end before a quiet time"
        assert s["last_shot"]["pocketed"] == [1] and s["shooter"] == 0
        assert 1 not in s["on_table"]

        # 3. Anna misses (a rail only); the referee saw her hit the 5 first: foul by hand.
        board.send([(wire.RAIL, 1, 3000), (wire.RAIL, 0, 2000)])
        r = t.cmd("end_shot")
        check_result(r, "end_shot", r["id"], True)
        s = t.wait_state(lambda s: s["shot"] == 3, what="miss judged")
        assert s["shooter"] == 1 and s["last_shot"]["fouls"] == [] and s["ball_in_hand"] is None
        r = t.cmd("foul", {"code": "wrong_first_contact"})
        check_result(r, "foul", r["id"], True)
        s = t.wait_state(lambda s: s["last_shot"]["fouls"] == ["wrong_first_contact"], what="foul")
        assert s["shooter"] == 1 and s["ball_in_hand"] == "table"
        assert s["players"][0]["fouls"] == 1 and s["players"][1]["fouls"] == 0

        # 4. Bob, ball in hand, pots a ball the pocket cannot identify: the engine asks.
        board.send([(wire.RAIL, 4, 3000), (wire.POCKET, 1, 255, 1)])
        r = t.cmd("end_shot")
        check_result(r, "end_shot", r["id"], True)
        s = t.wait_state(lambda s: s["needs"], what="needs asks for the unknown ball")
        assert s["winner"] is None
        r = t.cmd("identify", {"pocket": "side-left", "ball": 3})
        check_result(r, "identify", r["id"], True)
        s = t.wait_state(lambda s: s["shot"] == 4 and s["needs"] == [], what="identified")
        assert s["last_shot"]["pocketed"] == [3] and s["shooter"] == 1 and 3 not in s["on_table"]
        assert s["ball_in_hand"] is None

        # 5. Bob pots the 9 in head-left (pocket 0): he wins.
        board.send([(wire.RAIL, 2, 3000), (wire.POCKET, 0, 9)])
        r = t.cmd("end_shot")
        check_result(r, "end_shot", r["id"], True)
        s = t.wait_state(lambda s: s["winner"] is not None, what="the win")
        check_state_shape(s, "g9")
        assert s["winner"] == 1 and s["phase"] == "over" and s["shot"] == 5
        assert s["players"][1]["score"] == 1 and s["players"][0]["score"] == 0
        assert 9 not in s["on_table"]
        wait_for(lambda: any(e["event"] == "over" for e in t.events()[ev0:]), 5, what="over event")
        evs = t.events()[ev0:]
        over = [e for e in evs if e["event"] == "over"][-1]
        assert over["player"] == 1 and over["clause"] and "Bob" in over["text"]["en"]
        fouls = [e for e in evs if e["event"] == "foul"]
        assert [e["player"] for e in fouls] == [0]
        disp = json.loads(t.sub.last[t.base + "/display"])
        assert "BOB" in " ".join(disp["lines"]).upper()
        final = t.state()
        # A command that is not allowed now changes nothing.
        r = t.cmd("push_out")
        assert r["ok"] is False and r["error"]
    finally:
        assert t.stop() == 0, t.proc.output()

    # billiards replay FILE: the journal judged again gives the final state, same shape.
    files = [os.path.join(t.jdir, f) for f in os.listdir(t.jdir) if not f.endswith(".log")]
    journal = [f for f in files if os.path.isfile(f) and os.path.getsize(f) > 0]
    assert len(journal) == 1, files
    out = subprocess.run([sys.executable, "-m", "host.cli", "replay", journal[0]], cwd=str(ROOT),
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    replayed = json.loads(out.stdout)
    assert set(replayed) == set(final), set(replayed) ^ set(final)
    check_state_shape(replayed, "g9")
    assert set(replayed["link"]) == set(final["link"]), "replay's link must have the state's shape"
    for k in final:
        if k not in ("link", "shot_clock"):
            assert replayed[k] == final[k], k
