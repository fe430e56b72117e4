"""Home Assistant MQTT discovery: one device per table, enough entities to run a game from HA.

Most entities read the retained `<prefix>/<table>/state` through a value_template,
so nothing extra is published per change; availability comes from
`<prefix>/<table>/status` (online/offline, the daemon's last will). Configs go out
retained on connect and again whenever Home Assistant announces `online` on
`<discovery>/status` (it restarted).

Templates render the text `None` where nothing applies: Home Assistant's MQTT
sensor, select and text platforms read exactly that payload as "unknown"
(homeassistant/components/mqtt/sensor.py `PAYLOAD_NONE`, select.py, text.py).

Two entities need more than a template:
- the decision select offers only the options of the pending decision, so its
  config is published again (a discovery update) whenever those options change;
- the game select and the identify select go through `<base>/cmd/ha/<what>`
  (the daemon ignores command names with a `/`): this output checks them against
  the last state (re-selecting the game being played does nothing; identify gets
  the pocket the referee asks about) and only then publishes the real command.
"""

import json
import re

from host.command_input import answer
from host.outputs.core import decode_object, decode_text
from shared_rules.rules.commands import FOUL_CODES
from shared_rules.rules.messages import refusal, vocabulary

GAMES = ["eight-ball", "nine-ball", "straight-pool"]
PHASES = ["idle", "break", "play", "decision", "over"]   # idle: no game yet
BALL_IN_HAND = ["none", "kitchen", "table"]
# Every option a rule can offer (CONTRACT section 2, "Decision options, by name").
DECISION_OPTIONS = ["accept", "rebreak", "rerack", "rerack_offender_breaks", "spot_eight",
                    "pass_back", "reshoot"]
# Every event kind the referee and the daemon publish on `<base>/event`; anything else is `other`.
EVENT_TYPES = ["pocketed", "foul", "turn", "over", "ball_in_hand", "call", "decision", "group",
               "push_out", "rerack", "respot", "safety", "shot", "undo", "warning", "camera", "other"]
# Fouls that need no more than their code (jumped_ball also needs the ball: phone page / MQTT).
HA_FOULS = [c for c in FOUL_CODES if c != "jumped_ball"]
BALLS = [str(b) for b in range(0, 16)]
MAX_STATE = 255       # Home Assistant refuses longer states


def node_id(table):
    """Discovery allows only [a-zA-Z0-9_-] in the node id."""
    return "billiards_" + re.sub(r"[^A-Za-z0-9_-]", "_", str(table))


def _player(i, field, empty):
    """Template for a player's field that still renders before the first game."""
    return ("{%% if value_json.players | length > %d %%}{{ value_json.players[%d].%s }}"
            "{%% else %%}%s{%% endif %%}" % (i, i, field, empty))


def _stat(i, field):
    """Template for one of a player's match statistics (None before the first game)."""
    return ("{%% if (value_json.get('stats') or []) | length > %d %%}{{ value_json.stats[%d].%s }}"
            "{%% else %%}None{%% endif %%}" % (i, i, field))


def _by_index(index_expr, empty="None"):
    """Template for the name of the player an index field points at, or `empty`."""
    return ("{%% if %s in [0, 1] and value_json.players | length > %s %%}"
            "{{ value_json.players[%s].name }}{%% else %%}%s{%% endif %%}"
            % (index_expr, index_expr, index_expr, empty))


def _field(expr):
    """Template for a state field that may be missing or null: its value, else None."""
    return "{%% set v = %s %%}{{ 'None' if v is none else v }}" % expr


# Match statistics per player: (field of state.stats, name, icon, state_class). The totals fall
# to 0 at a new match, which HA's total_increasing counts as a reset.
STATS = [("high_run", "high run", "mdi:trending-up", "measurement"),
         ("pocketed", "balls pocketed", "mdi:circle-double", "total_increasing"),
         ("fouls", "fouls in the match", "mdi:whistle-outline", "total_increasing")]
STAT_IDS = {"high_run": "high_run", "pocketed": "pocketed", "fouls": "fouls_total"}


def _stat_entities(i):
    n = i + 1
    return [("sensor", "%s%d" % (STAT_IDS[field], n),
             {"name": "Player %d %s" % (n, label), "icon": icon, "state_class": state_class,
              "value_template": _stat(i, field)})
            for field, label, icon, state_class in STATS]


def _player_entities(i):
    n = i + 1
    return [
        ("sensor", "player%d" % n, {
            "name": "Player %d" % n,
            "icon": "mdi:account",
            "value_template": _player(i, "name", "None"),
        }),
        ("sensor", "score%d" % n, {
            "name": "Player %d score" % n,
            "icon": "mdi:scoreboard",
            "state_class": "measurement",
            "value_template": _player(i, "score", "0"),
            "json_attributes_topic": "state",
            "json_attributes_template":
                "{%% if value_json.players | length > %d %%}"
                "{{ {'name': value_json.players[%d].name,"
                " 'group': value_json.players[%d].group} | tojson }}"
                "{%% else %%}{}{%% endif %%}" % (i, i, i),
        }),
        ("sensor", "fouls%d" % n, {
            "name": "Player %d consecutive fouls" % n,
            "icon": "mdi:alert-octagon",
            "state_class": "measurement",
            "value_template": _player(i, "fouls", "0"),
        }),
    ] + _stat_entities(i) + [
        ("sensor", "innings%d" % n, {
            "name": "Player %d innings" % n,
            "icon": "mdi:counter",
            "state_class": "measurement",
            "value_template": ("{%% set v = value_json.get('innings') or [] %%}"
                               "{{ v[%d] if v | length > %d else None }}" % (i, i)),
        }),
        ("text", "name%d" % n, {
            "name": "Player %d name" % n,
            "icon": "mdi:account-edit",
            "min": 0,          # HA's text entity has no unknown: "" before the first game
            "max": 32,
            "value_template": _player(i, "name", ""),
            "command": "rename",
            "command_template": '{"player": %d, "name": {{ value | tojson }}}' % i,
        }),
    ]


def _state_sensors():
    return [
        ("sensor", "shooter", {
            "name": "Shooter",
            "icon": "mdi:account-arrow-right",
            "value_template": _by_index("value_json.shooter"),
        }),
        ("sensor", "phase", {
            "name": "Game phase",
            "icon": "mdi:billiards",
            "device_class": "enum",
            "options": PHASES,
            "value_template": "{{ value_json.phase or 'idle' }}",
        }),
        ("sensor", "ball_in_hand", {
            "name": "Ball in hand",
            "icon": "mdi:hand-back-right",
            "device_class": "enum",
            "options": BALL_IN_HAND,
            "value_template": "{{ value_json.ball_in_hand or 'none' }}",
        }),
        ("sensor", "last_foul", {
            "name": "Last foul",
            "icon": "mdi:whistle",
            "value_template":
                "{% if value_json.get('last_foul') %}"
                + _by_index("value_json.last_foul.player", "?") +
                ": {{ value_json.last_foul.codes | join(', ') }}"
                "{% else %}None{% endif %}",
            "json_attributes_topic": "state",
            "json_attributes_template":
                "{% set f = value_json.get('last_foul') %}"
                "{% if f and f.player in [0, 1] and value_json.players | length > f.player %}"
                "{{ dict(f, player=value_json.players[f.player].name, player_index=f.player)"
                " | tojson }}{% else %}{}{% endif %}",
        }),
        ("sensor", "winner", {
            "name": "Match winner",
            "icon": "mdi:trophy",
            "value_template": _by_index("value_json.winner"),
        }),
        ("sensor", "game_winner", {
            "name": "Game winner",
            "icon": "mdi:trophy-outline",
            "value_template": _by_index("value_json.get('game_winner')"),
        }),
        ("sensor", "balls_left", {
            "name": "Balls on table",
            "icon": "mdi:circle-multiple",
            "state_class": "measurement",
            "value_template": "{{ value_json.on_table | length }}",
        }),
        ("sensor", "run", {
            "name": "Current run",
            "icon": "mdi:run-fast",
            "state_class": "measurement",
            "value_template": _field("value_json.get('run')"),
        }),
        ("sensor", "race_to", {
            "name": "Race to",
            "icon": "mdi:flag-checkered",
            # A handicapped match shows each player's race, "3/2" (race_to_each), as the pages do.
            "value_template":
                "{% set e = value_json.get('race_to_each') %}"
                "{% if not value_json.get('race_to') or value_json.game == 'straight-pool' %}None"
                "{% elif e and e | length == 2 and e[0] != e[1] %}{{ e[0] }}/{{ e[1] }}"
                "{% else %}{{ value_json.race_to }}{% endif %}",
        }),
        ("sensor", "target", {
            "name": "Target points",
            "icon": "mdi:bullseye-arrow",
            "value_template":
                "{{ value_json.target if value_json.get('target') and value_json.game == "
                "'straight-pool' else None }}",
        }),
        ("sensor", "rack", {
            "name": "Game number",
            "icon": "mdi:triangle-outline",
            "value_template": _field("value_json.get('rack')"),
        }),
        ("sensor", "match_score", {
            "name": "Match score",
            "icon": "mdi:scoreboard-outline",
            "value_template":
                "{% set m = value_json.get('match_score') %}"
                "{{ m | join('-') if m is sequence and m | length == 2 else None }}",
        }),
        ("sensor", "next_breaker", {
            "name": "Next rack breaks",
            "icon": "mdi:billiards-rack",
            "value_template":
                "{% set n = value_json.get('next_break') if value_json.get('between_racks') else none %}"
                "{% if n and n.player in [0, 1] and value_json.players | length > n.player %}"
                "{{ value_json.players[n.player].name }}{% elif n %}lag{% else %}None{% endif %}",
            "json_attributes_topic": "state",
            "json_attributes_template":
                "{{ ((value_json.get('next_break') if value_json.get('between_racks') else none) or {}) | tojson }}",
        }),
        ("binary_sensor", "between_racks", {
            "name": "Between racks",
            "icon": "mdi:timer-pause-outline",
            "value_template": "{{ 'ON' if value_json.get('between_racks') else 'OFF' }}",
            "payload_on": "ON",
            "payload_off": "OFF",
        }),
        ("binary_sensor", "hill_hill", {
            "name": "Hill-hill",
            "icon": "mdi:image-filter-hdr",
            "value_template": "{{ 'ON' if value_json.get('hill_hill') else 'OFF' }}",
            "payload_on": "ON",
            "payload_off": "OFF",
        }),
        ("sensor", "needs", {
            "name": "Referee needs",
            "icon": "mdi:help-circle",
            "value_template":
                "{% set n = value_json.get('needs') or [] %}"
                "{{ (n | map(attribute='text') | map(attribute='en') | join('; '))[:255]"
                " if n else None }}",
            "json_attributes_topic": "state",
            "json_attributes_template": "{{ {'needs': value_json.get('needs') or []} | tojson }}",
        }),
        ("sensor", "decision_by", {
            "name": "Decision by",
            "icon": "mdi:account-question",
            "value_template":
                "{% set d = value_json.get('decision') %}"
                "{% if d %}" + _by_index("d.player") + "{% else %}None{% endif %}",
            "json_attributes_topic": "state",
            "json_attributes_template":
                "{{ {'options': (value_json.get('decision') or {}).get('options', [])} | tojson }}",
        }),
        ("sensor", "warning", {
            "name": "Warning",
            "icon": "mdi:alert",
            "value_template":
                "{% set w = value_json.get('warning') %}"
                "{{ w.text.en[:255] if w and w.text else None }}",
        }),
        ("sensor", "called_ball", {
            "name": "Called ball",
            "icon": "mdi:numeric",
            "value_template": _field("(value_json.get('called') or {}).get('ball')"),
        }),
        ("sensor", "called_pocket", {
            "name": "Called pocket",
            "icon": "mdi:tray-arrow-down",
            "value_template": _field("(value_json.get('called') or {}).get('pocket')"),
        }),
        ("sensor", "shot_clock", {
            "name": "Shot clock ends",
            "icon": "mdi:timer-sand",
            "device_class": "timestamp",
            "value_template":
                "{% set c = value_json.get('shot_clock') %}"
                "{% if c is mapping and c.started_wall is number %}"
                "{{ (c.started_wall + c.limit_s) | timestamp_custom('%Y-%m-%dT%H:%M:%S+00:00', false) }}"
                "{% else %}None{% endif %}",
        }),
        ("sensor", "shot_clock_limit", {
            "name": "Shot clock limit",
            "icon": "mdi:timer-cog",
            "device_class": "duration",
            "unit_of_measurement": "s",
            "entity_category": "diagnostic",
            "value_template":
                "{% set c = value_json.get('shot_clock') %}"
                "{{ c.limit_s if c is mapping else ((value_json.get('settings') or {}).get('shot_clock') or None) }}",
        }),
        ("binary_sensor", "link", {
            "name": "Sensor link",
            "device_class": "connectivity",
            "entity_category": "diagnostic",
            "value_template":
                "{{ 'ON' if (value_json.get('link') or {}).get('state') == 'up' else 'OFF' }}",
            "payload_on": "ON",
            "payload_off": "OFF",
        }),
    ]


def _controls():
    return [
        ("sensor", "last_result", {
            "name": "Last command result",
            "icon": "mdi:message-reply-text",
            "state_topic": "cmd/result",
            "value_template":
                "{% set t = value_json.get('text') %}"
                "{{ 'ok' if value_json.ok else (((t.en if t is mapping and t.en else none) or value_json.error"
                " or 'refused') | string)[:255] }}",
            "json_attributes_topic": "cmd/result",
            "json_attributes_template": "{{ value_json | tojson }}",
        }),
        ("event", "events", {
            "name": "Game events",
            "icon": "mdi:bullhorn",
            "state_topic": "event",
            "event_types": EVENT_TYPES,
            "value_template":
                "{% set k = value_json.event if value_json.event in " + json.dumps(EVENT_TYPES)
                + " else 'other' %}"
                "{{ dict(value_json, event_type=k, text=(value_json.text or {}).get('en'),"
                " text_ru=(value_json.text or {}).get('ru')) | tojson }}",
        }),
        ("select", "game", {
            "name": "Game",
            "icon": "mdi:billiards-rack",
            "options": GAMES,
            "value_template": "{{ value_json.game or 'None' }}",
            "command_template": '{"game": "{{ value }}"}',
            "command": "ha/game",
        }),
        ("select", "decision", {      # options and config re-published per decision
            "name": "Decision",
            "icon": "mdi:call-split",
            "options": DECISION_OPTIONS,
            "value_template": "{{ None }}",
            "command_template": '{"option": "{{ value }}"}',
            "command": "choose",
        }),
        ("select", "foul", {
            "name": "Enter a foul",
            "icon": "mdi:whistle",
            "options": HA_FOULS,
            "value_template": "{{ None }}",
            "command_template": '{"code": "{{ value }}"}',
            "command": "foul",
        }),
        ("select", "identify", {
            "name": "Identify the pocketed ball",
            "icon": "mdi:help-circle-outline",
            "options": BALLS,
            "value_template": "{{ None }}",
            "command_template": '{"ball": {{ value }}}',
            "command": "ha/identify",
        }),
        ("button", "new_game", {
            "name": "New game",
            "icon": "mdi:restart",
            "payload_press": "{}",
            "command": "new_game",
        }),
        ("button", "next_rack", {
            "name": "Next rack",
            "icon": "mdi:skip-next",
            "payload_press": "{}",
            "command": "next_rack",
        }),
        ("button", "undo", {
            "name": "Undo last shot",
            "icon": "mdi:undo",
            "payload_press": "{}",
            "command": "undo",
        }),
        ("button", "legal_break", {
            "name": "Rule the break legal",
            "icon": "mdi:check-decagram",
            "payload_press": "{}",
            "command": "legal_break",
        }),
        ("button", "safety", {
            "name": "Call safety",
            "icon": "mdi:shield-half-full",
            "payload_press": "{}",
            "command": "safety",
        }),
        ("button", "push_out", {
            "name": "Call push-out",
            "icon": "mdi:arrow-expand-right",
            "payload_press": "{}",
            "command": "push_out",
        }),
    ]


CAMERA_STATES = ["none", "online", "offline", "fault"]      # none: the table has no camera
_LAST_SEEN = "{% set l = (value_json.get('camera') or {}).get('last_shot') %}"


def _camera_entities():
    """The overhead camera (issue 18, state.camera): its health, and the last shot as it saw it."""
    return [
        ("sensor", "camera", {
            "name": "Camera",
            "icon": "mdi:cctv",
            "device_class": "enum",
            "options": CAMERA_STATES,
            "entity_category": "diagnostic",
            "value_template": "{{ (value_json.get('camera') or {}).get('state') or 'none' }}",
            "json_attributes_topic": "state",
            "json_attributes_template":
                "{% set c = value_json.get('camera') or {} %}"
                "{{ {'faults': c.get('faults') or [], 'waiting': c.get('waiting') or false,"
                " 'table_mm': c.get('table_mm')} | tojson }}",
        }),
        ("binary_sensor", "camera_fault", {
            "name": "Camera fault",
            "device_class": "problem",
            "entity_category": "diagnostic",
            "value_template": "{{ 'ON' if (value_json.get('camera') or {}).get('state') == 'fault' else 'OFF' }}",
            "payload_on": "ON",
            "payload_off": "OFF",
        }),
        ("sensor", "first_contact", {
            "name": "First ball hit (camera)",
            "icon": "mdi:billiards",
            "value_template":
                _LAST_SEEN + "{% set f = l.first_contact if l else none %}"
                "{% if f %}{{ 'no contact' if f.ball is none else f.ball }}{% else %}None{% endif %}",
            "json_attributes_topic": "state",
            "json_attributes_template": _LAST_SEEN + "{{ (l or {}) | tojson }}",
        }),
        ("sensor", "railed_after_contact", {
            "name": "Balls at a cushion after contact (camera)",
            "icon": "mdi:vector-polyline",
            "value_template":
                _LAST_SEEN + "{% set r = l.railed if l else none %}"
                "{% if r %}{{ r.balls | join(', ') if r.balls else 'none' }}{% else %}None{% endif %}",
            "json_attributes_topic": "state",
            "json_attributes_template":
                _LAST_SEEN + "{{ {'confidence': ((l or {}).get('railed') or {}).get('confidence') or {}} | tojson }}",
        }),
    ]


def entities():
    """(component, object_id, fields) for every entity; topics are added by `configs`.

    `command` names the command topic under `<base>/cmd/`; `state_topic` and
    `json_attributes_topic`, when given, are relative to `<base>/` (default: state).
    """
    return _player_entities(0) + _player_entities(1) + _state_sensors() + _controls() + _camera_entities()


def board_version(hello):
    """`pico-t1 (firmware 1.0)` from the board's HELLO journal entry (host/link/session.py), or None."""
    if not isinstance(hello, dict):
        return None
    fw = hello.get("fw")
    name = str(hello.get("name") or "board")
    if isinstance(fw, (list, tuple)) and len(fw) == 2:
        return "%s (firmware %s.%s)" % (name, fw[0], fw[1])
    return name


def device_info(table, sw_version, device_name=None, configuration_url=None, hw_version=None):
    node = node_id(table)
    device = {
        "identifiers": [node],
        "name": device_name or "Pool table %s" % table,
        "manufacturer": "billiards-referee",
        "model": "Smart pool table referee",
        "sw_version": sw_version,
        "serial_number": str(table),
    }
    if configuration_url:
        device["configuration_url"] = configuration_url
    if hw_version:
        device["hw_version"] = hw_version       # the board and its firmware, once it said HELLO
    return device


def _status_availability(base):
    return {"topic": base + "/status", "payload_available": "online",
            "payload_not_available": "offline"}


def configs(table, prefix="billiards", discovery_prefix="homeassistant",
            sw_version="0.1.0", device_name=None, configuration_url=None, decision_options=None,
            hw_version=None):
    """[(topic, config dict)] for every entity of the table.

    decision_options: the options of the pending decision (None: none pending, the
    select is unavailable and lists every option a rule can offer)."""
    base = "%s/%s" % (prefix, table)
    node = node_id(table)
    device = device_info(table, sw_version, device_name, configuration_url, hw_version)
    out = []
    for component, obj, fields in entities():
        cfg = {}
        for key, value in fields.items():
            if key == "command":
                cfg["command_topic"] = "%s/cmd/%s" % (base, value)
            elif key in ("json_attributes_topic", "state_topic"):
                cfg[key] = "%s/%s" % (base, value)
            else:
                cfg[key] = value
        if component != "button" and "state_topic" not in cfg:
            cfg["state_topic"] = base + "/state"
        cfg["unique_id"] = "%s_%s" % (node, obj)
        if obj == "decision":
            if decision_options:
                cfg["options"] = list(decision_options)
            # Unavailable unless the daemon is online AND a decision is pending.
            cfg["availability"] = [
                _status_availability(base),
                {"topic": base + "/state", "payload_available": "online",
                 "payload_not_available": "offline",
                 "value_template": "{{ 'online' if value_json.get('decision') else 'offline' }}"},
            ]
            cfg["availability_mode"] = "all"
        else:
            cfg["availability_topic"] = base + "/status"
            cfg["payload_available"] = "online"
            cfg["payload_not_available"] = "offline"
        cfg["device"] = device
        cfg["origin"] = {"name": "billiards-referee", "sw_version": sw_version}
        topic = "%s/%s/%s/%s/config" % (discovery_prefix, component, node, obj)
        out.append((topic, cfg))
    return out


class HADiscovery:
    """Output that announces the table to Home Assistant and relays its game and identify selects."""

    def __init__(self, table, prefix="billiards", discovery_prefix="homeassistant",
                 sw_version="0.1.0", device_name=None, configuration_url=None):
        self.discovery_prefix = discovery_prefix
        self.base = "%s/%s" % (prefix, table)
        self._args = (table, prefix, discovery_prefix, sw_version, device_name, configuration_url)
        self.decision_options = None
        self.state = None
        self.board_info = None      # callable -> the board's HELLO entry (set by the daemon's shell)
        self.hw_version = None
        self._dumped = {}           # topic -> the config JSON last published

    def _messages(self, only_changed=False):
        out = []
        for topic, cfg in configs(*self._args, decision_options=self.decision_options,
                                  hw_version=self.hw_version):
            text = json.dumps(cfg, ensure_ascii=False)
            if only_changed and self._dumped.get(topic) == text:
                continue
            self._dumped[topic] = text
            out.append((topic, text, True))
        return out

    def on_connect(self):
        return self._messages()

    def on_change(self, state, events):
        self.state = state
        d = state.get("decision") if isinstance(state, dict) else None
        options = tuple(d.get("options") or ()) if isinstance(d, dict) else ()
        options = options or None
        hw = board_version(self.board_info()) if self.board_info is not None else None
        hw = hw or self.hw_version          # keep the last board known while the link is down
        if options == self.decision_options and hw == self.hw_version:
            return []
        self.decision_options = options
        self.hw_version = hw
        return self._messages(only_changed=True)

    def subscriptions(self):
        return [self.discovery_prefix + "/status", self.base + "/cmd/ha/+"]

    def on_message(self, topic, payload):
        if topic == self.discovery_prefix + "/status":
            text = decode_text(payload)
            if text is None or text.strip() != "online":
                return []
            return self._messages()
        if topic == self.base + "/cmd/ha/game":
            return self._select_game(decode_object(payload) or {})
        if topic == self.base + "/cmd/ha/identify":
            return self._identify(decode_object(payload) or {})
        return []

    def _result(self, cmd, code, en_args=(), ru_args=None):
        """A refusal on `cmd/result` like the daemon's own: `error`, the stable `code` and the
        text in each language (rules/messages.py `refused.<code>`)."""
        res = answer(cmd, refusal(code, en_args, ru_args))
        return [(self.base + "/cmd/result", json.dumps(res, ensure_ascii=False), False)]

    def _command(self, name, body):
        return [(self.base + "/cmd/" + name, json.dumps(body, ensure_ascii=False), False)]

    def _select_game(self, body):
        """A new game of another kind; the game being played is never restarted from the select."""
        game = body.get("game")
        current = (self.state or {}).get("game")
        if game not in GAMES:
            return self._result("new_game", "host.ha_unknown_game", (repr(game)[:40],))
        if game == current:
            names = vocabulary()["games"][game]
            return self._result("new_game", "host.ha_game_playing", (game,), (names["ru"],))
        return self._command("new_game", {"game": game})

    def _identify(self, body):
        """The ball the referee asked about, with the pocket it asked about (from `needs`)."""
        needs = [n for n in (self.state or {}).get("needs") or ()
                 if isinstance(n, dict) and n.get("cmd") == "identify"]
        if not needs:
            return self._result("identify", "host.ha_nothing_to_identify")
        return self._command("identify", {"ball": body.get("ball"), "pocket": needs[0].get("pocket")})
