"""What other threads hand the daemon's loop (MQTT messages, the phone page's commands): bounded.

A client on the bar's network must not be able to stop the referee reading the board. So:
- commands are rate-limited per table, whatever path they take (MQTT, HTTP, Home Assistant),
  by two token buckets: one per command name (a flood of `safety` drains only `safety`'s, so
  a player's `rename` or `undo` still gets through) and one for the whole table (a flood of
  every name is bounded too). A command over either is refused before it is queued and
  answered "too many commands", with its id when it has one (at most ANSWERS_PER_S such
  answers a second: a flood is not answered one for one);
- the queue holds at most `max_items` messages; past that, messages are dropped and counted
  (control items — connected, stop — always get in);
- the loop takes at most PER_STEP items between two reads of the board (daemon.py).
MQTT carries no sender identity, so fairness between clients is by command name only.
"""
import collections
import json
import threading
import time

from host.command_input import answer
from host.web.access import RateLimiter
from shared_rules.rules.messages import refusal

ANSWERS_PER_S = 20
CONTROL = ("connected", "disconnected", "mqtt_error", "mqtt_unreachable", "stop")
NAMES_KEPT = 64             # command names with a bucket of their own (the oldest idle go first)
ID_SCAN = 2048              # bytes of a refused payload searched for its "id"


class CommandBudget:
    """Two token buckets: per command name, then per table; thread-safe."""

    def __init__(self, rate, burst, per_name_rate, per_name_burst, clock=time.monotonic):
        self.rate = rate
        self.table = RateLimiter(rate=rate, burst=burst, max_clients=1, clock=clock)
        self.names = RateLimiter(rate=per_name_rate, burst=per_name_burst, max_clients=NAMES_KEPT, clock=clock)

    def allow(self, name):
        return self.names.allow(name) and self.table.allow("table")


class Inbox:
    """A bounded queue with a per-table command budget; `put` never blocks."""

    def __init__(self, command_prefix, rate=20.0, burst=60, per_name_rate=5.0, per_name_burst=20,
                 max_items=500, clock=time.monotonic):
        self.command_prefix = command_prefix        # "<prefix>/<table>/cmd/"
        self.max_items = max_items
        self.budget = CommandBudget(rate, burst, per_name_rate, per_name_burst, clock)
        self.answers = RateLimiter(rate=ANSWERS_PER_S, burst=ANSWERS_PER_S, max_clients=1, clock=clock)
        self._items = collections.deque()
        self._lock = threading.Lock()
        self.dropped = 0                 # messages dropped because the queue was full
        self.refused = 0                 # commands refused by the budget
        self._owed = collections.deque()     # (name, id) of refused commands still to answer

    # --- the producers' side (any thread) -------------------------------------

    def put(self, item):
        """Queue an item from another thread; False if it was refused or dropped."""
        kind, data = item
        if kind == "message" and self.is_command(data[0]):
            name = data[0][len(self.command_prefix):]
            if name == "result":
                return False        # the daemon's own answers, heard back through `cmd/+`
            if not self.budget.allow(name):
                self._refuse(name, data[1])
                return False
            item = ("charged_message", data)
        elif kind == "command":
            name, payload, box = data
            if not self.budget.allow(name):
                self._refuse(name, None)
                box["result"] = self.refusal(name, command_id(payload))
                box["done"].set()
                return False
        with self._lock:
            if kind not in CONTROL and len(self._items) >= self.max_items:
                self.dropped += 1
                return False
            self._items.append(item)
        return True

    def allow(self, name, payload=None):
        """Spend one command of the budget (a command that did not come through `put`)."""
        if self.budget.allow(name):
            return True
        self._refuse(name, payload)
        return False

    def is_command(self, topic):
        return isinstance(topic, str) and topic.startswith(self.command_prefix)

    def _refuse(self, name, payload):
        """Count a refusal; owe it an answer while answers are within their own budget."""
        with self._lock:
            self.refused += 1
        if payload is not None and self.answers.allow("table"):
            with self._lock:
                self._owed.append((name, command_id(payload)))

    def refusal(self, name, cid=None):
        """The answer to a command over the budget (CONTRACT section 2, `cmd/result`)."""
        return answer(name, refusal("host.too_many", ("%g" % self.budget.rate,)), cid)

    # --- the loop's side -----------------------------------------------------------

    def get_nowait(self):
        """The oldest item, or None."""
        with self._lock:
            return self._items.popleft() if self._items else None

    def __len__(self):
        return len(self._items)

    def refusals_due(self):
        """The "too many commands" answers owed now."""
        with self._lock:
            owed, self._owed = list(self._owed), collections.deque()
        return [self.refusal(name, cid) for name, cid in owed]


def command_id(payload):
    """The "id" of a command payload, if it is a small JSON object that has one; else None."""
    if isinstance(payload, dict):
        cid = payload.get("id")
    else:
        if isinstance(payload, (bytes, bytearray)):
            payload = bytes(payload[:ID_SCAN]).decode("utf-8", "replace")
        if not isinstance(payload, str) or len(payload) >= ID_SCAN or '"id"' not in payload:
            return None
        try:
            body = json.loads(payload)
        except (ValueError, RecursionError):
            return None
        cid = body.get("id") if isinstance(body, dict) else None
    return cid if isinstance(cid, (str, int)) and not isinstance(cid, bool) and len(str(cid)) <= 64 else None
