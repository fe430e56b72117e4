"""Every journal in tests/ replays to the same answers, events and states at every entry, before and
after a reshaping (issue 15): the referee, the one fold over journal files, start-up and history.

The "before" is tests/data/replay/golden.json.gz, made by tests/data/replay/make_golden.py on the
code before the reshaping. The code of the day may ADD fields to states and events (the interfaces
only grow); every field that was there must hold the same value at every entry.
"""
import contextlib
import gzip
import json
import os
import shutil

import pytest

from host.journal import read_entries, table_files, HEAD
from shared_rules.rules import break_estimator

HERE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data", "replay")
GOLDEN = os.path.join(HERE, "golden.json.gz")
FOLDER = os.path.join(HERE, "daemon-t1")


@pytest.fixture(scope="module")
def golden():
    with gzip.open(GOLDEN, "rt", encoding="utf-8") as f:
        return json.load(f)


def differs(want, got, path="$"):
    """None if `got` holds everything `want` holds (extra dict keys allowed), else where it differs."""
    if isinstance(want, dict):
        if not isinstance(got, dict):
            return "%s: expected an object, got %r" % (path, got)
        for k in want:
            if k not in got:
                return "%s.%s: missing" % (path, k)
            d = differs(want[k], got[k], "%s.%s" % (path, k))
            if d:
                return d
        return None
    if isinstance(want, list):
        if not isinstance(got, list) or len(got) != len(want):
            return "%s: expected %s, got %s" % (path, json.dumps(want)[:300], json.dumps(got)[:300])
        for i, (w, g) in enumerate(zip(want, got)):
            d = differs(w, g, "%s[%d]" % (path, i))
            if d:
                return d
        return None
    if want != got or isinstance(want, bool) != isinstance(got, bool):
        return "%s: expected %r, got %r" % (path, want, got)
    return None


def new_referee():
    from host.fold import new_referee
    return new_referee("t1")


# The one change of behaviour issue 15 asked for: `undo` of a new_game brings the replaced game
# back WITH its shots, each undoable in turn (the golden was recorded when it came back without
# them, `can_undo` false). Where a journal meets it, the test does what the old code did (drops
# the shots it brought back) and goes on comparing; any other difference still fails the test.
UNDONE_NEW_GAMES = []


def brought_back_shots(res, want_state, got_state):
    """True for exactly that change: an accepted undo of a new_game, after which the state is the
    golden one except that the old game's shots can be taken back."""
    undone = any(ev.get("event") == "undo" and ev.get("new_game") for ev in res.get("events") or ())
    if not (undone and got_state.get("can_undo") is True and want_state.get("can_undo") is False):
        return False
    return differs(dict(want_state, can_undo=True), got_state) is None


# The changes issue 17 asked for (refusals and warnings in the players' language). (1) A refused button press is told to the table in the players'
# words, in each language (the golden's Russian text carried the English error): where a warning
# carries a `refusal`, its text is now "Button refused: " + the refusal's own text in that
# language. (2) The confirm button pressed between the racks of a match starts the next rack (it
# was refused, "there is no decision to confirm"), so the shot after it no longer begins that rack:
# where a journal meets it, that press and the state it leaves are not compared, and the next
# entry must be the golden's less the next rack's `rerack` event; every other difference fails.
RACKS_BY_BUTTON = []


def players_words(want_res, res):
    """The golden answer with its button refusals worded as now (change 1 above): a golden
    "Button refused: <error>" warning whose refusal (now carried by the event) says the same
    error in the players' words, in each language."""
    from shared_rules.rules.messages import say_each, without_clauses
    got = res.get("events") or []
    events = []
    for k, ev in enumerate(want_res.get("events") or ()):
        r = got[k].get("refusal") if k < len(got) and isinstance(got[k], dict) else None
        en = (ev.get("text") or {}).get("en") or ""
        head = "Button refused: "
        if (ev.get("event") == "warning" and isinstance(r, dict) and en.startswith(head)
                and without_clauses(en[len(head):]) == r["text"]["en"]):
            en, ru = say_each("button_refused", (r["text"]["en"],), (r["text"]["ru"],))
            ev = dict(ev, text={"en": en, "ru": ru})
        events.append(ev)
    return dict(want_res, events=events)


# (3) A sensor's fault and its return are told in Russian in Russian words (the golden's Russian
# text named the sensor and its fault in English: "Неисправность датчика: rail head (beam
# blocked)"): for a board FAULT entry of a pocket or rail, the golden's warning keeps its English
# text and takes the Russian one the messages give for that sensor and fault now.
def sensor_words(e, want_res):
    from shared_rules.link import names
    from shared_rules.rules.messages import say_each, sensor_label, word
    if not (e.get("src") == "board" and e.get("kind") == names.FAULT and e.get("index") != names.FAULT_BOARD):
        return want_res
    index, value = e["index"], e["value"]
    en, ru = sensor_label(index, "en"), sensor_label(index, "ru")
    kind = {names.FAULT_BLOCKED: "fault_blocked", names.FAULT_SILENT: "fault_silent"}.get(value, "fault_other")
    now = [say_each("sensor_back", (en,), (ru,)), say_each("sensor_fault", (en, word(kind, "en")), (ru, word(kind, "ru")))]
    events = []
    for ev in want_res.get("events") or ():
        said = (ev.get("text") or {}).get("en")
        for en_text, ru_text in now:
            if ev.get("event") == "warning" and said == en_text:
                ev = dict(ev, text={"en": en_text, "ru": ru_text})
        events.append(ev)
    return dict(want_res, events=events)


def is_next_rack(ev):
    return ev.get("event") == "rerack" and ev.get("clauses") == ["GEN.RACK", "GEN.LAG"]


def rack_by_button(e, want_res, res):
    """Change 2 above: the confirm button between racks, refused then, starts the next rack now."""
    from shared_rules.link.names import BUTTON, BUTTON_CONFIRM
    from shared_rules.rules.messages import say
    refused = say("button_refused", say("refused.nothing_to_confirm")[0])[0]
    was = [ev for ev in want_res.get("events") or () if (ev.get("text") or {}).get("en") == refused]
    return (e.get("src") == "board" and e.get("kind") == BUTTON and e.get("index") == BUTTON_CONFIRM and was
            and [ev["event"] for ev in res.get("events") or ()] == ["rerack"] and is_next_rack(res["events"][0]))


# The one change of behaviour issue 18 asked for: without a ball down, the legal break is decided by
# the per-impact model (cross-talk left out) where the golden was recorded with the impact count
# (docs/break-estimator.md, "Per speed band"). A journal in which the referee now judges a break
# otherwise than the decision before did is replayed with that decision and must then match in
# full; any other difference still fails the test.
BREAK_DECISION_BEFORE = {"decide_15": [["count", "count_15"]] * 3, "decide_9": [["count", "count_9"]] * 3,
                         "crosstalk_ratio": 0}
CHANGED_BREAKS = []


@contextlib.contextmanager
def break_decision_before():
    saved = dict((k, break_estimator.DEFAULT_PARAMS[k]) for k in BREAK_DECISION_BEFORE)
    break_estimator.DEFAULT_PARAMS.update(BREAK_DECISION_BEFORE)
    try:
        yield
    finally:
        break_estimator.DEFAULT_PARAMS.update(saved)


@contextlib.contextmanager
def break_verdicts_watched(changed):
    """Append to `changed` each break the estimator judges otherwise than the decision before."""
    real = break_estimator.break_reached_rails

    def both(impacts, needed, params=None, cue_ball=False, rack=15):
        now = real(impacts, needed, params, cue_ball=cue_ball, rack=rack)
        before = real(impacts, needed, dict(params or {}, **BREAK_DECISION_BEFORE), cue_ball=cue_ball, rack=rack)
        if now != before:
            changed.append("%d impacts: %s, before %s" % (len(impacts), "legal" if now else "illegal",
                                                          "legal" if before else "illegal"))
        return now
    break_estimator.break_reached_rails = both
    try:
        yield
    finally:
        break_estimator.break_reached_rails = real


def with_the_break_decision(name, run):
    """run() as the code is; if it fails where a break is judged otherwise than before, run() again
    with the decision before, which must pass."""
    changed = []
    undone, racks = len(UNDONE_NEW_GAMES), len(RACKS_BY_BUTTON)
    with break_verdicts_watched(changed):
        try:
            return run()
        except AssertionError:
            if not changed:
                raise
    del UNDONE_NEW_GAMES[undone:]
    del RACKS_BY_BUTTON[racks:]
    with break_decision_before():
        out = run()
    CHANGED_BREAKS.append("%s (%s)" % (name, "; ".join(changed)))
    return out


def compare(name, entries, golden_answers, referee):
    """Fold `entries` (heads included) through the one fold into `referee`, checking each entry's
    answer and the state after it; the number of entries compared."""
    from host.fold import Fold
    fold = Fold(referee)
    state = None
    racked = False
    i = 0
    for e in entries:
        res = fold.feed(json.loads(json.dumps(e)))
        if res is None:         # a head
            continue
        want_res, want_state = golden_answers[i]
        want_res = sensor_words(e, players_words(want_res, res))
        if racked:
            racked = False
            assert [ev for ev in want_res["events"] if is_next_rack(ev)], "%s, entry %d: the rack began" % (name, i)
            want_res = dict(want_res, events=[ev for ev in want_res["events"] if not is_next_rack(ev)])
        if rack_by_button(e, want_res, res):
            RACKS_BY_BUTTON.append("%s, entry %d" % (name, i))
            racked = True
            state = want_state if want_state is not None else state
            i += 1
            continue
        d = differs(want_res, res, "answer")
        if d is None:
            state = want_state if want_state is not None else state
            got = referee.state()
            d = differs(state, got, "state")
            if d is not None and brought_back_shots(res, state, got):
                UNDONE_NEW_GAMES.append("%s, entry %d" % (name, i))
                referee.book.history = []          # as the old code left it
                d = differs(state, referee.state(), "state")
        assert d is None, "%s, entry %d %s: %s" % (name, i, json.dumps(e)[:200], d)
        i += 1
    assert i == len(golden_answers)
    return i


def test_every_journal_replays_to_the_same_answers_and_states(golden):
    compared = journals = 0
    for name, j in sorted(golden["journals"].items()):
        compared += with_the_break_decision(name, lambda: compare(name, j["entries"], j["answers"], new_referee()))
        journals += 1
    print("replay equality: %d journals, %d entries compared; an undo brought a replaced game back with "
          "its shots %d times: %s; the confirm button began the next rack %d times: %s"
          % (journals, compared, len(UNDONE_NEW_GAMES), "; ".join(UNDONE_NEW_GAMES), len(RACKS_BY_BUTTON),
             "; ".join(RACKS_BY_BUTTON)))
    print("breaks judged otherwise than with the impact count: %s" % "; ".join(CHANGED_BREAKS))
    assert journals > 250 and compared > 20000


def test_each_file_of_a_daemon_written_folder_replays_from_its_own_head(golden):
    del CHANGED_BREAKS[:]
    files = table_files(os.path.join(FOLDER, "t1.jsonl"))
    want = golden["daemon-t1"]["files"]
    assert sorted(os.path.relpath(f, FOLDER) for f in files) == sorted(want)
    compared = 0
    for f in files:
        name = os.path.relpath(f, FOLDER)
        compared += with_the_break_decision(name, lambda: compare(name, read_entries(f), want[name], new_referee()))
    whole = [e for f in files for e in read_entries(f) if e.get("src") != HEAD]
    compared += with_the_break_decision("whole folder", lambda: compare("whole folder", whole,
                                                                        golden["daemon-t1"]["whole"], new_referee()))
    print("daemon folder: %d files, %d entries compared; breaks judged otherwise than with the impact count: %s"
          % (len(files), compared, "; ".join(CHANGED_BREAKS)))


def test_start_up_on_a_folder_written_by_the_old_daemon_gives_the_same_table(golden, tmp_path):
    from host.daemon import Daemon
    shutil.copytree(FOLDER, tmp_path / "j")
    d = Daemon("t1", "loop://", journal_dir=str(tmp_path / "j"), outputs=[])
    d.start_journal()
    state = dict(d.state)
    d.close()
    want = dict(golden["daemon-t1"]["start_up_state"])
    if isinstance(want.get("shot_clock"), dict):       # counts from the wall clock of the start-up
        want["shot_clock"] = {k: v for k, v in want["shot_clock"].items() if k != "started_wall"}
    assert differs(want, state) is None, differs(want, state)


def test_history_of_a_folder_written_by_the_old_daemon_is_the_same(golden):
    from host.history import matches_from_journals
    files = table_files(os.path.join(FOLDER, "t1.jsonl"))

    def same_history():
        records, withdrawn = matches_from_journals(files, "t1")
        # One change, on purpose: a record's `ended` is now when the match was won (the referee's
        # match.ended), no longer the last entry that changed the won table (a rename after the win).
        want = golden["daemon-t1"]["history"]
        for w, r in zip(want, records):
            assert w["started"] <= r["ended"] <= w["ended"]
        strip = [[{k: v for k, v in rec.items() if k != "ended"} for rec in recs] for recs in (want, records)]
        assert differs(strip[0], strip[1]) is None, differs(strip[0], strip[1])
        assert sorted(withdrawn, key=lambda x: (x is None, x)) == golden["daemon-t1"]["withdrawn"]
    with_the_break_decision("history", same_history)
