"""Test harness: a real mosquitto, the daemon as a subprocess, a fake board on a pty, a subscriber."""
import contextlib
import json
import os
import pathlib
import random
import signal
import socket
import subprocess
import tempfile
import sys
import threading
import time
import tty

import paho.mqtt.client as mqtt

from shared_rules.link import frames
from shared_rules.link.names import ACK, LIGHTS, HELLO, EVENT, HEARTBEAT
from shared_rules.link.sender import Sender

ROOT = pathlib.Path(__file__).resolve().parents[2]
MOSQUITTO = "/usr/sbin/mosquitto"


_PORTS = random.SystemRandom()      # not reseeded by a test's random.seed (pytest-randomly)


def _ephemeral_low():
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return 0


def free_port():
    """A free port for a server the test starts later, below the kernel's ephemeral range: a
    port from that range (what binding port 0 gives) may be handed to some client's outgoing
    connection before the server binds it, or even to a client reconnecting to that very port
    while its broker restarts (TCP connects to itself), and then the server cannot bind."""
    low = _ephemeral_low()
    if low > 12000:
        for _ in range(50):
            port = _PORTS.randrange(10000, low)
            with socket.socket() as s:
                try:
                    s.bind(("127.0.0.1", port))
                except OSError:
                    continue
                return port
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def listens(pid, port):
    """True once process `pid` listens on TCP `port` of 127.0.0.1: its own socket, read from
    Linux's /proc (a connection alone could reach another program that took the port).
    Elsewhere, a connection is all we can check."""
    try:
        owned = {os.readlink("/proc/%d/fd/%s" % (pid, fd)) for fd in os.listdir("/proc/%d/fd" % pid)}
        with open("/proc/net/tcp") as f:
            rows = [line.split() for line in f.readlines()[1:]]
    except OSError:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return True
        except OSError:
            return False
    return any(r[3] == "0A" and int(r[1].split(":")[1], 16) == port and "socket:[%s]" % r[9] in owned
               for r in rows)


def wait_for(pred, timeout=10.0, step=0.02, what="condition"):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        v = pred()
        if v:
            return v
        time.sleep(step)
    raise AssertionError("timed out waiting for " + what)


class Mosquitto:
    """A private mosquitto on a free loopback port; start/stop keep the port."""

    def __init__(self, tmpdir):
        self.conf = os.path.join(str(tmpdir), "mosquitto.conf")
        self._new_port()
        self.proc = None
        self.started = False

    def _new_port(self):
        self.port = free_port()
        with open(self.conf, "w") as f:
            f.write("listener %d 127.0.0.1\nallow_anonymous true\npersistence false\n" % self.port)

    @property
    def url(self):
        return "mqtt://127.0.0.1:%d" % self.port

    def start(self):
        """Start (again, on the same port). A free port may be taken by another program before
        mosquitto binds it: mosquitto then exits, and a first start tries another port (a
        connection to the port alone could reach that other program)."""
        for _ in range(5):
            self.proc = subprocess.Popen([MOSQUITTO, "-c", self.conf], stdout=subprocess.DEVNULL,
                                         stderr=subprocess.DEVNULL)

            def up():
                if self.proc.poll() is not None:
                    return "exited"
                return listens(self.proc.pid, self.port)
            if wait_for(up, 20, what="mosquitto to listen") is True:
                self.started = True
                return self
            if self.started:
                break
            self._new_port()
        raise AssertionError("mosquitto exited at start (port %d taken?)" % self.port)

    def stop(self):
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(10)
            self.proc = None


class TlsBroker:
    """A private mosquitto with TLS (a throwaway CA) and one password account, plus a subscriber
    logged in over TLS that keeps the last payload per topic (`got`)."""

    def __init__(self, d, user, password):
        import getpass
        import ssl
        self.d = str(d)
        self.ca = os.path.join(self.d, "ca.pem")
        _make_ca_and_cert(self.d)
        pw = os.path.join(self.d, "pw")
        subprocess.run(["mosquitto_passwd", "-b", "-c", pw, user, password], check=True,
                       capture_output=True)
        os.chmod(pw, 0o600)
        self.port = free_port()
        conf = os.path.join(self.d, "m.conf")
        with open(conf, "w") as f:
            # `user`: mosquitto started as root would drop to "mosquitto" and lose the test files.
            f.write("user %s\nlistener %d 127.0.0.1\nallow_anonymous false\npassword_file %s\n"
                    "cafile %s\ncertfile %s/server.pem\nkeyfile %s/server.key\n"
                    % (getpass.getuser(), self.port, pw, self.ca, self.d, self.d))
        self.proc = subprocess.Popen([MOSQUITTO, "-c", conf], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        self.got = {}
        c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
        c.username_pw_set(user, password)
        c.tls_set(ca_certs=self.ca, cert_reqs=ssl.CERT_REQUIRED)
        c.on_connect = lambda cl, u, f, rc, p: cl.subscribe("billiards/#")
        c.on_message = lambda cl, u, m: self.got.__setitem__(m.topic, m.payload.decode())
        c.reconnect_delay_set(0.1, 0.5)
        c.connect_async("127.0.0.1", self.port)
        c.loop_start()
        self.client = c

    def stop(self):
        self.client.loop_stop()
        self.proc.terminate()
        self.proc.wait(10)


def _make_ca_and_cert(d):
    def run(*a):
        subprocess.run(a, cwd=d, check=True, capture_output=True)
    run("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
        "-keyout", "ca.key", "-out", "ca.pem", "-subj", "/CN=test-ca")
    run("openssl", "req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key",
        "-out", "server.csr", "-subj", "/CN=localhost")
    with open(os.path.join(d, "ext.cnf"), "w") as f:
        f.write("subjectAltName=DNS:localhost,IP:127.0.0.1\n")
    run("openssl", "x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
        "-CAcreateserial", "-out", "server.pem", "-days", "2", "-extfile", "ext.cnf")


class Subscriber:
    """Collects everything under a topic filter; keeps the last payload per topic."""

    def __init__(self, port, topics=("billiards/#",)):
        self.messages = []
        self.last = {}
        self.lock = threading.Lock()
        self.connected = threading.Event()
        c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
        c.on_connect = lambda cl, u, f, rc, p: ([cl.subscribe(t, qos=1) for t in topics],
                                                self.connected.set())
        c.on_message = self._on_message
        c.reconnect_delay_set(0.1, 0.5)
        c.connect_async("127.0.0.1", port, keepalive=10)
        c.loop_start()
        self.client = c
        wait_for(self.connected.is_set, 10, what="subscriber connect")

    def _on_message(self, client, userdata, msg):
        with self.lock:
            self.messages.append((msg.topic, msg.payload.decode("utf-8", "replace"), msg.retain))
            self.last[msg.topic] = msg.payload.decode("utf-8", "replace")

    def state(self, table):
        raw = self.last.get("billiards/%s/state" % table)
        return json.loads(raw) if raw else None

    def publish(self, topic, payload):
        self.client.publish(topic, payload, qos=1).wait_for_publish(5)

    def of(self, topic):
        with self.lock:
            return [m[1] for m in self.messages if m[0] == topic]

    def close(self):
        self.client.loop_stop()
        self.client.disconnect()


class PtyLink:
    """The board end of a pty; the daemon opens `path` (a symlink we can re-point).

    A FakeBoard's thread reads and writes while the test unplugs and replugs from its own
    thread: the descriptors change only under `lock`, so the board never reads a closed (or
    by then reused) descriptor, nor dies on one that is gone."""

    def __init__(self, path):
        self.path = str(path)
        self.master = None
        self.slave = None
        self.lock = threading.Lock()
        self.reader = frames.FrameReader()
        self.open()

    def open(self):
        master, slave = os.openpty()
        tty.setraw(slave)
        os.set_blocking(master, False)
        with self.lock:
            self.master, self.slave = master, slave
        tmp = self.path + ".new"
        if os.path.lexists(tmp):
            os.unlink(tmp)
        os.symlink(os.ttyname(slave), tmp)
        os.replace(tmp, self.path)

    def close(self):
        """Unplugged: the pty goes, and so does the link naming it, as udev removes
        /dev/billiards-<table> on unplug. A link left behind would name whatever pty the kernel
        numbers the same next (another test's, in this process or another): the daemon
        reopening it would talk to a stranger's board."""
        with self.lock:
            if self.slave is not None and os.path.islink(self.path):
                try:
                    if os.readlink(self.path) == os.ttyname(self.slave):
                        os.unlink(self.path)
                except OSError:
                    pass
            for fd in (self.master, self.slave):
                if fd is not None:
                    try:
                        os.close(fd)
                    except OSError:
                        pass
            self.master = self.slave = None

    def write(self, data):
        view = memoryview(data)
        end = time.monotonic() + 2
        while len(view) and time.monotonic() < end:
            with self.lock:
                if self.master is None:
                    return
                try:
                    view = view[os.write(self.master, view):]
                    continue
                except BlockingIOError:
                    pass
                except OSError:
                    return
            time.sleep(0.005)

    def read_frames(self):
        with self.lock:
            if self.master is None:
                return []
            try:
                data = os.read(self.master, 4096)
            except (BlockingIOError, OSError):
                return []
        return self.reader.feed(data)


class FakeBoard:
    """A board on a PtyLink using the shared reliable sender, pumped by a thread.

    Also records every ACK and LIGHTS it receives, and can write raw frames.
    """

    def __init__(self, link, boot_id=0x1234ABCD, features=0x0D, name="fake"):
        self.link = link
        self.lock = threading.Lock()
        self.t0 = time.monotonic()
        self.sender = Sender(boot_id, hello={"features": features, "name": name})
        self.acks = []
        self.lights = []
        self.paused = False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def t_us(self):
        return int((time.monotonic() - self.t0) * 1e6)

    def reset(self, boot_id, features=0x0D):
        """Power cycle: a new boot_id, a fresh sender (HELLO is seq 0 again)."""
        with self.lock:
            self.t0 = time.monotonic()
            self.sender = Sender(boot_id, hello={"features": features, "name": "fake"})

    def push(self, kind, index, value, flags=0):
        with self.lock:
            assert self.sender.push_event(self.t_us(), kind, index, value, flags)

    def backlog(self):
        with self.lock:
            return self.sender.backlog()

    def _run(self):
        while not self._stop.is_set():
            for f in self.link.read_frames():
                if f["type"] == ACK:
                    self.acks.append(f)
                    with self.lock:
                        self.sender.on_ack(f["boot_id"], f["ack"])
                elif f["type"] == LIGHTS:
                    self.lights.append(f)
            if not self.paused:
                with self.lock:
                    out = self.sender.poll(int(time.monotonic() * 1000), self.t_us())
                if out:
                    self.link.write(out)
            time.sleep(0.005)

    def stop(self):
        self._stop.set()
        self._thread.join(2)


def raw_hello(boot_id, features=0x0D, seq=0):
    return frames.encode({"type": HELLO, "seq": seq, "boot_id": boot_id, "proto": 1,
                          "fw_major": 1, "fw_minor": 0, "pockets": 6, "rails": 6,
                          "features": features, "name": "raw"})


def raw_event(seq, t_us, kind, index, value, flags=0):
    return frames.encode({"type": EVENT, "seq": seq, "t_us": t_us, "kind": kind, "index": index,
                          "value": value, "flags": flags})


def raw_heartbeat(boot_id, seq, t_us, backlog, dropped=0):
    return frames.encode({"type": HEARTBEAT, "seq": seq, "boot_id": boot_id, "t_us": t_us,
                          "backlog": backlog, "dropped": dropped})


class DaemonProc:
    """`python -m host.cli run ...` as a subprocess."""

    def __init__(self, serial, broker_url, table, journal, extra=()):
        self.args = [sys.executable, "-m", "host.cli", "run", "--serial", str(serial),
                     "--broker", broker_url, "--table", table, "--journal", str(journal),
                     "--no-console"] + list(extra)
        self.log = str(journal) + ".%s.log" % table
        self.proc = None

    def start(self):
        env = dict(os.environ)
        env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
        self.logf = open(self.log, "ab")
        self.proc = subprocess.Popen(self.args, cwd=str(ROOT), env=env, stdout=self.logf,
                                     stderr=subprocess.STDOUT)
        return self

    def kill9(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                return self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
                return None
        return self.proc.returncode if self.proc else None

    def output(self):
        with open(self.log, "rb") as f:
            return f.read().decode("utf-8", "replace")


def journal_lines(path):
    if not os.path.exists(path):
        return []
    with open(path, "rb") as f:
        return [json.loads(l) for l in f.read().split(b"\n") if l.strip()]


def without_link(state):
    s = dict(state)
    s.pop("link", None)
    return s


@contextlib.contextmanager
def table_with_page(prefix, extra=()):
    """A whole table for the web benchmarks: private broker, subscriber, a board on a pty and a
    daemon serving its page on a free port, linked up. Yields (tmp, broker, sub, board, daemon,
    http_port); tears everything down afterwards."""
    tmp = tempfile.mkdtemp(prefix=prefix)
    broker = Mosquitto(tmp).start()
    sub = Subscriber(broker.port)
    link = PtyLink(os.path.join(tmp, "tty"))
    board = FakeBoard(link)
    port = free_port()
    d = DaemonProc(link.path, broker.url, "t1", os.path.join(tmp, "journal"),
                   extra=["--http", str(port), "--players", "Anna,Bob"] + list(extra)).start()
    try:
        wait_for(lambda: (sub.state("t1") or {}).get("link", {}).get("state") == "up", 20, what="link")
        yield tmp, broker, sub, board, d, port
    finally:
        d.stop()
        board.stop()
        link.close()
        sub.close()
        broker.stop()

