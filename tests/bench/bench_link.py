"""Link benchmark: board frames in, MQTT state out, through one real daemon.

    .venv/bin/python tests/bench/bench_link.py [--events 5000] [--samples 300]

Starts a private mosquitto on a free port and `billiards run` as a subprocess
on a pty, then prints:
  - events per second the daemon sustains from a board sending as fast as the
    shared reliable sender allows (journal fsync and ACK included);
  - median and p99 milliseconds from a frame written to the port to the state
    it causes arriving at an MQTT subscriber.
"""
import argparse
import json
import os
import pathlib
import statistics
import sys
import tempfile
import threading
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from shared_rules.link.names import ACK, RAIL, MOTION            # noqa: E402
from shared_rules.link.sender import Sender                      # noqa: E402
from host.journal import read_entries, table_files               # noqa: E402
from tests.host.harness import (Mosquitto, Subscriber, PtyLink, DaemonProc, wait_for,  # noqa: E402
                                raw_hello, raw_event)


def throughput(link, n_events, boot):
    """Seconds for n_events to be acknowledged, the sender writing as fast as it may."""
    sender = Sender(boot, capacity=256, hello={"features": 0x0D, "name": "bench"})
    pushed = 0
    t0 = time.perf_counter()
    i = 0
    while True:
        while pushed < n_events:
            # Shots of MOTION on, three rails, MOTION off: the referee judges each.
            k = i % 5
            kind, value = (MOTION, 1) if k == 0 else (MOTION, 0) if k == 4 else (RAIL, 1000)
            if not sender.push_event(int((time.perf_counter() - t0) * 1e6), kind, k % 6, value):
                break
            pushed += 1
            i += 1
        out = sender.poll(int(time.perf_counter() * 1000), int((time.perf_counter() - t0) * 1e6))
        if out:
            link.write(out)
        for f in link.read_frames():
            if f["type"] == ACK:
                sender.on_ack(f["boot_id"], f["ack"])
        if pushed == n_events and sender.backlog() == 0:
            break
        time.sleep(0.0005)
    dt = time.perf_counter() - t0
    return dt, sender.retransmits


def latency(link, sub, table, samples, boot):
    """Per-frame latency: write a frame that changes the state, wait for that state."""
    arrivals = []
    lock = threading.Lock()
    topic = "billiards/%s/state" % table
    orig = sub.client.on_message

    def on_message(client, userdata, msg):
        if msg.topic == topic:
            with lock:
                arrivals.append((time.perf_counter(), json.loads(msg.payload)))
        orig(client, userdata, msg)
    sub.client.on_message = on_message

    link.write(raw_hello(boot))
    seq = 1
    t_us = 1000000
    out = []
    for n in range(samples):
        opening = n % 2 == 0
        if not opening:
            link.write(raw_event(seq, t_us, RAIL, 0, 500))     # not measured: keeps shots legal
            seq += 1
            t_us += 1000
        frame = raw_event(seq, t_us, MOTION, 0, 1 if opening else 0)
        with lock:
            arrivals.clear()
        t0 = time.perf_counter()
        link.write(frame)
        seq += 1
        t_us += 100000

        def arrived():
            with lock:
                for t, s in arrivals:
                    if s.get("shot_open") == opening:
                        return t
            link.read_frames()
            return None
        t1 = wait_for(arrived, 10, step=0.0002, what="state for sample %d" % n)
        out.append((t1 - t0) * 1000)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--events", type=int, default=5000)
    ap.add_argument("--samples", type=int, default=300)
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="bench_link_")
    broker = Mosquitto(tmp).start()
    link = PtyLink(os.path.join(tmp, "ttyTABLE"))
    jdir = os.path.join(tmp, "journal")
    d = DaemonProc(link.path, broker.url, "bench", jdir).start()
    sub = Subscriber(broker.port)
    try:
        wait_for(lambda: sub.state("bench"), 15, what="daemon up")
        lat = latency(link, sub, "bench", args.samples, 0xBE4C0001)
        d.stop()
        d2 = DaemonProc(link.path, broker.url, "bench2", jdir).start()
        wait_for(lambda: sub.state("bench2"), 15, what="second daemon up")
        dt, retx = throughput(link, args.events, 0xBE4C0002)
        board = [e for f in table_files(os.path.join(jdir, "bench2.jsonl")) for e in read_entries(f)
                 if e["src"] == "board"]
        assert len(board) == args.events, (len(board), args.events)
        d2.stop()
        lat.sort()
        print("throughput: %d events acknowledged (journaled + fsynced) in %.2f s = %.0f events/s "
              "(sender go-backs: %d)" % (args.events, dt, args.events / dt, retx))
        print("latency frame->MQTT state: median %.2f ms, p99 %.2f ms, max %.2f ms (%d samples)"
              % (statistics.median(lat), lat[int(len(lat) * 0.99) - 1], lat[-1], len(lat)))
    finally:
        sub.close()
        d.stop()
        link.close()
        broker.stop()


if __name__ == "__main__":
    main()
