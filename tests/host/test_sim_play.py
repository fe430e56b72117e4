"""The simulated table keeps a game going: after the 8 drops the next game starts by itself."""
from host.sim.play import TablePlay
from shared_rules.rules.referee import Referee


def test_the_simulated_table_plays_game_after_game_through_the_referee():
    play = TablePlay(seed=7)
    ref = Referee("t1")
    ref.apply({"src": "hello", "features": 0x0D})
    ref.apply({"src": "cmd", "cmd": "new_game", "body": {"game": "eight-ball", "players": ["A", "B"]}})
    t_us = 0
    games_started = 1
    for _ in range(400):
        events, pause = play.next_shot()
        for t, kind, index, value, flags in events:
            res = ref.apply({"src": "board", "t_us": t_us + int(t * 1e6), "kind": kind, "index": index,
                             "value": value, "flags": flags})
            assert res["ok"], res
            games_started += sum(1 for e in res["events"] if e["event"] == "rerack")
        t_us += int((events[-1][0] + pause) * 1e6)
    assert games_started >= 3
    assert ref.state()["phase"] in ("break", "play", "decision", "over")
