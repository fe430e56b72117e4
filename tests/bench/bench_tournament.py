"""Tournament night: how fast the venue service sends the next match to a table, and its memory.

    .venv/bin/python tests/bench/bench_tournament.py [--players 64] [--tables 16] [--skip-real]

1. Real tables: a private mosquitto, two `billiards run` daemons fed by fake boards on ptys
   (the players of tests/tournament/rig.py: the stronger wins every game), the venue service
   (`billiards venue run`) as a subprocess; an 8-player double elimination, race to 2. For each
   match: the time from the table's state showing the match won (its `winner` set, what
   everyone in the bar sees) to that table's next `new_game` command on the broker.
2. Scale: --players in a double elimination on --tables tables that answer over MQTT as a
   daemon does (state at new_game, then the won state and the retained match record 50 ms
   later); the same latency, and the service's resident memory (VmRSS, VmHWM) at the end.
Prints numbers only.
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

import paho.mqtt.client as mqtt                                               # noqa: E402

from tests.host.harness import (DaemonProc, FakeBoard, Mosquitto, PtyLink, free_port,  # noqa: E402
                                wait_for)
from tests.tournament.rig import Observer, Robot                              # noqa: E402

NAMES = ["P%02d" % i for i in range(100)]


class Watch:
    """Anonymous subscriber: when each table's state first shows a match won, and each new_game."""

    def __init__(self, port):
        self.won = {}           # (table, players) -> first time its state showed the winner
        self.cmds = []          # (time, table, players)
        self.records = []       # times each match record arrived
        self.lock = threading.Lock()
        c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
        up = threading.Event()
        c.on_connect = lambda cl, u, f, rc, p: (cl.subscribe("billiards/+/state"),
                                                cl.subscribe("billiards/+/cmd/new_game"),
                                                cl.subscribe("billiards/+/match"), up.set())
        c.on_message = self._on
        c.connect("127.0.0.1", port)
        c.loop_start()
        up.wait(10)
        self.c = c

    def _on(self, client, userdata, msg):
        now = time.monotonic()
        table = msg.topic.split("/")[1]
        try:
            body = json.loads(msg.payload)
        except ValueError:
            return
        with self.lock:
            if msg.topic.endswith("/match"):
                if not msg.retain:
                    self.records.append(now)
            elif msg.topic.endswith("/cmd/new_game"):
                self.cmds.append((now, table, tuple(body.get("players", []))))
            elif isinstance(body, dict) and body.get("winner") is not None:
                key = (table, tuple(p["name"] for p in body.get("players", [])))
                self.won.setdefault(key, now)

    def from_records(self):
        """ms from a table's match record (what the service acts on) to the first new_game after
        it, sent before the next record."""
        out = []
        with self.lock:
            recs = sorted(self.records)
            for i, t_rec in enumerate(recs):
                horizon = recs[i + 1] if i + 1 < len(recs) else float("inf")
                sent = [t for t, tb, pl in self.cmds if t_rec <= t < horizon]
                if sent:
                    out.append((min(sent) - t_rec) * 1000)
        return out

    def latencies(self):
        """ms from each match won to the new_game it lets the service send: the first new_game
        after it on the same table, when the service sends it before any other match ends (the
        table was free and a match ready); else the first new_game anywhere that the end made
        ready (sent before the next end)."""
        out = []
        with self.lock:
            ends = sorted(t for t in self.won.values())
            for t_won in ends:
                later = [t for t in ends if t > t_won]
                horizon = later[0] if later else float("inf")
                sent = [t for t, tb, pl in self.cmds if t_won <= t < horizon]
                if sent:
                    out.append((min(sent) - t_won) * 1000)
        return out

    def same_table(self):
        """ms from a match won on a table to that table's next new_game (it includes the time
        the table waits for a match to become ready: an upper bound)."""
        out = []
        with self.lock:
            for (table, players), t_won in self.won.items():
                sent = [t for t, tb, pl in self.cmds if tb == table and t >= t_won]
                if sent:
                    out.append((min(sent) - t_won) * 1000)
        return out

    def close(self):
        self.c.loop_stop()
        self.c.disconnect()


def venue(tmp, broker, extra=()):
    import subprocess
    db = os.path.join(tmp, "venue.sqlite3")
    args = [sys.executable, "-m", "host.cli", "venue", "run", "--broker", broker.url, "--db", db,
            "--discovery-prefix", "none"] + list(extra)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen(args, cwd=str(ROOT), env=env, stdout=subprocess.DEVNULL, stderr=open(
        os.path.join(tmp, "venue.log"), "wb"))

    def cli(*a):
        p = subprocess.run([sys.executable, "-m", "host.cli"] + [str(x) for x in a] + ["--db", db], cwd=str(ROOT),
                           env=env, capture_output=True, text=True, timeout=60)
        assert p.returncode == 0, p.stderr
        return p.stdout
    return proc, cli


def finished(cli, tid):
    return json.loads(cli("tournament", "show", tid, "--json"))["status"] == "finished"


def report(label, watch):
    for what, lat in (("the table's match record -> the first new_game after it", watch.from_records()),
                      ("a match won -> the first new_game after it", watch.latencies()),
                      ("a match won -> that table's next new_game", watch.same_table())):
        lat = sorted(lat)
        print("%s: %s: %d samples, median %.0f ms, p90 %.0f ms, max %.0f ms"
              % (label, what, len(lat), statistics.median(lat), lat[int(0.9 * (len(lat) - 1))], lat[-1]))


def real_tables():
    tmp = tempfile.mkdtemp(prefix="bench-tournament-")
    broker = Mosquitto(tmp).start()
    ref = Observer(broker.port, None, None, ["billiards/+/state"])
    watch = Watch(broker.port)
    tables = []
    for t in ("t1", "t2"):
        link = PtyLink(os.path.join(tmp, "tty" + t))
        board = FakeBoard(link, boot_id=0x8000 + int(t[1:]))
        d = DaemonProc(link.path, broker.url, t, os.path.join(tmp, "journal")).start()
        robot = Robot(t, ref, board, NAMES)
        robot.start()
        tables.append((link, board, d, robot))
    proc, cli = venue(tmp, broker)
    try:
        wait_for(lambda: all((ref.json("billiards/%s/state" % t) or {}).get("link", {}).get("state") == "up"
                             for t in ("t1", "t2")), 20, what="tables up")
        tid = int(cli("tournament", "create", "Bench", "--format", "double", "--race", "2",
                      "--players", ",".join(NAMES[:8]), "--tables", "t1,t2"))
        cli("tournament", "start", tid)
        wait_for(lambda: finished(cli, tid), 300, step=0.5, what="the tournament")
        report("real daemons, 2 tables, 8 players double elimination", watch)
    finally:
        proc.terminate()
        proc.wait(10)
        for link, board, d, robot in tables:
            robot.stop_.set()
            d.stop()
            board.stop()
            link.close()
        watch.close()
        ref.close()
        broker.stop()


class MqttTables:
    """N tables answering over MQTT as daemons do (no referee): new_game -> state; 50 ms later
    the winner (the lower name) in the state and the retained match record."""

    def __init__(self, port, n, play_s=0.05):
        self.n, self.play_s = n, play_s
        c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
        up = threading.Event()
        c.on_connect = lambda cl, u, f, rc, p: (cl.subscribe("billiards/+/cmd/new_game"), up.set())
        c.on_message = self._on
        c.connect("127.0.0.1", port)
        c.loop_start()
        up.wait(10)
        self.c = c
        for i in range(n):
            t = "t%d" % (i + 1)
            c.publish("billiards/%s/status" % t, "online", qos=1, retain=True)
            self._state(t, ["x", "y"], None, 0)

    def _state(self, t, names, winner, shot, race=1):
        self.c.publish("billiards/%s/state" % t, json.dumps({
            "table": t, "game": "nine-ball", "players": [{"name": n, "score": 0} for n in names],
            "winner": winner, "shot": shot, "rack": 1, "phase": "over" if winner is not None else "break",
            "race_to": race, "link": {"state": "up"}}), qos=1, retain=True)

    def _on(self, client, userdata, msg):
        t = msg.topic.split("/")[1]
        body = json.loads(msg.payload)
        names, race = body["players"], body.get("race_to", 1)
        started = time.time()
        self._state(t, names, None, 0, race)
        threading.Timer(self.play_s, self._end, (t, names, race, started)).start()

    def _end(self, t, names, race, started):
        w = 0 if names[0] < names[1] else 1
        score = [race, 0] if w == 0 else [0, race]
        self._state(t, names, w, 9, race)
        self.c.publish("billiards/%s/match" % t, json.dumps({
            "table": t, "started": started, "ended": time.time(), "game": "nine-ball", "race_to": race,
            "target": None, "games": race, "winner": w, "winner_name": names[w], "score": score,
            "players": [{"name": n} for n in names]}), qos=1, retain=True)


def rss_kb(pid):
    out = {}
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(("VmRSS", "VmHWM")):
                k, v = line.split(":")
                out[k] = int(v.split()[0])
    return out


def scale(players, n_tables):
    tmp = tempfile.mkdtemp(prefix="bench-tournament-scale-")
    broker = Mosquitto(tmp).start()
    watch = Watch(broker.port)
    MqttTables(broker.port, n_tables)          # answers by itself from its own client thread
    proc, cli = venue(tmp, broker, ["--http", str(free_port()), "--http-bind", "127.0.0.1"])
    try:
        time.sleep(1)
        print("venue service idle: RSS %(VmRSS)d kB" % rss_kb(proc.pid))
        tid = int(cli("tournament", "create", "Scale", "--format", "double", "--race", "1",
                      "--players", ",".join(NAMES[:players]),
                      "--tables", ",".join("t%d" % (i + 1) for i in range(n_tables))))
        t0 = time.monotonic()
        cli("tournament", "start", tid)
        wait_for(lambda: finished(cli, tid), 600, step=0.5, what="the tournament")
        took = time.monotonic() - t0
        mem = rss_kb(proc.pid)
        report("%d players, %d tables (MQTT tables, 50 ms matches)" % (players, n_tables), watch)
        print("whole tournament: %.1f s; venue service RSS %d kB (%.1f MB), peak %d kB (%.1f MB)"
              % (took, mem["VmRSS"], mem["VmRSS"] / 1024, mem["VmHWM"], mem["VmHWM"] / 1024))
    finally:
        proc.terminate()
        proc.wait(10)
        watch.close()
        broker.stop()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--players", type=int, default=64)
    ap.add_argument("--tables", type=int, default=16)
    ap.add_argument("--skip-real", action="store_true")
    a = ap.parse_args()
    if not a.skip_real:
        real_tables()
    scale(a.players, a.tables)


if __name__ == "__main__":
    main()
