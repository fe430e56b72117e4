"""A season of journal: start-up time and memory of a daemon whose table has >= 1,000,000 events,
against a fresh daemon; and what disk-before-memory costs a command.

    .venv/bin/python tests/bench/bench_season.py [--events 1000000] [--dir DIR] [--old]

1. Builds the table's journal through the daemon's own path (Daemon.handle_bytes with encoded
   board frames in batches: journal append, fsync, ACK, referee; Daemon.submit_command for a
   new game every 300 shots), so the files are exactly what a season in a bar leaves behind.
2. Starts `billiards run` on it (private mosquitto, board on a pty) and measures the time from
   the process start to its retained state on MQTT, and its RSS a second later; the same for
   a daemon with an empty journal directory.
3. With --old: the same for today's single-file journal, read whole by the daemon of main
   before the change (git archive of ORIG_REV), on the first --old-events of those events.
Prints numbers only.
"""
import argparse
import json
import os
import pathlib
import random
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from shared_rules.link import frames as codec                       # noqa: E402
from shared_rules.link.names import EVENT, HELLO, POCKET, RAIL, MOTION  # noqa: E402
from host.daemon import Daemon                                     # noqa: E402
from host.journal import archived_segments                         # noqa: E402
from host.link.port import Port                                    # noqa: E402
from tests.host.harness import Mosquitto, Subscriber, PtyLink, wait_for  # noqa: E402

ORIG_REV = "b854890"      # main before issue 9: one journal file per table, read whole


class NullPort(Port):
    """The daemon's port, for building a journal without a board: never opens; writes vanish."""

    def __init__(self):
        super().__init__("none://")

    def write(self, data, now):
        return True


def build(jdir, table, n_events, seed=1, batch=400):
    """Journal >= n_events board events through the daemon's own code path; (events, seconds)."""
    d = Daemon(table, "loop://", journal_dir=jdir, outputs=[])
    d.port = NullPort()
    d.start_journal()
    r = random.Random(seed)
    boot = 0x5EA5
    seq = 0
    t = 1000000
    buf = [codec.encode({"type": HELLO, "seq": 0, "boot_id": boot, "proto": 1, "fw_major": 1,
                         "fw_minor": 0, "pockets": 6, "rails": 6, "features": 0x0D, "name": "bench"})]
    events = shots = 0
    t0 = time.perf_counter()
    last_say = t0
    while events < n_events:
        shot = [(MOTION, 0, 1)] + [(RAIL, r.randrange(6), 2000) for _ in range(r.randint(1, 4))]
        if r.random() < 0.3:
            shot.append((POCKET, r.randrange(6), 255))
        shot.append((MOTION, 0, 0))
        for k, i, v in shot:
            seq = (seq + 1) & 0xFFFF
            t += 40000
            buf.append(codec.encode({"type": EVENT, "seq": seq, "t_us": t, "kind": k, "index": i,
                                     "value": v, "flags": 0}))
            events += 1
        if len(buf) >= batch:
            d.handle_bytes(b"".join(buf), time.monotonic())
            buf = []
        shots += 1
        if shots % 300 == 0 and n_events - events > 40000:
            # A new match, except for the last stretch: one long match that outgrows a segment.
            if buf:
                d.handle_bytes(b"".join(buf), time.monotonic())
                buf = []
            res = d.submit_command("new_game", {"game": r.choice(["eight-ball", "nine-ball"]),
                                                "players": ["Anna", "Bob"]})
            assert res["ok"], res
        if time.perf_counter() - last_say > 10:
            last_say = time.perf_counter()
            print("  ... %d events journaled" % events, file=sys.stderr)
    if buf:
        d.handle_bytes(b"".join(buf), time.monotonic())
    d.journal.wait_tidy(600)
    d.close()
    return events, time.perf_counter() - t0


def rss_kb(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def start_up(root, jdir, table, broker, tmp):
    """(seconds to the retained state on MQTT, RSS in MB one second later) of `billiards run`."""
    link = PtyLink(os.path.join(tmp, "tty-" + table))
    clear = Subscriber(broker.port, topics=())      # no retained state from an earlier run
    clear.client.publish("billiards/%s/state" % table, b"", qos=1, retain=True).wait_for_publish(5)
    clear.close()
    sub = Subscriber(broker.port, topics=("billiards/%s/state" % table,))
    time.sleep(0.3)
    assert sub.state(table) is None
    env = dict(os.environ, PYTHONPATH=str(root))
    t0 = time.perf_counter()
    p = subprocess.Popen([sys.executable, "-m", "host.cli", "run", "--serial", link.path, "--broker",
                          broker.url, "--table", table, "--journal", str(jdir), "--no-console"],
                         cwd=str(root), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for(lambda: sub.state(table) is not None, 600, step=0.005, what="state on MQTT")
        online = time.perf_counter() - t0
        time.sleep(1.0)
        rss = rss_kb(p.pid) / 1024.0
    finally:
        p.send_signal(2)
        p.wait(30)
        sub.close()
        link.close()
    return online, rss


def snapshot_cost(path, table):
    """What disk-before-memory adds to a command: one Referee.snapshot() (taken before judging)
    and, only when the disk refuses, one restore()."""
    from host.fold import fold_files, new_referee
    ref = new_referee(table)
    fold_files([path], ref)
    snap = ref.snapshot()
    n = 300
    t0 = time.perf_counter()
    for _ in range(n):
        snap = ref.snapshot()
    t1 = time.perf_counter()
    for _ in range(n):
        ref.restore(snap)
    t2 = time.perf_counter()
    print("disk before memory: snapshot %.0f us per command (%d kB of JSON), restore %.0f us on a failed write"
          % ((t1 - t0) / n * 1e6, len(json.dumps(snap)) // 1000, (t2 - t1) / n * 1e6))


def du(path):
    total = 0
    for dirpath, _d, files in os.walk(path):
        for f in files:
            total += os.path.getsize(os.path.join(dirpath, f))
    return total


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--events", type=int, default=1000000)
    ap.add_argument("--dir", default=None, help="keep the built journal here (reused if present)")
    ap.add_argument("--old", action="store_true", help="also measure main before the change")
    ap.add_argument("--old-events", type=int, default=100000)
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="bench-season-")
    jdir = a.dir or os.path.join(tmp, "journal")
    table = "season"
    try:
        if not os.path.exists(os.path.join(jdir, table + ".jsonl")):
            n, secs = build(jdir, table, a.events)
            print("built: %d board events in %.0f s (%.0f events/s through handle_bytes)"
                  % (n, secs, n / secs))
        segs = archived_segments(os.path.join(jdir, table + ".jsonl"))
        cur = sum(1 for _ in open(os.path.join(jdir, table + ".jsonl"), "rb"))
        print("journal: %d closed segments, %.1f MB on disk; current segment %d lines"
              % (len(segs), du(jdir) / 1e6, cur))
        snapshot_cost(os.path.join(jdir, table + ".jsonl"), table)
        broker = Mosquitto(pathlib.Path(tmp)).start()
        try:
            fresh_dir = os.path.join(tmp, "fresh")
            rows = []
            for i in range(a.runs):
                shutil.rmtree(fresh_dir, ignore_errors=True)
                f = start_up(ROOT, fresh_dir, "fresh%d" % i, broker, tmp)
                s = start_up(ROOT, jdir, table, broker, tmp)
                rows.append((f, s))
            fo = min(r[0][0] for r in rows)
            so = min(r[1][0] for r in rows)
            fr = sorted(r[0][1] for r in rows)[len(rows) // 2]
            sr = sorted(r[1][1] for r in rows)[len(rows) // 2]
            print("fresh daemon:        online in %.2f s, RSS %.1f MB" % (fo, fr))
            print("after %d events: online in %.2f s, RSS %.1f MB (%+.0f%% of fresh)"
                  % (a.events, so, sr, 100.0 * (sr - fr) / fr))
            # The worst case: a current file just short of closing (one long match, no head).
            from host.journal import SEGMENT_ENTRIES
            worst_dir = os.path.join(tmp, "worst")
            build(worst_dir, "worst", SEGMENT_ENTRIES - 10)
            w = min((start_up(ROOT, worst_dir, "worst", broker, tmp) for _ in range(a.runs)),
                    key=lambda r: r[0])
            print("worst case, a current file of %d entries: online in %.2f s, RSS %.1f MB"
                  % (SEGMENT_ENTRIES - 10, w[0], w[1]))
            if a.old:
                old_root = os.path.join(tmp, "old")
                os.makedirs(old_root)
                subprocess.run("git -C %s archive %s | tar -x -C %s" % (ROOT, ORIG_REV, old_root),
                               shell=True, check=True)
                old_dir = os.path.join(tmp, "old-journal")
                n_old = _flatten(jdir, table, old_dir, a.old_events)
                o = start_up(old_root, old_dir, table, broker, tmp)
                print("before (main %s, one file of %d events): online in %.2f s, RSS %.1f MB"
                      % (ORIG_REV, n_old, o[0], o[1]))
        finally:
            broker.stop()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)      # a --dir journal lives outside it and stays


def _flatten(jdir, table, out_dir, limit):
    """Today's single-file journal of the first `limit` board events of the season, heads left out."""
    from host.journal import read_entries
    os.makedirs(out_dir)
    n = 0
    with open(os.path.join(out_dir, table + ".jsonl"), "w") as out:
        for _n, p in archived_segments(os.path.join(jdir, table + ".jsonl")):
            for e in read_entries(p):
                if e["src"] == "snapshot":
                    continue
                out.write(json.dumps(e) + "\n")
                n += e["src"] == "board"
                if n >= limit:
                    return n
    return n


if __name__ == "__main__":
    main()
