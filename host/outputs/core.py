"""`…/status`, `…/state` and `…/event` of CONTRACT section 2 (pure: returns messages)."""
import json


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
