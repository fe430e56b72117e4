"""A season in a bar (issue 9), through the daemon's real interfaces: MQTT, a serial pty, the CLI.

- the journal is one file per match, headed by a snapshot; start-up reads only the current
  one; `billiards replay` rebuilds any match; every head equals a full replay up to it;
- a full disk (a small tmpfs) is a fault in state.faults, not a crash; nothing is ACKed
  or accepted meanwhile; when space returns nothing is lost or doubled;
- a second daemon for the same table refuses to start;
- a service logs link, broker and journal changes, without time stamps under systemd.
"""
import json
import os
import subprocess
import sys
import time

import pytest

from shared_rules.link.names import POCKET, RAIL, MOTION
from shared_rules.rules.referee import Referee
from host.journal import archived_segments, read_entries
from tests.host.harness import (ROOT, DaemonProc, FakeBoard, PtyLink, wait_for, journal_lines,
                                without_link)

pytestmark = pytest.mark.slow


def shot(pocket_ball=None):
    ev = [(MOTION, 0, 1), (RAIL, 1, 2000), (RAIL, 3, 2000)]
    if pocket_ball:
        ev.append((POCKET, 2, pocket_ball))
    return ev + [(MOTION, 0, 0)]


def play(board, events):
    for k, idx, v in events:
        board.push(k, idx, v)
        time.sleep(0.01)


def cli(*args):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "host.cli"] + [str(a) for a in args], cwd=str(ROOT),
                          env=env, capture_output=True, text=True, timeout=60)


def replay(*args):
    out = cli("replay", *args)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def segment_files(jpath):
    return [p for _n, p in archived_segments(jpath)] + [jpath]


def check_every_head_against_a_full_replay(jpath, table):
    """Fold every segment's entries from the first in one referee; each head must equal it there."""
    full = Referee(table)
    heads = 0
    for i, path in enumerate(segment_files(jpath)):
        entries = read_entries(path)
        if entries and entries[0]["src"] == "snapshot":
            heads += 1
            if i == 0:
                full.restore(entries[0]["referee"])      # the oldest kept file starts from its head
            else:
                want = json.loads(json.dumps(full.snapshot()))["fields"]
                got = entries[0]["referee"]["fields"]
                assert got == want, "the head of %s differs from a full replay" % path
            entries = entries[1:]
        for e in entries:
            full.apply(e)
    return full, heads


def mq(subscriber, table, name, body):
    n = len(subscriber.of("billiards/%s/cmd/result" % table))
    subscriber.publish("billiards/%s/cmd/%s" % (table, name), json.dumps(body))
    wait_for(lambda: len(subscriber.of("billiards/%s/cmd/result" % table)) > n, 10, what="answer")
    return json.loads(subscriber.of("billiards/%s/cmd/result" % table)[n])


def test_one_file_per_match_replay_any_match_and_restart_reads_only_the_current(tmp_path, broker,
                                                                                  subscriber):
    table = "ts"
    jdir = tmp_path / "journal"
    jpath = os.path.join(str(jdir), table + ".jsonl")
    link = PtyLink(tmp_path / "ttyTABLE")
    board = FakeBoard(link, boot_id=0x5EA50)
    extra = ["--journal-segment-entries", "40"]
    d = DaemonProc(link.path, broker.url, table, jdir, extra).start()
    matches = []
    try:
        for m, game in enumerate(("eight-ball", "nine-ball", "straight-pool")):
            if m:
                assert mq(subscriber, table, "new_game", {"game": game, "players": ["Anna", "Bob"]})["ok"]
            for i in range(4 if m < 2 else 14):          # the last match outgrows a 40-entry segment
                play(board, shot())
                wait_for(lambda: (subscriber.state(table) or {}).get("shot") == i + 1, 15, what="shot")
            wait_for(lambda: board.backlog() == 0, 10, what="all ACKed")
            matches.append(without_link(subscriber.state(table)))
        segs = archived_segments(jpath)
        assert len(segs) >= 3, segs          # two closed matches and a closed part of the third
        assert d.stop() == 0
        d.proc = None
        # Closed files are compressed in the background; each closed match replays to its end.
        wait_for(lambda: all(p.endswith(".gz") for _n, p in archived_segments(jpath)), 10,
                 what="closed segments compressed")
        segs = archived_segments(jpath)
        assert without_link(replay(segs[0][1], "--table", table)) == matches[0]
        assert without_link(replay(segs[1][1], "--table", table)) == matches[1]
        # The table's current state: by directory and table, and by today's file path.
        assert without_link(replay(jdir, "--table", table)) == matches[2]
        assert without_link(replay(jpath)) == matches[2]
        full, heads = check_every_head_against_a_full_replay(jpath, table)
        assert heads == len(segs) + 1 - (0 if read_entries(segs[0][1])[0]["src"] == "snapshot" else 1)
        s = full.state()
        s["table"] = table
        assert without_link(s) == matches[2]
        # A restart reads only the current segment and comes back to the same table.
        d = DaemonProc(link.path, broker.url, table, jdir, extra).start()
        wait_for(lambda: d.output().count("replayed") >= 1, 15, what="start-up line")
        n = int(d.output().split("replayed ")[-1].split()[0])
        assert n <= 40, d.output()
        wait_for(lambda: without_link(subscriber.state(table)) == matches[2], 10, what="same state")
    finally:
        board.stop()
        if d.proc is not None:
            d.stop()
        link.close()


def test_a_journal_of_the_single_file_days_opens_and_is_archived_whole(tmp_path, broker, subscriber):
    from tests.host.test_journal_replay import session_entries, write_journal
    table = "to"
    jdir = tmp_path / "journal"
    os.makedirs(jdir)
    jpath = os.path.join(str(jdir), table + ".jsonl")
    write_journal(jpath, session_entries())
    old = open(jpath, "rb").read()
    link = PtyLink(tmp_path / "ttyTABLE")
    d = DaemonProc(link.path, broker.url, table, jdir).start()
    try:
        s = wait_for(lambda: subscriber.state(table), 15, what="state from the old journal")
        assert s["shot"] == 1 and s["players"][0]["name"] == "Anna"
        before = without_link(s)
        assert mq(subscriber, table, "new_game", {"game": "nine-ball", "players": ["C", "D"]})["ok"]
        segs = archived_segments(jpath)
        assert len(segs) == 1
        wait_for(lambda: archived_segments(jpath)[0][1].endswith(".gz"), 10, what="compressed")
        import gzip
        assert gzip.open(archived_segments(jpath)[0][1]).read() == old
        assert without_link(replay(archived_segments(jpath)[0][1], "--table", table)) == before
        assert journal_lines(jpath)[0]["src"] == "snapshot"
    finally:
        d.stop()
        link.close()


def test_retention_keeps_the_newest_closed_matches(tmp_path, broker, subscriber):
    table = "tk"
    jdir = tmp_path / "journal"
    jpath = os.path.join(str(jdir), table + ".jsonl")
    link = PtyLink(tmp_path / "ttyTABLE")
    board = FakeBoard(link, boot_id=0x4EE9)
    d = DaemonProc(link.path, broker.url, table, jdir, ["--journal-keep", "2"]).start()
    try:
        wait_for(lambda: subscriber.state(table), 15, what="state")
        for i in range(5):
            play(board, shot())
            wait_for(lambda: (subscriber.state(table) or {}).get("shot") == 1, 15, what="shot")
            assert mq(subscriber, table, "new_game", {"game": "nine-ball", "players": ["A", "B"]})["ok"]
        wait_for(lambda: [n for n, _p in archived_segments(jpath)] == [4, 5], 10,
                 what="only the two newest closed matches kept")
    finally:
        board.stop()
        d.stop()
        link.close()


# ------------------------------------------------------------------ a full disk
@pytest.fixture
def small_disk(tmp_path):
    """A 3 MiB tmpfs (needs root); unmounted afterwards."""
    mnt = tmp_path / "disk"
    mnt.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", str(mnt)], capture_output=True)
    if r.returncode != 0:
        pytest.skip("cannot mount a tmpfs: %s" % r.stderr.decode(errors="replace"))
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)])


def fill(path):
    """Fill the filesystem of `path` to the last byte."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    try:
        for size in (65536, 4096, 1):
            while True:
                try:
                    os.write(fd, b"\0" * size)
                except OSError:
                    break
    finally:
        os.close(fd)


def journal_fault(state):
    return [f for f in (state or {}).get("faults") or [] if f.get("what") == "journal"]


def test_a_full_disk_is_a_fault_not_a_crash(small_disk, tmp_path, broker, subscriber):
    table = "tf"
    jdir = small_disk / "journal"
    jpath = os.path.join(str(jdir), table + ".jsonl")
    link = PtyLink(tmp_path / "ttyTABLE")
    board = FakeBoard(link, boot_id=0xD15C)
    d = DaemonProc(link.path, broker.url, table, jdir).start()
    filler = str(small_disk / "filler")
    pushed = []
    try:
        for ev in (shot(3), shot()):
            play(board, ev)
            pushed.extend(ev)
        wait_for(lambda: (subscriber.state(table) or {}).get("shot") == 2, 15, what="two shots")
        wait_for(lambda: board.backlog() == 0, 10, what="all ACKed")
        # Full to the last byte, the journal's last page included (blank lines, which a fold
        # skips): otherwise a short line could still fit in that page and be taken, rightly.
        page = os.sysconf("SC_PAGE_SIZE")
        with open(jpath, "ab") as f:
            f.write(b"\n" * (-os.path.getsize(jpath) % page))
        fill(filler)
        # The board keeps playing. What still fits in the journal's last page is journaled; then
        # nothing can be, so nothing more is ACKed or judged.
        shots = 2
        for _ in range(60):
            play(board, shot(5 if shots == 2 else None))
            pushed.extend(shot(5 if shots == 2 else None))
            shots += 1
            if wait_for(lambda: journal_fault(subscriber.state(table)) or True, 0.3) is not True:
                break
        s = wait_for(lambda: journal_fault(subscriber.state(table)), 10, what="journal fault in state")
        f = s[0]
        assert f["sensor"] is None and f["fault"] == "disk_full" and "disk full" in f["text"], f
        time.sleep(1.0)
        stuck, shown = board.backlog(), subscriber.state(table)["shot"]
        assert stuck > 0 and shown < shots
        time.sleep(1.5)        # the board sends them again and again; still nothing is taken
        assert board.backlog() == stuck, "events were ACKed without being on disk"
        assert subscriber.state(table)["shot"] == shown
        # A command is refused, and changes nothing.
        before = without_link(subscriber.state(table))
        # (one the referee would take: the shot the journal last took is still open, or not)
        if before["shot_open"]:
            ans = mq(subscriber, table, "end_shot", {})
        else:
            ans = mq(subscriber, table, "new_game", {"game": "nine-ball", "players": ["C", "D"]})
        assert ans["ok"] is False and "disk full" in ans["error"], ans
        assert without_link(subscriber.state(table)) == before
        assert d.proc.poll() is None, "the daemon died on a full disk"
        assert "disk full" in d.output()
        # Space returns: the backlog goes through once, the fault clears.
        os.unlink(filler)
        wait_for(lambda: board.backlog() == 0, 15, what="backlog ACKed once there is room")
        wait_for(lambda: (subscriber.state(table) or {}).get("shot") == shots
                 and not journal_fault(subscriber.state(table)), 10, what="every shot, fault cleared")
        entries = journal_lines(jpath)
        keys = [(e["boot_id"], e["seq"]) for e in entries if e["src"] in ("hello", "board")]
        assert keys == [(0xD15C, s) for s in range(len(pushed) + 1)], "each event exactly once"
        assert [(e["kind"], e["index"], e["value"]) for e in entries if e["src"] == "board"] == pushed
        assert [e["cmd"] for e in entries if e["src"] == "cmd"] == ["new_game"]   # the refused one absent
        assert without_link(replay(jpath)) == without_link(subscriber.state(table))
        assert d.stop() == 0
    finally:
        board.stop()
        if d.proc.poll() is None:
            d.stop()
        link.close()


def test_the_daemon_starts_on_a_full_disk(small_disk, tmp_path, broker, subscriber):
    """Full before the first start: no journal file can be made; the daemon serves and says why."""
    table = "tg"
    jdir = small_disk / "journal"
    os.makedirs(jdir)
    open(os.path.join(str(jdir), table + ".lock"), "w").close()
    fill(str(small_disk / "filler"))
    link = PtyLink(tmp_path / "ttyTABLE")
    d = DaemonProc(link.path, broker.url, table, jdir).start()
    try:
        s = wait_for(lambda: journal_fault(subscriber.state(table)), 15, what="journal fault")
        assert s[0]["fault"] == "disk_full"
        time.sleep(0.5)
        assert d.proc.poll() is None, d.output()
        os.unlink(str(small_disk / "filler"))
        ans = mq(subscriber, table, "new_game", {"game": "nine-ball", "players": ["C", "D"]})
        assert ans["ok"], ans
        wait_for(lambda: not journal_fault(subscriber.state(table)), 10, what="fault cleared")
    finally:
        d.stop()
        link.close()


# ------------------------------------------------------------------ one daemon per table
def test_a_second_daemon_for_the_same_table_refuses(tmp_path, broker, subscriber):
    table = "tl"
    jdir = tmp_path / "journal"
    link = PtyLink(tmp_path / "ttyTABLE")
    first = DaemonProc(link.path, broker.url, table, jdir).start()
    try:
        wait_for(lambda: subscriber.last.get("billiards/%s/status" % table) == "online", 15, what="online")
        lines = open(os.path.join(str(jdir), table + ".jsonl"), "rb").read()
        second = cli("run", "--serial", link.path, "--broker", broker.url, "--table", table,
                     "--journal", jdir, "--no-console")
        assert second.returncode != 0
        assert "already served" in second.stderr and str(first.proc.pid) in second.stderr, second.stderr
        time.sleep(0.5)
        assert subscriber.last.get("billiards/%s/status" % table) == "online"
        assert first.proc.poll() is None
        assert open(os.path.join(str(jdir), table + ".jsonl"), "rb").read() == lines
        # Another table on the same port: it starts, but cannot take the port from the first.
        other = DaemonProc(link.path, broker.url, "tl2", jdir).start()
        try:
            wait_for(lambda: "exclusive" in other.output() or "lock" in other.output(), 15,
                     what="the port refused to a second daemon")
        finally:
            other.stop()
    finally:
        first.stop()
        link.close()
    # Once the first has stopped, the table can be served again.
    again = DaemonProc(link.path, broker.url, table, jdir).start()
    try:
        wait_for(lambda: subscriber.last.get("billiards/%s/status" % table) == "online", 15, what="online")
        assert again.proc.poll() is None
    finally:
        again.stop()


# ------------------------------------------------------------------ logging
def test_a_service_logs_link_broker_and_board_changes(tmp_path, broker, subscriber):
    table = "tv"
    jdir = tmp_path / "journal"
    link = PtyLink(tmp_path / "ttyTABLE")
    board = FakeBoard(link, boot_id=0x106)
    log = open(tmp_path / "service.log", "wb")
    env = dict(os.environ, PYTHONPATH=str(ROOT), INVOCATION_ID="0123456789abcdef")
    p = subprocess.Popen([sys.executable, "-m", "host.cli", "run", "--serial", link.path, "--broker",
                          broker.url, "--table", table, "--journal", str(jdir), "--no-console"],
                         cwd=str(ROOT), env=env, stdout=log, stderr=subprocess.STDOUT)

    def text():
        return open(tmp_path / "service.log", "rb").read().decode(errors="replace")
    try:
        wait_for(lambda: "link up" in text() and "MQTT connected" in text(), 15, what="log lines")
        wait_for(lambda: "board fake started" in text(), 10, what="board line")
        board.stop()
        link.close()
        wait_for(lambda: "link down" in text(), 10, what="link down line")
        for line in text().splitlines():
            if line.startswith(("INFO", "WARNING", "ERROR")):
                assert not line.split()[1][:1].isdigit(), line
        assert not any(line[:4].isdigit() for line in text().splitlines()), "time stamps under systemd"
    finally:
        p.send_signal(2)
        p.wait(10)
    # Without systemd the lines carry a time; --log-level warning leaves out the info lines.
    link = PtyLink(tmp_path / "ttyTABLE2")
    board = FakeBoard(link, boot_id=0x107)
    out = tmp_path / "quiet.log"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("INVOCATION_ID", None)
    env.pop("JOURNAL_STREAM", None)
    q = subprocess.Popen([sys.executable, "-m", "host.cli", "run", "--serial", link.path, "--broker",
                          broker.url, "--table", "tw", "--journal", str(jdir), "--no-console",
                          "--log-level", "warning"],
                         cwd=str(ROOT), env=env, stdout=open(out, "wb"), stderr=subprocess.STDOUT)
    try:
        wait_for(lambda: (subscriber.state("tw") or {}).get("link", {}).get("state") == "up", 15,
                 what="link up")
        board.stop()
        link.close()
        wait_for(lambda: "link down" in out.read_text(errors="replace"), 15, what="link down warning")
        t = out.read_text(errors="replace")
        assert "MQTT connected" not in t and "link up" not in t
        line = [x for x in t.splitlines() if "link down" in x][0]
        assert line[:4].isdigit(), line
    finally:
        q.send_signal(2)
        q.wait(10)
