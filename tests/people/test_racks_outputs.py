"""Issue 17 on every surface but the phone: the LED display, AWTRIX, Home Assistant's templates,
the shot clock that runs only while a shot is due, the pages' shot log and vocabulary, /venue's
addresses. States come from the referee itself (a race to 3 of nine-ball played by the rules
engine), as the daemon would publish them."""
import json
import urllib.request

import pytest

from host.outputs.awtrix import AwtrixOutput
from host.outputs.display import render as display
from host.shot_clock import ShotClock, next_shot_clock
from tests.scenarios.runner import apply_command as cmd, new_game, win_nine_ball_racks

jinja2 = pytest.importorskip("jinja2")
from test_ha_discovery import announced, by_object, render as ha_render  # noqa: E402

T0 = 1764480000.0


def published(r):
    s = r.ref.state()
    s["link"] = {"state": "up", "dropped": 0, "corrupt": 0, "simulated": False}
    return s


def race(winners, **body):
    """A nine-ball race to 3, Anna breaking first; each rack won on its break or after it as told."""
    body.setdefault("race_to", 3)
    return win_nine_ball_racks(new_game("nine-ball", **body), winners)


def test_the_led_display_between_racks_and_at_hill_hill():
    s = published(race([0]))
    assert display(s)["alert"] == "BREAK: BOB" and display(s, lang="ru")["alert"] == "РАЗБИВАЕТ BOB"
    assert display(s)["lines"] == ["ANNA 1/3", "BOB 0/3"]
    s = published(race([0, 0, 1, 1]))
    assert s["hill_hill"] and display(s)["alert"] == "HILL-HILL: LAG"
    assert display(s, lang="ru")["alert"] == "РЕШАЮЩАЯ ПАРТИЯ"
    # The deciding rack itself says so while nothing more urgent is on (the house rule: no lag).
    r = race([0, 0, 1, 1], winner_breaks=True)
    assert display(published(r))["alert"] == "BREAK: BOB"
    cmd(r, "next_rack")
    assert display(published(r))["alert"] == "HILL-HILL" and display(published(r), lang="ru")["alert"] == "РЕШАЮЩАЯ"
    r.shot({"rails": 8, "pocketed": [[1, "foot-left"]]})
    assert display(published(r))["alert"] == "HILL-HILL"
    r = new_game("eight-ball", lag=True)
    assert display(published(r))["alert"] == "LAG FOR BREAK"
    for lang in ("en", "ru"):
        for line in display(s, lang=lang)["lines"] + [display(s, lang=lang)["alert"]]:
            assert len(line) <= 16 and line == line.upper()


def test_awtrix_says_who_breaks_next_and_who_won_the_rack():
    out = AwtrixOutput()
    r = race([])
    out.on_change(published(r), [])
    r.shot({"rails": 8, "pocketed": [[9, "foot-left"]]})
    msgs = out.on_change(published(r), r.events)
    app = json.loads([p for t, p, _ in msgs if t == "awtrix/custom/billiards"][0])
    assert "".join(f["t"] for f in app["text"]).endswith(" BOB BREAKS")
    notes = [json.loads(p)["text"] for t, p, _ in msgs if t == "awtrix/notify"]
    assert notes == ["ANNA WINS RACK 1-0 · RACE TO 3 · BOB BREAKS"]
    s = published(race([0, 0, 1, 1]))
    ru = AwtrixOutput(lang="ru")
    text = "".join(f["t"] for f in json.loads(ru.on_change(s, [])[0][1])["text"])
    assert text.endswith(" РЕШАЮЩАЯ ПАРТИЯ")


def test_home_assistant_shows_the_match_between_racks():
    objs = by_object(announced("t1"))

    def shows(obj, state):
        return ha_render(objs[obj]["value_template"], state)
    s = published(race([0, 0, 1]))
    assert shows("match_score", s) == "2-1" and shows("next_breaker", s) == "Bob"
    assert shows("between_racks", s) == "ON" and shows("hill_hill", s) == "OFF"
    assert shows("innings1", s) == str(s["innings"][0])
    attrs = json.loads(ha_render(objs["next_breaker"]["json_attributes_template"], s))
    assert attrs == {"rack": 4, "player": 1, "rule": "alternate"}
    s = published(race([0, 0, 1, 1]))
    assert shows("next_breaker", s) == "lag" and shows("hill_hill", s) == "ON"
    r = race([0])
    assert cmd(r, "next_rack")["ok"]
    s = published(r)
    assert shows("between_racks", s) == "OFF" and shows("next_breaker", s) == "None"
    assert objs["next_rack"]["command_topic"] == "billiards/t1/cmd/next_rack"
    refused = {"cmd": "push_out", "ok": False, "error": "nine-ball has no declared safety (NB.NO-CALL): ...",
               "code": "nb.no_safety", "text": {"en": "nine-ball has no declared safety", "ru": "..."}, "id": None}
    assert ha_render(objs["last_result"]["value_template"], refused) == "nine-ball has no declared safety"
    s = published(new_game("nine-ball", shot_clock=30))
    assert shows("shot_clock_limit", dict(s, shot_clock=None)) == "30"      # no clock at the break: the setting


@pytest.mark.clause("GEN.SLOW-PLAY")
def test_the_shot_clock_runs_only_while_a_shot_is_due():
    keeper = ShotClock(enabled=True, limit_s=10)
    r = new_game("nine-ball", race_to=3, lag=True)
    assert keeper.update(published(r), [], T0) is None                 # the lag
    cmd(r, "lag", {"winner": 0})
    assert keeper.update(published(r), [], T0 + 1) is None             # racked, the break is due: no clock
    r.shot({"rails": 8, "pocketed": [[1, "foot-left"]]})
    running = keeper.update(published(r), [], T0 + 5)
    assert running["started_wall"] == T0 + 5 and (running["rack"], running["shot"]) == (1, 1)
    r.shot({"rails": 2, "pocketed": [[9, "foot-right"]]})
    assert keeper.update(published(r), [], T0 + 9) is None             # between racks
    cmd(r, "next_rack")
    assert keeper.update(published(r), [], T0 + 10) is None            # the next rack's break
    r.shot({"rails": 8, "pocketed": [[1, "foot-left"]]})
    nxt = keeper.update(published(r), [], T0 + 30)
    assert nxt["limit_s"] == 10 and nxt["rack"] == 2 and nxt["started_wall"] == T0 + 30     # kept by the next rack
    # Time up: the warning once, and the state says so until the next shot.
    s = dict(published(r), shot_clock=nxt)
    ev = keeper.time_up(s, T0 + 41)
    assert ev["shot_clock"] is True and ev["text"]["ru"].startswith("Время на удар истекло")
    assert keeper.time_up(s, T0 + 42) is None
    assert keeper.update(published(r), [], T0 + 43)["expired"] is True
    assert display(dict(published(r), shot_clock=keeper.value))["alert"] == "TIME UP BOB"
    # A new match, even straight after another at shot 0, restarts it (finding 5).
    a = next_shot_clock(None, {"phase": "play", "shot": 0, "rack": 1, "match": {"id": 4}}, [], T0)
    b = next_shot_clock(a, {"phase": "play", "shot": 0, "rack": 1, "match": {"id": 5}}, [], T0 + 3)
    assert b["started_wall"] == T0 + 3


def test_the_pages_get_the_vocabulary_and_a_shot_log_of_the_match():
    from host.web.server import ScoreboardServer
    srv = ScoreboardServer("127.0.0.1", 0).start()
    try:
        v = json.loads(urllib.request.urlopen(srv.url + "vocabulary.json", timeout=5).read())
        assert v["pockets"]["head-left"]["short"] == {"en": "head left", "ru": "левая у дома"}
        assert v["games"]["eight-ball"]["ru"] == "Восьмёрка" and set(v["break_rules"]) == {"alternate", "lag",
                                                                                          "winner_breaks"}
        r = race([])
        srv.publish(published(r), [])
        r.events = []
        r.shot({"rails": 8, "pocketed": [[9, "foot-left"]]})
        srv.publish(published(r), r.events)
        stream = urllib.request.urlopen(srv.url + "events", timeout=5)
        line = b""
        while not line.startswith(b"data:"):
            line = stream.readline()
        log = json.loads(line[5:])["log"]
        stream.close()
        assert [e["event"] for e in log] == [e["event"] for e in r.events if e["event"] != "shot"]
        assert "Anna wins the game" in log[-1]["text"]["en"] and log[-1]["text"]["ru"]
        # A new match begins a new log.
        r2 = new_game("eight-ball")
        s2 = published(r2)
        s2["match"] = {"id": 99, "started": None, "ended": None}
        srv.publish(s2, r2.events)
        assert [e["event"] for e in srv._httpd.hub.log] == ["rerack"]
    finally:
        srv.stop()


def test_venue_links_are_addresses_a_phone_can_follow():
    from host.outputs.venue import Venue, VenueWatch
    from host.web.venue import phone_host, render_venue, venue_cards
    v = Venue()
    w = VenueWatch(v)
    w.on_message("billiards/t1/info", json.dumps({"name": "By the window", "url": "http://127.0.0.1:8080/",
                                                  "play": "http://127.0.0.1:8080/play"}).encode())
    w.on_message("billiards/t2/info", json.dumps({"url": "http://192.168.1.7:8080/",
                                                  "play": "http://192.168.1.7:8080/play"}).encode())
    w.on_message("billiards/t1/status", b"online")
    host = phone_host(None, "192.168.1.5:8080")
    cards = venue_cards(v.tables(), host)
    assert cards["t1"]["play"] == "http://192.168.1.5:8080/play" and cards["t1"]["tv"] == "http://192.168.1.5:8080/"
    assert cards["t2"]["play"] == "http://192.168.1.7:8080/play"          # another machine: as announced
    assert phone_host("http://bar.local:8080", "192.168.1.5") == "bar.local"
    assert phone_host(None, "127.0.0.1:8080") not in ("127.0.0.1", "localhost")
    page = render_venue(v.tables(), "ru", host)
    assert "127.0.0.1" not in page and "Играть с телефона" in page and 'lang="ru"' in page


def test_a_handicapped_race_shows_each_players_race_on_the_led_line_the_clock_and_the_history():
    from host import history
    from host.web.venue import render_history
    r = race([0], race_to=[3, 2])              # Anna must win 3 racks, Bob 2
    s = published(r)
    assert display(s)["lines"] == ["ANNA 1/3", "BOB 0/2"]
    out = AwtrixOutput()
    assert cmd(r, "next_rack")["ok"]
    out.on_change(published(r), [])
    r.shot({"rails": 8, "pocketed": [[1, "foot-left"]]})      # Bob breaks, goes on
    r.shot({"rails": 2, "pocketed": [[9, "foot-right"]]})    # and wins the rack: 1-1
    msgs = out.on_change(published(r), r.events)
    notes = [json.loads(p)["text"] for t, p, _ in msgs if t == "awtrix/notify"]
    assert notes[0].startswith("BOB WINS RACK 1-1 · RACE TO 3/2"), notes
    assert cmd(r, "next_rack")["ok"]
    r.shot({"rails": 8, "pocketed": [[1, "foot-left"]]})
    r.shot({"rails": 2})
    r.shot({"rails": 2, "pocketed": [[9, "foot-right"]]})    # Bob: 2 racks, his race
    s = published(r)
    assert s["winner"] == 1 and s["match_score"] == [1, 2]
    rec = history.record("t1", s, 1764540000.0, 1764540600.0)
    assert rec["race_to"] == 3 and rec["race_to_each"] == [3, 2] and rec["score"] == [1, 2]
    rows = history.match_rows({"matches": [rec], "players": []})
    assert rows[1][4] == "1-2 (race 3/2)"
    assert "1-2 (race 3/2)" in render_history({"matches": [rec], "players": []})
    plain = history.record("t1", published(race([0, 0, 0])), 1764540000.0, 1764540600.0)
    assert "race_to_each" not in plain and history.match_rows({"matches": [plain], "players": []})[1][4] == "3-0"
