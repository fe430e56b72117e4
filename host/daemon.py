"""The daemon: wires the serial link, the journal, the referee, the outputs and MQTT.

One thread owns everything that changes state (this loop); the MQTT client's
thread only queues what it receives. Order for board frames: journal append,
fsync, ACK, then the referee and the outputs. Order for commands: referee,
then (if accepted) journal + fsync, then publish and answer; a failed journal
write takes the referee back to where it was (disk before memory).
"""
import json
import logging
import queue
import shutil
import sys
import threading
import time

from shared_rules.link import frames as codec
from shared_rules.link.names import ACK, LIGHTS, POCKET, RAIL, MOTION, HELLO, EVENT, HEARTBEAT, BUTTON
from host.journal import Journal, JournalError, journal_path, encode, HEAD
from host.command_input import check_name, read_command, parse_command  # noqa: F401 (parse_command: API)
from host.link.session import Session, ACCEPT, DUPLICATE
from host.link.port import Port
from host.link.lights import lights_for
from host.console import status_line
from host.outputs.shot_clock import ShotClock, expired
from shared_rules.rules.events import event

LINK_TIMEOUT_S = 3.5     # no frame for this long (HEARTBEAT is 1 s): link down
LIGHTS_EVERY_S = 1.0
BOARD_FRAMES = (HELLO, EVENT, HEARTBEAT)

log = logging.getLogger("billiards")


def load_referee_class():
    """The referee of shared_rules (imported late so `billiards --help` stays fast)."""
    from shared_rules.rules.referee import Referee
    import shared_rules.rules.snapshot  # noqa: F401 (Referee.snapshot/restore for journal segments)
    return Referee


class Daemon:
    def __init__(self, table, serial_url, journal_dir="journal", prefix="billiards",
                 game="eight-ball", players=("Player 1", "Player 2"), quiet_s=3.0,
                 outputs=None, settings=None, console=None, clock=time.monotonic,
                 output_options=None, shot_clock_s=None, journal_keep=None,
                 segment_entries=None, serial_dtr=True, serial_rts=True,
                 simulated=False):
        self.table = table
        self.prefix = prefix
        self.base = prefix + "/" + table
        self.game = game
        self.players = list(players)
        self.quiet_s = quiet_s
        self.clock = clock
        self.queue = queue.Queue()
        self.port = Port(serial_url, dtr=serial_dtr, rts=serial_rts)
        self.reader = codec.FrameReader()
        self.session = Session()
        jargs = {"keep": journal_keep}
        if segment_entries:
            jargs["segment_entries"] = segment_entries
        self.journal = Journal(journal_path(journal_dir, table), **jargs)
        self.broker_state = None
        self.match_started = None       # wall time of the entry that began the match (history's key)
        self.match_before = None        # ... of the match a new game replaced (undo brings it back)
        self.port_state = None
        self.daemon_faults = {}         # what ("journal", "board") -> fault dict of state.faults
        self.referee = load_referee_class()(table, settings)
        if outputs is None:
            from host.outputs import build_outputs
            outputs = build_outputs(table, prefix, output_options or {})
        self.outputs = outputs
        # GEN.SLOW-PLAY: the clock lives here (the referee has none); a game's own setting wins.
        self.shot_clock = ShotClock(enabled=bool(shot_clock_s), limit_s=shot_clock_s or 60)
        self.shot_clock_warned = None
        self.mqtt = None
        self.console = console          # callable(line) or None
        self.listeners = []             # callables(state, events): hook for in-process outputs (TV page)
        self.stopping = False
        self.state = None
        self.link_up = False
        self.simulated = simulated      # a simulated table plays: said in state.link.simulated
        self.shot_open = False
        self.last_activity = None       # monotonic time of the last RAIL/POCKET of the open shot
        self.lights_sent = None
        self.lights_at = 0.0
        self.heard_on = None            # port.opens when the board last spoke (see _heard)
        self.counts = {"accepted": 0, "duplicates": 0, "out_of_order": 0, "corrupt": 0,
                       "commands": 0, "refused": 0, "journal_skipped": 0}
        self._console_line = None
        self._console_at = 0.0

    # --- start-up -------------------------------------------------------

    def start_journal(self):
        """Replay the current journal segment into the referee and the link session; start a
        game if none. Returns the number of entries read."""
        try:
            n = self.journal.open(self._fold_at_start)
        except OSError as e:        # e.g. a full disk when the file must be created: a fault, not a crash
            n = 0
            self._journal_failed(JournalError(self.journal.path, e))
        self.counts["journal_skipped"] = self.journal.skipped
        if self.journal.truncated:
            log.warning("journal %s: cut a torn last line (%d bytes)", self.journal.path,
                        self.journal.truncated)
        if self.journal.needs_roll():     # e.g. a long journal of the single-file days
            self._roll_segment(self.referee.snapshot())
        self.state = self._full_state()
        if self.shot_open:
            self.last_activity = self.clock()
        if self.state.get("game") is None:
            res = self._command("new_game", {"game": self.game, "players": self.players})
            if not res["ok"]:
                log.error("could not start a game: %s", res["error"])
        return n

    def _fold_at_start(self, e):
        if e.get("src") == HEAD:
            self._restore_head(e)
            return
        self.session.restore(e)
        self._follow_match(e, self.referee.apply(e))
        self._track_shot(e, None)

    def _restore_head(self, head):
        defaults = self.referee.defaults
        self.referee.restore(head["referee"])
        self.referee.table = self.table
        self.referee.defaults = defaults
        link = head.get("link") or {}
        self.session.boot_id = link.get("boot_id")
        self.session.expect = link.get("expect", 0)
        self.session.hello = link.get("hello")
        self.shot_open = bool(link.get("shot_open"))
        self.match_started = head.get("match_started")

    def _head(self, referee_snapshot):
        """The first line of a new segment: where the table stood before it."""
        return {"src": HEAD, "referee": referee_snapshot, "wall": time.time(),
                "match_started": self.match_started,
                "link": {"boot_id": self.session.boot_id, "expect": self.session.expect,
                         "hello": self.session.hello, "shot_open": self.shot_open}}

    def _follow_match(self, entry, res):
        """Which entry began the match in play: a journal file's head names it, so the venue
        history (host/history.py) can go on with a match from the middle of it."""
        events = res.get("events") or () if isinstance(res, dict) and res.get("ok") else ()
        for ev in events:
            if not isinstance(ev, dict):
                continue
            if ev.get("event") == "rerack" and (entry.get("cmd") == "new_game" or entry.get("src") == "board"):
                if entry.get("src") == "cmd" or entry.get("kind") == BUTTON:
                    self.match_before, self.match_started = self.match_started, entry.get("wall")
            elif ev.get("event") == "undo" and ev.get("new_game"):
                self.match_started, self.match_before = self.match_before, None

    def _roll_segment(self, referee_snapshot):
        """Begin a new journal segment; False (and a fault) if the disk would not have it."""
        try:
            self.journal.roll(self._head(referee_snapshot))
        except JournalError as e:
            self._journal_failed(e)
            return False
        log.info("journal: new segment %s", self.journal.path)
        return True

    # --- journal health -------------------------------------------------

    def _journal_failed(self, err):
        code = "disk_full" if err.disk_full else "write_failed"
        text = ("journal disk full: cannot write %s; the board keeps its events until there is room"
                % err.path if err.disk_full else "journal write failed: %s" % err)
        fault = {"sensor": None, "what": "journal", "fault": code, "text": text}
        if self.daemon_faults.get("journal") != fault:
            self.daemon_faults["journal"] = fault
            log.error(text)

    def _journal_ok(self):
        if self.daemon_faults.pop("journal", None) is not None:
            log.warning("journal writable again: %s", self.journal.path)

    def _journal_sync(self):
        """fsync what was appended; False (and the journal fault) if the disk refused it."""
        try:
            self.journal.sync()
        except JournalError as e:
            self._journal_failed(e)
            return False
        self._journal_ok()
        return True

    def attach_mqtt(self, mqtt_shell):
        self.mqtt = mqtt_shell

    def subscriptions(self):
        subs = [self.base + "/cmd/+"]
        for o in self.outputs:
            subs.extend(o.subscriptions())
        return subs

    def will(self):
        for o in self.outputs:
            w = getattr(o, "will", None)
            if w is not None:
                return w()
        return (self.base + "/status", "offline", True)

    # --- state ----------------------------------------------------------

    def _full_state(self):
        s = self.referee.state()
        s["table"] = self.table
        s["link"] = {"state": "up" if self.link_up else "down", "dropped": self.session.dropped,
                     "corrupt": self.counts["corrupt"], "simulated": self.simulated}
        s["shot_clock"] = self.shot_clock.update(s, (), time.time())
        if self.daemon_faults:
            s["faults"] = list(s.get("faults") or []) + [dict(f) for f in self.daemon_faults.values()]
        return s

    def _check_shot_clock(self):
        """Tell the table once when the shooter's minute has run out (GEN.SLOW-PLAY)."""
        sc = self.state and self.state.get("shot_clock")
        if not sc or self.state.get("shot_open") or not expired(sc, time.time()):
            return
        key = (sc.get("shot"), sc.get("started_wall"))
        if key == self.shot_clock_warned:
            return
        self.shot_clock_warned = key
        p = self.state.get("shooter")
        who = self.state["players"][p]["name"] if p is not None and self.state.get("players") else ""
        ev = event("warning", p, ["GEN.SLOW-PLAY"], "Shot clock: time is up for %s" % who,
                   "Время на удар истекло: %s" % who, {"shot_clock": True})
        out = []
        for o in self.outputs:
            out.extend(o.on_change(self.state, [ev]))
        self._publish(out)

    def _publish(self, messages):
        if self.mqtt is not None and messages:
            self.mqtt.publish(messages)

    def _changed(self, events, force=False):
        """Recompute the state; publish it (and events) if anything changed."""
        new = self._full_state()
        if not force and not events and new == self.state:
            return
        if self.state is not None and new.get("faults") != self.state.get("faults"):
            self._log_faults(self.state, new)
        self.state = new
        out = []
        for o in self.outputs:
            out.extend(o.on_change(new, events))
        self._publish(out)
        for cb in self.listeners:
            try:
                cb(new, events)
            except Exception as e:
                log.exception("listener failed: %s", e)
        self._show(force=True)

    # --- shots without a motion sensor ----------------------------------

    def _track_shot(self, entry, now):
        """Follow whether a shot is being played, for the automatic end_shot."""
        src = entry.get("src")
        if src == "board":
            k = entry.get("kind")
            if k in (POCKET, RAIL):
                self.shot_open = True
                self.last_activity = now
            elif k == MOTION and entry.get("value") == 0:
                self.shot_open = False
        elif src == "cmd" and entry.get("cmd") in ("end_shot", "new_game", "undo"):
            self.shot_open = False

    def _shot_is_open(self):
        s = self.state or {}
        if "shot_open" in s:
            return bool(s["shot_open"])
        return self.shot_open

    def _auto_end_shot(self, now):
        if self.session.has_motion_sensor():
            return
        if not self._shot_is_open() or self.last_activity is None:
            return
        if now - self.last_activity < self.quiet_s:
            return
        res = self._command("end_shot", {"auto": True})
        if not res["ok"]:
            self.shot_open = False
            self.last_activity = None

    # --- commands -------------------------------------------------------

    def _command(self, name, body):
        """Apply a command; journal it only if the referee accepted it, and keep it only if the
        journal took it (disk before memory). Returns the referee's answer."""
        now = self.clock()
        entry = {"src": "cmd", "cmd": name, "body": body,
                 "t_us": self.session.board_time(now), "wall": time.time()}
        self.counts["commands"] += 1
        try:
            line = encode(entry)
        except ValueError as e:
            self.counts["refused"] += 1
            return {"ok": False, "error": "the command cannot be journaled (%s)" % (e,), "events": []}
        before = self.referee.snapshot()
        try:
            res = self.referee.apply(entry)
        except Exception as e:   # the referee must not raise; if it does, refuse, never crash
            self.referee.restore(before)
            res = {"ok": False, "error": "internal error: %s" % (e,), "events": []}
        if not isinstance(res, dict):
            res = {"ok": False, "error": "internal error: bad referee answer", "events": []}
        if res.get("ok") and not self._journal_command(entry, line, before):
            self.referee.restore(before)
            res = {"ok": False, "error": "not recorded, nothing changed: %s"
                   % self.daemon_faults["journal"]["text"], "events": []}
        if res.get("ok"):
            self._follow_match(entry, res)
            self._track_shot(entry, now)
            self._changed(res.get("events") or [])
        else:
            self.counts["refused"] += 1
            if "journal" in self.daemon_faults:
                self._changed([])
        return {"ok": bool(res.get("ok")), "error": res.get("error"), "events": res.get("events") or []}

    def _journal_command(self, entry, line, before):
        """Write an accepted command durably (a new game begins a new segment headed by `before`)."""
        if self.journal.needs_roll(entry):
            self._roll_segment(before)    # if the disk refuses a new file, the old segment goes on
        self.journal.append_line(line)
        return self._journal_sync()

    def submit_command(self, name, payload):
        """The one way in for a command from any source (MQTT, HTTP, buttons), on the daemon's
        thread: checked, judged, journaled, answered on …/cmd/result; never raises.

        `payload` is the raw body (bytes or text, as MQTT gives it) or a dict. The answer is
        {"cmd", "ok", "error", "id"} (CONTRACT section 2)."""
        bad_name = check_name(name)
        err = bad_name
        cid = None
        body = None
        if err is None:
            body, cid, err = read_command(payload)
        if err is None:
            try:
                res = self._command(name, body)
            except Exception as e:    # a bug must cost one command, not the table
                log.exception("command %s failed", name)
                res = {"ok": False, "error": "internal error: %s" % (e,)}
            ok = res["ok"]
            err = None if ok else (res["error"] or "refused")
        else:
            self.counts["commands"] += 1
            self.counts["refused"] += 1
            ok = False
        if bad_name is not None:
            name = str(name).encode("utf-8", "replace").decode("utf-8")[:64]
        result = {"cmd": name, "ok": ok, "error": err, "id": cid}
        try:
            self._publish([(self.base + "/cmd/result", json.dumps(result), False)])
        except Exception:
            log.exception("could not publish the answer to %s", name)
        return result

    def on_command_message(self, name, payload):
        """A command from MQTT (kept for callers of the old name)."""
        return self.submit_command(name, payload)

    def request_command(self, name, payload, timeout=5.0):
        """From another thread (the phone page's HTTP server): queue the command for the daemon's
        thread, which alone touches the referee, and wait for its answer; None on timeout."""
        box = {"done": threading.Event(), "result": None}
        self.queue.put(("command", (name, payload, box)))
        if not box["done"].wait(timeout):
            return None
        return box["result"]

    def _run_output_commands(self, messages):
        """An output answering a message (e.g. Home Assistant's game select) may ask for a command
        by returning it on `<base>/cmd/<name>`: it is run here, like one from MQTT, not published."""
        cmd_prefix = self.base + "/cmd/"
        rest = []
        for m in messages:
            name = m[0][len(cmd_prefix):] if m[0].startswith(cmd_prefix) else None
            if name and name != "result" and "/" not in name:
                self.submit_command(name, m[1])
            else:
                rest.append(m)
        return rest

    def _on_queue_item(self, kind, data):
        if kind == "connected":
            self._broker_is("connected", logging.INFO, "MQTT connected")
            out = []
            for o in self.outputs:
                out.extend(o.on_connect())
            self._publish(out)
            self._changed([], force=True)
        elif kind == "message":
            topic, payload = data
            cmd_prefix = self.base + "/cmd/"
            if topic.startswith(cmd_prefix):
                name = topic[len(cmd_prefix):]
                if name != "result" and "/" not in name:
                    self.submit_command(name, payload)
                    return
                if name == "result":
                    return
            out = []
            for o in self.outputs:
                try:
                    out.extend(o.on_message(topic, payload))
                except Exception:   # a hostile message costs that output one message, not the table
                    log.exception("output %s failed on a message on %s", type(o).__name__, topic[:200])
            self._publish(self._run_output_commands(out))
        elif kind == "command":
            name, payload, box = data
            try:
                box["result"] = self.submit_command(name, payload)
            finally:
                box["done"].set()
        elif kind == "mqtt_error":
            self._broker_is("refused", logging.ERROR, "MQTT broker refused the connection: %s" % (data,))
        elif kind == "mqtt_unreachable":
            self._broker_is("unreachable", logging.ERROR,
                            "MQTT broker %s unreachable; retrying, the table is still read" % (data,))
        elif kind == "disconnected":
            self._broker_is("gone", logging.WARNING,
                            "MQTT broker gone (%s); reconnecting, the table is still read" % (data,))
        elif kind == "stop":
            self.stopping = True

    # --- the serial side ------------------------------------------------

    def _heard(self, now):
        """True once the board spoke (any good frame) since the port (re)opened and the link is up.

        Until then the daemon sends nothing: a board still booting reads its USB or
        UART as the REPL's stdin, where a 0x03 in an ACK or LIGHTS is Ctrl-C.
        """
        return (self.heard_on == self.port.opens and self.session.last_frame is not None
                and now - self.session.last_frame < LINK_TIMEOUT_S)

    def _send_ack(self, now):
        seq = self.session.ack_seq()
        if seq is None or not self._heard(now):
            return
        self.port.write(codec.encode({"type": ACK, "seq": 0, "boot_id": self.session.boot_id,
                                      "ack": seq}), now)

    def _send_lights(self, now, force=False):
        if not self.port.is_open or self.state is None or not self._heard(now):
            return
        lights = lights_for(self.state)
        if force or lights != self.lights_sent or now - self.lights_at >= LIGHTS_EVERY_S:
            if self.port.write(codec.encode({"type": LIGHTS, "seq": 0, "mask": lights[0],
                                             "mode": lights[1]}), now):
                self.lights_sent = lights
                self.lights_at = now

    def handle_bytes(self, data, now):
        """Frames in `data`: journal the accepted ones (one fsync), ACK, then judge them.

        A corrupt frame or a gap is answered at once with an ACK of what is journaled
        (a duplicate ACK), so the board resends from the missing frame without
        waiting for its timer.
        """
        before = self.reader.error_count()
        frames = self.reader.feed(data)
        self.counts["corrupt"] += self.reader.error_count() - before
        accepted = []
        ack = self.reader.error_count() > before
        wall = time.time()
        if frames and self.journal.needs_roll():
            self._roll_segment(self.referee.snapshot())
        saved = self._session_mark()
        for f in frames:
            if f.get("type") in BOARD_FRAMES:
                self.heard_on = self.port.opens
            d = self.session.on_frame(f, now, wall)
            if d["action"] == ACCEPT:
                self.journal.append(d["entry"])
                accepted.append(d["entry"])
            elif d["action"] == DUPLICATE:
                self.counts["duplicates"] += 1
                ack = True
            elif d["action"] == "drop":
                self.counts["out_of_order"] += 1
                ack = True
        if accepted:
            if self._journal_sync():
                ack = True
            else:       # not on disk: not ACKed, not judged; the board sends them again
                self._session_back(saved)
                accepted = []
        if ack:
            self._send_ack(now)
        events = []
        for e in accepted:
            self._log_board(e)
            self.counts["accepted"] += 1
            res = self.referee.apply(e)
            if isinstance(res, dict):
                events.extend(res.get("events") or [])
                self._follow_match(e, res)
            self._track_shot(e, now)
        return frames, accepted, events

    def _session_mark(self):
        s = self.session
        return (s.boot_id, s.expect, s.hello)

    def _session_back(self, mark):
        self.session.boot_id, self.session.expect, self.session.hello = mark

    def step(self):
        now = self.clock()
        if not self.port.is_open:
            if not self.port.poll_open(now):
                time.sleep(0.05)
            self._log_port()
        events = []
        touched = False
        if self.port.is_open:
            data = self.port.read(now)
            if data:
                frames, accepted, events = self.handle_bytes(data, now)
                touched = bool(frames)
        link = (self.port.is_open and self.session.last_frame is not None
                and now - self.session.last_frame < LINK_TIMEOUT_S)
        if link != self.link_up:
            self.link_up = link
            touched = True
            (log.info if link else log.warning)(
                "link %s%s", "up" if link else "down",
                "" if link or not self.port.last_error else " (%s)" % self.port.last_error)
        if touched or events:
            self._changed(events)
        while True:
            try:
                kind, data = self.queue.get_nowait()
            except queue.Empty:
                break
            self._on_queue_item(kind, data)
        self._auto_end_shot(self.clock())
        self._check_shot_clock()
        self._send_lights(self.clock())
        self._show()

    def run(self):
        """Loop until `stopping` is set (signal handler or a "stop" queue item)."""
        self._changed([], force=True)
        while not self.stopping:
            self.step()

    def close(self):
        """Clean stop: status offline, journal closed, port closed."""
        if self.mqtt is not None:
            last = []
            for o in self.outputs:
                stop = getattr(o, "on_stop", None)
                if stop is not None:
                    last.extend(stop())
            self.mqtt.stop(last)
        self.journal.close()
        self.port.close()
        if self.console is not None and self._console_line is not None:
            self.console(None)

    # --- the terminal ---------------------------------------------------

    def _log_port(self):
        """One line when the serial port opens or its reason for not opening changes."""
        now_is = "open" if self.port.is_open else (self.port.last_error or "closed")
        if now_is != self.port_state:
            self.port_state = now_is
            if self.port.is_open:
                log.info("serial port %s open", self.port.url)
            else:
                log.warning("serial port %s: %s", self.port.url, now_is)

    def _broker_is(self, what, level, text):
        """One log line per change of the broker connection (not one per reconnect attempt)."""
        if what != self.broker_state:
            self.broker_state = what
            log.log(level, text)

    def _log_board(self, entry):
        """One line when the board (re)starts, and for every sensor fault that comes or goes."""
        if entry.get("src") == "hello":
            log.info("board %s started (boot %s, firmware %s, features %s)", entry.get("name"),
                     entry.get("boot_id"), entry.get("fw"), entry.get("features"))

    def _log_faults(self, old, new):
        def lines(s):       # the journal's own fault is logged where it happens
            return [json.dumps(f, sort_keys=True) for f in (s or {}).get("faults") or []
                    if f.get("what") != "journal"]
        before, after = lines(old), lines(new)
        for f in after:
            if f not in before:
                log.warning("fault: %s", f)
        for f in before:
            if f not in after:
                log.info("fault cleared: %s", f)

    def _show(self, force=False):
        if self.console is None or self.state is None:
            return
        now = self.clock()
        if not force and now - self._console_at < 1.0:
            return
        line = status_line(self.state, self.counts)
        if line != self._console_line:
            self._console_line = line
            self._console_at = now
            self.console(line)


def terminal_printer(stream=None):
    """console callable: redraws one line on a terminal, prints plain lines elsewhere."""
    stream = stream or sys.stdout
    tty = stream.isatty()
    state = {"last": 0.0}

    def show(line):
        if line is None:
            if tty:
                stream.write("\n")
                stream.flush()
            return
        if line.startswith("! "):
            stream.write(("\r\x1b[K" if tty else "") + line + "\n")
        elif tty:
            width = shutil.get_terminal_size((100, 24)).columns - 1
            stream.write("\r\x1b[K" + line[:max(20, width)])
        else:
            now = time.monotonic()
            if now - state["last"] < 1.0:
                return
            state["last"] = now
            stream.write(line + "\n")
        stream.flush()

    return show
