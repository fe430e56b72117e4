"""Logging for the daemon: one line per change of link, broker, journal or board state.

Under systemd (JOURNAL_STREAM or INVOCATION_ID in the environment) lines carry no
time stamp, since journald adds its own. With the live status line on a terminal,
log lines go through the console so they do not tear the status line.
"""
import logging
import os
import sys

LEVELS = ("debug", "info", "warning", "error")


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
    handler.setFormatter(logging.Formatter(fmt))
    log.addHandler(handler)
    log.setLevel(getattr(logging, str(level).upper(), logging.INFO))
    log.propagate = False
    return log
