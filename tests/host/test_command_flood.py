"""A command flood on MQTT cannot stop the referee reading the board (issue 16, finding 2).

Before: `player-t1` publishing ~169,000 refused `push_out` in 3 s left the table silent for
44-96 s (no board frame journaled, answers trickling out); a 10 s flood of an accepted command
(`safety`) wrote ~530,000 journal entries. Here the real daemon, a real mosquitto and a board
on a pty: a paho client floods `safety` at its full rate for 3 s while the board plays shots.
"""
import json
import os
import threading
import time

import paho.mqtt.client as mqtt
import pytest

from shared_rules.link.names import MOTION, RAIL
from tests.host.harness import DaemonProc, FakeBoard, PtyLink, Subscriber, journal_lines, wait_for

pytestmark = pytest.mark.slow

FLOOD_S = 3.0


def play_shots(board, stop):
    """A shot every 100 ms: MOTION on, three rails, MOTION off."""
    while not stop.is_set():
        board.push(MOTION, 0, 1)
        for i in range(3):
            board.push(RAIL, i, 3000)
        board.push(MOTION, 0, 0)
        time.sleep(0.1)


def stop_table(stop, board, daemon, link, subscriber):
    """The end of a test, whatever it got to: the shots, the board, the daemon, the pty, the ears."""
    stop.set()
    board.stop()
    daemon.stop()
    link.close()
    subscriber.close()


def flood(port, topic, seconds):
    """Publish `{}` to `topic` as fast as paho lets one client, for `seconds`; the number published."""
    return flood_names(port, "", [topic], seconds)


def test_a_command_flood_does_not_stop_the_board_being_read(tmp_path, broker):
    # The table's state and answers only: a subscriber to everything would hear the flood too.
    subscriber = Subscriber(broker.port, topics=("billiards/tf/state", "billiards/tf/cmd/result"))
    link = PtyLink(tmp_path / "ttyTABLE")
    board = FakeBoard(link, boot_id=0xF100D)
    jdir = tmp_path / "journal"
    jpath = os.path.join(str(jdir), "tf.jsonl")
    d = DaemonProc(link.path, broker.url, "tf", jdir).start()
    stop = threading.Event()
    shots = threading.Thread(target=play_shots, args=(board, stop), daemon=True)
    try:
        wait_for(lambda: (subscriber.state("tf") or {}).get("game"), 15, what="a game")
        shots.start()
        wait_for(lambda: (subscriber.state("tf") or {}).get("shot", 0) >= 3, 15, what="shots judged")
        t0 = time.time()
        sent = flood(broker.port, "billiards/tf/cmd/safety", FLOOD_S)
        t1 = time.time()
        # A player's ordinary command after the flood is answered.
        subscriber.publish("billiards/tf/cmd/rename", json.dumps({"player": 0, "name": "Zed", "id": "after"}))

        def answered():
            return [a for a in map(json.loads, subscriber.of("billiards/tf/cmd/result")) if a.get("id") == "after"]
        got = wait_for(answered, 10, what="an answer to a command sent after the flood")
        assert got[0]["ok"] is True
        print("the command sent after the flood answered %.2f s after it was sent" % (time.time() - t1))
        stop.set()
        shots.join(2)
        wait_for(lambda: board.backlog() == 0, 20, what="every board frame acknowledged")
        entries = journal_lines(jpath)
        during = [e["wall"] for e in entries if e.get("src") == "board" and t0 <= e["wall"] <= t1]
        assert during, "no board frame was journaled during the flood"
        walls = [e["wall"] for e in entries if e.get("src") == "board" and e["wall"] >= t0 - 1]
        gap = max(b - a for a, b in zip(walls, walls[1:]))
        print("flood: %d commands in %.1f s; %d board frames journaled during it; longest gap %.3f s"
              % (sent, t1 - t0, len(during), gap))
        # The bar: the board is read and journaled with no gap over 1 s, during the
        # flood and after it until every frame is acknowledged (before: 44-99 s).
        assert gap <= 1.0, "no board frame journaled for %.2f s" % gap
        assert [w for w in walls if w > t1], "no board frame was journaled after the flood"
        # The flood's commands are refused beyond the table's budget, and said so...
        answers = [json.loads(m) for m in subscriber.of("billiards/tf/cmd/result")]
        assert any("too many commands" in (a.get("error") or "") for a in answers)
        # ... so they cannot fill the journal: one command's budget is 20 at once, then 5 a second.
        kept = [e for e in entries if e.get("src") == "cmd" and e.get("cmd") == "safety"]
        assert len(kept) <= 20 + 5 * (time.time() - t0 + 1), len(kept)
        assert sent > 10 * len(kept)
        assert d.proc.poll() is None, d.output()[-2000:]
    finally:
        stop_table(stop, board, d, link, subscriber)


def flood_names(port, prefix, names, seconds):
    """Publish `{}` to `prefix + name`, the names in turn (each name has its own budget), as fast
    as paho lets one client, for `seconds`; the number published."""
    c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="flood-%d" % os.getpid())
    c.connect("127.0.0.1", port)
    c.loop_start()
    n = 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        c.publish(prefix + names[n % len(names)], b"{}", qos=0)
        n += 1
    c.loop_stop()
    c.disconnect()
    return n


def test_the_phone_page_and_home_assistant_spend_the_same_tables_budget(tmp_path, broker):
    """Every path to the referee (MQTT, the phone page's HTTP, Home Assistant's controls) spends
    one budget per table: while a flood over many command names has drained it, a phone's command
    is answered "too many commands" (not a silent wait) and Home Assistant's game select is run at
    most once, as one of the few commands the budget lets through; once the flood ends both are
    served again within seconds."""
    from tests.people.play_table import Table, post
    t = Table(tmp_path, broker)
    names = ["safety", "push_out", "foul", "undo", "lag", "legal_break", "choose", "rename"]
    try:
        game = t.state()["game"]
        token = t.token()
        out = {}
        flooder = threading.Thread(target=lambda: out.update(sent=flood_names(
            broker.port, "billiards/t1/cmd/", names, FLOOD_S + 2)), daemon=True)
        flood_start = time.time()
        flooder.start()
        time.sleep(1.0)
        # Home Assistant's select first, without waiting for the broker's acknowledgement (which
        # the flood delays): the phone's answers below may take a while on a loaded machine, and
        # the select must meet the flood, not what follows it.
        assert flooder.is_alive(), "the flood ended before Home Assistant's select was sent"
        t.sub.client.publish("billiards/t1/cmd/ha/game", json.dumps({"game": "straight-pool"}), qos=1)
        during = [post(t.base, "/api/cmd/rename", {"player": 1, "name": "Phone%d" % i}, token=token)
                  for i in range(3)]
        flooder.join(FLOOD_S + 10)
        flood_end = time.time()
        assert all(code == 200 for code, _, _ in during), during
        refused = [res for _, _, res in during if res.get("code") == "host.too_many"]
        assert refused and "too many commands" in refused[0]["error"], during
        # The select spends the same budget as the flood: refused, held back by the broker (its
        # queue for the daemon full, handed over on the daemon's reconnect, which keeps its MQTT 5
        # session), or, on a loaded machine, one of the few commands the budget lets through as it
        # refills (a token goes to whoever asks when it is there) -- run once at most, not once per
        # copy. (Until 2026-12-04 this read only the current journal segment, where a select that
        # ran is never found: a new game closes the segment into the archive.)
        entries = [json.loads(line) for line in t.all_journal_lines()]
        selects = [e for e in entries if e.get("src") == "cmd" and "straight-pool" in json.dumps(e)]
        assert all("wall" in e for e in selects), selects
        assert len([e for e in selects if flood_start <= e["wall"] < flood_end]) <= 1, selects
        print("Home Assistant's select sent during the flood: %s" % (
            "run %+.1f s from its end" % (selects[0]["wall"] - flood_end) if selects else "not run"))
        assert t.state()["game"] in (game, "straight-pool")
        # As the answer says: wait a moment and send it again (what is still on its way from
        # the broker is refused as it comes).
        t0 = time.monotonic()

        def phone_served():
            code, _, res = post(t.base, "/api/cmd/rename", {"player": 1, "name": "After"}, token=token)
            return code == 200 and res["ok"] is True or time.sleep(0.5)
        wait_for(phone_served, 10, what="the phone's command served after the flood")

        def home_assistant_served():
            if (t.state() or {}).get("game") == "straight-pool":
                return True
            t.sub.publish("billiards/t1/cmd/ha/game", json.dumps({"game": "straight-pool"}))
            time.sleep(0.5)
        wait_for(home_assistant_served, 10, what="Home Assistant's select served after the flood")
        assert [json.loads(line) for line in t.all_journal_lines()
                if b"straight-pool" in line and json.loads(line).get("src") == "cmd"], "the select is journaled"
        print("after the flood: the phone and Home Assistant served within %.1f s" % (time.monotonic() - t0))
        assert t.daemon.proc.poll() is None
    finally:
        t.close()


def test_after_a_flood_the_broker_serves_the_table_again(tmp_path, broker):
    """Found by bench_command_flood.py (close-16): a flood of a refused command right after a
    new game made mosquitto 2.0 drop messages to the daemon ("Outgoing messages are being
    dropped") and then serve its connection no more, either way (20 of its publishes never
    acknowledged): no state and no command for minutes, while the board was still journaled.
    The daemon now reconnects when the broker has acknowledged nothing for STALL_S, taking up its
    MQTT 5 session: a command sent right after the flood and one sent a few seconds later are
    answered, and states flow again."""
    from host.mqtt import STALL_S
    subscriber = Subscriber(broker.port, topics=("billiards/tf/state",))
    link = PtyLink(tmp_path / "ttyTABLE")
    board = FakeBoard(link, boot_id=0xF100E)
    d = DaemonProc(link.path, broker.url, "tf", tmp_path / "journal").start()
    stop = threading.Event()
    try:
        wait_for(lambda: (subscriber.state("tf") or {}).get("game"), 15, what="a game")
        subscriber.publish("billiards/tf/cmd/new_game", json.dumps({"game": "eight-ball", "players": ["A", "B"]}))
        threading.Thread(target=play_shots, args=(board, stop), daemon=True).start()
        time.sleep(1.0)
        flood(broker.port, "billiards/tf/cmd/push_out", FLOOD_S)      # refused: not nine-ball
        phone = Subscriber(broker.port, topics=("billiards/tf/cmd/result",))
        try:
            # A command right after the flood (as bench_command_flood.py sends one), while the
            # broker may still be dropping what it owes the daemon, is answered within the
            # issue's 10 s (the broker hands it over again when the daemon reconnects) ...
            sent = time.monotonic()
            phone.publish("billiards/tf/cmd/rename", json.dumps({"player": 1, "name": "Yan", "id": "at-once"}))
            wait_for(lambda: '"at-once"' in "".join(phone.of("billiards/tf/cmd/result")), 10,
                     what="an answer to a command sent right after the flood")
            print("the command sent right after the flood answered %.2f s after it was sent"
                  % (time.monotonic() - sent))
            time.sleep(max(0.0, sent + STALL_S + 3 - time.monotonic()))
            # ... and a few seconds later the table is heard again (its shots' states) ...
            n = len(subscriber.of("billiards/tf/state"))
            wait_for(lambda: len(subscriber.of("billiards/tf/state")) > n + 3, 5, what="states published again")
            # ... and answers.
            t0 = time.monotonic()
            phone.publish("billiards/tf/cmd/rename", json.dumps({"player": 0, "name": "Zed", "id": "later"}))
            wait_for(lambda: '"later"' in "".join(phone.of("billiards/tf/cmd/result")), 5,
                     what="an answer to a command sent %.0f s after the flood" % (STALL_S + 3))
            print("answered %.2f s after it was sent; the daemon %s" % (
                time.monotonic() - t0, "reconnected" if "MQTT connection reconnected" in d.output()
                else "did not need to reconnect"))
        finally:
            phone.close()
        assert d.proc.poll() is None
    finally:
        stop_table(stop, board, d, link, subscriber)
