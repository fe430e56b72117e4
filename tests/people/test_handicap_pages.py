"""A handicapped match (`new_game` `"race_to": [3, 2]`, sent over HTTP as a phone or a venue
service would) on the phone page and the TV page in headless Chromium: both say "race to 3/2",
the LED line gives each player his own race, and the phone's rematch keeps the handicap."""
import json
import os

import pytest

from cdp import CHROMIUM, Browser
from play_table import Table, post
from tests.host.harness import wait_for

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="needs chromium (apt-get install -y chromium)"),
]


@pytest.fixture
def table(tmp_path, broker):
    t = Table(tmp_path, broker, players="Anna,Bob")
    yield t
    t.close()


def test_the_phone_and_the_tv_show_each_players_race(table, tmp_path):
    body = {"game": "nine-ball", "players": ["Anna", "Bob"], "race_to": [3, 2]}
    code, _, res = post(table.base, "/api/cmd/new_game", body, token=table.token())
    assert code == 200 and res["ok"], res
    s = wait_for(lambda: (table.state() or {}).get("race_to_each") == [3, 2] and table.state(), 10,
                 what="the handicapped match")
    assert s["race_to"] == 3
    code, _, res = post(table.base, "/api/cmd/new_game", dict(body, race_to=[3, 0]), token=table.token())
    assert code in (200, 400) and res["ok"] is False and res["code"] == "bad_race"
    phone, tv = Browser(str(tmp_path / "phone")), Browser(str(tmp_path / "tv"))
    try:
        tv.open(table.base + "/", width=1280, height=720)
        tv.wait_for("document.getElementById('info').textContent.indexOf('race to 3/2') >= 0", 10)
        phone.open(table.base + "/play?lang=en#t=" + table.play_token(), width=390, height=844, mobile=True, scale=1)
        phone.wait_for("document.getElementById('game').textContent.indexOf('race to 3/2') >= 0", 10)
        phone.send("Page.navigate", {"url": table.base + "/play?lang=ru#t=" + table.play_token()})
        phone.wait_for("document.getElementById('game').textContent.indexOf('до 3/2 побед') >= 0", 10)
        # The LED display line (billiards/<t>/display): each player's own race.
        shown = wait_for(lambda: table.sub.last.get("billiards/t1/display"), 10, what="the display line")
        lines = json.loads(shown)["lines"]
        assert lines[0].endswith(" 0/3") and lines[1].endswith(" 0/2"), lines
    finally:
        phone.close()
        tv.close()


def test_players_set_a_handicap_on_the_phones_first_screen(tmp_path, broker):
    """The first screen's second race makes a handicapped match; left empty, a plain one."""
    table = Table(tmp_path, broker)
    phone = Browser(str(tmp_path / "phone"))
    try:
        phone.open(table.base + "/play?lang=en#t=" + table.play_token(), width=390, height=844, mobile=True, scale=1)
        phone.wait_for("document.body.dataset.mode === 'setup' && !document.body.classList.contains('readonly')")
        phone.tap('#ng-games input[value="nine-ball"] + span')
        phone.type_into("#ng-p0", "Anna")
        phone.type_into("#ng-p1", "Bob")
        phone.type_into("#ng-race", "5")
        phone.type_into("#ng-race2", "3")
        phone.tap("#ng-start")
        s = wait_for(lambda: (table.state() or {}).get("race_to_each") == [5, 3] and table.state(), 10,
                     what="the handicapped match from the phone")
        assert s["race_to"] == 5 and [p["name"] for p in s["players"]] == ["Anna", "Bob"]
        phone.wait_for("document.getElementById('game').textContent.indexOf('race to 5/3') >= 0", 10)
    finally:
        phone.close()
        table.close()
