"""Logging for the daemon: one line per change of link, broker, journal or board state.

Under systemd (JOURNAL_STREAM or INVOCATION_ID in the environment) lines carry no
time stamp, since journald adds its own. With the live status line on a terminal,
log lines go through the console so they do not tear the status line.

Much of what is logged comes from outside: a board's HELLO name, MQTT topics and payloads,
HTTP clients. A newline in such a text would forge a log line of its own (`ERROR ...`),
an ANSI escape would repaint the terminal. So every line is made printable once, here, by
the formatter (`PrintableFormatter`): whatever a message holds, it is one line of visible
characters; a traceback keeps its own lines, each indented under the message.
"""
import logging
import os
import sys

LEVELS = ("debug", "info", "warning", "error")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def printable(text):
    """`text` with every character that is not printable (control characters, ANSI escapes,
    line and paragraph separators, bidirectional overrides) written as an escape (\\n,
    \\x1b, \\u202e); letters of any script stay as they are."""
    text = text if isinstance(text, str) else str(text)
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else _NAMED.get(c) or (
        "\\x%02x" % ord(c) if ord(c) < 0x100 else "\\u%04x" % ord(c) if ord(c) < 0x10000
        else "\\U%08x" % ord(c)) for c in text)


class PrintableFormatter(logging.Formatter):
    """One printable line per record (see the module's docstring)."""

    def formatMessage(self, record):
        return printable(super().formatMessage(record))

    def formatException(self, ei):
        return "\n".join("    | " + printable(line) for line in super().formatException(ei).splitlines())

    def formatStack(self, stack_info):
        return "\n".join("    | " + printable(line) for line in super().formatStack(stack_info).splitlines())


def under_systemd(environ=None):
    env = os.environ if environ is None else environ
    return bool(env.get("JOURNAL_STREAM") or env.get("INVOCATION_ID"))


class ConsoleHandler(logging.Handler):
    """Hands each record to the console printer as a "! ..." line."""

    def __init__(self, console):
        super().__init__()
        self.console = console

    def emit(self, record):
        try:
            self.console("! " + self.format(record))
        except Exception:
            self.handleError(record)


def setup_logging(level="info", console=None, stream=None, environ=None):
    """Configure the "billiards" logger; returns it."""
    log = logging.getLogger("billiards")
    for h in list(log.handlers):
        log.removeHandler(h)
    if console is not None:
        handler = ConsoleHandler(console)
        fmt = "%(levelname)s %(message)s"
    else:
        handler = logging.StreamHandler(stream or sys.stderr)
        fmt = ("%(levelname)s %(message)s" if under_systemd(environ)
               else "%(asctime)s %(levelname)s %(message)s")
    handler.setFormatter(PrintableFormatter(fmt))
    log.addHandler(handler)
    log.setLevel(getattr(logging, str(level).upper(), logging.INFO))
    log.propagate = False
    return log
