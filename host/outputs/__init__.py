"""People-facing outputs: small objects of pure methods that turn state and events into MQTT messages.

Each output has `on_connect()`, `on_change(state, events)`, `subscriptions()`
and `on_message(topic, payload)`, all returning lists of
`(topic, payload_str, retain)`; optionally `on_stop()` (clean shutdown) and
`will()` (the MQTT last will). The daemon's MQTT shell publishes what they return.
"""
from host.outputs.core import CoreOutput
from host.outputs.display import DisplayOutput
from host.outputs.ha_discovery import HADiscovery


def _version():
    try:
        from importlib.metadata import version
        return version("billiards-referee")
    except Exception:
        return "0.1.0"


def build_outputs(table, prefix="billiards", options=None):
    """The outputs for one table. options: lang ("en"/"ru"), discovery_prefix (None turns Home
    Assistant discovery off), awtrix (an AWTRIX 3 topic prefix, or None), device_name (the
    table's name in Home Assistant), configuration_url (the TV page, when it is served), venue (a
    host.outputs.venue.Venue: publish this table's `info` and watch every table for /venue)."""
    options = options or {}
    lang = options.get("lang") or "en"
    outputs = [CoreOutput(table, prefix), DisplayOutput(table, prefix, lang=lang)]
    disc = options.get("discovery_prefix", "homeassistant")
    if disc:
        outputs.append(HADiscovery(table, prefix, discovery_prefix=disc, sw_version=_version(),
                                   device_name=options.get("device_name"),
                                   configuration_url=options.get("configuration_url")))
    if options.get("venue") is not None:
        from host.outputs.venue import TableInfo, VenueWatch
        outputs.append(TableInfo(table, prefix, name=options.get("device_name"),
                                 url=options.get("configuration_url"), version=_version()))
        outputs.append(VenueWatch(options["venue"], prefix))
    if options.get("awtrix"):
        from host.outputs.awtrix import AwtrixOutput
        outputs.append(AwtrixOutput(awtrix_prefix=options["awtrix"], lang=lang))
    return outputs
