"""The tournament's pure core: formats, seeding, byes, advancement, corrections, races,
standings, ratings, which table result counts, scheduling and the winner-stays-on queue."""
import random
from collections import Counter

import pytest

from host.tournament import (advance, brackets, glicko2, model, queue, races, ratings, referee,
                             schedule, seeding, standings)


def tournament(fmt, n, race=2, race_final=None, **options):
    return {"id": 1, "name": "Night", "game": "nine-ball", "format": fmt, "race": race,
            "race_final": race_final, "per_round": {}, "players": ["P%d" % i for i in range(n)],
            "results": {}, "playing": {}, "status": "running", "options": options}


def play_out(t, pick=lambda m, rnd: min(m["players"]), rnd=None):
    """Play every ready match (winner chosen by `pick`) until the tournament has a winner.
    Returns the results in the order played."""
    played = []
    for _ in range(500):
        ms = model.matches(t)
        if model.winner(t, ms) is not None:
            return played
        ready = advance.next_ready(ms)
        assert ready, "stuck with no winner and nothing to play: %s" % ms
        for m in ready:
            w = pick(m, rnd)
            loser_score = 1
            score = [2, loser_score] if w == m["players"][0] else [loser_score, 2]
            t["results"][m["id"]] = {"players": m["players"], "winner": w, "score": score, "how": "table"}
            played.append((m["id"], m["players"], w))
    raise AssertionError("never finished")


def test_seeds_meet_in_bracket_order_and_byes_go_to_the_top_seeds():
    assert seeding.bracket_positions(8) == [0, 7, 3, 4, 1, 6, 2, 5]
    t = tournament("single", 5)
    first = [m for m in model.matches(t) if m["round"] == "W1"]
    byes = [m for m in first if m["status"] == "bye"]
    assert sorted(m["winner"] for m in byes) == [0, 1, 2]          # seeds 1-3 go through
    assert [m["players"] for m in first if m["status"] == "ready"] == [[3, 4]]
    played = play_out(t)
    assert len(played) == 4 and model.winner(t) == 0


@pytest.mark.parametrize("n", list(range(2, 18)))
def test_double_elimination_everyone_but_the_champion_loses_twice(n):
    rnd = random.Random(n)
    t = tournament("double", n)
    played = play_out(t, lambda m, r: r.choice(m["players"]), rnd)
    champ = model.winner(t)
    losses = Counter()
    for _mid, players, w in played:
        assert players[0] != players[1]
        losses[[p for p in players if p != w][0]] += 1
    assert all(losses[p] == 2 for p in range(n) if p != champ)
    assert losses[champ] <= 1
    assert len(played) in (2 * n - 2, 2 * n - 1)
    shown = model.show(t)
    assert shown["status"] == "finished" and shown["winner"] == "P%d" % champ
    assert all(m["status"] == "done" for m in shown["matches"])


def test_grand_final_reset_only_when_the_losers_bracket_champion_wins_the_first_final():
    t = tournament("double", 4)
    # Seed 0 wins everything: no reset.
    play_out(t)
    assert "GF2" not in [m["id"] for m in model.show(t)["matches"]]
    t = tournament("double", 4)
    # The losers' bracket champion takes the first final: a reset follows.
    play_out(t, lambda m, r: m["players"][1] if m["id"] == "GF" else min(m["players"]))
    ids = [m["id"] for m in model.show(t)["matches"]]
    assert ids[-2:] == ["GF", "GF2"]


def test_round_robin_everyone_meets_everyone_once_and_standings_decide():
    t = tournament("round-robin", 5)
    played = play_out(t)
    pairs = Counter(tuple(sorted(p)) for _m, p, _w in played)
    assert len(pairs) == 10 and set(pairs.values()) == {1}
    assert model.winner(t) == 0
    rows = standings.rows(list(range(5)), [{"players": p, "winner": w, "score": [2, 1]} for _m, p, w in played])
    assert [r["player"] for r in rows] == [0, 1, 2, 3, 4] and rows[0]["points"] == 4


def test_nobody_is_sent_to_two_tables_at_once_in_a_round_robin():
    t = tournament("round-robin", 6)
    ready = advance.next_ready(model.matches(t))
    players = [p for m in ready for p in m["players"]]
    assert len(players) == len(set(players)) == 6


def test_groups_then_knockout_crosses_group_winners_with_runners_up():
    t = tournament("groups", 8, groups=2, advance=2)
    members = brackets.group_members(8, 2)
    play_out(t)
    ms = {m["id"]: m for m in model.matches(t)}
    a1, b1 = min(members["A"]), min(members["B"])
    first = [ms["K1.1"]["players"], ms["K1.2"]["players"]]
    assert first == [[a1, sorted(members["B"])[1]], [b1, sorted(members["A"])[1]]]
    assert model.winner(t) == 0


def test_head_to_head_breaks_a_two_way_tie():
    fin = [{"players": [0, 1], "winner": 1, "score": [1, 2]},
           {"players": [0, 2], "winner": 0, "score": [2, 1]},
           {"players": [1, 2], "winner": 2, "score": [1, 2]}]
    rows = standings.rows([0, 1, 2], fin)
    assert [r["points"] for r in rows] == [1, 1, 1]          # all level: seed order stays
    fin[2]["score"] = [1, 2]
    rows = standings.rows([0, 1, 2, 3], fin + [{"players": [3, 0], "winner": 0, "score": [0, 2]}])
    assert rows[0]["player"] == 0


def test_a_correction_flows_downstream_but_not_over_a_match_already_played():
    t = tournament("single", 4)
    play_out(t)
    assert model.winner(t) == 0
    # The final's score is corrected: allowed, the winner changes.
    r, why = model.correction(t, "W2.1", "P1", [1, 2], "correction")
    assert why is None
    t2 = model.with_result(t, "W2.1", r)
    assert model.show(t2)["winner"] == "P1"
    # Changing a first-round winner would change who played the final: refused, in words.
    r, why = model.correction(t, "W1.1", "P3", [1, 2], "correction")
    assert r is None and "W2.1" in why
    # A score that does not make the named player the winner is refused.
    assert model.correction(t, "W2.1", "P1", [2, 1], "correction")[0] is None
    assert "does not play" in model.correction(t, "W2.1", "P7", None, "walkover")[1]


def test_race_per_round_and_final_and_straight_pool_points():
    t = tournament("single", 4, race=3, race_final=5)
    t["per_round"] = {"W1": 2}
    ms = model.matches(t)
    assert [model.race(t, m) for m in ms] == [2, 2, 5]
    assert model.new_game(t, ms[0]) == {"game": "nine-ball", "players": ["P0", "P3"], "breaker": 0, "race_to": 2}
    assert races.new_game_body("straight-pool", ["A", "B"], 100) == {
        "game": "straight-pool", "players": ["A", "B"], "breaker": 0, "target": 100}
    with pytest.raises(ValueError):
        races.check("straight-pool", 1001)
    assert races.handicap(5, 1700, 1450) == (5, 3)
    assert races.handicap(5, 1200, 1800, most=2) == (3, 5)


def test_glicko2_reproduces_the_papers_worked_example():
    r, rd, vol = glicko2.update((1500, 200, 0.06), [((1400, 30), 1), ((1550, 100), 0), ((1700, 300), 0)])
    assert abs(r - 1464.06) < 0.05 and abs(rd - 151.52) < 0.05 and abs(vol - 0.05999) < 0.00001
    assert glicko2.update((1500, 200, 0.06), [])[1] > 200        # no games: less sure


def test_ratings_fold_every_match_and_skip_walkovers():
    recs = [{"key": "t1@1", "ended": 1, "players": ["Anna", "Bob"], "winner": "Anna", "score": [3, 1]},
            {"key": "t1@2", "ended": 2, "players": ["Bob", "Cid"], "winner": "Bob", "score": [3, 0]},
            {"key": "t1@3", "ended": 3, "players": ["Anna", "Cid"], "winner": "Anna", "walkover": True}]
    people = ratings.fold(recs)
    assert people["Anna"]["rating"] > 1500 > people["Cid"]["rating"]
    assert people["Anna"]["matches"] == 1 and people["Bob"]["matches"] == 2
    assert people["Bob"]["history"][0] == {"key": "t1@1", "ended": 1, "opponent": "Anna", "won": False,
                                           "score": [1, 3], "game": None, "before": 1500.0,
                                           "after": round(people["Bob"]["history"][0]["after"], 1)}
    # Folding in another order gives the same ratings (the fold sorts by end time).
    assert ratings.fold(list(reversed(recs)))["Anna"]["rating"] == people["Anna"]["rating"]


def test_seeding_by_rating_random_and_by_hand_and_names_told_apart():
    names = ["Anna", "Bob", "Cid"]
    assert seeding.seed_order(names, "rating", {"Cid": 1700, "Anna": 1600}) == [2, 0, 1]
    assert seeding.seed_order(names, "random", rng_seed=3) == seeding.seed_order(names, "random", rng_seed=3)
    assert sorted(seeding.seed_order(names, "random", rng_seed=3)) == [0, 1, 2]
    assert seeding.told_apart(["Anna", "anna", "Bob", "Anna"]) == ["Anna", "anna (2)", "Bob", "Anna (3)"]
    with pytest.raises(ValueError):
        seeding.clean_names("A" * 33)
    assert seeding.snake_groups(list(range(6)), 2) == [[0, 3, 4], [1, 2, 5]]


def record(**over):
    r = {"table": "t1", "started": 1000.0, "ended": 1100.0, "game": "nine-ball", "race_to": 3,
         "target": None, "winner": 1, "score": [1, 3],
         "players": [{"name": "Bob"}, {"name": "Anna"}]}
    r.update(over)
    return r


ASSIGNED = {"table": "t1", "game": "nine-ball", "race": 3, "names": ["Anna", "Bob"], "sent_at": 990.0}


def test_a_table_result_counts_only_from_the_assigned_table_for_the_assigned_match():
    assert referee.verdict("t1", record(), ASSIGNED, set()) == ("count", {"winner": "Anna", "score": [3, 1]})
    key = referee.record_key("t1", record())
    assert "duplicate" in referee.verdict("t1", record(), ASSIGNED, {key})[1]
    assert "assigned to table t1" in referee.verdict("t2", record(table="t2"), ASSIGNED, set())[1]
    assert "says table" in referee.verdict("t1", record(table="t2"), ASSIGNED, set())[1]
    assert "players" in referee.verdict("t1", record(players=[{"name": "Eve"}, {"name": "Anna"}]), ASSIGNED, set())[1]
    assert "race_to" in referee.verdict("t1", record(race_to=2), ASSIGNED, set())[1]
    assert "game" in referee.verdict("t1", record(game="eight-ball"), ASSIGNED, set())[1]
    assert "late" in referee.verdict("t1", record(started=500.0), ASSIGNED, set())[1]
    assert referee.verdict("t1", record(), None, set())[0] == "ignore"
    for bad in ("x", record(winner=2), record(players=[]), record(started="now"), record(score=[1])):
        assert referee.verdict("t1", bad, ASSIGNED, set())[0] == "ignore"


def test_a_table_is_free_only_online_with_no_game_in_play():
    on = {"status": "online"}
    assert schedule.is_free(on)
    assert schedule.is_free(dict(on, state={"winner": 0, "shot": 30}))
    assert schedule.is_free(dict(on, state={"winner": None, "shot": 0, "rack": 1}))
    assert not schedule.is_free(dict(on, state={"winner": None, "shot": 4}))
    assert not schedule.is_free({"status": "offline"})
    assert not schedule.is_free(dict(on, state={"winner": 0, "link": {"state": "down"}}))
    ready = [{"id": "a"}, {"id": "b"}]
    views = {"t1": on, "t2": on, "t3": on}
    assert schedule.plan(ready, ["t1", "t2", "t3"], views, {"t1"}) == [({"id": "a"}, "t2"), ({"id": "b"}, "t3")]


def test_winner_stays_on_queue():
    q = queue.join([], "Cid")
    q = queue.join(q, "Dan")
    with pytest.raises(ValueError):
        queue.join(q, "cid")
    assert queue.after_match(q, "Anna", "Bob") == (["Dan"], ["Anna", "Cid"])
    assert queue.at_idle(q) == ([], ["Cid", "Dan"])
    assert queue.after_match([], "Anna", "Bob") == ([], None)
    assert queue.leave(q, "cid") == ["Dan"]


def test_a_result_is_taken_back_only_when_nothing_later_depends_on_it():
    t = tournament("single", 4)
    play_out(t)
    assert "W2.1" in model.reopen(t, "W1.1")
    assert model.reopen(t, "W2.1") is None
    t = model.with_result(t, "W2.1", None)
    assert model.reopen(t, "W1.1") is None and model.winner(t) is None
    assert "no result" in model.reopen(t, "W2.1")
