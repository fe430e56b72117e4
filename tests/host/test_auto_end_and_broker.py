"""Tables without a motion sensor get an automatic end_shot; the embedded broker works."""
import os
import threading
import time

import paho.mqtt.client as mqtt
import pytest

from host.broker import EmbeddedBroker, listening
from shared_rules.link.names import POCKET, RAIL
from tests.host.harness import (DaemonProc, FakeBoard, PtyLink, free_port, wait_for,
                                journal_lines)

pytestmark = pytest.mark.slow


def test_quiet_time_ends_the_shot_without_motion_sensor(tmp_path, broker, subscriber):
    link = PtyLink(tmp_path / "ttyTABLE")
    board = FakeBoard(link, boot_id=0xE1, features=0x01)      # ball ID only, no motion sensor
    jdir = tmp_path / "journal"
    d = DaemonProc(link.path, broker.url, "t8", jdir, extra=["--quiet-s", "0.8"]).start()
    try:
        wait_for(lambda: subscriber.state("t8"), 15, what="first state")
        for r in range(5):
            board.push(RAIL, r % 6, 1000)
        board.push(POCKET, 2, 6)
        t0 = time.monotonic()
        wait_for(lambda: (subscriber.state("t8") or {}).get("shot") == 1, 10,
                 what="the shot ended by quiet time")
        assert time.monotonic() - t0 >= 0.7
        s = subscriber.state("t8")
        assert 6 not in s["on_table"]
        cmds = [e for e in journal_lines(os.path.join(str(jdir), "t8.jsonl"))
                if e["src"] == "cmd" and e["cmd"] == "end_shot"]
        assert len(cmds) == 1 and cmds[0]["body"] == {"auto": True}
        assert cmds[0]["t_us"] is not None          # estimated from the HEARTBEAT clock
        time.sleep(1.5)                             # no further end_shot while nothing moves
        cmds = [e for e in journal_lines(os.path.join(str(jdir), "t8.jsonl"))
                if e["src"] == "cmd" and e["cmd"] == "end_shot"]
        assert len(cmds) == 1
        # LIGHTS follow the state and repeat every second.
        from host.link.lights import lights_for
        n = len(board.lights)
        # Once a second; a loaded machine may take longer, so wait for the repeat, not 1.2 s.
        wait_for(lambda: len(board.lights) > n, 5, what="LIGHTS repeated with no change")
        assert (board.lights[-1]["mask"], board.lights[-1]["mode"]) == lights_for(
            subscriber.state("t8"))
    finally:
        board.stop()
        d.stop()
        link.close()


def test_embedded_broker_serves_retained_messages():
    port = free_port()
    b = EmbeddedBroker("127.0.0.1", port)
    b.start()
    try:
        assert listening("127.0.0.1", port)
        got = []
        ev = threading.Event()
        pub = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
        pub.connect("127.0.0.1", port)
        pub.loop_start()
        pub.publish("billiards/x/state", "{}", qos=1, retain=True).wait_for_publish(5)
        sub = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
        sub.on_message = lambda c, u, m: (got.append((m.topic, m.payload, m.retain)), ev.set())
        sub.on_connect = lambda c, u, f, rc, p: c.subscribe("billiards/#", qos=1)
        sub.connect("127.0.0.1", port)
        sub.loop_start()
        assert ev.wait(10)
        assert got[0] == ("billiards/x/state", b"{}", True)
        sub.loop_stop(); pub.loop_stop()
        sub.disconnect(); pub.disconnect()
    finally:
        b.stop()
