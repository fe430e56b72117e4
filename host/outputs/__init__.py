"""People-facing outputs: small objects of pure methods that turn state and events into MQTT messages.

Each output has `on_connect()`, `on_change(state, events)`, `subscriptions()`
and `on_message(topic, payload)`, all returning lists of
`(topic, payload_str, retain)`; optionally `on_stop()` (clean shutdown) and
`will()` (the MQTT last will). The daemon's MQTT shell publishes what they return.
"""
from host.outputs.core import CoreOutput


def build_outputs(table, prefix="billiards", options=None):
    """The outputs for one table. `options` (dict) is for the outputs that take settings.

    Hook: the display, Home Assistant discovery, AWTRIX and shot-clock outputs
    are appended here when they are wired in.
    """
    options = options or {}
    outputs = [CoreOutput(table, prefix)]
    return outputs
