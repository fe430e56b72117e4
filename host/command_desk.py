"""The command desk: where every command to the table is checked, judged, recorded and answered.

Commands come from MQTT (`<base>/cmd/<name>`), the phone page (HTTP, through the inbox), Home
Assistant's controls (an output asking for a command) and the daemon itself (the first game,
the automatic end of a shot). On the daemon's thread, each is checked (name and payload,
host/command_input.py), judged and recorded (host/recorded.py: disk before memory), the
change announced (`changed`), and answered on `<base>/cmd/result` with its stable code and
its text in each language when refused (CONTRACT section 2).
"""
import json
import logging
import threading
import time

from host.command_input import answer, check_name, read_command
from shared_rules.rules.messages import refusal

log = logging.getLogger("billiards")


class CommandDesk:
    def __init__(self, base, recorded, link, stream, inbox, changed, clock=time.monotonic):
        self.base = base
        self.prefix = base + "/cmd/"
        self.recorded = recorded
        self.link = link
        self.stream = stream
        self.inbox = inbox
        self.changed = changed          # callable(events): announce the table as it is now
        self.clock = clock
        self.counts = {"commands": 0, "refused": 0}

    def run(self, name, body):
        """Judge and record a checked command; announce what it changed. The referee's answer."""
        now = self.clock()
        entry = {"src": "cmd", "cmd": name, "body": body,
                 "t_us": self.link.board_time(now), "wall": time.time()}
        self.counts["commands"] += 1
        res = self.recorded.command(entry, self.link)
        if res.get("ok"):
            self.changed(res.get("events") or [])
        else:
            self.counts["refused"] += 1
            if self.recorded.fault is not None:
                self.changed([])
        return res

    def submit(self, name, payload):
        """The one way in for a command from any source, on the daemon's thread: checked, judged,
        journaled, answered on …/cmd/result; never raises.

        `payload` is the raw body (bytes or text, as MQTT gives it) or a dict. The answer is
        {"cmd", "ok", "error", "id"}, and on a refusal its stable "code" and its "text" in
        each language (CONTRACT section 2)."""
        cid = None
        if check_name(name) is not None:
            res = refusal("host.bad_name")
            name = str(name).encode("utf-8", "replace").decode("utf-8")[:64]
        else:
            body, cid, err = read_command(payload)
            res = refusal("host.bad_payload", (err,)) if err is not None else self._run_safely(name, body)
        if res.get("code") in ("host.bad_name", "host.bad_payload"):     # never reached the referee
            self.counts["commands"] += 1
            self.counts["refused"] += 1
        result = answer(name, res, cid)
        self.publish_answers([result])
        return result

    def _run_safely(self, name, body):
        try:
            return self.run(name, body)
        except Exception as e:    # a bug must cost one command, not the table
            log.exception("command %s failed", name)
            return refusal("host.internal", (e,))

    def publish_answers(self, answers):
        try:
            self.stream.publish([(self.prefix + "result", json.dumps(a), False) for a in answers])
        except Exception:
            log.exception("could not publish the answers %s", [a.get("cmd") for a in answers])

    def request(self, name, payload, timeout=5.0):
        """From another thread (the phone page's HTTP server): queue the command for the daemon's
        thread, which alone touches the referee, and wait for its answer; None on timeout."""
        box = {"done": threading.Event(), "result": None}
        self.inbox.put(("command", (name, payload, box)))
        if not box["done"].wait(timeout):
            return None
        return box["result"]

    def answer_request(self, data):
        """A queued `request` on the daemon's thread."""
        name, payload, box = data
        try:
            box["result"] = self.submit(name, payload)
        finally:
            box["done"].set()

    # --- MQTT ------------------------------------------------------------------

    def command_topic(self, topic):
        """The command a topic names (`<base>/cmd/<name>`, one level), or None."""
        if not topic.startswith(self.prefix):
            return None
        name = topic[len(self.prefix):]
        return name if "/" not in name else None

    def on_message(self, topic, payload):
        """A message the daemon subscribed to: a command, or one for the outputs, which may ask
        for a command in turn (e.g. Home Assistant's game select): it is run here, like one from
        MQTT and on the same budget, not published."""
        name = self.command_topic(topic)
        if name == "result":
            return
        if name is not None:
            self.submit(name, payload)
            return
        rest = []
        for m in self.stream.on_message(topic, payload):
            name = self.command_topic(m[0])
            if name and name != "result":
                if self.inbox.allow(name, m[1]):
                    self.submit(name, m[1])
            else:
                rest.append(m)
        self.stream.publish(rest)
