"""The daemon's one stream out: each new table state with the events that made it, to every output.

Outputs (host/outputs/*) turn (state, events) into MQTT messages; listeners (the TV page, the
match recorder) take them in-process. Nothing is sent when neither the state nor the events
changed. Faults that come or go are logged here, once, where every state passes.
"""
import json
import logging

log = logging.getLogger("billiards")


class Stream:
    def __init__(self, outputs):
        self.outputs = outputs          # the daemon's list: callers may append to it
        self.listeners = []             # callables(state, events)
        self.mqtt = None                # an MqttShell, once attached
        self.state = None

    def publish(self, messages):
        if self.mqtt is not None and messages:
            self.mqtt.publish(messages)

    def send(self, state, events, force=False):
        """Announce `state` (and `events`) if anything changed; True if it was announced."""
        if not force and not events and state == self.state:
            return False
        if self.state is not None and state.get("faults") != self.state.get("faults"):
            log_faults(self.state, state)
        self.state = state
        self.tell_outputs(state, events)
        for cb in self.listeners:
            try:
                cb(state, events)
            except Exception as e:
                log.exception("listener failed: %s", e)
        return True

    def tell_outputs(self, state, events):
        """Events outside a change of state (a shot clock running out) go only to the outputs."""
        out = []
        for o in self.outputs:
            out.extend(o.on_change(state, events))
        self.publish(out)

    def on_connect(self):
        out = []
        for o in self.outputs:
            out.extend(o.on_connect())
        self.publish(out)

    def on_message(self, topic, payload):
        """Messages the outputs answer (Home Assistant's selects...): what they return."""
        out = []
        for o in self.outputs:
            try:
                out.extend(o.on_message(topic, payload))
            except Exception:   # a hostile message costs that output one message, not the table
                log.exception("output %s failed on a message on %s", type(o).__name__, topic[:200])
        return out

    def subscriptions(self):
        subs = []
        for o in self.outputs:
            subs.extend(o.subscriptions())
        return subs

    def will(self, default):
        for o in self.outputs:
            w = getattr(o, "will", None)
            if w is not None:
                return w()
        return default

    def stop(self):
        """Clean stop: what the outputs say last (status offline), then the MQTT client goes."""
        if self.mqtt is None:
            return
        last = []
        for o in self.outputs:
            stop = getattr(o, "on_stop", None)
            if stop is not None:
                last.extend(stop())
        self.mqtt.stop(last)


def log_faults(old, new):
    """One line per fault that comes or goes (the journal's own is logged where it happens)."""
    def lines(s):
        return [json.dumps(f, sort_keys=True) for f in (s or {}).get("faults") or []
                if f.get("what") != "journal"]
    before, after = lines(old), lines(new)
    for f in after:
        if f not in before:
            log.warning("fault: %s", f)
    for f in before:
        if f not in after:
            log.info("fault cleared: %s", f)
