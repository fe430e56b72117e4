"""End to end: a scripted break -> the real firmware under MicroPython -> the daemon -> mosquitto.

The virtual board (firmware/vboard/run.py) serves its serial stream on a TCP port;
the daemon opens it as `socket://`; the state it publishes must show what the
script did on the table. Issue 16: a board that cannot be built tells the daemon why
(finding 8), and the board's own measure of its loop reaches state.link.loop (finding 12).
"""
import json
import os
import subprocess

import pytest

from tests.conftest import ROOT, micropython_binary
from tests.host.harness import DaemonProc, Mosquitto, Subscriber, free_port, wait_for

SCRIPT = [
    {"t": 0, "motion": 1},
    {"t": 30, "rail": 0, "strength": 9000},
    {"t": 90, "rail": 2, "strength": 7000},
    {"t": 150, "rail": 4, "strength": 6000},
    {"t": 210, "rail": 3, "strength": 5000},
    {"t": 300, "ball": 3, "pocket": 2},
    {"t": 420, "ball": 10, "pocket": 5},
    {"t": 600, "rail": 1, "strength": 3000},
    {"t": 900, "motion": 0},
]


@pytest.mark.slow
def test_scripted_break_through_the_real_firmware_reaches_the_state(tmp_path):
    script = tmp_path / "break.jsonl"
    script.write_text("".join(json.dumps(a) + "\n" for a in SCRIPT))
    broker = Mosquitto(tmp_path).start()
    port = free_port()
    board, log = start_board(tmp_path, port, "--script", str(script))
    daemon = sub = None
    try:
        sub = Subscriber(broker.port)
        daemon = DaemonProc("socket://127.0.0.1:%d" % port, broker.url, "t1",
                            tmp_path / "journal").start()

        def judged():
            s = sub.state("t1")
            return s if s and s.get("last_shot") else None
        st = wait_for(judged, 20, what="a judged shot in the state")
        assert sorted(st["last_shot"]["pocketed"]) == [3, 10]
        assert st["last_shot"]["rails"] >= 4
        assert 3 not in st["on_table"] and 10 not in st["on_table"]
        assert st["link"]["state"] == "up" and st["link"]["dropped"] == 0
        # The journal holds the board's events once each, in seq order.
        lines = [json.loads(x) for x in (tmp_path / "journal" / "t1.jsonl").read_text().splitlines()]
        seqs = [e["seq"] for e in lines if e.get("src") == "board"]
        assert seqs == list(range(1, len(seqs) + 1))
        assert len([e for e in lines if e.get("src") == "board" and e["kind"] == 1]) == 2
    finally:
        stop_all(daemon, sub, board, log, broker)


def stop_all(daemon, sub, board, log, broker):
    """The end of a test, whatever it got to: the daemon, the subscriber, the board, the broker."""
    if daemon is not None:
        daemon.stop()
    if sub is not None:
        sub.close()
    board.terminate()
    board.wait(10)
    log.close()
    broker.stop()


def start_board(tmp_path, port, *args, cfg=None):
    env = dict(os.environ)
    env["MICROPYPATH"] = ".frozen:" + str(ROOT) + ":" + str(ROOT / "firmware")
    extra = list(args)
    if cfg is not None:
        (tmp_path / "board.json").write_text(json.dumps(cfg))
        extra += ["--config", str(tmp_path / "board.json")]
    log = open(tmp_path / "board.log", "wb")
    board = subprocess.Popen([micropython_binary(), "-X", "heapsize=192K",
                              str(ROOT / "firmware" / "vboard" / "run.py"), "--port", str(port)] + extra,
                             cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    wait_for(lambda: b"listening" in (tmp_path / "board.log").read_bytes(), 10,
             what="the virtual board to listen")
    return board, log


@pytest.mark.slow
def test_a_board_that_cannot_be_built_tells_the_daemon_why_and_its_loop_rate(tmp_path):
    """Before, a board failing in Board.__init__ reset in a loop and sent nothing: the host saw
    corrupt frames and state.faults stayed []. Here the firmware's own build (app.build) meets
    a shorted input: the board still speaks, and the daemon shows its words in state.faults
    and in its log. The board measures its loop on its own clock (LOOP_RATE, firmware 1.2):
    state.link.loop."""
    with open(ROOT / "firmware" / "boards" / "virtual.json") as f:
        cfg = json.load(f)
    cfg["loop_report_s"] = 1
    broker = Mosquitto(tmp_path).start()
    port = free_port()
    board, log = start_board(tmp_path, port, "--broken-pin", str(cfg["pockets"][0]["beam"]), cfg=cfg)
    daemon = sub = None
    try:
        sub = Subscriber(broker.port)
        daemon = DaemonProc("socket://127.0.0.1:%d" % port, broker.url, "t1", tmp_path / "journal").start()

        def board_fault():
            s = sub.state("t1") or {}
            return [f for f in s.get("faults") or () if f.get("what") == "board"]
        fault = wait_for(board_fault, 20, what="the board's fault in the state")[0]
        assert fault["fault"] == "crash" and fault["detail"] == "RuntimeError: pin 2 shorted", fault
        st = wait_for(lambda: (sub.state("t1") or {}).get("link", {}).get("loop") and sub.state("t1"), 20,
                      what="the board's loop rate in the state")
        assert st["link"]["state"] == "up" and st["link"]["corrupt"] <= 1     # the REPL line before HELLO
        loop = st["link"]["loop"]
        assert 100 <= loop["passes_per_s"] <= 1100 and loop["longest_us"] > 0, loop
        wait_for(lambda: "RuntimeError: pin 2 shorted" in daemon.output(), 10, what="the reason in the log")
        line = [ln for ln in daemon.output().splitlines() if "pin 2 shorted" in ln][0]
        assert "WARNING fault:" in line and '"fault": "crash"' in line, line
    finally:
        stop_all(daemon, sub, board, log, broker)
