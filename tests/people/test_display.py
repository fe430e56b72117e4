"""The LED display text: what a player sees on a 2x16 matrix."""

import json

from host.outputs.display import DisplayOutput, render
from people_game import game, step


def shown(label, lang="en"):
    state, events = step(label)
    return render(state, events, lang)


def test_every_payload_of_a_game_fits_a_2x16_matrix_and_follows_the_contract():
    out = DisplayOutput("t1")
    for label, state, events in game():
        for topic, payload, retain in out.on_change(state, events):
            assert topic == "billiards/t1/display" and retain is True
            body = json.loads(payload)
            assert set(body) == {"lines", "alert"}
            assert len(body["lines"]) == 2
            for line in body["lines"] + [body["alert"] or ""]:
                assert len(line) <= 16, (label, line)
                assert line == line.upper()


def test_shooter_is_marked_and_scores_follow():
    assert shown("new game")["lines"] == [">ANNA 0", "BOB 0"]
    assert shown("scratch")["lines"] == ["ANNA 0", ">BOB 0"]
    assert shown("anna wins")["lines"] == ["ANNA 1", "BOB 0"]


def test_alerts_through_a_game():
    assert shown("new game")["alert"] is None          # break from the kitchen is no alert
    assert shown("break")["alert"] is None
    assert shown("scratch")["alert"] == "FOUL"
    assert shown("bob misses")["alert"] is None
    assert shown("warning")["alert"] == "WARNING ANNA"
    assert shown("anna wins")["alert"] == "WINNER ANNA"


def test_ball_in_hand_without_a_foul_on_the_last_shot():
    state, _ = step("scratch")
    state["last_shot"]["fouls"] = []
    assert render(state, [])["alert"] == "BALL IN HAND"


def test_decision_identify_and_link_down():
    state, _ = step("break")
    state["phase"] = "decision"
    state["decision"] = {"player": 1, "options": ["accept", "rerack"]}
    assert render(state, [])["alert"] == "DECISION BOB"
    state, _ = step("break")
    state["needs"] = [{"identify": {"pocket": "foot-left"}}]
    assert render(state, [])["alert"] == "IDENTIFY BALL"
    state["link"] = {"state": "down", "dropped": 0}
    assert render(state, [])["alert"] == "NO SENSORS"


def test_russian():
    assert shown("scratch", "ru")["alert"] == "ФОЛ"
    state, events = step("anna wins")
    state["players"][0]["name"] = "Анна"
    assert render(state, events, "ru") == {"lines": ["АННА 1", "BOB 0"], "alert": "ПОБЕДА АННА"}


def test_long_names_are_cut_not_the_score():
    state, _ = step("anna wins")
    state["players"][0]["name"] = "Maximilian Alexander"
    state["players"][0]["score"] = 12
    body = render(state, [])
    assert body["lines"][0] == "MAXIMILIAN AL 12"
    assert body["alert"] == "WINNER MAXIMILIA"


def test_straight_pool_shows_the_target():
    state, _ = step("bob misses")
    state["game"] = "straight-pool"
    state["target"] = 150
    state["players"][0]["score"] = 87
    assert render(state, [])["lines"] == [">ANNA 87/150", "BOB 0/150"]


def test_published_only_when_it_changes():
    out = DisplayOutput("t1", prefix="pool")
    state, events = step("bob misses")
    first = out.on_change(state, events)
    assert [t for t, _, _ in first] == ["pool/t1/display"]
    assert out.on_change(state, []) == []              # nothing the display shows changed
    state["on_table"] = [9]                            # not on the display either
    assert out.on_change(state, []) == []
    state["players"][1]["score"] = 1
    assert len(out.on_change(state, [])) == 1
    assert out.on_connect()[0][1] == out._last          # resent on reconnect


def test_bad_state_never_crashes():
    out = DisplayOutput("t1")
    for bad in (None, {}, {"players": "x"}, {"players": [None, 3]}, {"shooter": 7},
                {"players": [{"name": 5, "score": "x"}]}):
        for topic, payload, _ in out.on_change(bad, [None, 3, {"event": "foul"}]):
            assert len(json.loads(payload)["lines"]) == 2
