"""Leagues across venues: what another venue's results cost the venue service.

    .venv/bin/python tests/bench/bench_league_chain.py [--venues 32] [--matches 1000]

In process, with a real SQLite store (no broker: the MQTT edge only hands payloads over):
1. One venue's largest accepted results (--matches matches, every player's name 32 characters):
   its size, and the time to check it (chain.parse) and keep it.
2. A flood: 20,000 versions of one venue's results in a row (a venue publishing without pause):
   the time per message (noted, taken in at most once a second).
3. The standings of a league with --venues other venues of --matches matches each, every name
   different (the worst case for the page): the time of `league()`, and the service's resident
   memory at the end.
Prints numbers only.
"""
import argparse
import json
import pathlib
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from host.tournament import chain                    # noqa: E402
from host.tournament.service import VenueService     # noqa: E402
from host.tournament.store import Store              # noqa: E402


class Clock:
    t = 1000.0

    def __call__(self):
        return self.t


def payload(venue, n, tag):
    ms = [{"night": i // 40, "match": "R%d" % i, "players": [("%s-%s-a%d" % (tag, venue, i)).ljust(32, "x")[:32],
                                                            ("%s-%s-b%d" % (tag, venue, i)).ljust(32, "y")[:32]],
           "walkover": False, "score": [3, 1]} for i in range(n)]
    for m in ms:
        m["winner"] = m["players"][0]
    return json.dumps({"league": "winter", "venue": venue, "name": "Winter", "venue_name": venue,
                       "win_points": 1, "nights": [], "matches": ms}, separators=(",", ":")).encode()


def vm(key):
    for line in open("/proc/self/status"):
        if line.startswith(key):
            return int(line.split()[1]) / 1024.0
    return 0.0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--venues", type=int, default=32)
    ap.add_argument("--matches", type=int, default=1000)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        st = Store(str(pathlib.Path(d) / "bench.sqlite3"))
        st.create_league("Winter")
        clock = Clock()
        svc = VenueService(st, lambda *x: None, venue="here", clock=clock, monotonic=clock, discovery_prefix=None)
        rss0 = vm("VmRSS")
        p = payload("v0", a.matches, "n")
        t0 = time.perf_counter()
        for _ in range(20):
            doc, why = chain.parse("v0", "winter", p)
        parse_ms = (time.perf_counter() - t0) / 20 * 1000
        assert why is None, why
        t0 = time.perf_counter()
        st.put_chain_results("v0", "winter", doc)
        keep_ms = (time.perf_counter() - t0) * 1000
        print("1. one venue's results: %d matches, %.0f kB; check %.1f ms, keep %.1f ms" % (
            a.matches, len(p) / 1024.0, parse_ms, keep_ms))

        small = payload("v1", 10, "f")
        t0 = time.perf_counter()
        for _ in range(20000):
            svc.message("billiards-chain/v1/league/winter/results", small)
        per = (time.perf_counter() - t0) / 20000 * 1e6
        takes = len([l for l in st.log_lines(1000, "league") if "venue v1" in l["text"]])
        print("2. flood of 20000 versions from one venue: %.0f us a message, %d taken in (one per second)" % (per, takes))

        for v in range(a.venues):
            doc, why = chain.parse("w%d" % v, "winter", payload("w%d" % v, a.matches, "s"))
            st.put_chain_results("w%d" % v, "winter", doc, most=a.venues + 2)
        t0 = time.perf_counter()
        lg = svc.league("winter")
        league_s = time.perf_counter() - t0
        print("3. standings over %d venues x %d matches (%d players): %.2f s; RSS %.1f MB (was %.1f), peak %.1f MB"
              % (len(lg["venues"]), a.matches, len(lg["rows"]), league_s, vm("VmRSS"), rss0, vm("VmHWM")))
        st.close()


if __name__ == "__main__":
    main()
