"""Home Assistant discovery of the venue device: its current and next tournament matches.

The same conventions as the tables' devices (host/outputs/ha_discovery.py): one device,
retained configs sent on connect and whenever Home Assistant says `online` on
`homeassistant/status`, entities that read one retained topic (`billiards-venue/<venue>/now`)
through templates, and availability from the service's own status (its last will says
`offline`). States stay under Home Assistant's 255 characters; the lists are attributes.
"""
import json
import re

from host.outputs import _version


def node_id(venue):
    return "billiards_venue_" + re.sub(r"[^A-Za-z0-9_-]", "_", str(venue))


# 't1: Anna v Bob' (the table, when it has one).
LINE = "{{ (m.table ~ ': ') if m.table else '' }}{{ m.players | join(' v ') }}"


# (component/object, name, icon, template over value_json of …/now, attribute template)
ENTITIES = [
    ("sensor", "current", "Matches on tables", "mdi:billiards",
     "{% set l = value_json.current %}{% if l %}{% for m in l %}" + LINE +
     "{{ ' · ' if not loop.last }}{% endfor %}{% else %}None{% endif %}",
     "{{ {'matches': value_json.current} | tojson }}"),
    ("sensor", "next", "Next match", "mdi:account-clock",
     "{% set l = value_json.next %}{% if l %}{% set m = l[0] %}{{ m.players | join(' v ') }} "
     "({{ m.name }}, {{ m.label }}){% else %}None{% endif %}",
     "{{ {'matches': value_json.next} | tojson }}"),
    ("sensor", "playing", "Tables playing", "mdi:table-furniture",
     "{{ value_json.current | length }}", None),
]


def configs(venue, base, discovery_prefix="homeassistant", name=None, url=None):
    """[(topic, config)] of the venue device's entities."""
    node = node_id(venue)
    device = {"identifiers": [node], "name": name or "Pool venue %s" % venue,
              "manufacturer": "billiards-referee", "model": "Venue tournament service",
              "sw_version": _version()}
    if url:
        device["configuration_url"] = url
    out = []
    for component, obj, title, icon, tmpl, attrs in ENTITIES:
        cfg = {"name": title, "unique_id": "%s_%s" % (node, obj), "object_id": "%s_%s" % (node, obj),
               "icon": icon, "state_topic": base + "/now", "value_template": tmpl,
               "availability_topic": base + "/status", "device": device,
               "origin": {"name": "billiards-referee", "sw_version": _version()}}
        if obj == "playing":
            cfg["state_class"] = "measurement"
        if attrs:
            cfg["json_attributes_topic"] = base + "/now"
            cfg["json_attributes_template"] = attrs
        out.append(("%s/%s/%s/%s/config" % (discovery_prefix, component, node, obj), cfg))
    return out


def messages(venue, base, discovery_prefix="homeassistant", name=None, url=None):
    return [(topic, json.dumps(cfg, ensure_ascii=False), True)
            for topic, cfg in configs(venue, base, discovery_prefix, name, url)]
