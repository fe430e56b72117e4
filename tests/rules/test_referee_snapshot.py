"""Referee.snapshot()/restore(): the contract a journal segment's head relies on.

For random journals of all three games (the property-test journals), folding a
prefix, taking a snapshot through JSON into a fresh referee and folding the rest
answers every later entry and ends in exactly the state of one straight replay,
undo history and shared shots included (an `undo` right after the restore goes
back as far as it would have).
"""
import json
import os

from hypothesis import HealthCheck, given, settings as hsettings, strategies as st

from shared_rules.rules.referee import Referee
from tests.rules.test_referee_properties import EXAMPLES, journals

SETTINGS = dict(deadline=None, derandomize=not os.environ.get("REFEREE_PROPERTY_RANDOM"),
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.filter_too_much])


def inside(ref):
    return json.loads(json.dumps(ref.snapshot()))


def check_split(entries, cuts):
    straight = Referee("t1")
    answers = []
    for e in entries:
        answers.append(straight.apply(e))
        snap = json.loads(json.dumps(straight.snapshot()))
        assert Referee("t1").restore(snap).snapshot() == snap, "a snapshot does not come back whole"
    for cut in cuts:
        first = Referee("t1")
        for e in entries[:cut]:
            first.apply(e)
        snap = json.loads(json.dumps(first.snapshot()))
        resumed = Referee("t1").restore(snap)
        assert resumed.state() == first.state(), "a restored referee shows another table"
        assert resumed.snapshot() == first.snapshot(), "shared shots came back apart"
        for i, e in enumerate(entries[cut:], cut):
            assert resumed.apply(e) == answers[i], "after a restore at %d, entry %d answered differently" % (cut, i)
        assert resumed.state() == straight.state()
        assert inside(resumed) == inside(straight)
        undo = {"src": "cmd", "cmd": "undo", "body": {}, "t_us": None}
        first_undo = Referee("t1").restore(snap)
        twin = Referee("t1")
        for e in entries[:cut]:
            twin.apply(e)
        assert first_undo.apply(undo) == twin.apply(undo)
        assert first_undo.state() == twin.state()


@hsettings(max_examples=max(EXAMPLES // 2, 20), **SETTINGS)
@given(journals(), st.data())
def test_snapshot_restore_continue_equals_straight_replay(entries, data):
    cuts = data.draw(st.lists(st.integers(0, len(entries)), min_size=1, max_size=4))
    check_split(entries, cuts)


@hsettings(max_examples=max(EXAMPLES // 4, 10), **SETTINGS)
@given(journals(deep=True), st.data())
def test_snapshot_in_long_games(entries, data):
    cuts = data.draw(st.lists(st.integers(0, len(entries)), min_size=1, max_size=4))
    check_split(entries, cuts)


def test_a_choice_on_the_last_shot_survives_a_snapshot():
    """`chosen` names the newest shot of the undo history: a ball dropping late after the restore
    re-judges that shot and makes the choice again, as it does without the restore."""
    game = [{"src": "hello", "boot_id": 1, "seq": 0, "t_us": 0, "features": 15},
            {"src": "cmd", "cmd": "new_game", "t_us": 1000000,
             "body": {"game": "eight-ball", "players": ["Anna", "Bob"], "race_to": 1}},
            {"src": "board", "kind": 4, "index": 0, "value": 1, "flags": 0, "t_us": 1100000},
            {"src": "board", "kind": 1, "index": 0, "value": 8, "flags": 0, "t_us": 1150000},
            {"src": "board", "kind": 4, "index": 0, "value": 0, "flags": 0, "t_us": 1350000},
            {"src": "cmd", "cmd": "foul", "body": {}, "t_us": 1350000},
            {"src": "cmd", "cmd": "choose", "body": {"option": "spot_eight"}, "t_us": 1350000}]
    late_drop = {"src": "board", "kind": 1, "index": 2, "value": 3, "flags": 0, "t_us": 1400000}
    ref = Referee("t1")
    for e in game:
        ref.apply(e)
    assert ref.snapshot()["fields"]["chosen"], "the journal no longer ends on a choice"
    check_split(game + [late_drop], [len(game)])
    # The same game replaced by new_game and taken back by undo after the restore.
    new_game = {"src": "cmd", "cmd": "new_game", "t_us": 1360000,
                "body": {"game": "nine-ball", "players": ["Cleo", "Dan"]}}
    undo = {"src": "cmd", "cmd": "undo", "body": {}, "t_us": 1370000}
    ref.apply(new_game)
    check_split(game + [new_game, undo, late_drop], [len(game) + 1])
