"""A league played at two venues of a chain, over real mosquittos: each venue's broker has the
shipped accounts and ACL (make-passwd.sh) and runs the shipped bridge.conf to a central broker
that runs the shipped central-acl. Each venue runs `billiards venue run` (a subprocess) and
plays its own nights; each venue's /league page and `tournament standings` count both venues'
nights. A third venue's account at central cannot forge another venue's results, and its own
malformed or oversized results are refused (logged) without touching the standings; no account
at a venue can write the bridged topics."""
import json
import os
import pathlib
import subprocess
import time
import urllib.request

import pytest

from tests.host.harness import MOSQUITTO, free_port, listens, wait_for
from tests.people.test_acl import ACCOUNTS, PASSWD, make_accounts, security_settings
from tests.tournament.rig import Observer, VenueProc
from tests.deploy.test_bridge import central_settings

ROOT = pathlib.Path(__file__).resolve().parents[2]
CONF = ROOT / "hardware" / "mosquitto"

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not (os.path.exists(MOSQUITTO) and os.path.exists(PASSWD)),
                                 reason="mosquitto and mosquitto_passwd are needed")]


class Mosq:
    def __init__(self, d, name, lines):
        self.port = free_port()
        conf = d / ("%s.conf" % name)
        import pwd
        conf.write_text("\n".join(["user %s" % pwd.getpwuid(os.geteuid()).pw_name, "persistence false",
                                   "listener %d 127.0.0.1" % self.port] + lines) + "\n")
        self.proc = subprocess.Popen([MOSQUITTO, "-c", str(conf)], stdout=subprocess.DEVNULL,
                                     stderr=open(d / ("%s.log" % name), "w"))
        wait_for(lambda: listens(self.proc.pid, self.port), 20, what="mosquitto " + name)

    def stop(self):
        self.proc.terminate()
        self.proc.wait(10)


class VenueBroker(Mosq):
    """A venue's broker: make-passwd.sh's accounts (BILLIARDS_VENUE=venue) and the bridge."""

    def __init__(self, d, venue, central, monkeypatch):
        d.mkdir()
        monkeypatch.setenv("BILLIARDS_VENUE", venue)
        self.mosq, self.etc = make_accounts(d, ("t1",))
        shipped = security_settings()
        bridge = ((CONF / "bridge.conf").read_text().replace("central.example.com:8883", "127.0.0.1:%d" % central.port)
                  .replace("VENUE", venue).replace("CHANGE-ME", venue + "-pw")
                  .replace("restart_timeout 2 30", "restart_timeout 1 2"))
        bridge = [l for l in bridge.splitlines() if not l.startswith("bridge_cafile") and "t2/cmd" not in l]
        super().__init__(d, "venue", [
            "per_listener_settings %s" % shipped["per_listener_settings"][0],
            "allow_anonymous %s" % shipped["allow_anonymous"][0],
            "password_file %s" % (self.mosq / "passwd"), "acl_file %s" % (self.mosq / "acl")] + bridge)

    def url(self, user):
        return "mqtt://%s@127.0.0.1:%d" % (user, self.port)

    def password_file(self, name):
        return str(self.etc / ("%s.broker-password" % name))


class Venue(VenueProc):
    def __init__(self, tmp, broker, venue):
        super().__init__(tmp, broker, free_port())
        self.args += ["--venue", venue, "--discovery-prefix", "none", "--name", venue.upper()]

    def ok(self, *args):
        p = self.cli(*args)
        assert p.returncode == 0, p.stderr
        return p.stdout.strip()

    def league_json(self, key="winter"):
        with urllib.request.urlopen(self.base + "/league/%s.json" % key, timeout=5) as r:
            return json.loads(r.read())

    def night(self, players, results):
        tid = self.ok("tournament", "create", "Winter night", "--format", "round-robin", "--race", "3",
                      "--players", ",".join(players), "--tables", "t1", "--league", "1")
        self.ok("tournament", "start", tid)
        for m in self.show(tid)["matches"]:
            for a, b, winner, score in results:
                if sorted(m["players"]) == sorted([a, b]):
                    sc = score if m["players"] == [a, b] else list(reversed(score))
                    self.ok("tournament", "report", tid, m["id"], "--winner", winner, "--score", "%d-%d" % tuple(sc))
        return tid


def standings(lg):
    return {r["player"]: (r["played"], r["won"], r["points"]) for r in lg["rows"]}


@pytest.fixture
def chain(tmp_path, monkeypatch):
    passwd = tmp_path / "central-passwd"
    passwd.touch()
    for user in ("bar1", "bar2", "bar3"):
        subprocess.run([PASSWD, "-b", str(passwd), user, user + "-pw"], check=True, capture_output=True)
    os.chmod(passwd, 0o600)
    central = Mosq(tmp_path, "central", central_settings() + [
        "password_file %s" % passwd, "acl_file %s" % (CONF / "central-acl")])
    brokers, venues = [], []
    try:
        for v in ("bar1", "bar2"):
            b = VenueBroker(tmp_path / v, v, central, monkeypatch)
            brokers.append(b)
            venues.append(Venue(tmp_path / v, b, v))
        yield central, brokers, venues
    finally:
        for x in venues + brokers + [central]:
            x.stop()


def test_a_league_over_two_venues_counts_both_venues_nights(chain):
    central, (b1, b2), (bar1, bar2) = chain
    for v in (bar1, bar2):
        assert v.ok("tournament", "league", "Winter") == "1"
        v.start()
    bar1.night(["Anna", "Boris", "Chen"], [("Anna", "Boris", "Anna", [3, 1]), ("Anna", "Chen", "Chen", [2, 3]),
                                           ("Boris", "Chen", "Boris", [3, 0])])
    bar2.night(["Anna", "Dasha"], [("Anna", "Dasha", "Anna", [3, 2])])

    # Each venue's standings count the other's night, through central.
    want = {"Anna": (3, 2, 2), "Boris": (2, 1, 1), "Chen": (2, 1, 1), "Dasha": (1, 0, 0)}
    for v, other in ((bar1, "bar2"), (bar2, "bar1")):
        lg = wait_for(lambda: standings(v.league_json()) == want and v.league_json(), 30,
                      what="%s's standings with %s's night" % (v.args[v.args.index("--venue") + 1], other))
        assert [x["venue"] for x in lg["venues"]] == [other] and lg["league"]["slug"] == "winter"
        assert lg["rows"][0]["player"] == "Anna"
    html = urllib.request.urlopen(bar1.base + "/league/1", timeout=5).read().decode()
    assert "Dasha" in html and "BAR2: 1 matches" in html
    out = json.loads(bar1.ok("tournament", "standings", "winter", "--json"))
    assert {r["name"]: (r["played"], r["won"], r["points"]) for r in out["standings"]} == want

    # A hostile venue at central: it cannot write under another venue's id, and its own garbage
    # (too long, not JSON, a match won by nobody in it) is refused and logged; the standings stay.
    bar3 = Observer(central.port, "bar3", "bar3-pw", [])
    forged = {"league": "winter", "venue": "bar2", "name": "Winter", "matches": [
        {"players": ["Dasha", "Anna"], "winner": "Dasha", "score": [3, 0]}] * 5}
    bar3.publish("venues/bar2/league/winter/results", json.dumps(forged), retain=True)
    for bad in (b"x" * (300 * 1024), b"{not json", json.dumps(dict(forged, venue="bar3", matches=[
            {"players": ["Dasha", "Anna"], "winner": "Eve", "score": [3, 0]}]))):
        bar3.publish("venues/bar3/league/winter/results", bad, retain=True)
        time.sleep(1.3)          # one venue's results are taken in at most once a second
    log = bar1.output()
    for why in ("bytes (at most 262144)", "not JSON", "winner is not one of its players"):
        assert "league winter results from venue bar3 ignored: " in log and why in log, log[-3000:]
    lg = bar1.league_json()
    assert standings(lg) == want and [x["venue"] for x in lg["venues"]] == ["bar2"]

    # A flood of versions costs one take-in a second; the last one counts (bar3's own night).
    for i in range(300):
        bar3.publish("venues/bar3/league/winter/results", json.dumps(dict(forged, venue="bar3", matches=[
            {"players": ["Anna", "Dasha"], "winner": "Anna", "score": [3, 0], "night": i}])), retain=i == 299)
    lg = wait_for(lambda: [x["venue"] for x in bar1.league_json()["venues"]] == ["bar2", "bar3"] and bar1.league_json(),
                  30, what="bar3's last results at bar1")
    assert standings(lg)["Anna"] == (4, 3, 3) and standings(lg)["Dasha"] == (2, 0, 0)
    assert bar1.proc.poll() is None and bar2.proc.poll() is None

    # At a venue, no account may write what the bridge brings.
    player = Observer(b1.port, "player-t1", ACCOUNTS["player-t1"], [])
    display = Observer(b1.port, "display", ACCOUNTS["display"], [])
    for c in (player, display):
        c.publish("billiards-chain/bar2/league/winter/results", json.dumps(dict(forged, venue="bar2")), retain=True)
    time.sleep(2)
    assert standings(bar1.league_json()) == standings(lg)
    assert [x["venue"] for x in bar1.league_json()["venues"]] == ["bar2", "bar3"]
    for c in (bar3, player, display):
        c.close()
