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


def test_a_failing_board_tells_the_host_why(tmp_path):
    """Issue 16, findings 8 and 12 on the host: a board that could not build itself says why
    (FAULT_TEXT before its FAULT 255/17); the words reach state.faults, survive a replay (they
    are journaled with the FAULT) and cannot forge a line; LOOP_RATE is state.link.loop."""
    from host.daemon import Daemon
    from host.journal import read_entries
    from shared_rules.link import frames
    from shared_rules.link.names import EVENT, FAULT, FAULT_BOARD, HELLO, LOOP_RATE
    d = Daemon("tb", "loop://", journal_dir=str(tmp_path), outputs=[])
    d.start_journal()
    wire = [frames.encode({"type": HELLO, "seq": 0, "boot_id": 7, "proto": 1, "fw_major": 1, "fw_minor": 2,
                           "pockets": 0, "rails": 0, "features": 0, "name": "broken"}),
            frames.fault_text(7, 1, 17, "TypeError: freq\n ERROR forged"),
            frames.encode({"type": EVENT, "seq": 1, "t_us": 9, "kind": FAULT, "index": FAULT_BOARD, "value": 17,
                           "flags": 0}),
            frames.encode({"type": LOOP_RATE, "seq": 0, "boot_id": 7, "window_us": 10 ** 7, "passes": 4850,
                           "longest_us": 9000, "busy_us": 3000000})]
    d.handle_bytes(b"".join(wire), 1.0)
    fault = [f for f in d.table_state()["faults"] if f["what"] == "board"][0]
    assert fault["fault"] == "crash" and fault["detail"] == "TypeError: freq\\n ERROR forged"
    assert "\n" not in fault["text"] and fault["text"].endswith("TypeError: freq\\n ERROR forged")
    assert d.table_state()["link"]["loop"]["passes_per_s"] == 485
    journaled = [e for e in read_entries(d.journal.path) if e.get("kind") == FAULT]
    assert journaled[0]["text"] == fault["detail"]
    d.close()
    again = Daemon("tb", "loop://", journal_dir=str(tmp_path), outputs=[])
    again.start_journal()
    assert [f for f in again.table_state()["faults"] if f["what"] == "board"][0] == fault
    again.close()


def test_a_sensor_fault_and_its_return_are_told_in_russian_words():
    """The players read the warning in their language: the Russian text names the pocket or rail
    and the fault in Russian (the state's `what` keeps the link's names)."""
    import re
    from shared_rules.rules.referee import Referee
    ref = Referee("t1")
    ref.apply(HELLO)
    cases = [(board(names.FAULT, 3, names.FAULT_BLOCKED, 1), "луза «правая угловая у заднего борта»", "луч перекрыт"),
             (board(names.FAULT, 16, names.FAULT_SILENT, 2), "передний борт", "не отвечает"),
             (board(names.FAULT, 3, names.FAULT_CLEAR, 3), "луза «правая угловая у заднего борта»", "снова работает")]
    for entry, where, what in cases:
        ru = ref.apply(entry)["events"][0]["text"]["ru"]
        assert where in ru and what in ru and not re.search("[A-Za-z]", ru), ru
    assert [f["what"] for f in ref.state()["faults"]] == ["rail head"]
