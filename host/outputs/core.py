"""`…/status`, `…/state` and `…/event` of CONTRACT section 2 (pure: returns messages)."""
import json

from host.command_input import nesting_depth


def decode_text(payload):
    """An MQTT payload as text, or None if it is not UTF-8."""
    if isinstance(payload, (bytes, bytearray)):
        try:
            return payload.decode("utf-8")
        except UnicodeDecodeError:
            return None
    return payload if isinstance(payload, str) else None


def decode_object(payload):
    """An MQTT payload holding a JSON object, as a dict; None for anything else."""
    text = decode_text(payload)
    if text and nesting_depth(text) > 32:      # json.loads recurses: a deep payload would raise
        return None
    try:
        value = json.loads(text) if text else None
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


class QuietOutput:
    """An output that says nothing unless a subclass overrides a method."""

    def on_connect(self):
        return []

    def on_change(self, state, events):
        return []

    def subscriptions(self):
        return []

    def on_message(self, topic, payload):
        return []


def dumps(obj):
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False, sort_keys=True)


class CoreOutput:
    """Status (retained, last will `offline`), retained state after every change, one message per event."""

    def __init__(self, table, prefix="billiards"):
        self.base = prefix + "/" + table
        self.status_topic = self.base + "/status"
        self.state_topic = self.base + "/state"
        self.event_topic = self.base + "/event"

    def will(self):
        """(topic, payload, retain) the broker publishes if the daemon vanishes."""
        return (self.status_topic, "offline", True)

    def on_connect(self):
        return [(self.status_topic, "online", True)]

    def on_change(self, state, events):
        out = [(self.state_topic, dumps(state), True)]
        for e in events or ():
            out.append((self.event_topic, dumps(e), False))
        return out

    def on_stop(self):
        return [(self.status_topic, "offline", True)]

    def subscriptions(self):
        return []

    def on_message(self, topic, payload):
        return []
