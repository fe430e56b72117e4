"""The daemon's HTTP server under the clients of a bar's Wi-Fi: idle sockets, slowloris, and phones
asleep with /events open. Loopback only (many 127.x source addresses stand for many phones);
every phase is bounded and the script stops by itself.

    .venv/bin/python tests/bench/bench_web.py [--idle 200] [--streams 100] [--root DIR]

`--root` runs another checkout's daemon (e.g. /work/main before a change) for a comparison.
Prints, per phase: the daemon's thread count and resident memory, /state latency from a phone
that is not part of the crowd, how many connections were served or refused, how long an idle or
slow connection is held, the fan-out time of one state change to every open stream, and an MQTT
command's round trip through the daemon's loop meanwhile.
"""
import argparse
import json
import pathlib
import socket
import statistics
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.host import harness  # noqa: E402
from tests.host.harness import table_with_page, wait_for  # noqa: E402


def proc_status(pid):
    out = {}
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            k, _, v = line.partition(":")
            if k in ("Threads", "VmRSS"):
                out[k] = v.strip()
    return out


def connect(port, src, data=b""):
    s = socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(src, 0))
    if data:
        s.sendall(data)
    return s


def state_latency(port, n=40, src="127.0.9.9"):
    times, codes = [], {}
    for _ in range(n):
        t0 = time.perf_counter()
        try:
            s = connect(port, src, b"GET /state HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            s.settimeout(5)
            head = s.recv(64)
            s.close()
            code = int(head.split()[1]) if head.startswith(b"HTTP/") else 0
        except OSError:
            code = -1
        times.append((time.perf_counter() - t0) * 1000)
        codes[code] = codes.get(code, 0) + 1
    times.sort()
    return "median %.2f ms, p90 %.2f ms, max %.2f ms %s" % (
        statistics.median(times), times[int(len(times) * 0.9)], times[-1], codes)


def first_answer(s, timeout=2.0):
    s.settimeout(timeout)
    try:
        return s.recv(4096)
    except socket.timeout:
        return None
    except OSError:
        return b""


def mqtt_round_trip(sub, n=10):
    times = []
    for i in range(n):
        seen = len(sub.of("billiards/t1/cmd/result"))
        t0 = time.perf_counter()
        sub.publish("billiards/t1/cmd/lag", json.dumps({"winner": i % 2}))
        wait_for(lambda: len(sub.of("billiards/t1/cmd/result")) > seen, 10, step=0.001, what="result")
        times.append((time.perf_counter() - t0) * 1000)
    return "median %.1f ms, max %.1f ms" % (statistics.median(times), max(times))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--idle", type=int, default=200)
    ap.add_argument("--streams", type=int, default=100)
    ap.add_argument("--hold", type=float, default=12.0, help="seconds the idle crowd is watched")
    ap.add_argument("--root", default=None)
    args = ap.parse_args()
    if args.root:
        harness.ROOT = pathlib.Path(args.root)
    held = []
    with table_with_page("bench-web-") as (tmp, broker, sub, board, d, port):
        pid = d.proc.pid
        print("daemon %s" % harness.ROOT)
        print("at rest            : %s; /state %s" % (proc_status(pid), state_latency(port)))
        print("  MQTT command round trip at rest: %s" % mqtt_round_trip(sub))

        # Idle sockets from many addresses (10 each), as phones that opened a page and stopped.
        for i in range(args.idle):
            try:
                held.append(connect(port, "127.0.%d.%d" % (10 + i // 200, 1 + (i // 10) % 200)))
            except OSError:
                break
        time.sleep(1.0)
        print("%4d idle sockets   : %s; /state %s" % (len(held), proc_status(pid), state_latency(port)))
        t0 = time.monotonic()
        closed_at = {}
        while time.monotonic() - t0 < args.hold and len(closed_at) < len(held):
            for s in held:
                if s not in closed_at:
                    s.setblocking(False)
                    try:
                        if s.recv(4096) == b"":
                            closed_at[s] = time.monotonic() - t0
                    except BlockingIOError:
                        pass
                    except OSError:
                        closed_at[s] = time.monotonic() - t0
            time.sleep(0.1)
        cut = sorted(closed_at.values())
        print("  closed by the server within %.0f s: %d of %d (first at %.1f s, last at %.1f s)"
              % (args.hold, len(cut), len(held), cut[0] if cut else -1, cut[-1] if cut else -1))
        for s in held:
            s.close()
        held = []
        time.sleep(1.0)

        # Slowloris: one header byte a second.
        s = connect(port, "127.0.8.1", b"GET /state HTTP/1.1\r\n")
        t0 = time.monotonic()
        cut = None
        while time.monotonic() - t0 < args.hold + 5:
            try:
                s.sendall(b"X")
            except OSError:
                cut = time.monotonic() - t0
                break
            if first_answer(s, 1.0) == b"":
                cut = time.monotonic() - t0
                break
        s.close()
        print("slowloris          : %s" % ("cut after %.1f s" % cut if cut else "still held after %.0f s" % (args.hold + 5)))

        # Phones asleep with the live page open: /events streams from many addresses (2 each).
        ev = b"GET /events HTTP/1.1\r\nHost: x\r\n\r\n"
        streams, refused = [], 0
        for i in range(args.streams):
            try:
                s = connect(port, "127.0.%d.%d" % (20 + i // 400, 1 + (i // 2) % 200), ev)
            except OSError:
                refused += 1
                continue
            held.append(s)
        time.sleep(1.0)
        ended = 0
        for s in held:
            a = first_answer(s, 2.0)
            if not a or b" 200 " not in a.split(b"\r\n", 1)[0]:
                refused += 1
            elif first_answer(s, 0.01) == b"":
                ended += 1                   # given way to a later one (per client or in all)
            else:
                streams.append(s)
        print("%4d /events asked : %d streaming, %d ended to make room, %d refused; %s; /state %s"
              % (args.streams, len(streams), ended, refused, proc_status(pid), state_latency(port)))
        print("  MQTT command round trip meanwhile: %s" % mqtt_round_trip(sub))
        for s in streams:                        # drain what the commands pushed
            s.setblocking(False)
            try:
                while s.recv(65536):
                    pass
            except (BlockingIOError, OSError):
                pass
        t0 = time.perf_counter()
        sub.publish("billiards/t1/cmd/lag", json.dumps({"winner": 0}))
        got = {}
        while time.perf_counter() - t0 < 5 and len(got) < len(streams):
            for s in streams:
                if s in got:
                    continue
                try:
                    if b"data:" in s.recv(65536):
                        got[s] = (time.perf_counter() - t0) * 1000
                except (BlockingIOError, OSError):
                    pass
            time.sleep(0.001)
        lat = sorted(got.values())
        if lat:
            print("  one state change reached %d of %d streams: median %.1f ms, last %.1f ms after the command"
                  % (len(lat), len(streams), statistics.median(lat), lat[-1]))
        for s in held:
            s.close()
        held = []
        time.sleep(3.0)
        print("after              : %s; /state %s; daemon alive: %s"
              % (proc_status(pid), state_latency(port), d.proc.poll() is None))
    for s in held:
        s.close()


if __name__ == "__main__":
    main()
