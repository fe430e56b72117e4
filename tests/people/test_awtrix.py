"""AWTRIX 3 output: coloured score app and foul / winner notifications."""

import json

from host.outputs.awtrix import AwtrixOutput
from people_game import game, step

HEX = set("0123456789ABCDEF")


def test_custom_app_colours_each_player_and_marks_the_shooter():
    out = AwtrixOutput(awtrix_prefix="clock1", app="pool", colors=("#00ff00", "0000FF"))
    state, events = step("bob misses")
    msgs = out.on_change(state, events)
    assert [(t, r) for t, _, r in msgs] == [("clock1/custom/pool", False)]
    app = json.loads(msgs[0][1])
    text = app["text"]
    assert "".join(f["t"] for f in text) == ">ANNA 0:0 BOB"
    assert text[0] == {"t": ">ANNA 0", "c": "00FF00"}
    assert text[-1] == {"t": "0 BOB", "c": "0000FF"}
    for frag in text:
        assert len(frag["c"]) == 6 and set(frag["c"]) <= HEX


def test_a_foul_pops_a_notification_and_the_end_of_game_too():
    out = AwtrixOutput()
    notes = []
    for label, state, events in game():
        for topic, payload, retain in out.on_change(state, events):
            assert retain is False
            if topic == "awtrix/notify":
                notes.append((label, json.loads(payload)))
    labels = [label for label, _ in notes]
    assert labels == ["scratch", "anna no rail", "bob no rail", "warning", "anna wins"]
    assert notes[0][1]["text"] == "FOUL ANNA: scratch"
    assert notes[2][1]["text"] == "FOUL BOB: no rail"
    assert notes[-1][1]["text"] == "ANNA WINS"
    assert notes[-1][1]["rainbow"] is True


def test_app_sent_only_on_change_and_again_on_reconnect():
    out = AwtrixOutput()
    assert out.on_connect() == []
    state, events = step("break")
    assert len(out.on_change(state, events)) == 1
    assert out.on_change(state, []) == []
    assert out.on_connect()[0][0] == "awtrix/custom/billiards"


def test_russian_foul_text_and_bad_input():
    out = AwtrixOutput(lang="ru")
    state, events = step("scratch")
    notes = [json.loads(p) for t, p, _ in out.on_change(state, events) if t == "awtrix/notify"]
    assert notes[0]["text"] == "ФОЛ ANNA: свой шар"
    assert out.on_change(None, []) == []
    assert isinstance(out.on_change({"players": [None]}, [None, {"event": "foul", "player": 9}]), list)
