"""Home Assistant discovery: every config is one Home Assistant would accept,
and every template shows the right thing for a real game state."""

import json

import pytest

jinja2 = pytest.importorskip("jinja2")
from jinja2.sandbox import ImmutableSandboxedEnvironment  # noqa: E402

from host.outputs.ha_discovery import HADiscovery  # noqa: E402
from people_game import game, step  # noqa: E402

COMMON = {"name", "icon", "unique_id", "device", "origin", "availability_topic",
          "payload_available", "payload_not_available", "entity_category",
          "json_attributes_topic", "json_attributes_template", "availability", "availability_mode"}
# Keys each component accepts (Home Assistant MQTT docs), and those it requires.
ALLOWED = {
    "sensor": COMMON | {"state_topic", "value_template", "device_class", "state_class",
                        "options", "unit_of_measurement"},
    "binary_sensor": COMMON | {"state_topic", "value_template", "device_class",
                               "payload_on", "payload_off"},
    "select": COMMON | {"state_topic", "value_template", "command_topic",
                        "command_template", "options"},
    "button": COMMON | {"command_topic", "payload_press", "device_class"},
    "text": COMMON | {"state_topic", "value_template", "command_topic", "command_template", "min", "max"},
    "event": COMMON | {"state_topic", "value_template", "event_types"},
}
REQUIRED = {
    "sensor": {"state_topic"},
    "binary_sensor": {"state_topic"},
    "select": {"command_topic", "options", "state_topic"},
    "button": {"command_topic"},
    "text": {"command_topic"},
    "event": {"state_topic", "event_types"},
}

ENV = ImmutableSandboxedEnvironment(undefined=jinja2.StrictUndefined)


def _timestamp_custom(value, fmt, local=True):
    """Home Assistant's filter (homeassistant/helpers/template.py timestamp_custom), UTC only here."""
    import datetime
    return datetime.datetime.fromtimestamp(value, datetime.timezone.utc).strftime(fmt)


ENV.filters["timestamp_custom"] = _timestamp_custom


def render(template, state=None, value=None):
    payload = json.dumps(state) if state is not None else value
    value_json = json.loads(payload) if state is not None else None
    return ENV.from_string(template).render(value=payload, value_json=value_json).strip()


def announced(table="t1", prefix="billiards"):
    msgs = HADiscovery(table, prefix=prefix).on_connect()
    out = {}
    for topic, payload, retain in msgs:
        assert retain is True, topic
        out[topic] = json.loads(payload)
    assert len(out) == len(msgs), "two entities share a topic"
    return out


def by_object(configs):
    return {t.split("/")[3]: c for t, c in configs.items()}


def test_every_config_has_what_home_assistant_requires():
    configs = announced("t1")
    seen = set()
    for topic, cfg in configs.items():
        disc, component, node, obj, last = topic.split("/")
        assert (disc, node, last) == ("homeassistant", "billiards_t1", "config")
        assert component in REQUIRED, component
        missing = REQUIRED[component] - set(cfg)
        assert not missing, (topic, missing)
        unknown = set(cfg) - ALLOWED[component]
        assert not unknown, (topic, unknown)
        assert cfg["unique_id"] not in seen
        seen.add(cfg["unique_id"])
        assert cfg["device"]["identifiers"] == ["billiards_t1"]
        for key in ("name", "manufacturer", "model", "sw_version"):
            assert cfg["device"][key]
        if obj == "decision":     # online and a decision pending
            assert cfg["availability"][0] == {"topic": "billiards/t1/status", "payload_available": "online",
                                              "payload_not_available": "offline"}
            assert cfg["availability_mode"] == "all"
        else:
            assert cfg["availability_topic"] == "billiards/t1/status"
            assert (cfg["payload_available"], cfg["payload_not_available"]) == ("online", "offline")
        if "state_topic" in cfg:
            assert cfg["state_topic"] in ("billiards/t1/state", "billiards/t1/cmd/result", "billiards/t1/event")
        if "command_topic" in cfg:
            assert cfg["command_topic"].startswith("billiards/t1/cmd/")
        if "options" in cfg and component == "sensor":
            assert cfg.get("device_class") == "enum"


def test_the_entities_the_issue_asks_for_exist():
    objs = by_object(announced("t1"))
    for obj in ("score1", "score2", "shooter", "phase", "ball_in_hand", "last_foul",
                "fouls1", "fouls2", "link", "game", "new_game", "undo"):
        assert obj in objs, obj
    link = objs["link"]
    assert link["device_class"] == "connectivity"
    assert link["entity_category"] == "diagnostic"
    assert objs["game"]["options"] == ["eight-ball", "nine-ball", "straight-pool"]
    assert objs["game"]["command_topic"] == "billiards/t1/cmd/ha/game"     # checked, then new_game
    assert objs["new_game"]["command_topic"] == "billiards/t1/cmd/new_game"
    assert objs["undo"]["command_topic"] == "billiards/t1/cmd/undo"
    assert json.loads(objs["new_game"]["payload_press"]) == {}
    assert json.loads(objs["undo"]["payload_press"]) == {}


def test_templates_show_the_game_as_it_stands():
    objs = by_object(announced("t1"))
    state, _ = step("warning")
    assert render(objs["score1"]["value_template"], state) == "0"
    assert render(objs["player2"]["value_template"], state) == "Bob"
    assert render(objs["shooter"]["value_template"], state) == "Bob"
    assert render(objs["phase"]["value_template"], state) == "play"
    assert render(objs["ball_in_hand"]["value_template"], state) == "table"
    assert render(objs["last_foul"]["value_template"], state) == "Anna: wrong_first_contact"
    assert render(objs["fouls1"]["value_template"], state) == "2"
    assert render(objs["fouls2"]["value_template"], state) == "1"
    assert render(objs["winner"]["value_template"], state) == "None"      # HA: unknown
    assert render(objs["balls_left"]["value_template"], state) == "12"  # 3, 10 and 1 are down
    assert render(objs["link"]["value_template"], state) == "ON"
    assert render(objs["game"]["value_template"], state) == "eight-ball"
    attrs = json.loads(render(objs["last_foul"]["json_attributes_template"], state))
    assert attrs["codes"] == ["wrong_first_contact"] and attrs["player"] == "Anna" and attrs["player_index"] == 0
    attrs = json.loads(render(objs["score1"]["json_attributes_template"], state))
    assert attrs == {"name": "Anna", "group": "solids"}

    won, _ = step("anna wins")
    assert render(objs["winner"]["value_template"], won) == "Anna"
    assert render(objs["score1"]["value_template"], won) == "1"
    assert render(objs["phase"]["value_template"], won) == "over"

    # A handicapped race shows each player's own race; a plain one its number.
    race = objs["race_to"]["value_template"]
    assert render(race, dict(won, race_to=3, race_to_each=[3, 2])) == "3/2"
    assert render(race, dict(won, race_to=3, race_to_each=[3, 3])) == "3"
    assert render(race, dict(won, race_to=3)) == "3"
    assert render(race, dict(won, race_to=3, game="straight-pool")) == "None"

    fresh, _ = step("new game")
    assert render(objs["last_foul"]["value_template"], fresh) == "None"
    assert json.loads(render(objs["last_foul"]["json_attributes_template"], fresh)) == {}
    fresh["link"] = {"state": "down", "dropped": 4}
    assert render(objs["link"]["value_template"], fresh) == "OFF"


# What the engine publishes before the first game: no players, no phase.
BEFORE_FIRST_GAME = {"table": "t1", "game": None, "players": [], "shooter": None, "phase": None,
                     "ball_in_hand": None, "table_open": False, "on_table": [], "decision": None,
                     "needs": [], "winner": None, "shot": 0, "last_shot": None,
                     "link": {"state": "down", "dropped": 0}}


def test_every_template_renders_for_every_state_of_a_game():
    """Enum sensors must stay inside their options, numbers must be numbers
    (templates render with StrictUndefined: a missing field is an error)."""
    configs = announced("t1")
    for label, state, _ in game() + [("before", BEFORE_FIRST_GAME, [])]:
        for topic, cfg in configs.items():
            component = topic.split("/")[1]
            if cfg.get("state_topic", "billiards/t1/state") != "billiards/t1/state":
                continue          # cmd/result and event payloads: test_result_and_event_templates
            for key in ("value_template", "json_attributes_template"):
                if key not in cfg:
                    continue
                out = render(cfg[key], state)
                if key == "json_attributes_template":
                    assert isinstance(json.loads(out), dict), (label, topic)
                elif component == "event":
                    assert json.loads(out)["event_type"] in cfg["event_types"]
                elif component == "select":   # "None" is the select's "unknown"
                    assert out in cfg["options"] + ["None"], (label, topic, out)
                elif component == "text":
                    assert len(out) <= cfg["max"]
                elif "options" in cfg:
                    assert out in cfg["options"], (label, topic, out)
                elif component == "binary_sensor":
                    assert out in (cfg["payload_on"], cfg["payload_off"]), (label, topic)
                elif cfg.get("state_class") in ("measurement", "total_increasing") and out != "None":
                    float(out)


def test_before_the_first_game():
    objs = by_object(announced("t1"))
    shows = {o: render(c["value_template"], BEFORE_FIRST_GAME)
             for o, c in objs.items() if "value_template" in c and c["state_topic"] == "billiards/t1/state"}
    unknown = "None"      # what Home Assistant's MQTT sensor and select read as unknown
    camera = dict((o, shows.pop(o)) for o in ("camera", "camera_fault", "first_contact", "railed_after_contact"))
    assert camera == {"camera": "none", "camera_fault": "OFF", "first_contact": unknown,     # issue 18
                      "railed_after_contact": unknown}
    assert shows == {"player1": unknown, "score1": "0", "fouls1": "0", "player2": unknown,
                     "score2": "0", "fouls2": "0", "shooter": unknown, "phase": "idle",
                     "ball_in_hand": "none", "last_foul": unknown, "winner": unknown,
                     "balls_left": "0", "link": "OFF", "game": "None",
                     "name1": "", "name2": "",        # HA's text entity has no unknown
                     "high_run1": unknown, "pocketed1": unknown, "fouls_total1": unknown,
                     "high_run2": unknown, "pocketed2": unknown, "fouls_total2": unknown,
                     "game_winner": unknown, "run": unknown, "race_to": unknown, "target": unknown,
                     "rack": unknown, "needs": unknown, "decision_by": unknown, "warning": unknown,
                     "called_ball": unknown, "called_pocket": unknown, "shot_clock": unknown,
                     "shot_clock_limit": unknown, "decision": "None", "foul": "None", "identify": "None",
                     # issue 17: the match of racks
                     "innings1": unknown, "innings2": unknown, "match_score": unknown, "next_breaker": unknown,
                     "between_racks": "OFF", "hill_hill": "OFF"}


def test_result_and_event_templates():
    objs = by_object(announced("t1"))
    res = objs["last_result"]
    assert render(res["value_template"], {"cmd": "undo", "ok": True, "error": None, "id": None}) == "ok"
    refused = {"cmd": "call", "ok": False, "error": "the game is over", "id": 7}
    assert render(res["value_template"], refused) == "the game is over"
    assert render(res["value_template"], dict(refused, error="x" * 400)) == "x" * 255   # HA's limit
    assert json.loads(render(res["json_attributes_template"], refused)) == refused
    ev = objs["events"]
    out = json.loads(render(ev["value_template"], {"event": "pocketed", "player": 0, "balls": [3],
                                                   "text": {"en": "Anna pocketed 3", "ru": "Анна забила 3"}}))
    assert out["event_type"] == "pocketed" and out["text"] == "Anna pocketed 3" and out["balls"] == [3]
    out = json.loads(render(ev["value_template"], {"event": "brand_new_kind", "player": None, "text": {}}))
    assert out["event_type"] == "other"


def test_select_sends_a_new_game_command_for_each_option():
    game_select = by_object(announced("t1"))["game"]
    for option in game_select["options"]:
        body = json.loads(render(game_select["command_template"], value=option))
        assert body == {"game": option}


def test_prefix_and_table_id_are_used_and_made_safe():
    configs = announced("bar 2", prefix="pool")
    for topic, cfg in configs.items():
        assert topic.split("/")[2] == "billiards_bar_2"
        assert cfg.get("availability_topic", cfg.get("availability", [{}])[0].get("topic")) == "pool/bar 2/status"
        assert cfg["device"]["identifiers"] == ["billiards_bar_2"]


def test_resent_when_home_assistant_comes_back_online_only():
    ha = HADiscovery("t1")
    assert ha.subscriptions() == ["homeassistant/status", "billiards/t1/cmd/ha/+"]
    first = ha.on_connect()
    assert ha.on_message("homeassistant/status", b"online") == first
    assert ha.on_message("homeassistant/status", "online") == first
    assert ha.on_message("homeassistant/status", b"offline") == []
    assert ha.on_message("homeassistant/status", b"\xff\xfe") == []
    assert ha.on_message("billiards/t1/state", b"online") == []
    state, events = step("scratch")
    assert ha.on_change(state, events) == []


def test_the_decision_select_is_announced_again_with_the_pending_options_only():
    ha = HADiscovery("t1")
    ha.on_connect()
    state, events = step("scratch")
    assert ha.on_change(state, events) == []                 # nothing pending, nothing changed
    pending = dict(state, decision={"player": 1, "options": ["accept", "pass_back"]})
    out = ha.on_change(pending, [])
    assert [t for t, _, _ in out] == ["homeassistant/select/billiards_t1/decision/config"]
    assert json.loads(out[0][1])["options"] == ["accept", "pass_back"] and out[0][2] is True
    assert ha.on_change(pending, []) == []
    back = ha.on_change(state, [])
    assert len(json.loads(back[0][1])["options"]) == 7       # every option, while unavailable


def test_the_game_select_never_restarts_the_game_being_played_and_identify_gets_its_pocket():
    ha = HADiscovery("t1")
    state, events = step("scratch")
    ha.on_change(state, events)
    same = ha.on_message("billiards/t1/cmd/ha/game", json.dumps({"game": state["game"]}).encode())
    assert [t for t, _, _ in same] == ["billiards/t1/cmd/result"]
    assert json.loads(same[0][1])["ok"] is False and "already being played" in json.loads(same[0][1])["error"]
    other = ha.on_message("billiards/t1/cmd/ha/game", b'{"game": "nine-ball"}')
    assert other == [("billiards/t1/cmd/new_game", '{"game": "nine-ball"}', False)]
    assert json.loads(ha.on_message("billiards/t1/cmd/ha/game", b"\xff")[0][1])["ok"] is False
    nothing = ha.on_message("billiards/t1/cmd/ha/identify", b'{"ball": 3}')
    assert json.loads(nothing[0][1])["error"] == "no pocketed ball is waiting to be identified"
    # Like every refusal on cmd/result (docs/mqtt.md): a stable code and the text in each language.
    unknown = ha.on_message("billiards/t1/cmd/ha/game", b'{"game": "snooker"}')
    for answer, code, ru in ((same, "host.ha_game_playing", "Восьмёрка уже идёт"),
                             (unknown, "host.ha_unknown_game", "такой игры нет"),
                             (nothing, "host.ha_nothing_to_identify", "нет забитого шара")):
        res = json.loads(answer[0][1])
        assert res["code"] == code and res["text"]["en"] == res["error"] and ru in res["text"]["ru"], res
    ha.on_change(dict(state, needs=[{"cmd": "identify", "pocket": "side-left", "text": {}}]), [])
    ask = ha.on_message("billiards/t1/cmd/ha/identify", b'{"ball": 3}')
    assert ask == [("billiards/t1/cmd/identify", '{"ball": 3, "pocket": "side-left"}', False)]
