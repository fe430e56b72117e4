"""The set maker: seeds decide the bands (every combination in each cycle) and a run resumes."""
import itertools
import json

from tools.footage import make_set


def test_consecutive_seeds_cover_every_game_kind_and_speed():
    n = len(make_set.GAMES) * len(make_set.KINDS) * len(make_set.SPEEDS)
    for start in (0, make_set.HELD_OUT[0]):
        seen = {(b["game"], b["kind"], b["speed"]) for b in (make_set.plan(s) for s in range(start, start + n))}
        assert seen == set(itertools.product(make_set.GAMES, make_set.KINDS, make_set.SPEEDS))
    assert make_set.plan(123) == make_set.plan(123)
    assert {make_set.plan(s, fps=(120,))["fps"] for s in range(20)} == {120}


def test_seed_ranges():
    assert make_set.seed_range("3-6") == [3, 4, 5, 6]
    assert make_set.seed_range("1,5,9") == [1, 5, 9]
    assert make_set.TUNING[1] < make_set.HELD_OUT[0]


def test_a_kinematic_set_with_its_index_and_resume(tmp_path, capsys):
    args = ["--seeds", "7", "--out", str(tmp_path), "--generator", "kinematic", "--size", "320x180",
            "--fps", "60", "--kinds", "shot", "--no-frames"]
    make_set.main(args)
    lines = (tmp_path / "index.jsonl").read_text().splitlines()
    assert len(lines) == 1
    rec = json.loads(lines[0])
    truth = json.loads((tmp_path / "clip-7.truth.json").read_text())
    assert rec["shots"] == truth["shots"] and truth["size"] == [320, 180] and truth["fps"] == 60
    assert truth["bands"]["kind"] == "shot" and "frames" not in truth
    assert (tmp_path / "clip-7.mp4").stat().st_size > 1000
    make_set.main(args)  # already there: skipped
    assert len((tmp_path / "index.jsonl").read_text().splitlines()) == 1
