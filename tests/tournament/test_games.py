"""Eight-ball and straight pool (14.1) tournaments: the table's own referee takes the new_game the
service sends (a race of racks, or a points target for 14.1) and plays it out; the record the
daemon would publish of it closes the match, with the score the table reports; a record of
another length does not. (Nine-ball runs the whole night in test_night.py.)"""
import json

from host import history
from host.cli import build_parser
from host.tournament import cli, model
from tests.scenarios.runner import apply_command, new_game as table_game
from tests.tournament.test_service import new_games, table_state, venue  # noqa: F401 (the fixture)


def tournament(svc, st, sent, game, race):
    args = build_parser().parse_args(["tournament", "create", "Night", "--game", game, "--format", "single",
                                      "--race", str(race), "--players", "Anna,Bob", "--tables", "t1"])
    tid = cli.create(args, st)
    st.start(tid)
    table_state(svc, "t1", ["Player 1", "Player 2"])
    svc.step()
    return tid, new_games(sent, "t1")[-1]


def table_plays(body):
    """The table's referee, given the service's new_game as the daemon passes it on."""
    b = dict(body)
    return table_game(b.pop("game"), **b)


def eight_ball_racks(r, winners):
    """Each rack won in turn by the player named: the loser pockets the 8 early (a lost game:
    the breaker right after a legal break, else after the winner's dry break)."""
    for w in winners:
        s = r.ref.state()
        if s["needs"]:                                   # the deciding rack: lagged for first
            assert apply_command(r, "lag", {"winner": w})["ok"]
            s = r.ref.state()
        if s["between_racks"]:
            assert apply_command(r, "next_rack")["ok"]
            s = r.ref.state()
        if w == s["breaker"]:
            r.shot({"rails": 5})                                     # a legal dry break
            r.shot({"rails": 2, "pocketed": [[8, "foot-left"]]})     # the other: the 8 too early
        else:
            r.shot({"rails": 5, "pocketed": [[3, "foot-left"]]})
            r.shot({"rails": 2, "pocketed": [[8, "foot-left"]]})
    return r.ref.state()


def closes(svc, st, clock, tid, body, s, started_late=60):
    clock.t += started_late
    rec = history.record("t1", s, clock.t - 30, clock.t)
    table_state(svc, "t1", body["players"], winner=s["winner"], shot=3)
    svc.message("billiards/t1/match", json.dumps(rec).encode())
    return rec, model.show(st.tournament(tid))


def test_an_eight_ball_match_is_sent_as_a_race_of_racks_and_the_tables_record_closes_it(venue):
    svc, st, clock, sent = venue
    tid, body = tournament(svc, st, sent, "eight-ball", 2)
    assert body["game"] == "eight-ball" and body["race_to"] == 2 and "target" not in body
    r = table_plays(body)
    s = eight_ball_racks(r, [1, 0, 1])
    assert s["winner"] == 1 and s["match_score"] == [1, 2]
    rec, shown = closes(svc, st, clock, tid, body, s)
    assert rec["race_to"] == 2 and rec["assignment"] == body["assignment"]
    assert shown["status"] == "finished" and shown["winner"] == "Bob"
    assert shown["matches"][0]["score"] == [1, 2] and shown["matches"][0]["how"] == "table"


def test_a_straight_pool_match_is_sent_with_its_points_target_and_counts_only_at_that_target(venue):
    svc, st, clock, sent = venue
    tid, body = tournament(svc, st, sent, "straight-pool", 3)
    assert body["game"] == "straight-pool" and body["target"] == 3 and "race_to" not in body
    # The same players' game to another target (set up by hand at the table) is not the match.
    other = table_plays(dict(body, target=2))
    for ball, pocket in ((1, "foot-left"), (2, "side-right")):
        assert apply_command(other, "call", {"ball": ball, "pocket": pocket})["ok"]
        other.shot({"rails": 1, "pocketed": [[ball, pocket]]})
    assert other.ref.state()["winner"] == 0
    _rec, shown = closes(svc, st, clock, tid, body, other.ref.state())
    assert shown["status"] == "running" and "target 2 is not the assigned 3" in st.log_lines(1, "ignored")[0]["text"]
    r = table_plays(body)
    for ball, pocket in ((1, "foot-left"), (2, "side-right"), (3, "head-left")):
        assert apply_command(r, "call", {"ball": ball, "pocket": pocket})["ok"]
        r.shot({"rails": 1, "pocketed": [[ball, pocket]]})
    s = r.ref.state()
    assert s["winner"] == 0 and [p["score"] for p in s["players"]] == [3, 0]
    rec, shown = closes(svc, st, clock, tid, body, s)
    assert rec["target"] == 3 and rec["race_to"] is None
    assert shown["winner"] == "Anna" and shown["matches"][0]["score"] == [3, 0] and shown["matches"][0]["race"] == 3
