"""A board that restarted by itself (FAULT 255 after its HELLO) is shown in the state and on
the display until the next new game; a host fed today's sensor faults sees no change."""
from host.outputs import display
from shared_rules.link import names
from shared_rules.rules.referee import replay

HELLO = {"src": "hello", "boot_id": 7, "seq": 0, "t_us": 0, "features": 15}


def board(kind, index, value, seq, t_us=1000):
    return {"src": "board", "boot_id": 7, "seq": seq, "t_us": t_us, "kind": kind, "index": index,
            "value": value, "flags": 0}


def test_a_watchdog_restart_is_in_state_faults_and_on_the_display():
    r = replay([HELLO, board(names.FAULT, names.FAULT_BOARD, names.BOARD_WATCHDOG, 1)])
    st = r.state()
    assert st["faults"] == [{"sensor": None, "what": "board", "fault": "watchdog",
                             "text": "board restarted: watchdog"}]
    assert display.render(st)["alert"] == "BOARD: WATCHDOG"
    assert display.render(st, lang="ru")["alert"] == "ПЛАТА: СТОРОЖ"


def test_every_code_has_a_name_and_a_newer_restart_replaces_the_older():
    es = [HELLO]
    for k, code in enumerate(sorted(names.BOARD_FAULTS)):
        es.append(board(names.FAULT, names.FAULT_BOARD, code, k + 1))
        st = replay(es).state()
        assert [f["fault"] for f in st["faults"]] == [names.BOARD_FAULTS[code]]
        assert display.render(st)["alert"].startswith("BOARD: ")
    assert replay(es).state()["faults"][0]["text"] == "board configuration refused"


def test_the_board_fault_clears_at_the_next_new_game_but_a_sensor_fault_stays():
    es = [HELLO, board(names.FAULT, names.FAULT_BOARD, names.BOARD_CRASH, 1),
          board(names.FAULT, 3, names.FAULT_BLOCKED, 2)]
    st = replay(es).state()
    assert sorted(f["what"] for f in st["faults"]) == ["board", "pocket foot-right"]
    es.append({"src": "cmd", "cmd": "new_game", "body": {"game": "nine-ball", "players": ["A", "B"]},
               "t_us": 5000})
    st = replay(es).state()
    assert [f["what"] for f in st["faults"]] == ["pocket foot-right"]
    assert display.render(st)["alert"] != "BOARD: CRASH"
