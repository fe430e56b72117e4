"""The scorer: an analyser's answers against the truth, per band."""
import json

from tools.footage import score


def _truth(tmp_path, name, bands, shots):
    (tmp_path / (name + ".truth.json")).write_text(json.dumps({"video": name + ".mp4", "bands": bands, "shots": shots}))


def shot(t, first, railed, on_break=None, pocketed=(), rest=None):
    return {"t_start": t, "t_end": t + 3, "first_contact": first, "railed_after_contact": list(railed),
            "object_balls_railed_on_break": on_break, "pocketed": list(pocketed), "rest_mm": rest or {"0": [100.0, 200.0]}}


def test_right_wrong_and_missing_answers_per_band(tmp_path):
    b8 = {"game": "eightball", "kind": "break", "speed": "soft", "fps": 60, "light": "dim", "cloth": "green"}
    b9 = dict(b8, game="nineball", kind="shot", speed="hard")
    _truth(tmp_path, "a", b8, [shot(2.5, 1, [0, 1, 5, 7, 9], on_break=4)])
    _truth(tmp_path, "b", b9, [shot(2.5, 3, [3]), shot(9.0, None, [])])
    _truth(tmp_path, "c", b9, [shot(2.5, 2, [2])])  # no analyser output at all
    (tmp_path / "a.analysis.json").write_text(json.dumps([shot(2.6, 1, [9, 7, 5, 1, 0], on_break=4,
                                                                rest={"0": [103.0, 204.0]})]))
    (tmp_path / "b.analysis.json").write_text(json.dumps([shot(2.4, 4, [3]), shot(9.1, None, []), shot(20.0, 1, [])]))
    t = score.score(str(tmp_path))
    allc = t["all"]["all"]
    assert allc["n_shots"] == 4 and allc["extra"] == 1 and allc["missing_output"] == 1
    assert allc["m"]["first_contact"] == [1, 3]  # a right; b's first wrong; c missing
    assert allc["m"]["no_contact"] == [1, 1]
    assert allc["m"]["legal_break"] == [1, 1]
    assert allc["m"]["railed"] == [3, 4]  # order does not matter
    assert t["game"]["eightball"]["rest"] == [5.0]
    assert t["speed"]["hard"]["m"]["first_contact"] == [0, 2]
    assert "eightball" in score.report(t)


def test_legal_break_verdicts():
    assert score.legal_break(shot(0, 1, [], on_break=4), "eightball") is True
    assert score.legal_break(shot(0, 1, [], on_break=3), "nineball") is False
    assert score.legal_break(shot(0, 1, [], on_break=0, pocketed=[5]), "eightball") is True
    assert score.legal_break(shot(0, 1, [0, 4, 9], on_break=2), "straight") is True
    assert score.legal_break(shot(0, 1, [4, 9], on_break=2), "straight") is False
    assert score.legal_break(shot(0, 1, []), "eightball") is None
