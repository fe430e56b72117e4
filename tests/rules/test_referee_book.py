"""The referee's book (issue 15): the match identity, undo across a new game with every shot,
journal heads old and new, refusals a player can read in both languages, the vocabulary."""
import gzip
import json
import os

from shared_rules.link import names
from shared_rules.rules.commands import FOUL_CODES
from shared_rules.rules.messages import vocabulary
from shared_rules.rules.referee import Referee
from tests.scenarios.runner import Run, apply_command, new_game

HERE = os.path.dirname(os.path.abspath(__file__))
OLD_FOLDER = os.path.join(HERE, "..", "data", "replay", "daemon-t1")


def cmd(name, body=None, wall=None):
    e = {"src": "cmd", "cmd": name, "body": body or {}, "t_us": None}
    if wall is not None:
        e["wall"] = wall
    return e


def long_press(wall):
    return {"src": "board", "kind": names.BUTTON, "index": names.BUTTON_NEW_GAME, "value": names.LONG_PRESS,
            "flags": 0, "t_us": 5000000, "wall": wall}


# ------------------------------------------------------------------ the match
def test_every_new_game_is_a_new_match_whoever_starts_it():
    ref = Referee("t1")
    assert ref.state()["match"] == {"id": 0, "started": None, "ended": None}
    assert ref.apply(cmd("new_game", {"game": "nine-ball", "players": ["Anna", "Bob"]}, 1000.5))["ok"]
    assert ref.state()["match"] == {"id": 1, "started": 1000.5, "ended": None}
    assert ref.apply(long_press(2000.0))["ok"]
    assert ref.state()["match"] == {"id": 2, "started": 2000.0, "ended": None}
    assert ref.apply(cmd("new_game", {"game": "nosuch"}, 3000.0))["ok"] is False
    assert ref.state()["match"] == {"id": 2, "started": 2000.0, "ended": None}, "a refused new_game began a match"


def test_racks_inside_a_match_keep_its_identity():
    """A race to 2: the next rack begins when balls move after the first rack is won; the match
    is the same one."""
    r = new_game("nine-ball", race_to=2)
    match = r.ref.state()["match"]
    r.step({"shot": {"rails": 8, "pocketed": [[9, "foot-left"]]}})
    assert r.ref.state()["players"][0]["score"] == 1 and r.ref.state()["winner"] is None
    r.step({"shot": {"rails": 8}})
    assert r.ref.state()["rack"] == 2
    assert r.ref.state()["match"] == match


def test_an_eight_ball_rerack_is_the_same_match():
    r = new_game("eight-ball")
    match = r.ref.state()["match"]
    r.step({"shot": {"rails": 1}})            # an illegal break: the opponent may re-rack
    assert "rerack" in r.ref.state()["decision"]["options"]
    r.step({"cmd": "choose", "body": {"option": "rerack"}})
    assert r.ref.state()["phase"] == "break" and r.ref.state()["match"] == match


def test_undo_of_a_new_game_brings_the_old_match_and_every_shot_back():
    r = new_game("straight-pool", target=50)
    first = r.ref.state()["match"]
    r.step({"shot": {"rails": 8}})
    r.step({"cmd": "call", "body": {"ball": 3, "pocket": "foot-left"}})
    r.step({"shot": {"rails": 1, "pocketed": [[3, "foot-left"]]}})
    before = r.ref.state()
    r.step({"cmd": "new_game", "body": {"game": "nine-ball", "players": ["Kim", "Lee"]}})
    assert r.ref.state()["match"]["id"] == first["id"] + 1
    r.step({"cmd": "undo"})
    back = r.ref.state()
    assert back["match"] == first and back["game"] == "straight-pool" and back["shot"] == before["shot"]
    assert back["can_undo"] is True
    r.step({"cmd": "undo"})
    assert r.ref.state()["shot"] == 1 and r.ref.state()["players"][1]["score"] == 0
    r.step({"cmd": "undo"})
    assert r.ref.state()["shot"] == 0 and r.ref.state()["can_undo"] is False


def test_a_shot_taken_back_after_an_undone_new_game_is_judged_again_with_its_record():
    """Each undo entry keeps its shot's sensor record: play on after taking a shot back and the
    table is what the same shots give."""
    r = new_game("nine-ball")
    r.step({"shot": {"rails": 8, "pocketed": [[2, "side-left"]]}})
    r.step({"shot": {"rails": 2, "pocketed": [[1, "foot-left"]]}})
    r.step({"cmd": "new_game", "body": {}})
    r.step({"cmd": "undo"})
    r.step({"cmd": "undo"})
    s = r.ref.state()
    assert s["shot"] == 1 and 1 in s["on_table"] and 2 not in s["on_table"]
    snap = json.loads(json.dumps(r.ref.snapshot()))
    assert all(h["shot"] is not None for h in snap["fields"]["history"]), "a kept shot lost its record"


# ------------------------------------------------------------------ heads
def test_restore_keeps_the_table_name_and_the_defaults():
    ref = Referee("t1", {"undo_depth": 3, "race_to": 2})
    ref.apply(cmd("new_game", {"game": "nine-ball"}))
    snap = json.loads(json.dumps(ref.snapshot()))
    other = Referee("t9", {"undo_depth": 7})
    other.restore(snap)
    assert other.table == "t9" and other.defaults["undo_depth"] == 7
    assert other.state()["table"] == "t9"
    assert other.state()["race_to"] == 2, "the game's own settings come back with it"


def test_a_snapshot_comes_back_whole():
    r = new_game("eight-ball")
    r.step({"shot": {"rails": 12, "pocketed": [[3, "foot-left"]]}})
    snap = json.loads(json.dumps(r.ref.snapshot()))
    assert snap["referee"] == 3 and snap["fields"]["table"] == "t1"
    twin = Referee("t1").restore(snap)
    assert twin.snapshot() == snap and twin.state() == r.ref.state()


def old_heads():
    """The heads of the journal folder the daemon before the book wrote (`"referee": 2`)."""
    out = []
    folder = os.path.join(OLD_FOLDER, "t1")
    for name in sorted(os.listdir(folder)):
        with gzip.open(os.path.join(folder, name), "rt", encoding="utf-8") as f:
            head = json.loads(f.readline())
        if head.get("src") == "snapshot":
            out.append(head)
    return out


def test_old_heads_restore_with_an_unknown_match_the_host_can_date():
    heads = old_heads()
    assert len(heads) > 20 and all(h["referee"]["referee"] == 2 for h in heads)
    for head in heads:
        ref = Referee("t1").restore(head["referee"])
        assert ref.state()["match"] == {"id": 0, "started": None, "ended": None}
        ref.adopt_match_start(head["match_started"])
        assert ref.state()["match"] == {"id": 0, "started": head["match_started"], "ended": None}
        ref.adopt_match_start(1.0)
        assert ref.state()["match"]["started"] == head["match_started"], "a known start was replaced"
        again = Referee("t1").restore(json.loads(json.dumps(ref.snapshot())))
        assert again.state() == ref.state()


def test_an_empty_head_of_the_first_daemons_is_a_fresh_table():
    ref = Referee("t1").restore({"referee": 1, "fields": {}, "refs": {}})
    assert ref.state() == Referee("t1").state()


# ------------------------------------------------------------------ refusals
def test_a_refusal_has_a_code_and_a_text_in_each_language_without_clause_codes():
    r = new_game("nine-ball")
    r.step({"shot": {"rails": 8}})
    res = apply_command(r, "call", {"ball": 1, "pocket": "foot-left"})
    assert res["ok"] is False and res["code"] == "nb.no_calls" and res["events"] == []
    assert "(NB.NO-CALL)" in res["error"], "the error keeps the text callers match"
    assert "NB." not in res["text"]["en"] and "NB." not in res["text"]["ru"]
    assert "заказ" in res["text"]["ru"]


def test_every_refusal_of_a_bad_body_is_keyed_and_worded_in_russian():
    r = new_game("eight-ball")
    for name, body in (("foul", {"code": "nosuch"}), ("call", {"pocket": "nowhere"}), ("choose", {}),
                       ("rename", {"player": 5}), ("lag", {"winner": 7}), ("nosuch", {}),
                       ("new_game", {"race_to": 0}), ("identify", {"pocket": "foot-left", "ball": 3})):
        res = apply_command(r, name, body)
        assert res["ok"] is False and res["code"] and res["text"]["ru"] and res["text"]["en"], (name, res)
        assert res["text"]["ru"] != res["text"]["en"], (name, res)


def test_a_refused_button_tells_the_table_the_refusal_in_both_languages():
    r = new_game("eight-ball")
    res = r.ref.apply({"src": "board", "kind": names.BUTTON, "index": names.BUTTON_CONFIRM, "value": names.PRESS,
                       "flags": 0, "t_us": 3000000})
    warning = res["events"][0]
    assert warning["text"]["en"] == "Button refused: there is no decision to confirm"
    assert warning["refusal"]["code"] == "nothing_to_confirm"
    assert warning["refusal"]["text"]["ru"] == "подтверждать нечего: выбора нет"


# ------------------------------------------------------------------ the vocabulary
def test_the_vocabulary_names_every_foul_option_pocket_and_game_in_both_languages():
    v = json.loads(json.dumps(vocabulary()))
    assert set(FOUL_CODES) | {"three_fouls"} == set(v["fouls"])
    assert v["fouls"]["interference"]["ru"] and v["fouls"]["interference"]["short"]["en"]
    assert set(v["pockets"]) == set(names.POCKETS)
    for p in names.POCKETS:
        assert v["pockets"][p]["index"] == names.POCKETS.index(p)
        for lang in ("en", "ru"):
            assert len(v["pockets"][p][lang]) > 6, "a pocket needs a name, not letters"
    assert v["pockets"]["foot-left"]["ru"] == "левая угловая у заднего борта"
    assert set(v["games"]) == {"eight-ball", "nine-ball", "straight-pool"}
    for option in ("accept", "rebreak", "rerack", "rerack_offender_breaks", "spot_eight", "pass_back", "reshoot"):
        assert v["options"][option]["en"] and v["options"][option]["ru"]
    for entry in list(v["fouls"].values()) + list(v["options"].values()) + list(v["games"].values()):
        for lang in ("en", "ru"):
            text = entry[lang]
            assert "GEN." not in text and "EB." not in text and "NB." not in text and "SP." not in text


def test_the_displays_name_fouls_from_the_vocabulary():
    from host.outputs.texts import foul_name
    v = vocabulary()
    for code in v["fouls"]:
        assert foul_name(code, "ru") == v["fouls"][code]["short"]["ru"]
    assert foul_name("interference", "en") == "interference"


def test_a_late_ball_after_a_restore_is_judged_as_without_it():
    """A ball hanging on the lip drops right after a head was written: the restored referee
    answers as the one that never stopped."""
    run = Run({"features": 15, "steps": []})
    run.command("new_game", {"game": "eight-ball", "players": ["Anna", "Bob"]}, True, None)
    run.shot({"rails": 12, "pocketed": [[3, "foot-left"]]})
    snap = json.loads(json.dumps(run.ref.snapshot()))
    twin = Referee("t1").restore(snap)
    late = {"src": "board", "kind": names.POCKET, "index": 0, "value": 5, "flags": 0, "t_us": run.t_ms * 1000}
    assert twin.apply(dict(late)) == run.ref.apply(dict(late))
    assert twin.state() == run.ref.state()
