"""The daemon: one table's loop, joining its parts and doing nothing itself.

- the link (host/link/table_link.py): port, frames, session, ACK, LIGHTS;
- the recorded table (host/recorded.py): journal and referee, disk before memory, the one fold;
- the command desk (host/command_desk.py): every command checked, judged, recorded, answered;
- the shot clock (host/shot_clock.py);
- the stream out (host/outputs/stream.py): each new state and its events to every output.

One thread owns everything that changes state (this loop); the MQTT client's and the web
server's threads only queue what they receive, and `step` dispatches each queued item by its
kind through `handlers` (Klipper's register_response). Order for board frames: journal
append, fsync, ACK, then the referee and the outputs. Order for commands: referee, then (if
accepted) journal + fsync, then publish and answer.
"""
import logging
import time

from host.camera.desk import CameraDesk
from host.command_desk import CommandDesk
from host.console import Console
from host.fold import new_referee
from host.inbox import Inbox
from host.journal import Journal, journal_path
from host.link.table_link import TableLink, LINK_TIMEOUT_S  # noqa: F401 (LINK_TIMEOUT_S: API)
from host.outputs.stream import Stream
from host.recorded import RecordedTable
from host.shot_clock import ShotClock

log = logging.getLogger("billiards")
PER_STEP = 50       # queued items taken between two reads of the board


class Daemon:
    def __init__(self, table, serial_url, journal_dir="journal", prefix="billiards",
                 game="eight-ball", players=("Player 1", "Player 2"), quiet_s=3.0,
                 outputs=None, settings=None, console=None, clock=time.monotonic,
                 output_options=None, shot_clock_s=None, journal_keep=None,
                 segment_entries=None, serial_dtr=True, serial_rts=True,
                 simulated=False):
        self.table = table
        self.base = prefix + "/" + table
        self.game = game
        self.players = list(players)
        self.quiet_s = quiet_s
        self.clock = clock
        self.simulated = simulated      # a simulated table plays: said in state.link.simulated
        self.queue = Inbox(self.base + "/cmd/")
        self.link = TableLink(serial_url, dtr=serial_dtr, rts=serial_rts)
        jargs = {"keep": journal_keep}
        if segment_entries:
            jargs["segment_entries"] = segment_entries
        self.recorded = RecordedTable(Journal(journal_path(journal_dir, table), **jargs),
                                      new_referee(table, settings))
        # GEN.SLOW-PLAY: the clock lives here (the referee has none); a game's own setting wins.
        self.shot_clock = ShotClock(enabled=bool(shot_clock_s), limit_s=shot_clock_s or 60)
        if outputs is None:
            from host.outputs import build_outputs
            outputs = build_outputs(table, prefix, output_options or {})
        self.stream = Stream(outputs)
        self.desk = CommandDesk(self.base, self.recorded, self.link, self.stream, self.queue, self._changed, clock)
        self.camera = CameraDesk(self.recorded, self.link, self._changed, clock)   # issue 18: --camera
        self.console = Console(console, clock) if console is not None else None
        self.stopping = False
        self.port_said = None
        self.broker_said = None
        self.handlers = {"connected": self._broker_connected, "message": self._message,
                         "charged_message": self._message,
                         "command": self.desk.answer_request, "mqtt_error": self._broker_refused,
                         "mqtt_unreachable": self._broker_unreachable, "disconnected": self._broker_gone,
                         "stop": self._stop, "camera": self.camera.on_item}

    # --- the parts, by the names callers know ---------------------------------

    @property
    def port(self):
        return self.link.port

    @port.setter
    def port(self, port):
        self.link.port = port

    @property
    def session(self):
        return self.link.session

    @property
    def journal(self):
        return self.recorded.journal

    @property
    def referee(self):
        return self.recorded.referee

    @property
    def outputs(self):
        return self.stream.outputs

    @property
    def listeners(self):
        return self.stream.listeners

    @property
    def state(self):
        return self.stream.state

    @property
    def counts(self):
        """What the terminal and the tests count: link frames, commands, unreadable journal lines."""
        c = dict(self.link.counts)
        c.update(self.desk.counts)
        c["journal_skipped"] = self.journal.skipped
        return c

    # --- start-up -------------------------------------------------------

    def start_journal(self):
        """Replay the current journal segment into the referee and the link session; start a
        game if none. Returns the number of entries read."""
        n = self.recorded.open(self.link)
        self.stream.state = self.table_state()
        if self.stream.state.get("shot_open"):
            self.link.activity = self.clock()      # the quiet time of a shot left open counts from now
        if self.stream.state.get("game") is None:
            res = self._command("new_game", {"game": self.game, "players": self.players})
            if not res.get("ok"):
                log.error("could not start a game: %s", res["error"])
        self.camera.start()
        return n

    def attach_mqtt(self, mqtt_shell):
        self.stream.mqtt = mqtt_shell

    def subscriptions(self):
        return [self.base + "/cmd/+"] + self.stream.subscriptions()

    def will(self):
        return self.stream.will((self.base + "/status", "offline", True))

    # --- the state everything publishes -----------------------------------

    def table_state(self):
        """The referee's state with what the daemon adds: the link, the shot clock, its own faults."""
        s = self.referee.state()
        s["table"] = self.table
        s["link"] = self.link.state(self.simulated)
        s["shot_clock"] = self.shot_clock.update(s, (), time.time())
        faults = [f for f in (self.recorded.fault,) if f is not None]
        if faults:
            s["faults"] = list(s.get("faults") or []) + [dict(f) for f in faults]
        return s

    def _changed(self, events, force=False):
        """Publish the new state (and events) if anything changed."""
        if self.stream.send(self.table_state(), events, force) and self.console is not None:
            self.console.update(self.state, self.counts, force=True)

    # --- commands (host/command_desk.py) ------------------------------------

    def _command(self, name, body):
        return self.desk.run(name, body)

    def submit_command(self, name, payload):
        """A command from any source, checked, judged, journaled and answered (CommandDesk.submit)."""
        return self.desk.submit(name, payload)

    def request_command(self, name, payload, timeout=5.0):
        """From another thread (the phone page): queued, answered by the daemon's thread."""
        return self.desk.request(name, payload, timeout)

    # --- what the queue brings (one handler per kind) ----------------------------

    def _broker_connected(self, data):
        self._broker_is("connected", logging.INFO, "MQTT connected")
        self.stream.on_connect()
        self._changed([], force=True)

    def _message(self, data):
        self.desk.on_message(*data)

    def _broker_refused(self, data):
        self._broker_is("refused", logging.ERROR, "MQTT broker refused the connection: %s" % (data,))

    def _broker_unreachable(self, data):
        self._broker_is("unreachable", logging.ERROR,
                        "MQTT broker %s unreachable; retrying, the table is still read" % (data,))

    def _broker_gone(self, data):
        self._broker_is("gone", logging.WARNING,
                        "MQTT broker gone (%s); reconnecting, the table is still read" % (data,))

    def _stop(self, data):
        self.stopping = True

    # --- the serial side ------------------------------------------------

    def handle_bytes(self, data, now):
        """Frames in `data`: journal the accepted ones (one fsync), ACK, then judge them.
        Returns (frames, accepted entries, events)."""
        batch = self.link.take(data, now, time.time())
        return self._record(batch, now)

    def _record(self, batch, now):
        """A batch through the recorded table: durable, acknowledged, judged; a corrupt, doubled
        or out-of-order frame is answered at once with an ACK of what is journaled (a duplicate
        ACK), so the board resends from the missing frame without waiting for its timer."""
        accepted, events = self.recorded.take(batch.entries, self.link, now, batch.mark)
        if batch.ack_due and not accepted:
            self.link.acknowledge(now)
        self.link.accepted(accepted, now)
        return batch.frames, accepted, events

    def _read_board(self, now):
        """Bytes from the board, recorded and judged; True if the table may have changed."""
        if not self.link.open_port(now):
            time.sleep(0.05)
        self._log_port()
        batch = self.link.read(now, time.time())
        events = []
        touched = False
        if batch is not None:
            frames, _accepted, events = self._record(batch, now)
            touched = bool(frames)
        if self.link.check_up(now):
            touched = True
            up = self.link.up
            (log.info if up else log.warning)(
                "link %s%s", "up" if up else "down",
                "" if up or not self.port.last_error else " (%s)" % self.port.last_error)
        if touched or events:
            self._changed(events)

    def step(self):
        self._read_board(self.clock())
        self._take_queue()
        self.camera.tick(self.clock())
        self._auto_end_shot(self.clock())
        self._check_shot_clock()
        self.link.show_lights(self.state, self.clock())
        if self.console is not None:
            self.console.update(self.state, self.counts)

    def _take_queue(self):
        """At most PER_STEP queued items, so that the board is read again soon whatever comes in."""
        for _ in range(PER_STEP):
            item = self.queue.get_nowait()
            if item is None:
                break
            handler = self.handlers.get(item[0])
            if handler is not None:
                handler(item[1])
        refused = self.queue.refusals_due()
        if refused:
            self.desk.publish_answers(refused)

    def _auto_end_shot(self, now):
        """Tables without a motion sensor: the shot ends after `quiet_s` without a rail or a drop."""
        if self.link.has_motion_sensor() or not (self.state or {}).get("shot_open"):
            return
        if self.link.activity is None or now - self.link.activity < self.quiet_s:
            return
        if not self._command("end_shot", {"auto": True}).get("ok"):
            self.link.activity = None

    def _check_shot_clock(self):
        """Tell the table once when the shooter's time has run out (GEN.SLOW-PLAY): the warning
        event, and the state again, its clock saying `expired` (pages and displays show it)."""
        ev = self.shot_clock.time_up(self.state, time.time())
        if ev is not None:
            self._changed([ev])

    def run(self):
        """Loop until `stopping` is set (signal handler or a "stop" queue item)."""
        self._changed([], force=True)
        while not self.stopping:
            self.step()

    def close(self):
        """Clean stop: status offline, journal closed, port closed."""
        self.stream.stop()
        self.recorded.close()
        self.link.close()
        if self.console is not None:
            self.console.close()

    # --- the log ---------------------------------------------------------

    def _log_port(self):
        """One line when the serial port opens or its reason for not opening changes."""
        now_is = "open" if self.port.is_open else (self.port.last_error or "closed")
        if now_is != self.port_said:
            self.port_said = now_is
            if self.port.is_open:
                log.info("serial port %s open", self.port.url)
            else:
                log.warning("serial port %s: %s", self.port.url, now_is)

    def _broker_is(self, what, level, text):
        """One log line per change of the broker connection (not one per reconnect attempt)."""
        if what != self.broker_said:
            self.broker_said = what
            log.log(level, text)
