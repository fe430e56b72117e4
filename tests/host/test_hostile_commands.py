"""A careless or hostile MQTT client cannot kill the daemon or change a table with a refused command.

Issue 9: a payload nested ~990 deep raised RecursionError and the daemon exited; a
command the referee accepts carrying a lone surrogate ("\\udfff") was applied in
memory, then the journal write raised UnicodeEncodeError, the daemon exited and
the command was gone. Here the real daemon runs on a real broker and gets such
payloads, then hypothesis-generated ones (depth, surrogates, huge numbers, wrong
types, unknown keys, bad UTF-8, oversize): the process lives, every command is
answered on …/cmd/result, and a refused one leaves the state and the journal as
they were.
"""
import json
import os

import pytest
from hypothesis import HealthCheck, given, settings as hsettings, strategies as st

from shared_rules.rules.commands import COMMANDS
from tests.host.harness import DaemonProc, PtyLink, wait_for, journal_lines

pytestmark = pytest.mark.slow

TABLE = "th"
EXAMPLES = int(os.environ.get("HOSTILE_EXAMPLES", "150"))


class Table:
    """The daemon under test, its journal, and a way to send one command and get its answer."""

    def __init__(self, tmp_path, broker, subscriber, table=TABLE):
        self.table = table
        self.sub = subscriber
        self.jdir = tmp_path / "journal"
        self.jpath = os.path.join(str(self.jdir), table + ".jsonl")
        self.link = PtyLink(tmp_path / "ttyTABLE")
        self.proc = DaemonProc(self.link.path, broker.url, table, self.jdir).start()
        wait_for(lambda: (subscriber.state(table) or {}).get("game"), 15, what="a game")
        self.result_topic = "billiards/%s/cmd/result" % table

    def answers(self):
        return [json.loads(m) for m in self.sub.of(self.result_topic)]

    def state(self):
        s = dict(self.sub.state(self.table))
        s.pop("link", None)
        return s

    def journal(self):
        with open(self.jpath, "rb") as f:
            return f.read()

    def send(self, name, payload):
        """Publish one command and wait for its answer; (answer, state before, state after, journals)."""
        before, jbefore = self.state(), self.journal()
        n = len(self.answers())
        self.sub.publish("billiards/%s/cmd/%s" % (self.table, name), payload)
        wait_for(lambda: len(self.answers()) > n, 10, what="an answer to %s %r" % (name, payload[:80]))
        assert self.proc.proc.poll() is None, "the daemon died:\n" + self.proc.output()[-3000:]
        return self.answers()[n], before, self.state(), jbefore, self.journal()

    def refused_unchanged(self, name, payload):
        ans, before, after, jb, ja = self.send(name, payload)
        assert ans["ok"] is False, ans
        assert isinstance(ans["error"], str) and ans["error"], ans
        assert after == before, "a refused %s changed the table" % name
        assert ja == jb, "a refused %s was journaled" % name
        return ans

    def close(self):
        code = self.proc.stop()
        self.link.close()
        return code


@pytest.fixture
def table(tmp_path, broker, subscriber):
    t = Table(tmp_path, broker, subscriber)
    yield t
    t.close()


def test_deep_payloads_are_refused_and_the_daemon_lives(table):
    for payload in (b"[" * 990 + b"]" * 990, b'{"id": ' + b"[" * 990 + b"]" * 990 + b"}",
                    b'{"ball": ' + b"{\"a\": " * 5000 + b"1" + b"}" * 5000 + b"}", b"[" * 200000):
        ans = table.refused_unchanged("call", payload)
        assert "nested" in ans["error"] or "bytes" in ans["error"], ans
    ans, *_ = table.send("undo", b"{}")          # still judging
    assert ans["cmd"] == "undo" and ans["error"] != "internal error"


def test_lone_surrogates_are_refused_before_the_referee_and_journal(table):
    ans = table.refused_unchanged("new_game", b'{"game": "nine-ball", "players": ["\\udfff", "Bob"]}')
    assert "Unicode" in ans["error"], ans
    ans = table.refused_unchanged("call", b'{"pocket": "foot-right", "note": "\\udfff"}')
    assert "Unicode" in ans["error"], ans
    ans = table.refused_unchanged("undo", b'{"id": "\\ud800"}')
    assert ans["id"] is None
    # A good command after them is accepted and journaled: nothing was left half-done.
    ans, before, after, jb, ja = table.send("new_game", b'{"game": "nine-ball", "players": ["Anna", "Bob"], "id": 7}')
    assert ans == {"cmd": "new_game", "ok": True, "error": None, "id": 7}
    assert after["game"] == "nine-ball" and after["players"][0]["name"] == "Anna"
    for e in journal_lines(table.jpath):
        json.dumps(e).encode("utf-8")


def test_oversize_huge_numbers_and_bad_utf8_are_refused(table):
    for payload in (b'{"note": "' + b"x" * 70000 + b'"}', b'{"ball": 1' + b"0" * 5000 + b"}",
                    b'{"ball": 1e400}', b'{"ball": NaN}', b'{"ball": -Infinity}', b"\xff\xfe{}",
                    b'{"players": ["' + b"A" * 300 + b'", "B"], "game": "nine-ball"}'):
        table.refused_unchanged("new_game" if b"players" in payload else "call", payload)


# ------------------------------------------------------------------ generated payloads
def _deep(n, open_, close_):
    return open_ * n + close_ * n


scalars = (st.none() | st.booleans() | st.integers(-2 ** 80, 2 ** 80)
           | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=12))
junk = st.recursive(scalars, lambda c: st.lists(c, max_size=4) | st.dictionaries(st.text(max_size=6), c, max_size=4),
                    max_leaves=12)
surrogate = st.integers(0xD800, 0xDFFF).map(lambda c: "\\u%04x" % c)
known_keys = st.sampled_from(["game", "players", "ball", "pocket", "option", "foul", "shooter", "id",
                              "note", "balls", "target", "race_to", "breaker", "legal"])
pockets = st.sampled_from(["foot-left", "foot-right", "side-left", "side-right", "head-left", "head-right"])


@st.composite
def payloads(draw):
    kind = draw(st.sampled_from(["json", "json", "deep", "surrogate", "number", "bytes", "keys", "valid"]))
    if kind == "json":
        return json.dumps(draw(junk)).encode()
    if kind == "deep":
        n = draw(st.integers(17, 3000))
        o, c = draw(st.sampled_from([("[", "]"), ('{"a":', "}")]))
        inner = _deep(n, o, c) if o == "[" else o * n + "1" + c * n
        return ('{"%s": %s}' % (draw(known_keys), inner)).encode()
    if kind == "surrogate":
        key = draw(known_keys)
        return ('{"%s": "%s%s", "pocket": "foot-right"}' % (key, draw(st.text(max_size=3).map(
            lambda t: json.dumps(t)[1:-1])), draw(surrogate))).encode()
    if kind == "number":
        num = draw(st.sampled_from(["1" * 400, "1e400", "-1e999", "NaN", "Infinity", "9" * 30, "1" * 5000,
                                    "123456789012345678901234567890.5"]))
        return ('{"%s": %s}' % (draw(known_keys), num)).encode()
    if kind == "bytes":
        return draw(st.binary(max_size=40))
    if kind == "keys":
        body = draw(st.dictionaries(st.text(max_size=8), junk, max_size=5))
        body[draw(known_keys)] = draw(junk)
        return json.dumps(body).encode()
    body = {"ball": draw(st.integers(0, 16)), "pocket": draw(pockets), "id": draw(st.integers(0, 99))}
    body[draw(st.text(min_size=1, max_size=5))] = draw(junk)
    return json.dumps(body).encode()


names = st.one_of(st.sampled_from(COMMANDS), st.sampled_from(["NEW_GAME", "x" * 40, "ü", "stop", "a-b"]))


def test_generated_payloads_never_kill_and_refusals_change_nothing(table):
    seen = {"ok": 0, "refused": 0}

    @hsettings(max_examples=EXAMPLES, deadline=None, derandomize=True,
               suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                      HealthCheck.function_scoped_fixture])
    @given(names, payloads())
    def one(name, payload):
        ans, before, after, jb, ja = table.send(name, payload)
        assert {"cmd", "ok", "error", "id"} <= set(ans) <= {"cmd", "ok", "error", "id", "code", "text"}, ans
        if ans["ok"]:
            seen["ok"] += 1
            assert ans["error"] is None
        else:
            seen["refused"] += 1
            assert isinstance(ans["error"], str) and ans["error"]
            assert after == before, "refused %s %r changed the table" % (name, payload[:80])
            assert ja == jb, "refused %s %r was journaled" % (name, payload[:80])

    one()
    assert seen["refused"] > EXAMPLES // 2
    # The journal is still a journal: every line JSON in UTF-8, and replays to the live state.
    for e in journal_lines(table.jpath):
        assert isinstance(e, dict)
    assert table.close() == 0, table.proc.output()[-2000:]


def test_a_deep_retained_message_under_another_table_does_not_kill_the_daemon(table):
    """The venue page follows every table's retained state: one nested 5000 deep must not kill
    the daemon (json.loads recurses), now or on its next start, when the broker sends it again."""
    table.sub.client.publish("billiards/evil/state", b"[" * 5000 + b"]" * 5000, qos=1, retain=True).wait_for_publish(5)
    table.sub.client.publish("billiards/evil/info", b'{"a":' * 3000 + b"1" + b"}" * 3000, qos=1,
                             retain=True).wait_for_publish(5)
    ans, *_ = table.send("undo", b"{}")          # the daemon is still there and answering
    assert ans["cmd"] == "undo"
    assert table.proc.proc.poll() is None, table.proc.output()[-2000:]
