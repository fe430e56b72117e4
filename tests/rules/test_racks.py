"""A match of racks through the Referee (issue 17): who breaks each next rack, the state between
racks, the next rack from a command, the confirm button or the break itself, and the house rule
`winner_breaks`.

The seed's rule, for all three games (GEN.LAG, the general rules): «В последующих партиях принято
соблюдать очередность. Прежде чем начать решающую партию, производится еще один розыгрыш.»
"""
import pytest

from shared_rules.link import names
from tests.scenarios.runner import apply_command as cmd, new_game

GAMES = ("eight-ball", "nine-ball", "straight-pool")


def start(game, **body):
    """A race to 3 (14.1: games to 1 point), Anna breaking the first rack."""
    if game == "straight-pool":
        body.setdefault("target", 1)
    return new_game(game, race_to=3, **body)


def win_rack(r, winner):
    """Play the rack being played to a win for `winner`, as the board reports the shots."""
    s = r.ref.state()
    b = s["breaker"]
    game = s["game"]
    if game == "eight-ball":
        r.shot({"rails": 5, "pocketed": [[1, "foot-left"]]})       # a legal break, the breaker goes on
        if winner == b:
            r.shot({"rails": 2})                                   # a miss: the opponent's turn
        r.shot({"rails": 2, "pocketed": [[8, "foot-right"]]})      # the 8 before the group: a loss
    elif game == "nine-ball":
        if winner == b:
            r.shot({"rails": 8, "pocketed": [[9, "foot-left"]]})   # the 9 on a legal break
        else:
            r.shot({"rails": 8, "pocketed": [[1, "foot-left"]]})
            r.shot({"rails": 2})
            r.shot({"rails": 2, "pocketed": [[9, "foot-right"]]})
    else:
        if winner == b:
            assert cmd(r, "call", {"ball": 3, "pocket": "foot-left"})["ok"]
            r.shot({"rails": 4, "pocketed": [[3, "foot-left"]]})    # the called ball on the break
        else:
            r.shot({"rails": 6})                                   # a safe break
            assert cmd(r, "call", {"ball": 3, "pocket": "foot-left"})["ok"]
            r.shot({"rails": 2, "pocketed": [[3, "foot-left"]]})
    s = r.ref.state()
    assert s["game_winner"] == winner and s["phase"] == "over", s
    return s


@pytest.mark.clause("GEN.LAG")
@pytest.mark.parametrize("game", GAMES)
def test_breaks_alternate_and_the_deciding_rack_is_lagged_for(game):
    r = start(game)
    s = r.ref.state()
    assert s["match_score"] == [0, 0] and s["racks"] == [] and not s["between_racks"] and s["next_break"] is None
    assert s["settings"]["winner_breaks"] is False

    # Rack 1: Anna breaks and wins. Between racks: the rack score, who breaks next (Bob: the breaks
    # alternate), and nothing else can be declared until the next rack begins.
    s = win_rack(r, 0)
    assert s["between_racks"] and s["winner"] is None and s["match_score"] == [1, 0]
    assert s["next_break"] == {"rack": 2, "player": 1, "rule": "alternate"} and s["shooter"] == 1
    assert s["racks"][0]["rack"] == 1 and s["racks"][0]["winner"] == 0 and s["racks"][0]["breaker"] == 0
    assert not s["hill_hill"]
    assert cmd(r, "call", {"ball": 3, "pocket": "side-left"})["code"] == "game_over"
    res = cmd(r, "next_rack")
    assert res["ok"] and res["events"][0]["event"] == "rerack"
    s = r.ref.state()
    assert (s["rack"], s["breaker"], s["shooter"], s["phase"], s["shot"]) == (2, 1, 1, "break", 0)
    assert not s["between_racks"] and s["next_break"] is None and s["match_score"] == [1, 0]
    assert len(s["on_table"]) == (9 if game == "nine-ball" else 15)
    assert cmd(r, "next_rack")["code"] == "not_between_racks"

    # Rack 2: Bob breaks, Anna wins (2-0): Anna breaks rack 3.
    s = win_rack(r, 0)
    assert s["match_score"] == [2, 0] and s["next_break"]["player"] == 0
    assert cmd(r, "next_rack")["ok"]
    # Rack 3: Anna breaks, Bob wins (2-1): Bob breaks rack 4.
    s = win_rack(r, 1)
    assert s["match_score"] == [2, 1] and s["next_break"]["player"] == 1 and not s["hill_hill"]
    assert cmd(r, "next_rack")["ok"]
    # Rack 4: Bob breaks and wins (2-2): hill-hill, the deciding rack is lagged for.
    s = win_rack(r, 1)
    assert s["match_score"] == [2, 2] and s["hill_hill"]
    assert s["next_break"] == {"rack": 5, "player": None, "rule": "lag"}
    assert [n["cmd"] for n in s["needs"]] == ["lag"]
    before = r.ref.state()
    res = cmd(r, "next_rack")
    assert res["code"] == "lag_first" and "lag" in res["text"]["en"] and res["text"]["ru"]
    assert r.ref.state() == before
    assert cmd(r, "lag", {"winner": 1, "breaks": False})["ok"]       # Bob wins the lag, Anna breaks
    s = r.ref.state()
    assert s["next_break"] == {"rack": 5, "player": 0, "rule": "lag"} and s["needs"] == [] and s["between_racks"]
    assert cmd(r, "next_rack")["ok"]
    s = r.ref.state()
    assert (s["rack"], s["breaker"], s["hill_hill"]) == (5, 0, True)
    # Rack 5: Anna wins the match 3-2.
    s = win_rack(r, 0)
    assert s["winner"] == 0 and s["match_score"] == [3, 2] and not s["between_racks"]
    assert s["next_break"] is None and not s["hill_hill"] and len(s["racks"]) == 5
    assert [k["breaker"] for k in s["racks"]] == [0, 1, 0, 1, 0]
    assert cmd(r, "next_rack")["code"] == "game_over"
    if game == "straight-pool":         # 14.1: points per game, the match counts the games
        assert [p["score"] for p in s["players"]] == [1, 0]
    else:
        assert [p["score"] for p in s["players"]] == [3, 2]


@pytest.mark.clause("GEN.LAG")
def test_the_break_itself_or_the_confirm_button_begins_the_next_rack():
    r = start("nine-ball")
    win_rack(r, 0)
    # The board's confirm button between racks: the balls are racked, the next rack begins.
    r.events = []
    r.board(names.BUTTON, names.BUTTON_CONFIRM, names.PRESS)
    s = r.ref.state()
    assert s["rack"] == 2 and s["phase"] == "break" and s["breaker"] == 1
    assert [e["event"] for e in r.events] == ["rerack"]
    win_rack(r, 1)
    # Without a tap or a button: the break itself begins rack 3 (Anna's break).
    r.shot({"rails": 8, "pocketed": [[9, "foot-left"]]})
    s = r.ref.state()
    assert s["rack"] == 3 and s["racks"][-1] == {"rack": 3, "winner": 0, "breaker": 0, "shots": 1,
                                                 "break_and_run": True}
    assert s["match_score"] == [2, 1] and s["break_and_runs"] == [2, 1]


@pytest.mark.clause("GEN.LAG")
@pytest.mark.parametrize("game", GAMES)
def test_house_rule_the_winner_breaks_and_no_lag_for_the_decider(game):
    r = start(game, winner_breaks=True)
    assert r.ref.state()["settings"]["winner_breaks"] is True
    s = win_rack(r, 0)
    assert s["next_break"] == {"rack": 2, "player": 0, "rule": "winner_breaks"} and s["shooter"] == 0
    assert cmd(r, "next_rack")["ok"] and r.ref.state()["breaker"] == 0
    s = win_rack(r, 1)
    assert s["next_break"]["player"] == 1
    assert cmd(r, "next_rack")["ok"]
    win_rack(r, 0)
    assert cmd(r, "next_rack")["ok"]
    s = win_rack(r, 1)
    assert s["hill_hill"] and s["needs"] == [] and s["next_break"] == {"rack": 5, "player": 1, "rule": "winner_breaks"}
    assert cmd(r, "next_rack")["ok"] and r.ref.state()["breaker"] == 1
    res = cmd(r, "new_game", {"game": game, "players": ["A", "B"], "winner_breaks": "yes"})
    assert not res["ok"] and res["code"] == "bad_flag"


def test_undo_between_racks_takes_the_last_shot_back_and_a_snapshot_keeps_the_wait():
    from shared_rules.rules.referee import Referee
    r = start("nine-ball")
    win_rack(r, 0)
    copy = Referee("t1").restore(r.ref.snapshot())
    assert copy.state() == r.ref.state() and copy.state()["next_break"]["player"] == 1
    assert cmd(r, "undo")["ok"]
    s = r.ref.state()
    assert s["phase"] == "break" and not s["between_racks"] and s["next_break"] is None and s["match_score"] == [0, 0]


def test_innings_count_visits_to_the_table_across_racks():
    r = start("nine-ball")
    win_rack(r, 1)                          # Anna: break, miss; Bob: the 9
    assert r.ref.state()["innings"] == [1, 1]
    cmd(r, "next_rack")
    r.shot({"rails": 8, "pocketed": [[1, "foot-left"]]})      # Bob breaks, goes on
    r.shot({"rails": 2})                                      # and misses
    assert r.ref.state()["innings"] == [1, 2]
    r.shot({"rails": 2})                                      # Anna misses
    assert r.ref.state()["innings"] == [2, 2]


@pytest.mark.clause("GEN.LAG")
def test_a_new_match_can_ask_for_the_lag_and_the_break_settles_it_if_nobody_answers():
    r = new_game("eight-ball", race_to=2, lag=True)
    s = r.ref.state()
    assert [n["cmd"] for n in s["needs"]] == ["lag"] and s["needs"][0]["text"]["ru"]
    assert cmd(r, "lag", {"winner": 1})["ok"]
    s = r.ref.state()
    assert s["needs"] == [] and s["breaker"] == 1 and s["shooter"] == 1
    r = new_game("eight-ball", lag=True)
    r.shot({"rails": 5, "pocketed": [[1, "foot-left"]]})
    assert r.ref.state()["needs"] == [] and r.ref.state()["last_shot"]["shooter"] == 0
    assert cmd(r, "new_game", {"lag": 1})["code"] == "bad_flag"


def test_a_decision_says_why_it_is_asked():
    r = new_game("nine-ball")
    r.shot({"rails": 8, "pocketed": [[1, "foot-left"]]})
    assert cmd(r, "push_out")["ok"]
    r.shot({"rails": 0})
    s = r.ref.state()
    assert s["decision"] == {"player": 1, "options": ["accept", "pass_back"]}
    assert s["decision_reason"]["clauses"] == ["NB.PUSH"]
    assert s["decision_reason"]["text"]["en"].startswith("Push-out: Bob plays the position")
    assert s["decision_reason"]["text"]["ru"].startswith("Выставка")


def test_a_refused_button_is_told_in_the_players_words_in_each_language():
    r = start("eight-ball")
    win_rack(r, 0)
    r.events = []
    r.board(names.BUTTON, 0, names.PRESS)            # a call between racks
    w = r.events[0]
    assert w["refusal"]["code"] == "game_over"
    assert w["text"] == {"en": "Button refused: the game is over", "ru": "Кнопка не принята: партия окончена"}


@pytest.mark.clause("GEN.LAG")
@pytest.mark.parametrize("game", GAMES)
def test_a_handicapped_race_ends_at_the_weaker_players_shorter_race(game):
    """`"race_to": [3, 2]`: Anna must win 3 racks, Bob 2 (a handicap). The state says both races;
    `race_to` stays one number (the longer race). Bob wins at 2 racks, one short of Anna's race;
    the deciding rack (each one rack from his own race) is lagged for."""
    r = new_game(game, race_to=[3, 2], **({"target": 1} if game == "straight-pool" else {}))
    s = r.ref.state()
    assert s["race_to"] == 3 and s["race_to_each"] == [3, 2] and not s["hill_hill"]
    s = win_rack(r, 1)
    assert s["winner"] is None and s["between_racks"] and s["match_score"] == [0, 1]
    assert s["race_to_each"] == [3, 2], "a handicap lasts the match"
    assert cmd(r, "next_rack")["ok"]
    assert r.ref.state()["race_to_each"] == [3, 2]
    s = win_rack(r, 0)
    assert cmd(r, "next_rack")["ok"]
    s = win_rack(r, 0)
    assert s["match_score"] == [2, 1] and s["hill_hill"] and s["next_break"]["rule"] == "lag"
    assert cmd(r, "lag", {"winner": 0})["ok"] and cmd(r, "next_rack")["ok"]
    s = win_rack(r, 1)
    assert s["winner"] == 1 and s["match_score"] == [2, 2] and not s["between_racks"]
    assert cmd(r, "next_rack")["code"] == "game_over"


def test_a_race_without_a_handicap_keeps_one_number_and_a_bad_race_changes_nothing():
    r = start("nine-ball")
    s = r.ref.state()
    assert s["race_to"] == 3 and isinstance(s["race_to"], int) and s["race_to_each"] == [3, 3]
    assert cmd(r, "new_game", {"race_to": [2, 2]})["ok"]
    s = r.ref.state()
    assert s["race_to"] == 2 and s["race_to_each"] == [2, 2]
    for bad in ([0, 2], [2], [1, 2, 3], [True, 2], [2, 100], [2.0, 1], "3", {"a": 1}):
        before = r.ref.state()
        res = cmd(r, "new_game", {"race_to": bad})
        assert not res["ok"] and res["code"] == "bad_race", bad
        assert r.ref.state() == before
