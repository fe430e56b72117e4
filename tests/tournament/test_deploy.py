"""The venue service's broker account and its systemd unit, as an installer ships them: the
account may send `new_game` to every table and read their state, status and match records,
and nothing else; the unit verifies and runs only flags `billiards venue run` knows."""
import json
import os
import pathlib
import queue
import shutil
import subprocess
import sys
import uuid

import paho.mqtt.client as mqtt
import pytest

from host.cli import build_parser
from tests.deploy.test_service_files import exec_start_words, unit_settings
from tests.host.harness import MOSQUITTO
from tests.people.test_acl import ACCOUNTS, PASSWD
from tests.tournament.rig import AclBroker

ROOT = pathlib.Path(__file__).resolve().parents[2]
UNIT = ROOT / "hardware" / "systemd" / "billiards-venue.service"
ENV = ROOT / "hardware" / "systemd" / "billiards-venue.env.example"


class Client:
    def __init__(self, port, user, password):
        self.got = queue.Queue()
        self.c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="venue-acl-" + uuid.uuid4().hex[:8])
        self.c.username_pw_set(user, password)
        self.c.on_message = lambda cl, u, m: self.got.put((m.topic, m.payload.decode()))
        self.c.connect("127.0.0.1", port)
        self.c.loop_start()

    def sub(self, topic):
        self.c.subscribe(topic, qos=1)

    def pub(self, topic, payload, retain=False):
        self.c.publish(topic, payload, qos=1, retain=retain).wait_for_publish(5)

    def seen(self, wait=0.7):
        import time
        time.sleep(wait)
        out = []
        while not self.got.empty():
            out.append(self.got.get())
        return out

    def close(self):
        self.c.loop_stop()
        self.c.disconnect()


@pytest.mark.slow
@pytest.mark.skipif(not (os.path.exists(MOSQUITTO) and os.path.exists(PASSWD)), reason="needs mosquitto")
def test_the_venue_account_sends_new_game_reads_tables_and_nothing_else(tmp_path):
    broker = AclBroker(tmp_path, ("t1", "t2"))
    pw = open(broker.password_file("venue")).read().strip()
    assert oct(os.stat(broker.password_file("venue")).st_mode & 0o777) == "0o600"
    assert "user venue" in (broker.mosq / "acl").read_text() and "VENUE" not in (broker.mosq / "acl").read_text()
    venue = Client(broker.port, "venue", pw)
    daemon = Client(broker.port, "billiards-t2", ACCOUNTS["billiards-t2"])
    ha = Client(broker.port, "homeassistant", ACCOUNTS["homeassistant"])
    try:
        for t in ("billiards/+/state", "billiards/+/status", "billiards/+/match", "billiards/+/event",
                  "billiards/+/cmd/result", "billiards/+/cmd/#"):
            venue.sub(t)
        daemon.sub("billiards/t2/cmd/#")
        ha.sub("billiards-venue/#")
        ha.sub("homeassistant/sensor/#")
        venue.seen(0.3)
        for topic in ("state", "status", "match", "event", "cmd/result"):
            daemon.pub("billiards/t2/" + topic, json.dumps({"x": topic}))
        got = {t for t, _ in venue.seen()}
        assert got == {"billiards/t2/state", "billiards/t2/status", "billiards/t2/match"}
        daemon.seen(0.1)                       # (the daemon's own cmd/result, heard on cmd/#)
        # It may send new_game to any table, and no other command; it cannot fake a table.
        venue.pub("billiards/t2/cmd/new_game", '{"game": "nine-ball"}')
        venue.pub("billiards/t2/cmd/undo", "{}")
        venue.pub("billiards/t2/match", '{"table": "t2"}')
        venue.pub("billiards/t2/state", '{"forged": true}')
        seen = daemon.seen()
        assert [t for t, _ in seen] == ["billiards/t2/cmd/new_game"]
        # Its own topics and its Home Assistant device are published; HA reads them.
        venue.pub("billiards-venue/venue/now", '{"current": []}')
        venue.pub("homeassistant/sensor/billiards_venue_venue/next/config", "{}")
        venue.pub("homeassistant/sensor/billiards_t1/score1/config", "{}")        # a table's: refused
        got = [t for t, _ in ha.seen()]
        assert got == ["billiards-venue/venue/now", "homeassistant/sensor/billiards_venue_venue/next/config"]
    finally:
        for c in (venue, daemon, ha):
            c.close()
        broker.stop()


def test_the_unit_runs_the_venue_service_with_flags_it_knows_and_no_password():
    s = unit_settings(UNIT)
    assert s["User"] == ["billiards"] and s["Restart"] == ["on-failure"]
    assert s["LoadCredential"] == ["broker-password:/etc/billiards/venue.broker-password"]
    words = exec_start_words(UNIT, ENV)
    assert words[0] == "/opt/billiards/venv/bin/billiards"
    args = build_parser().parse_args(words[1:])
    assert args.command == "venue" and args.venue_command == "run" and args.http == 8090
    assert args.broker == "mqtt://venue@127.0.0.1:1883"
    assert args.broker_password_file == "/run/credentials/x/broker-password"


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze not installed")
def test_systemd_analyze_verifies_the_venue_unit(tmp_path):
    billiards = pathlib.Path(sys.executable).parent / "billiards"
    unit = tmp_path / "billiards-venue.service"
    unit.write_text(UNIT.read_text().replace("/opt/billiards/venv/bin/billiards", str(billiards)))
    p = subprocess.run(["systemd-analyze", "verify", str(unit)], capture_output=True, text=True, timeout=60)
    assert (p.returncode, (p.stdout + p.stderr).strip()) == (0, "")
