"""A venue for the tournament tests: a real mosquitto with the shipped accounts and ACL
(hardware/mosquitto/make-passwd.sh), one daemon per table (`billiards run` as a subprocess, each
logged in with its own account) fed by a fake board on a pty, the venue service (`billiards venue
run`, logged in as `venue`), observers logged in as `referee` (tables) and `display` (the
venue's topics), and a robot per table that plays whatever match the table shows, letting the
stronger player win every game (strength: a list of names, strongest first)."""
import json
import os
import pwd
import signal
import subprocess
import sys
import threading
import time
import urllib.request

import paho.mqtt.client as mqtt

from shared_rules.link.names import MOTION, POCKET, RAIL
from tests.host.harness import (MOSQUITTO, ROOT, DaemonProc, FakeBoard, PtyLink, free_port, listens,
                                wait_for)
from tests.people.test_acl import ACCOUNTS, make_accounts, security_settings


class AclBroker:
    """mosquitto with the passwd and acl that make-passwd.sh wrote, and the shipped conf's
    security lines."""

    def __init__(self, d, tables):
        self.mosq, self.etc = make_accounts(d, tables)
        shipped = security_settings()
        self.port = free_port()
        conf = d / "mosquitto.conf"
        conf.write_text("\n".join([
            "user %s" % pwd.getpwuid(os.geteuid()).pw_name,
            "per_listener_settings %s" % shipped["per_listener_settings"][0],
            "allow_anonymous %s" % shipped["allow_anonymous"][0],
            "password_file %s" % (self.mosq / "passwd"), "acl_file %s" % (self.mosq / "acl"),
            "persistence false", "listener %d 127.0.0.1" % self.port, ""]))
        self.proc = subprocess.Popen([MOSQUITTO, "-c", str(conf)], stdout=subprocess.DEVNULL,
                                     stderr=open(d / "mosquitto.log", "w"))
        wait_for(lambda: listens(self.proc.pid, self.port), 20, what="mosquitto")

    def url(self, user):
        return "mqtt://%s@127.0.0.1:%d" % (user, self.port)

    def password_file(self, name):
        return str(self.etc / ("%s.broker-password" % name))

    def stop(self):
        self.proc.terminate()
        self.proc.wait(10)


class Observer:
    """A logged-in client keeping every message and the last payload per topic."""

    def __init__(self, port, user, password, topics):
        self.last, self.messages = {}, []
        self.lock = threading.Lock()
        up = threading.Event()
        c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
        if user:
            c.username_pw_set(user, password)
        c.on_connect = lambda cl, u, f, rc, p: ([cl.subscribe(t, qos=1) for t in topics], up.set())
        c.on_message = self._on
        c.connect_async("127.0.0.1", port)
        c.loop_start()
        self.client = c
        wait_for(up.is_set, 10, what="%s connects" % user)

    def _on(self, client, userdata, msg):
        text = msg.payload.decode("utf-8", "replace")
        with self.lock:
            self.messages.append((msg.topic, text))
            self.last[msg.topic] = text

    def json(self, topic):
        raw = self.last.get(topic)
        return json.loads(raw) if raw else None

    def of(self, topic):
        with self.lock:
            return [p for t, p in self.messages if t == topic]

    def publish(self, topic, payload, retain=False):
        self.client.publish(topic, payload, qos=1, retain=retain).wait_for_publish(5)

    def close(self):
        self.client.loop_stop()
        self.client.disconnect()


def shot(rails, balls):
    return [(MOTION, 0, 1)] + [(RAIL, i % 6, 30000) for i in range(rails)] + \
        [(POCKET, 2, b) for b in balls] + [(MOTION, 0, 0)]


class Robot(threading.Thread):
    """Plays the match its table shows: the stronger player wins each game (breaks with the 1 and
    the 9 down, or runs the lowest ball and the 9 after the other's dry break). `hold` stops it
    between shots."""

    def __init__(self, table, observer, board, strength):
        super().__init__(daemon=True)
        self.table, self.obs, self.board, self.strength = table, observer, board, strength
        self.hold = threading.Event()
        self.stop_ = threading.Event()
        self.shots = 0

    def winner_of(self, names):
        ranked = [n for n in self.strength if n in names]
        return ranked[0] if ranked else names[0]

    def run(self):
        acted = None
        since = 0.0
        while not self.stop_.is_set():
            time.sleep(0.02)
            s = self.obs.json("billiards/%s/state" % self.table)
            if self.hold.is_set() or not s or s.get("winner") is not None or s.get("shot_open") \
                    or s.get("phase") not in ("break", "play", "over") or (s.get("link") or {}).get("state") != "up":
                continue
            names = [p["name"] for p in s["players"]]
            shooter, phase = s["shooter"], s["phase"]
            if phase == "over":                 # a game of the match is over: the next one's break
                shooter, phase = 1 - s["breaker"], "break"     # breaks alternate (referee settings)
            key = (tuple(names), s.get("rack"), s.get("shot"))
            if key == acted and time.monotonic() - since < 5:
                continue
            acted, since = key, time.monotonic()
            mine = names[shooter] == self.winner_of(names)
            if phase == "break":
                events = shot(6, [1, 9]) if mine else shot(4, [])
            else:
                low = min(s.get("on_table") or [9])
                events = shot(1, sorted({low, 9})) if mine else shot(1, [])
            for k, i, v in events:
                self.board.push(k, i, v)
                time.sleep(0.004)
            self.shots += 1


class Table:
    def __init__(self, tmp, broker, table, referee, strength):
        self.table = table
        self.link = PtyLink(tmp / ("tty" + table))
        self.board = FakeBoard(self.link, boot_id=0x7000 + int(table[1:]))
        self.daemon = DaemonProc(self.link.path, broker.url("billiards-" + table), table, tmp / "journal",
                                 ["--broker-password-file", broker.password_file(table)]).start()
        self.robot = Robot(table, referee, self.board, strength)
        self.robot.start()

    def unplug(self):
        self.board.paused = True
        self.link.close()

    def replug(self):
        self.link.open()
        self.board.paused = False

    def close(self):
        self.robot.stop_.set()
        self.daemon.stop()
        self.board.stop()
        self.link.close()


class VenueProc:
    """`billiards venue run` as a subprocess, logged in as `venue`."""

    def __init__(self, tmp, broker, http_port):
        self.db = str(tmp / "venue" / "tournament.sqlite3")
        self.args = [sys.executable, "-m", "host.cli", "venue", "run", "--broker", broker.url("venue"),
                     "--broker-password-file", broker.password_file("venue"), "--db", self.db,
                     "--http", str(http_port), "--http-bind", "127.0.0.1",
                     "--public-url", "http://127.0.0.1:%d" % http_port]
        self.log = str(tmp / "venue.log")
        self.base = "http://127.0.0.1:%d" % http_port
        self.proc = None

    def start(self):
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        self.proc = subprocess.Popen(self.args, cwd=str(ROOT), env=env, stdout=open(self.log, "ab"),
                                     stderr=subprocess.STDOUT)
        wait_for(self._up, 20, what="venue pages")
        return self

    def _up(self):
        try:
            return urllib.request.urlopen(self.base + "/now.json", timeout=1).status == 200
        except OSError:
            return False

    def kill9(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)

    def output(self):
        with open(self.log, "rb") as f:
            return f.read().decode("utf-8", "replace")

    def cli(self, *args):
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        p = subprocess.run([sys.executable, "-m", "host.cli"] + [str(a) for a in args] + ["--db", self.db],
                           cwd=str(ROOT), env=env, capture_output=True, text=True, timeout=60)
        return p

    def show(self, tid):
        p = self.cli("tournament", "show", tid, "--json")
        assert p.returncode == 0, p.stderr
        return json.loads(p.stdout)

    def token(self):
        p = self.cli("venue", "token")
        assert p.returncode == 0, p.stderr
        return p.stdout.strip()


def referee_observer(broker):
    return Observer(broker.port, "referee", ACCOUNTS["referee"],
                    ["billiards/+/state", "billiards/+/status", "billiards/+/match", "billiards/+/cmd/result"])


def display_observer(broker):
    return Observer(broker.port, "display", ACCOUNTS["display"], ["billiards-venue/#"])
