"""Issue 16, finding 7: what the daemon writes to its log and to its disk.

A board whose HELLO name held a newline and ANSI escapes forged `ERROR` lines in the log; run by
hand, journals, locks and history were 0644 in 0755 folders. Against the real daemon (board on a
pty, private mosquitto, `billiards run --http` as a subprocess, started with the usual umask 022).
"""
import json
import os
import stat

import pytest

from tests.host.harness import DaemonProc, FakeBoard, PtyLink, Subscriber, free_port, wait_for

pytestmark = pytest.mark.slow

FORGED = "t\nERROR forged\x1b[2J\x1b[31m"        # 20 bytes: fits the HELLO's 32


@pytest.fixture
def run(tmp_path, broker):
    """Start the daemon with a board named `name` (umask 022, as a shell has), stop it after."""
    started = []

    def start(name="fake", extra=()):
        link = PtyLink(tmp_path / "tty")
        board = FakeBoard(link, name=name)
        sub = Subscriber(broker.port)
        old = os.umask(0o022)
        try:
            d = DaemonProc(link.path, broker.url, "t1", tmp_path / "journal", extra=list(extra)).start()
        finally:
            os.umask(old)
        started.append((d, board, link, sub))
        wait_for(lambda: (sub.state("t1") or {}).get("link", {}).get("state") == "up", 20, what="link up")
        return d, board, sub
    yield start
    for d, board, link, sub in started:
        d.stop()
        board.stop()
        link.close()
        sub.close()


def test_a_board_name_cannot_forge_log_lines(run):
    d, board, sub = run(name=FORGED)
    wait_for(lambda: "ERROR forged" in d.output(), 10, what="the board's start in the log")
    d.stop()
    out = d.output()
    assert "\x1b" not in out
    assert not [line for line in out.splitlines() if line.startswith("ERROR forged")]
    assert "t\\nERROR forged\\x1b[2J\\x1b[31m" in out          # shown, escaped, on the board's line


def test_files_and_folders_the_daemon_makes_are_its_users_alone(run, tmp_path):
    port = free_port()
    d, board, sub = run(extra=["--http", str(port)])
    sub.publish("billiards/t1/cmd/new_game", json.dumps({"game": "nine-ball"}))   # a closed match file
    journal = tmp_path / "journal"
    wait_for(lambda: (journal / "t1.token").exists() and (journal / "venue").exists()
             and (journal / "t1").is_dir() and list((journal / "t1").iterdir()), 10,
             what="the token, the venue folder and the closed match")
    made = {"t1.jsonl", "t1.lock", "t1.token", "venue", "history.sqlite3", "t1"}
    # Read again while a file goes or the current one is being rolled (renamed, then made anew).
    modes = wait_for(lambda: (lambda m: m if m and made <= {p.name for p in m} else None)(_modes(journal)),
                     10, what="every file the daemon makes, listed while none of them went")
    for p, (is_dir, mode) in modes.items():
        if is_dir:
            assert mode == 0o700, (p, oct(mode))
        else:
            assert mode & 0o077 == 0, (p, oct(mode))


def _modes(journal):
    """{path: (is a folder, its mode)} of everything under the journal folder, or None when a
    file went while it was being read (a closed match file being compressed in the background:
    its temporary file is gone by the next listing)."""
    out = {}
    for p in [journal] + sorted(journal.rglob("*")):
        try:
            st = os.stat(p)
        except FileNotFoundError:
            return None
        out[p] = (stat.S_ISDIR(st.st_mode), stat.S_IMODE(st.st_mode))
    return out
