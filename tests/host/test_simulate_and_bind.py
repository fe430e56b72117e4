"""No fake games on a real broker, and where the TV page listens.

A daemon pointed at a broker with no --serial would publish a simulated table's made-up games
as if they were real: it refuses to start unless asked with --simulate, and a simulated table
says so in its state and its Home Assistant device."""
import json
import os
import subprocess
import sys
import time
import urllib.request

import pytest

from tests.host.harness import ROOT, Subscriber, free_port, wait_for
from host.web.server import ScoreboardServer, is_local_client

pytestmark = pytest.mark.slow


def billiards(*args, timeout=30):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "host.cli"] + list(args), cwd=str(ROOT), env=env,
                          capture_output=True, text=True, timeout=timeout)


def test_a_broker_without_serial_refuses_to_start_and_publishes_nothing(broker, tmp_path):
    watch = Subscriber(broker.port, topics=("#",))
    try:
        p = billiards("run", "--broker", broker.url, "--table", "t5", "--journal", str(tmp_path / "j"),
                      "--no-console")
        assert p.returncode == 2
        assert "--serial" in p.stderr and "--simulate" in p.stderr and "made-up games" in p.stderr
        time.sleep(0.5)
        assert watch.messages == []
        assert not (tmp_path / "j").exists(), "no journal either"
    finally:
        watch.close()


def test_simulate_and_serial_exclude_each_other(tmp_path):
    p = billiards("run", "--simulate", "--serial", "loop://", "--journal", str(tmp_path))
    assert p.returncode == 2 and "exclude" in p.stderr


def test_a_password_in_the_refusal_message_is_hidden(tmp_path):
    p = billiards("run", "--broker", "mqtt://u:s3cret@127.0.0.1:1", "--journal", str(tmp_path))
    assert p.returncode == 2 and "s3cret" not in p.stderr and "u:***@127.0.0.1:1" in p.stderr


def test_with_simulate_the_state_and_the_ha_device_say_simulated(broker, tmp_path):
    watch = Subscriber(broker.port, topics=("billiards/#", "homeassistant/#"))
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "host.cli", "run", "--simulate", "--broker", broker.url,
                             "--table", "t6", "--journal", str(tmp_path), "--no-console",
                             "--http", str(port), "--http-bind", "127.0.0.1"],
                            cwd=str(ROOT), env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        state = wait_for(lambda: watch.state("t6"), 15, what="state")
        assert state["link"]["simulated"] is True
        cfgs = wait_for(lambda: [json.loads(p) for t, p in list(watch.last.items())
                                 if t.startswith("homeassistant/") and "billiards_t6" in t], 10,
                        what="discovery")
        assert {c["device"]["name"] for c in cfgs} == {"Pool table t6 (simulated)"}
        page = wait_for(lambda: _get("http://127.0.0.1:%d/state" % port), 10, what="TV page")
        assert json.loads(page)["link"]["simulated"] is True
    finally:
        proc.send_signal(2)
        out = proc.communicate(timeout=15)[0].decode()
        watch.close()
    assert proc.returncode == 0, out
    assert "SIMULATED" in out


def _get(url):
    try:
        return urllib.request.urlopen(url, timeout=2).read().decode()
    except OSError:
        return None


def test_a_real_board_is_not_simulated(broker, tmp_path):
    from tests.host.harness import DaemonProc, PtyLink
    import pty
    master, slave = pty.openpty()
    d = DaemonProc(os.ttyname(slave), broker.url, "t7", tmp_path / "j").start()
    watch = Subscriber(broker.port, topics=("billiards/#", "homeassistant/#"))
    try:
        state = wait_for(lambda: watch.state("t7"), 15, what="state")
        assert state["link"]["simulated"] is False
        cfg = wait_for(lambda: [p for t, p in list(watch.last.items()) if "billiards_t7" in t], 10,
                       what="discovery")
        assert json.loads(cfg[0])["device"]["name"] == "Pool table t7"
    finally:
        assert d.stop() == 0, d.output()
        watch.close()
        os.close(master)
        os.close(slave)


@pytest.mark.parametrize("address, local", [
    ("127.0.0.1", True), ("192.168.1.30", True), ("10.0.0.5", True), ("172.20.1.1", True),
    ("169.254.3.4", True), ("100.101.1.2", True), ("::1", True), ("fd00::5", True),
    ("::ffff:192.168.1.2", True), ("8.8.8.8", False), ("81.2.69.160", False),
    ("2a00:1450::1", False), ("::ffff:8.8.8.8", False), ("junk", False)])
def test_lan_mode_serves_private_networks_only(address, local):
    assert is_local_client(address) is local


def test_the_lan_server_answers_this_machine_and_refuses_a_public_address():
    s = ScoreboardServer(host="127.0.0.1", port=0, local_only=True).start()
    try:
        s.publish({"table": "t1"})
        assert json.loads(_get(s.url + "state")) == {"table": "t1"}
        assert s._httpd.verify_request(None, ("81.2.69.160", 4242)) is False
        assert s._httpd.verify_request(None, ("192.168.0.9", 4242)) is True
    finally:
        s.stop()
