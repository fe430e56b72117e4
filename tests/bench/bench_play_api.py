"""Phone page API benchmark: a tap's command over HTTP, through one real daemon.

    .venv/bin/python tests/bench/bench_play_api.py [--samples 80] [--flood 2000]

Starts a private mosquitto and `billiards run --http` as a subprocess (board on a pty), then prints:
  - milliseconds from POST /api/cmd/lag to its HTTP answer (queued to the daemon's thread,
    judged, journaled with fsync), and to the state it causes arriving on MQTT;
  - how fast the server turns away a flood from one client (429 answers per second), and
    that a phone on another address still gets through during it.
Requests are paced at the rate limit (4 a second) so that none is refused.
"""
import argparse
import http.client
import json
import os
import pathlib
import statistics
import sys
import threading
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.host.harness import table_with_page, wait_for  # noqa: E402


def post(conn, path, body, token):
    conn.request("POST", path, body=json.dumps(body),
                 headers={"Content-Type": "application/json", "Authorization": "Bearer " + token})
    r = conn.getresponse()
    return r.status, r.read()


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(len(xs) * p))]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--samples", type=int, default=80)
    ap.add_argument("--flood", type=int, default=2000)
    args = ap.parse_args()
    with table_with_page("bench-play-") as (tmp, broker, sub, board, d, port):
        token = open(os.path.join(tmp, "journal", "t1.token")).read().strip()
        arrivals = []                       # when each state message reached the subscriber
        topic = "billiards/t1/state"
        orig = sub.client.on_message

        def on_message(client, userdata, msg):
            if msg.topic == topic:
                arrivals.append(time.perf_counter())
            orig(client, userdata, msg)
        sub.client.on_message = on_message

        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        answer, to_state = [], []
        for n in range(args.samples):
            w = n % 2                       # alternate the lag winner: every command changes the state
            seen = len(arrivals)
            t0 = time.perf_counter()
            status, _ = post(conn, "/api/cmd/lag", {"winner": w}, token)
            t1 = time.perf_counter()
            assert status == 200, status
            wait_for(lambda: len(arrivals) > seen, 5, step=0.0005, what="state")
            t2 = arrivals[seen]
            answer.append((t1 - t0) * 1000)
            to_state.append((t2 - t0) * 1000)
            time.sleep(max(0.0, 0.26 - (time.perf_counter() - t0)))
        print("tap -> HTTP answer   : median %.2f ms, p90 %.2f ms, max %.2f ms (%d commands)"
              % (statistics.median(answer), pct(answer, 0.9), max(answer), len(answer)))
        print("tap -> state on MQTT : median %.2f ms, p90 %.2f ms, max %.2f ms"
              % (statistics.median(to_state), pct(to_state, 0.9), max(to_state)))

        # A flood from one address, while a phone on another address (127.0.0.2) plays.
        flood_codes = {}
        other = []

        def phone():
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=10, source_address=("127.0.0.2", 0))
            for n in range(8):
                other.append(post(c, "/api/cmd/lag", {"winner": n % 2}, token)[0])
                time.sleep(0.3)
        th = threading.Thread(target=phone)
        time.sleep(3.5)                     # the bench's own bucket refills first
        th.start()
        t0 = time.perf_counter()
        for _ in range(args.flood):
            status, _ = post(conn, "/api/cmd/lag", {"winner": 0}, token)
            flood_codes[status] = flood_codes.get(status, 0) + 1
        dt = time.perf_counter() - t0
        th.join()
        print("flood from one client: %d requests in %.2f s = %.0f answers/s; %s"
              % (args.flood, dt, args.flood / dt, ", ".join("%d x %d" % (v, k) for k, v in sorted(flood_codes.items()))))
        print("another phone during the flood: %s" % other)


if __name__ == "__main__":
    main()
