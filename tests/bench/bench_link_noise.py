"""Noisy-link benchmark (issue 8): the firmware's own sender over a 115200-baud line
with 1 % of bytes corrupted, 1 % of frames dropped and 1 % duplicated, both ways,
into the real daemon (session, journal with fsync, referee, ACKs), on simulated time.

    .venv/bin/python tests/bench/bench_link_noise.py [--seconds 60] [--bursts 30] [--seed 8]

Prints, with and without faults: a board offering 200 events/s for 60 s, then
separate 60-event bursts (one second each, 5 s apart): events journaled per
second, events lost to the full 256-event buffer, doubled or reordered ones,
the share of the board's bytes that were retransmissions, and the delay from
push to the journal (median, p99, max). For comparison, with faults: the same
sender resending only the missing frame on a duplicate ACK instead of going
back over the whole window, and a contract v1 board (fixed 250 ms, go-back-N) into the
new daemon and into a contract v1 host. The line model and the v1 peers are
tests/link/noisy.py and tests/link/v1.py. Numbers only, no assertions.
"""
import argparse
import pathlib
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from shared_rules.link.sender import Sender       # noqa: E402
from tests.link import noisy                      # noqa: E402
from tests.link.v1 import V1Board, V1Host         # noqa: E402

BOOT = 0xB00C0008
FAULTS = (0.01, 0.01, 0.01)
CLEAN = (0.0, 0.0, 0.0)


def line(label, r):
    d = r["delay_ms"]
    return ("%-44s %7.1f %6d %5d %5d %5d %6.0f%% %8.1f %8.1f %8.1f" % (
        label, r["events_per_s"], r["lost_full_buffer"], r["missing"], r["doubled"],
        r["reordered"], 100 * r["retransmit_share"], d["median"] or 0, d["p99"] or 0,
        d["max"] or 0))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--bursts", type=int, default=30)
    ap.add_argument("--seed", type=int, default=8)
    args = ap.parse_args()
    steady = noisy.offered(rate=200, seconds=args.seconds)
    bursts = noisy.offered(bursts=args.bursts)
    runs = [
        ("steady 200/s, faults", lambda: Sender(BOOT), noisy.DaemonHost, steady, FAULTS),
        ("steady 200/s, no faults", lambda: Sender(BOOT), noisy.DaemonHost, steady, CLEAN),
        ("bursts 60 in 1 s, faults", lambda: Sender(BOOT), noisy.DaemonHost, bursts, FAULTS),
        ("bursts 60 in 1 s, no faults", lambda: Sender(BOOT), noisy.DaemonHost, bursts, CLEAN),
        ("-- steady, faults, only the missing frame", lambda: noisy.MissingOnlySender(BOOT),
         noisy.DaemonHost, steady, FAULTS),
        ("-- bursts, faults, only the missing frame", lambda: noisy.MissingOnlySender(BOOT),
         noisy.DaemonHost, bursts, FAULTS),
        ("-- steady, faults, v1 board -> new daemon", lambda: V1Board(BOOT),
         noisy.DaemonHost, steady, FAULTS),
        ("-- steady, faults, new board -> v1 host", lambda: Sender(BOOT), V1Host, steady, FAULTS),
        ("-- steady, faults, v1 board -> v1 host", lambda: V1Board(BOOT), V1Host, steady, FAULTS),
        ("-- bursts, faults, v1 board -> v1 host", lambda: V1Board(BOOT), V1Host, bursts, FAULTS),
    ]
    print("faults: %.0f %% bytes corrupted, %.0f %% frames dropped, %.0f %% duplicated, both ways; "
          "115200 baud; seed %d" % (100 * FAULTS[0], 100 * FAULTS[1], 100 * FAULTS[2], args.seed))
    print("%-44s %7s %6s %5s %5s %5s %7s %8s %8s %8s" % (
        "run", "ev/s", "lost", "miss", "dbl", "reord", "retx", "med ms", "p99 ms", "max ms"))
    for label, sender, host, events, faults in runs:
        t0 = time.perf_counter()
        h = host()
        r = noisy.run(sender(), h, events, faults, seed=args.seed, boot_id=BOOT)
        if hasattr(h, "close"):
            h.close()
        print(line(label, r) + "   (%.1f s)" % (time.perf_counter() - t0))
        sys.stdout.flush()
    print("lost = to the full buffer; miss = pushed but not journaled at the end; "
          "retx = retransmitted share of the board's frame bytes")


if __name__ == "__main__":
    main()
