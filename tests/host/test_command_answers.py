"""Every command's answer on `…/cmd/result` says why it was refused, for programs (a stable code)
and for players (the text in each language), whoever refused it: the referee or the daemon."""
import json
import threading

from host.daemon import Daemon


class Published:
    def __init__(self):
        self.messages = []

    def publish(self, messages):
        self.messages.extend(messages)

    def answers(self):
        return [json.loads(m[1]) for m in self.messages if m[0].endswith("/cmd/result")]


def table(tmp_path):
    d = Daemon("ta", "loop://", journal_dir=str(tmp_path), outputs=[])
    d.start_journal()
    d.stream.mqtt = Published()
    return d


def test_a_refusal_carries_its_code_and_the_players_words_in_russian(tmp_path):
    d = table(tmp_path)
    res = d.submit_command("call", {"ball": 99, "pocket": "foot-left"})
    assert res["ok"] is False and res["code"] == "bad_call_ball"
    assert res["error"] == "ball must be a number from 1 to 15"
    assert res["text"]["ru"] and res["text"]["ru"] != res["text"]["en"]
    assert d.stream.mqtt.answers()[-1] == res


def test_the_daemons_own_refusals_have_codes_too(tmp_path):
    d = table(tmp_path)
    assert d.submit_command("NOPE", {})["code"] == "host.bad_name"
    bad = d.submit_command("call", b"{not json")
    assert bad["code"] == "host.bad_payload" and bad["text"]["ru"].startswith("команда не принята")
    ok = d.submit_command("rename", {"player": 0, "name": "Zoe"})
    assert ok == {"cmd": "rename", "ok": True, "error": None, "id": None}


def test_a_command_over_the_tables_budget_is_answered_too_many_in_both_languages(tmp_path):
    d = table(tmp_path)
    box_answers = []
    for i in range(40):
        box = {"done": threading.Event(), "result": None}
        d.queue.put(("command", ("rename", {"player": 0, "name": "P%d" % i}, box)))
        if box["done"].is_set():
            box_answers.append(box["result"])
    assert box_answers, "the budget never ran out"
    assert all(a["code"] == "host.too_many" and a["ok"] is False for a in box_answers)
    assert "слишком много команд" in box_answers[0]["text"]["ru"]
