"""Handicapped tournaments (issue 19's leftover): the service sends each player's race, fixed by
the players' Glicko-2 ratings when the match goes to its table, and the table's own match record
of that race (the referee playing it to the weaker player's shorter race) closes the match."""
import json

import pytest

from host import history
from host.cli import build_parser
from host.tournament import cli, model, ratings
from tests.scenarios.runner import new_game as table_game, win_nine_ball_racks
from tests.tournament.test_service import new_games, table_state, venue  # noqa: F401 (the fixture)


def earlier_match(svc, clock, winner, loser, table="t9"):
    """A friendly match heard on the broker: it rates both players."""
    clock.t += 10
    svc.message("billiards/%s/match" % table, json.dumps({
        "table": table, "started": clock.t - 5, "ended": clock.t, "game": "nine-ball", "race_to": 1,
        "target": None, "winner": 0, "winner_name": winner, "score": [1, 0],
        "players": [{"name": winner}, {"name": loser}]}).encode())


def play(body, winner_racks):
    """The table's referee plays the new_game it was sent: each rack won on the break by the
    player named (0 or 1) in turn; the record the daemon would publish."""
    r = table_game(body["game"], players=body["players"], race_to=body["race_to"])
    return win_nine_ball_racks(r, winner_racks).ref.state()


def test_a_handicapped_match_gets_each_players_race_and_the_tables_record_closes_it(venue):
    svc, st, clock, sent = venue
    earlier_match(svc, clock, "Anna", "Bob")         # Anna about 1662, Bob about 1338
    rated = {n: p["rating"] for n, p in ratings.fold(st.rated_matches()).items()}
    assert 300 < rated["Anna"] - rated["Bob"] < 400
    args = build_parser().parse_args(["tournament", "create", "Handicap night", "--game", "nine-ball",
                                          "--format", "single", "--race", "5", "--players", "Anna,Bob",
                                          "--tables", "t1", "--handicap"])
    tid = cli.create(args, st)
    st.start(tid)
    table_state(svc, "t1", ["Player 1", "Player 2"])
    svc.step()
    body = new_games(sent, "t1")[-1]
    assert body["players"] == ["Anna", "Bob"] and body["race_to"] == [5, 2], body   # 3 games off: 300+ points
    shown = model.show(st.tournament(tid))
    assert shown["matches"][0]["race"] == 5 and shown["matches"][0]["races"] == [5, 2]

    # A record of the same players at a plain race 5 is not the match that was sent.
    table_state(svc, "t1", ["Anna", "Bob"], shot=1)
    clock.t += 60
    forged = {"table": "t1", "started": clock.t - 30, "ended": clock.t, "game": "nine-ball", "race_to": 5,
              "target": None, "winner": 1, "winner_name": "Bob", "score": [0, 5],
              "players": [{"name": "Anna"}, {"name": "Bob"}], "assignment": body["assignment"]}
    svc.message("billiards/t1/match", json.dumps(forged).encode())
    assert st.tournament(tid)["results"] == {}
    assert "race_to 5 is not the assigned [5, 2]" in st.log_lines(5, "ignored")[0]["text"]

    # The table plays it: Bob wins at 2 racks (his race), Anna has 1.
    s = play(body, [0, 1, 1])
    assert s["winner"] == 1 and s["match_score"] == [1, 2] and s["race_to_each"] == [5, 2]
    s["match"] = dict(s["match"], assignment=body["assignment"])
    clock.t += 60
    rec = history.record("t1", s, clock.t - 50, clock.t)
    assert rec["race_to"] == 5 and rec["race_to_each"] == [5, 2]
    table_state(svc, "t1", ["Anna", "Bob"], winner=1, shot=3, score=(1, 2))
    svc.message("billiards/t1/match", json.dumps(rec).encode())
    t = st.tournament(tid)
    assert t["results"]["W1.1"]["score"] == [1, 2] and t["players"][t["results"]["W1.1"]["winner"]] == "Bob"
    shown = model.show(t)
    assert shown["status"] == "finished" and shown["winner"] == "Bob"
    assert shown["matches"][0]["races"] == [5, 2], "the bracket keeps the races it was played to"


def test_without_a_rating_gap_or_a_handicap_the_race_is_one_number(venue):
    svc, st, clock, sent = venue
    args = build_parser().parse_args(["tournament", "create", "Even", "--race", "3", "--format", "single",
                                          "--players", "Cid,Dan", "--tables", "t1", "--handicap", "50"])
    tid = cli.create(args, st)
    assert st.tournament(tid)["options"]["handicap"] == 50
    st.start(tid)
    table_state(svc, "t1", ["Player 1", "Player 2"])
    svc.step()
    body = new_games(sent, "t1")[-1]
    assert body["race_to"] == 3 and model.show(st.tournament(tid))["matches"][0]["races"] is None
    for bad in (["--game", "straight-pool", "--handicap"], ["--handicap", "5"]):
        a = build_parser().parse_args(["tournament", "create", "X", "--race", "3", "--players", "A,B",
                                           "--tables", "t1"] + bad)
        with pytest.raises(ValueError):
            cli.create(a, st)
