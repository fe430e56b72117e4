"""The venue service's decisions over MQTT messages, without a broker: a real SQLite store, the
tables' retained state/status/match fed in as the daemons publish them, and what it sends kept."""
import json

import pytest

from host.tournament import model, referee
from host.tournament.service import VenueService, director_report
from host.tournament.store import Store


class Clock:
    def __init__(self):
        self.t = 1000.0

    def __call__(self):
        return self.t


@pytest.fixture
def venue(tmp_path):
    st = Store(str(tmp_path / "t.sqlite3"))
    clock = Clock()
    sent = []
    svc = VenueService(st, lambda topic, payload, retain: sent.append((topic, payload, retain)),
                       clock=clock, monotonic=clock, discovery_prefix=None)
    svc.connected()
    clock.t += 2
    yield svc, st, clock, sent
    st.close()


def new_games(sent, table=None):
    return [json.loads(p) for t, p, _r in sent if t.endswith("/cmd/new_game") and (table is None or t.split("/")[1] == table)]


def table_state(svc, table, names, winner=None, shot=0, score=(0, 0), status="online"):
    svc.message("billiards/%s/status" % table, status.encode())
    svc.message("billiards/%s/state" % table, json.dumps({
        "table": table, "game": "nine-ball", "players": [{"name": n, "score": s} for n, s in zip(names, score)],
        "winner": winner, "shot": shot, "rack": 1, "phase": "over" if winner is not None else "break",
        "link": {"state": "up"}}).encode())


def finish(svc, clock, table, names, winner_index, score, race=2):
    table_state(svc, table, names, winner=winner_index, shot=9, score=score)
    clock.t += 1
    rec = {"table": table, "started": clock.t - 0.5, "ended": clock.t, "game": "nine-ball", "race_to": race,
           "target": None, "winner": winner_index, "winner_name": names[winner_index], "score": list(score),
           "players": [{"name": n} for n in names]}
    svc.message("billiards/%s/match" % table, json.dumps(rec).encode())
    return rec


def start(st, fmt="single", players=("Anna", "Bob", "Cid", "Dan"), tables=("t1", "t2"), race=2):
    tid = st.create("Night", "nine-ball", fmt, race, list(players), list(tables))
    st.start(tid)
    return tid


def test_free_tables_get_the_first_matches_and_a_table_result_advances_the_bracket(venue):
    svc, st, clock, sent = venue
    table_state(svc, "t1", ["Player 1", "Player 2"])
    table_state(svc, "t2", ["Player 1", "Player 2"], winner=0, shot=12)
    tid = start(st)
    svc.step()
    assert new_games(sent) == [{"game": "nine-ball", "players": ["Anna", "Dan"], "breaker": 0, "race_to": 2,
                                "id": "venue-venue-t%d-W1.1" % tid, "assignment": "venue-venue-t%d-W1.1" % tid,
                                "unless_playing": True},
                               {"game": "nine-ball", "players": ["Bob", "Cid"], "breaker": 0, "race_to": 2,
                                "id": "venue-venue-t%d-W1.2" % tid, "assignment": "venue-venue-t%d-W1.2" % tid,
                                "unless_playing": True}]
    # The tables take them; t1's match ends; the final waits for the other semi-final.
    table_state(svc, "t1", ["Anna", "Dan"])
    table_state(svc, "t2", ["Bob", "Cid"], shot=3)
    finish(svc, clock, "t1", ["Anna", "Dan"], 1, [1, 2])
    t = st.tournament(tid)
    assert t["results"]["W1.1"]["score"] == [1, 2] and t["results"]["W1.1"]["winner"] == 3
    assert len(new_games(sent)) == 2
    finish(svc, clock, "t2", ["Bob", "Cid"], 0, [2, 0])
    assert new_games(sent)[-1]["players"] == ["Dan", "Bob"] and new_games(sent)[-1]["race_to"] == 2
    # The record of the final is counted once, even delivered again.
    table_state(svc, "t1", ["Dan", "Bob"])
    rec = finish(svc, clock, "t1", ["Dan", "Bob"], 1, [0, 2])
    assert model.show(st.tournament(tid))["winner"] == "Bob"
    svc.message("billiards/t1/match", json.dumps(rec).encode())
    assert "duplicate" in st.log_lines(1)[0]["text"]


def test_results_from_the_wrong_table_or_for_the_wrong_players_change_nothing(venue):
    svc, st, clock, sent = venue
    table_state(svc, "t1", ["x", "y"])
    table_state(svc, "t2", ["x", "y"], shot=5)            # t2 is busy with a game of its own
    tid = start(st, players=("Anna", "Bob"))
    svc.step()
    assert [g["players"] for g in new_games(sent, "t1")] == [["Anna", "Bob"]] and not new_games(sent, "t2")
    table_state(svc, "t1", ["Anna", "Bob"], shot=2)
    finish(svc, clock, "t2", ["Anna", "Bob"], 0, [2, 0])   # t2's daemon reports t1's match
    finish(svc, clock, "t1", ["Anna", "Eve"], 0, [2, 0])   # other players
    finish(svc, clock, "t1", ["Anna", "Bob"], 0, [1, 0], race=1)   # another race
    assert st.tournament(tid)["results"] == {}
    texts = " | ".join(l["text"] for l in st.log_lines(10, "ignored"))
    assert "assigned to table t1" in texts and "not the assigned" in texts and "race_to" in texts
    # The real one counts.
    finish(svc, clock, "t1", ["Anna", "Bob"], 1, [1, 2])
    assert model.show(st.tournament(tid))["winner"] == "Bob"


def test_a_new_game_the_table_did_not_take_is_sent_again_and_an_unplugged_table_keeps_its_match(venue):
    svc, st, clock, sent = venue
    table_state(svc, "t1", ["x", "y"])
    start(st, players=("Anna", "Bob"), tables=("t1",))
    svc.step()
    assert len(new_games(sent)) == 1
    clock.t += 1
    svc.step()
    assert len(new_games(sent)) == 1                       # not yet: RESEND_S
    clock.t += 3
    svc.step()
    assert len(new_games(sent)) == 2                       # refused (balls rolling): sent again
    table_state(svc, "t1", ["Anna", "Bob"])                # taken
    table_state(svc, "t1", ["Anna", "Bob"], shot=3)
    svc.message("billiards/t1/state", json.dumps({"players": [{"name": "Anna"}, {"name": "Bob"}], "winner": None,
                                                   "shot": 3, "link": {"state": "down"}}).encode())
    clock.t += 30
    svc.step()
    table_state(svc, "t1", ["Anna", "Bob"], status="offline")
    clock.t += 30
    svc.step()
    assert len(new_games(sent)) == 2                       # the match stays, nothing resent


def test_after_a_restart_a_match_won_meanwhile_is_recorded_not_restarted(tmp_path):
    st = Store(str(tmp_path / "t.sqlite3"))
    clock = Clock()
    sent = []
    svc = VenueService(st, lambda *m: sent.append(m), clock=clock, monotonic=clock, discovery_prefix=None)
    svc.connected()
    clock.t += 2
    table_state(svc, "t1", ["x", "y"])
    tid = start(st, players=("Anna", "Bob"), tables=("t1",))
    svc.step()
    st.close()
    # The service dies; the match is played and won; a new service starts and hears the retained
    # state (winner) before the retained match record.
    st = Store(str(tmp_path / "t.sqlite3"))
    sent2 = []
    svc2 = VenueService(st, lambda *m: sent2.append(m), clock=clock, monotonic=clock, discovery_prefix=None)
    svc2.connected()
    table_state(svc2, "t1", ["Anna", "Bob"], winner=0, shot=7, score=(2, 0))
    finish(svc2, clock, "t1", ["Anna", "Bob"], 0, [2, 0])
    clock.t += 2
    svc2.step()
    assert not new_games(sent2)
    assert model.show(st.tournament(tid))["winner"] == "Anna"
    st.close()


def test_the_director_walkover_correction_and_move(venue):
    svc, st, clock, sent = venue
    for t in ("t1", "t2", "t3"):
        table_state(svc, t, ["x", "y"], shot=4)            # every table busy
    tid = start(st, players=("Anna", "Bob", "Cid", "Dan"))
    ok, msg = svc.report(tid, "W1.1", "Anna", None, "walkover")
    assert ok, msg
    assert model.show(st.tournament(tid))["matches"][0]["how"] == "walkover"
    ok, msg = svc.move(tid, "W1.2", "t3")
    assert ok and st.tournament(tid)["playing"] == {"W1.2": "t3"}
    table_state(svc, "t3", ["x", "y"], winner=1, shot=9)
    assert new_games(sent, "t3")[-1]["players"] == ["Bob", "Cid"]
    ok, msg = svc.report(tid, "W1.2", "Eve", [2, 0])
    assert not ok and "does not play" in msg
    ok, msg = director_report(st, tid, "W1.2", "Cid", [0, 2], "correction", clock())
    assert ok and st.tournament(tid)["results"]["W1.2"]["winner"] == 2
    assert st.tournament(tid)["playing"] == {}


def test_winner_stays_on(venue):
    svc, st, clock, sent = venue
    table_state(svc, "t5", ["Anna", "Bob"], shot=3)
    svc.join_queue("t5", "Cid")
    svc.join_queue("t5", "Dan")
    assert not new_games(sent)
    rec = finish(svc, clock, "t5", ["Anna", "Bob"], 1, [0, 1], race=1)
    assert new_games(sent)[-1] == {"game": "nine-ball", "players": ["Bob", "Cid"], "breaker": 0, "race_to": 1}
    assert st.queue("t5") == ["Dan"]
    with pytest.raises(ValueError):
        svc.join_queue("t5", "dan")
    assert referee.record_key("t5", rec) in [r["key"] for r in st.records()]


def test_a_league_adds_up_its_nights(venue):
    svc, st, clock, sent = venue
    lg = st.create_league("Winter", win_points=2)
    nights = []
    for winner in ("Anna", "Bob"):
        tid = st.create("Night", "nine-ball", "single", 2, ["Anna", "Bob"], ["t9"], league=lg)
        st.start(tid)
        assert director_report(st, tid, "W1.1", winner, [2, 1] if winner == "Anna" else [0, 2],
                               "correction", clock())[0]
        nights.append(tid)
    table = svc.league(lg)
    assert table["nights"] == nights
    rows = {r["player"]: r for r in table["rows"]}
    assert rows["Anna"]["points"] == rows["Bob"]["points"] == 2
    assert (rows["Bob"]["racks_for"], rows["Bob"]["racks_against"]) == (3, 2)
    assert table["rows"][0]["player"] == "Bob"                  # more racks won
    assert svc.league(99) is None


def test_home_assistant_venue_device_templates_render_the_current_and_next_matches():
    import jinja2
    from host.tournament import ha
    now = {"current": [{"tournament": 1, "name": "Friday", "match": "W1.1", "label": "Winners round 1",
                        "players": ["Anna", "Hana"], "table": "t1"},
                       {"tournament": 1, "name": "Friday", "match": "W1.2", "label": "Winners round 1",
                        "players": ["Dasha", "Emil"], "table": "t2"}],
           "next": [{"tournament": 1, "name": "Friday", "match": "W1.3", "label": "Winners round 1",
                     "players": ["Boris", "Gleb"], "table": None}], "queues": {}}
    env = jinja2.Environment()
    cfgs = {topic.split("/")[-2]: cfg for topic, cfg in ha.configs("venue", "billiards-venue/venue")}
    render = lambda obj, data: env.from_string(cfgs[obj]["value_template"]).render(value_json=data)
    assert render("current", now) == "t1: Anna v Hana · t2: Dasha v Emil"
    assert render("next", now) == "Boris v Gleb (Friday, Winners round 1)"
    assert render("playing", now) == "2"
    empty = {"current": [], "next": [], "queues": {}}
    assert render("current", empty) == "None" and render("next", empty) == "None"
    assert all(c["availability_topic"] == "billiards-venue/venue/status" and
               c["device"]["identifiers"] == ["billiards_venue_venue"] for c in cfgs.values())


def test_a_match_moved_by_the_command_line_goes_to_its_new_table_while_the_service_runs(venue, capsys):
    """`billiards tournament move` is another process: the running service, which saw the match
    started on its old table, sends it to the new one (and never again to the old one)."""
    from host.cli import build_parser
    from host.tournament.cli import cmd_tournament
    import time
    svc, st, clock, sent = venue
    clock.t = time.time()                                   # the command line's clock is the wall's
    table_state(svc, "t1", ["x", "y"])
    table_state(svc, "t2", ["x", "y"], shot=3)              # busy with a game of its own
    tid = start(st, players=("Anna", "Bob"))
    svc.step()
    table_state(svc, "t1", ["Anna", "Bob"], shot=2)        # started on t1, which then goes dark
    table_state(svc, "t1", ["Anna", "Bob"], shot=2, status="offline")
    run = lambda *a: cmd_tournament(build_parser().parse_args(["tournament"] + [str(x) for x in a] + ["--db", st.path]))
    assert run("move", tid, "W1.1", "--table", "t2") == 0
    table_state(svc, "t2", ["x", "y"], winner=0, shot=9)   # t2's game ends: t2 is free
    clock.t += 1
    svc.step()
    assert [g["players"] for g in new_games(sent, "t2")] == [["Anna", "Bob"]]
    assert len(new_games(sent, "t1")) == 1
    # t1 comes back and ends the old game: too late, it does not count; t2's does.
    finish(svc, clock, "t1", ["Anna", "Bob"], 1, [0, 2])
    assert st.tournament(tid)["results"] == {}
    table_state(svc, "t2", ["Anna", "Bob"], shot=1)
    finish(svc, clock, "t2", ["Anna", "Bob"], 0, [2, 1])
    assert model.show(st.tournament(tid))["winner"] == "Anna"
    # A table id no topic can carry is refused in words and changes nothing.
    tid2 = start(st, players=("Cid", "Dan"))
    for bad in ("t1/cmd", "+", "#", "", "x" * 33):
        assert run("move", tid2, "W1.1", "--table", bad) == 2
        ok, msg = svc.move(tid2, "W1.1", bad)
        assert not ok and "table id" in msg
    assert "table id" in capsys.readouterr().err


def test_a_result_that_does_not_count_changes_no_rating_either(venue):
    """Ignored records (another table's daemon reporting this match, a moved match's old table,
    a table finishing a match the director already ruled) move nobody's rating; the match is
    rated once, by its result; a table's own game between other players is rated as before."""
    svc, st, clock, sent = venue
    table_state(svc, "t1", ["x", "y"])
    table_state(svc, "t2", ["x", "y"])
    tid = start(st, players=("Anna", "Bob", "Cid", "Dan"))
    svc.step()
    table_state(svc, "t1", ["Anna", "Dan"], shot=2)
    table_state(svc, "t2", ["Bob", "Cid"], shot=2)
    rec = finish(svc, clock, "t2", ["Anna", "Dan"], 0, [2, 0])      # t2's daemon: t1's match
    assert "assigned to table t1" in st.log_lines(1, "ignored")[0]["text"]
    assert svc.ratings() == {}
    # The director rules t2's match while it is still played; the table's record then comes.
    assert svc.report(tid, "W1.2", "Bob", [2, 1])[0]
    label = "venue-venue-t%d-W1.2" % tid
    table_state(svc, "t2", ["Bob", "Cid"], winner=1, shot=9, score=(1, 2))
    clock.t += 1
    svc.message("billiards/t2/match", json.dumps(dict(rec, players=[{"name": "Bob"}, {"name": "Cid"}], winner=1,
                                                      score=[1, 2], started=clock.t - 0.5, ended=clock.t,
                                                      assignment=label)).encode())
    r = svc.ratings()
    assert r["Bob"]["wins"] == 1 and r["Cid"]["losses"] == 1 and r["Bob"]["matches"] == 1
    assert "Anna" not in r and "Dan" not in r
    # t1's match counts and is rated once.
    finish(svc, clock, "t1", ["Anna", "Dan"], 1, [1, 2])
    r = svc.ratings()
    assert r["Dan"]["wins"] == 1 and r["Anna"]["matches"] == 1
    # A game of t9's own (no tournament there) is rated.
    table_state(svc, "t9", ["Eve", "Fay"], shot=3)
    finish(svc, clock, "t9", ["Eve", "Fay"], 0, [3, 0], race=3)
    assert svc.ratings()["Eve"]["wins"] == 1


def test_the_queue_never_replaces_a_game_it_sent_and_survives_a_restart(venue, tmp_path):
    """Winner stays on with more than two waiting: the first two play and the others wait (the
    next two used to be sent over them at once); the winner of each game plays the next in line;
    a game that ended before anyone joined keeps its winner on; the game sent is in SQLite, so a
    service killed before the table took it sends it again after its restart."""
    svc, st, clock, sent = venue
    table_state(svc, "t5", ["Player 1", "Player 2"])
    for n in ("Cid", "Dan", "Eve", "Fay"):
        svc.join_queue("t5", n)
    assert [g["players"] for g in new_games(sent, "t5")] == [["Cid", "Dan"]]
    assert st.queue("t5") == ["Eve", "Fay"]
    table_state(svc, "t5", ["Cid", "Dan"])                  # taken, nobody has shot yet
    clock.t += 10
    svc.step()
    assert [g["players"] for g in new_games(sent, "t5")] == [["Cid", "Dan"]]
    finish(svc, clock, "t5", ["Cid", "Dan"], 1, [0, 1], race=1)
    assert new_games(sent, "t5")[-1]["players"] == ["Dan", "Eve"] and st.queue("t5") == ["Fay"]
    # The service dies before t5 takes it; another one starts on the same database.
    sent2 = []
    svc2 = VenueService(st, lambda topic, payload, retain: sent2.append((topic, payload, retain)),
                        clock=clock, monotonic=clock, discovery_prefix=None)
    svc2.connected()
    table_state(svc2, "t5", ["Cid", "Dan"], winner=1, shot=9, score=(0, 1))
    svc2.message("billiards/t5/match", json.dumps({
        "table": "t5", "started": clock.t - 0.5, "ended": clock.t, "game": "nine-ball", "race_to": 1,
        "target": None, "winner": 1, "winner_name": "Dan", "score": [0, 1],
        "players": [{"name": "Cid"}, {"name": "Dan"}]}).encode())          # retained: known already
    clock.t += 2
    svc2.step()
    assert [g["players"] for g in new_games(sent2, "t5")] == [["Dan", "Eve"]] and st.queue("t5") == ["Fay"]
    # A game that ended before anyone joined: its winner stays on against the first to join.
    table_state(svc2, "t6", ["Anna", "Bob"], shot=4)
    finish(svc2, clock, "t6", ["Anna", "Bob"], 0, [1, 0], race=1)
    svc2.join_queue("t6", "Gus")
    assert new_games(sent2, "t6")[-1]["players"] == ["Anna", "Gus"] and st.queue("t6") == []
