"""One compact line describing the table, for the terminal the daemon runs in (`status_line` is pure)."""
import shutil
import sys
import time

from host.logs import printable


def status_line(state, counts=None):
    s = state or {}
    players = s.get("players") or []
    names = []
    for i, p in enumerate(players[:2]):
        if not isinstance(p, dict):
            continue
        mark = ">" if s.get("shooter") == i and s.get("phase") != "over" else " "
        grp = p.get("group")
        names.append("%s%s %s%s" % (mark, p.get("name", "P%d" % (i + 1)), p.get("score", 0),
                                    " (%s)" % grp if grp else ""))
    link = s.get("link") or {}
    parts = ["[%s]" % s.get("table", "?"), s.get("game") or "no game", " | ".join(names),
             "shot %s %s" % (s.get("shot", 0), s.get("phase", ""))]
    last = s.get("last_shot")
    if isinstance(last, dict):
        txt = "last: pocketed %s rails %s" % (last.get("pocketed", []), last.get("rails", 0))
        if last.get("fouls"):
            txt += " FOUL " + ",".join(str(f) for f in last["fouls"])
        parts.append(txt)
    if s.get("winner") is not None:
        parts.append("winner: %s" % s.get("winner"))
    parts.append("link %s dropped %s" % (link.get("state", "?"), link.get("dropped", 0)))
    if counts and counts.get("corrupt"):
        parts.append("corrupt %d" % counts["corrupt"])
    return printable("  ".join(parts))     # names come from players: no escape reaches the terminal


class Console:
    """The live line on the daemon's terminal: redrawn when the table changes, at most once a
    second otherwise."""

    def __init__(self, show, clock):
        self.show = show            # callable(line), None at the end (see terminal_printer)
        self.clock = clock
        self.line = None
        self.at = 0.0

    def update(self, state, counts, force=False):
        if state is None:
            return
        now = self.clock()
        if not force and now - self.at < 1.0:
            return
        line = status_line(state, counts)
        if line != self.line:
            self.line = line
            self.at = now
            self.show(line)

    def close(self):
        if self.line is not None:
            self.show(None)


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
