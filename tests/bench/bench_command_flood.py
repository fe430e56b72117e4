"""An MQTT command flood against one table (issue 16, finding 2): numbers, not assertions.

    .venv/bin/python tests/bench/bench_command_flood.py [--seconds 3] [--command push_out,safety] [--root DIR]

Private mosquitto, `billiards run` as a subprocess, a board on a pty playing a shot every
100 ms; one paho client publishes a command as fast as it can for --seconds. Prints, per
flooded command: commands published, board frames journaled during the flood, the longest
gap between journaled board frames from the flood's start until the board's backlog is
empty, how long an ordinary command sent right after the flood (from a phone's own connection, sent
again every 2 s while unanswered) waits for its answer, and how many of the flood's commands
reached the journal. `--root` runs another checkout's daemon
(e.g. main before issue 16) for a comparison.
"""
import argparse
import json
import os
import pathlib
import sys
import tempfile
import threading
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.host import harness  # noqa: E402
from host.journal import read_entries, table_files  # noqa: E402
from tests.host.harness import DaemonProc, FakeBoard, Mosquitto, PtyLink, Subscriber, wait_for  # noqa: E402
from tests.host.test_command_flood import flood, play_shots  # noqa: E402


LIMIT_S = 300.0
RESEND_S = 2.0


def waited(pred, since, limit):
    """Seconds from `since` (time.monotonic) until `pred()` held (polled every 20 ms), or None
    after `limit`."""
    end = time.monotonic() + limit
    while time.monotonic() < end:
        if pred():
            return time.monotonic() - since
        time.sleep(0.02)
    return None


def said(s):
    return "after %.2f s" % s if s is not None else "not within %d s" % LIMIT_S


def one(command, seconds, tmp):
    broker = Mosquitto(tmp).start()
    sub = Subscriber(broker.port, topics=("billiards/tb/state", "billiards/tb/cmd/result"))
    link = PtyLink(os.path.join(tmp, "tty-" + command))
    board = FakeBoard(link, boot_id=0xBE4C)
    jdir = os.path.join(tmp, "journal-" + command)
    d = DaemonProc(link.path, broker.url, "tb", jdir).start()
    stop = threading.Event()
    try:
        wait_for(lambda: (sub.state("tb") or {}).get("game"), 15, what="a game")
        if command == "push_out":       # refused by the referee unless nine-ball: as in the issue
            sub.publish("billiards/tb/cmd/new_game", json.dumps({"game": "eight-ball", "players": ["A", "B"]}))
        threading.Thread(target=play_shots, args=(board, stop), daemon=True).start()
        time.sleep(1.0)
        t0 = time.time()
        sent = flood(broker.port, "billiards/tb/cmd/" + command, seconds)
        t1 = time.time()
        m1 = time.monotonic()
        # A player's phone (its own connection) sends an ordinary command right after, and sends
        # it again every RESEND_S while it has no answer (as a player taps again).
        phone = Subscriber(broker.port, topics=("billiards/tb/cmd/result",))
        sends = [0]

        def phone_answered():
            if '"after' in "".join(phone.of("billiards/tb/cmd/result")):
                return True
            if time.monotonic() - m1 >= RESEND_S * sends[0]:
                sends[0] += 1
                phone.publish("billiards/tb/cmd/rename", json.dumps(
                    {"player": 0, "name": "Zed", "id": "after%d" % sends[0]}))
            return False
        answered = waited(phone_answered, m1, LIMIT_S)
        first = '"after1"' in "".join(phone.of("billiards/tb/cmd/result"))
        phone.close()
        stop.set()
        drained = waited(lambda: board.backlog() == 0, m1, LIMIT_S)
        end = time.time()
        entries = [e for f in table_files(os.path.join(jdir, "tb.jsonl")) for e in read_entries(f)]
        walls = [e["wall"] for e in entries if e.get("src") == "board" and e["wall"] >= t0]
        # A backlog never emptied: the gap runs on to the end of the wait.
        gap = max([b - a for a, b in zip([t0] + walls, walls + ([] if drained is not None else [end]))] or [end - t0])
        during = len([w for w in walls if w <= t1])
        after = [w for w in walls if w > t1]
        kept = len([e for e in entries if e.get("src") == "cmd" and e.get("cmd") == command])
        print("%-9s %8d published in %.1f s | %4d board frames journaled during it, first after it %s | "
              "longest gap %.3f s | the phone answered %s (sent %d times, the first send %s) | "
              "backlog empty %s | %d of them journaled"
              % (command, sent, t1 - t0, during, "%.2f s later" % (after[0] - t1) if after else "none",
                 gap, said(answered), sends[0], "answered" if first else "never answered", said(drained), kept))
    finally:
        stop.set()
        board.stop()
        d.stop()
        link.close()
        sub.close()
        broker.stop()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--command", default="push_out,safety")
    ap.add_argument("--root", default=None)
    args = ap.parse_args()
    if args.root:
        harness.ROOT = pathlib.Path(args.root)
    print("daemon %s" % harness.ROOT)
    for c in args.command.split(","):
        one(c, args.seconds, tempfile.mkdtemp(prefix="flood_"))


if __name__ == "__main__":
    main()
