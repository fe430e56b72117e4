"""Home Assistant MQTT discovery: one device per table.

Every entity reads the retained `<prefix>/<table>/state` through a
value_template, so nothing extra is published per change; availability comes
from `<prefix>/<table>/status` (online/offline, the daemon's last will).
Configs go out retained on connect and again whenever Home Assistant
announces `online` on `<discovery>/status` (it restarted).
"""

import json
import re

GAMES = ["eight-ball", "nine-ball", "straight-pool"]
PHASES = ["idle", "break", "play", "decision", "over"]   # idle: no game yet
BALL_IN_HAND = ["none", "kitchen", "table"]


def node_id(table):
    """Discovery allows only [a-zA-Z0-9_-] in the node id."""
    return "billiards_" + re.sub(r"[^A-Za-z0-9_-]", "_", str(table))


def _player(i, field, empty):
    """Template for a player's field that still renders before the first game."""
    return ("{%% if value_json.players | length > %d %%}{{ value_json.players[%d].%s }}"
            "{%% else %%}%s{%% endif %%}" % (i, i, field, empty))


def _by_index(index_expr, empty="none"):
    """Template for the name of the player an index field points at, or `empty`."""
    return ("{%% if %s in [0, 1] and value_json.players | length > %s %%}"
            "{{ value_json.players[%s].name }}{%% else %%}%s{%% endif %%}"
            % (index_expr, index_expr, index_expr, empty))


def entities():
    """(component, object_id, fields) for every entity; topics are added later."""
    e = []
    for i in (0, 1):
        n = i + 1
        e.append(("sensor", "player%d" % n, {
            "name": "Player %d" % n,
            "icon": "mdi:account",
            "value_template": _player(i, "name", "none"),
        }))
        e.append(("sensor", "score%d" % n, {
            "name": "Player %d score" % n,
            "icon": "mdi:scoreboard",
            "state_class": "measurement",
            "value_template": _player(i, "score", "0"),
            "json_attributes_topic": None,  # filled with the state topic
            "json_attributes_template":
                "{%% if value_json.players | length > %d %%}"
                "{{ {'name': value_json.players[%d].name,"
                " 'group': value_json.players[%d].group} | tojson }}"
                "{%% else %%}{}{%% endif %%}" % (i, i, i),
        }))
        e.append(("sensor", "fouls%d" % n, {
            "name": "Player %d consecutive fouls" % n,
            "icon": "mdi:alert-octagon",
            "value_template": _player(i, "fouls", "0"),
        }))
    e.append(("sensor", "shooter", {
        "name": "Shooter",
        "icon": "mdi:account-arrow-right",
        "value_template": _by_index("value_json.shooter"),
    }))
    e.append(("sensor", "phase", {
        "name": "Game phase",
        "icon": "mdi:billiards",
        "device_class": "enum",
        "options": PHASES,
        "value_template": "{{ value_json.phase or 'idle' }}",
    }))
    e.append(("sensor", "ball_in_hand", {
        "name": "Ball in hand",
        "icon": "mdi:hand-back-right",
        "device_class": "enum",
        "options": BALL_IN_HAND,
        "value_template": "{{ value_json.ball_in_hand or 'none' }}",
    }))
    e.append(("sensor", "last_foul", {
        "name": "Last foul",
        "icon": "mdi:whistle",
        "value_template":
            "{% if value_json.get('last_foul') %}"
            + _by_index("value_json.last_foul.player", "?") +
            ": {{ value_json.last_foul.codes | join(', ') }}"
            "{% else %}none{% endif %}",
        "json_attributes_topic": None,
        "json_attributes_template": "{{ (value_json.get('last_foul') or {}) | tojson }}",
    }))
    e.append(("sensor", "winner", {
        "name": "Winner",
        "icon": "mdi:trophy",
        "value_template": _by_index("value_json.winner"),
    }))
    e.append(("sensor", "balls_left", {
        "name": "Balls on table",
        "icon": "mdi:circle-multiple",
        "value_template": "{{ value_json.on_table | length }}",
    }))
    e.append(("binary_sensor", "link", {
        "name": "Sensor link",
        "device_class": "connectivity",
        "entity_category": "diagnostic",
        "value_template":
            "{{ 'ON' if (value_json.get('link') or {}).get('state') == 'up' else 'OFF' }}",
        "payload_on": "ON",
        "payload_off": "OFF",
    }))
    e.append(("select", "game", {
        "name": "Game",
        "icon": "mdi:billiards-rack",
        "options": GAMES,
        "value_template": "{{ value_json.game or 'None' }}",
        "command_template": '{"game": "{{ value }}"}',
        "command": "new_game",
    }))
    e.append(("button", "new_game", {
        "name": "New game",
        "icon": "mdi:restart",
        "payload_press": "{}",
        "command": "new_game",
    }))
    e.append(("button", "undo", {
        "name": "Undo last shot",
        "icon": "mdi:undo",
        "payload_press": "{}",
        "command": "undo",
    }))
    return e


def configs(table, prefix="billiards", discovery_prefix="homeassistant",
            sw_version="0.1.0", device_name=None):
    """[(topic, config dict)] for every entity of the table."""
    base = "%s/%s" % (prefix, table)
    node = node_id(table)
    device = {
        "identifiers": [node],
        "name": device_name or "Pool table %s" % table,
        "manufacturer": "billiards-referee",
        "model": "Smart pool table referee",
        "sw_version": sw_version,
    }
    out = []
    for component, obj, fields in entities():
        cfg = {}
        for key, value in fields.items():
            if key == "command":
                cfg["command_topic"] = "%s/cmd/%s" % (base, value)
            elif key == "json_attributes_topic":
                cfg[key] = base + "/state"
            else:
                cfg[key] = value
        if component != "button":
            cfg["state_topic"] = base + "/state"
        cfg["unique_id"] = "%s_%s" % (node, obj)
        cfg["availability_topic"] = base + "/status"
        cfg["payload_available"] = "online"
        cfg["payload_not_available"] = "offline"
        cfg["device"] = device
        cfg["origin"] = {"name": "billiards-referee", "sw_version": sw_version}
        topic = "%s/%s/%s/%s/config" % (discovery_prefix, component, node, obj)
        out.append((topic, cfg))
    return out


class HADiscovery:
    """Output that announces the table to Home Assistant."""

    def __init__(self, table, prefix="billiards", discovery_prefix="homeassistant",
                 sw_version="0.1.0", device_name=None):
        self.discovery_prefix = discovery_prefix
        self._messages = [
            (topic, json.dumps(cfg, ensure_ascii=False), True)
            for topic, cfg in configs(table, prefix, discovery_prefix,
                                      sw_version, device_name)
        ]

    def on_connect(self):
        return list(self._messages)

    def on_change(self, state, events):
        return []

    def subscriptions(self):
        return [self.discovery_prefix + "/status"]

    def on_message(self, topic, payload):
        if topic != self.discovery_prefix + "/status":
            return []
        if isinstance(payload, (bytes, bytearray)):
            try:
                payload = payload.decode("utf-8")
            except UnicodeDecodeError:
                return []
        if not isinstance(payload, str) or payload.strip() != "online":
            return []
        return list(self._messages)
