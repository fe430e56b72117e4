"""The venue seen from one daemon: every table on the broker, and this table's own card.

`TableInfo` publishes a retained `<prefix>/<table>/info` ({"table", "name", "url",
"play", "version"}) so that any page can link to a table's TV and phone pages.
`VenueWatch` reads the retained `<prefix>/+/state`, `+/status`, `+/info` and `+/match`
of every table through the daemon's own MQTT connection into a `Venue`, which the
HTTP thread reads for /venue.
"""
import json
import threading

from host.outputs.core import QuietOutput, decode_object, decode_text


class TableInfo(QuietOutput):
    def __init__(self, table, prefix="billiards", name=None, url=None, version=None):
        self.topic = "%s/%s/info" % (prefix, table)
        info = {"table": table, "name": name or "Pool table %s" % table, "url": url,
                "play": (url.rstrip("/") + "/play") if url else None,     # read-only without the token
                "version": version}
        self.payload = json.dumps(info, sort_keys=True, ensure_ascii=False)

    def on_connect(self):
        return [(self.topic, self.payload, True)]


class Venue:
    """{table: {"state", "status", "info", "match"}}, thread-safe; at most MAX_TABLES tables, so a
    client inventing table ids cannot fill the daemon's memory."""

    KINDS = ("state", "status", "info", "match")
    MAX_TABLES = 256
    MAX_PAYLOAD = 256 * 1024

    def __init__(self):
        self._lock = threading.Lock()
        self._tables = {}

    def put(self, table, kind, value):
        with self._lock:
            if table not in self._tables and len(self._tables) >= self.MAX_TABLES:
                return
            t = self._tables.setdefault(table, {k: None for k in self.KINDS})
            t[kind] = value

    def tables(self):
        with self._lock:
            return {t: dict(v) for t, v in sorted(self._tables.items())}


def _decode(kind, payload):
    if kind == "status":
        text = decode_text(payload)
        return text.strip()[:32] if text is not None else None
    return decode_object(payload)


class VenueWatch(QuietOutput):
    def __init__(self, venue, prefix="billiards"):
        self.venue = venue
        self.prefix = prefix

    def subscriptions(self):
        return ["%s/+/%s" % (self.prefix, k) for k in Venue.KINDS]

    def on_message(self, topic, payload):
        parts = topic.split("/")
        if payload is not None and len(payload) > Venue.MAX_PAYLOAD:
            return []
        if len(parts) == 3 and parts[0] == self.prefix and parts[2] in Venue.KINDS:
            value = _decode(parts[2], payload)
            if value is not None or not payload:    # an empty retained message clears it
                self.venue.put(parts[1], parts[2], value)
        return []
