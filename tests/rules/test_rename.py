"""`rename`: a player's name changes between shots and the game goes on; undo keeps the new name."""
from tests.scenarios.runner import apply_command, new_game


def test_rename_changes_only_the_name_and_survives_undo():
    r = new_game("eight-ball")
    r.step({"shot": {"rails": 12, "pocketed": [[3, "foot-left"]]}})
    before = r.ref.state()
    assert apply_command(r, "rename", {"player": 1, "name": "  Robert "})["ok"]
    after = r.ref.state()
    assert [p["name"] for p in after["players"]] == ["Anna", "Robert"]
    assert {k: v for k, v in after.items() if k != "players"} == {k: v for k, v in before.items() if k != "players"}
    assert apply_command(r, "undo")["ok"]
    assert [p["name"] for p in r.ref.state()["players"]] == ["Anna", "Robert"]
    assert apply_command(r, "new_game", {})["ok"]          # the next game keeps the names
    assert [p["name"] for p in r.ref.state()["players"]] == ["Anna", "Robert"]


def test_a_refused_rename_changes_nothing():
    r = new_game("nine-ball")
    s = r.ref.state()
    for body in ({"player": 2, "name": "X"}, {"player": True, "name": "X"}, {"player": 0, "name": ""},
                 {"player": 0, "name": "x" * 33}, {"player": 0, "name": 5}, {"name": "X"}):
        res = apply_command(r, "rename", body)
        assert not res["ok"] and res["error"]
        assert r.ref.state() == s
