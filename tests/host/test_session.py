"""The pure receiver session: accept, duplicate, out of order, new boot, learning from HEARTBEAT."""
from hypothesis import given, strategies as st

from host.link.session import Session, seq_diff, ACCEPT, DUPLICATE, DROP, INFO
from host.link.lights import lights_for
from host.command_input import parse_command
from host.mqtt import parse_broker
from shared_rules.link.names import HELLO, EVENT, HEARTBEAT


def hello(boot, seq=0, features=5):
    return {"type": HELLO, "seq": seq, "boot_id": boot, "proto": 1, "fw_major": 1,
            "fw_minor": 0, "pockets": 6, "rails": 6, "features": features, "name": "b"}


def ev(seq, value=1):
    return {"type": EVENT, "seq": seq, "t_us": seq * 10, "kind": 2, "index": 0, "value": value,
            "flags": 0}


def hb(boot, seq, backlog, t_us=5000000, dropped=0):
    return {"type": HEARTBEAT, "seq": seq, "boot_id": boot, "t_us": t_us, "backlog": backlog,
            "dropped": dropped}


def test_hello_then_events_in_order():
    s = Session()
    d = s.on_frame(hello(9), 0.0, 1.0)
    assert d["action"] == ACCEPT and d["entry"]["src"] == "hello" and d["entry"]["seq"] == 0
    for i in range(1, 5):
        d = s.on_frame(ev(i), 0.0, 1.0)
        assert d["action"] == ACCEPT and d["entry"]["seq"] == i and d["entry"]["boot_id"] == 9
    assert s.ack_seq() == 4


def test_duplicates_and_gaps():
    s = Session()
    s.on_frame(hello(9), 0, 0)
    s.on_frame(ev(1), 0, 0)
    assert s.on_frame(ev(1), 0, 0)["action"] == DUPLICATE
    assert s.on_frame(hello(9), 0, 0)["action"] == DUPLICATE
    assert s.on_frame(ev(5), 0, 0)["action"] == DROP
    assert s.on_frame(ev(2), 0, 0)["action"] == ACCEPT
    assert s.ack_seq() == 2


def test_events_before_any_boot_are_dropped():
    s = Session()
    assert s.on_frame(ev(0), 0, 0)["action"] == DROP
    assert s.ack_seq() is None


def test_new_boot_hello_restarts_at_zero():
    s = Session()
    s.on_frame(hello(1), 0, 0)
    s.on_frame(ev(1), 0, 0)
    assert s.on_frame(hello(2, seq=3), 0, 0)["action"] == DROP      # a new boot must start at 0
    d = s.on_frame(hello(2), 0, 0)
    assert d["action"] == ACCEPT and s.boot_id == 2
    assert s.on_frame(ev(1), 0, 0)["action"] == ACCEPT


def test_learn_from_heartbeat_expects_oldest_held():
    s = Session()
    d = s.on_frame(hb(7, 10, 3, dropped=2), 100.0)
    assert d["action"] == INFO and s.boot_id == 7 and s.expect == 7 and s.dropped == 2
    assert s.on_frame(ev(6), 100.0)["action"] == DUPLICATE
    assert s.on_frame(ev(7), 100.0)["action"] == ACCEPT


def test_heartbeat_of_a_reset_board_with_hello_still_held():
    s = Session()
    s.restore({"src": "board", "boot_id": 1, "seq": 40})
    s.on_frame(hb(2, 3, 3), 0.0)            # new boot, HELLO + 2 events unacknowledged
    assert s.on_frame(hello(2), 0.0)["action"] == ACCEPT
    assert s.on_frame(ev(1), 0.0)["action"] == ACCEPT


def test_heartbeat_clock_offset_estimates_board_time():
    s = Session()
    assert s.board_time(5.0) is None
    s.on_frame(hb(7, 0, 0, t_us=2000000), 10.0)
    assert s.board_time(10.5) == 2500000


def test_restore_from_journal():
    s = Session()
    s.restore({"src": "hello", "boot_id": 3, "seq": 0, "features": 4})
    s.restore({"src": "board", "boot_id": 3, "seq": 1})
    s.restore({"src": "cmd", "cmd": "undo"})
    assert (s.boot_id, s.expect, s.has_motion_sensor()) == (3, 2, True)
    assert s.on_frame(ev(1), 0, 0)["action"] == DUPLICATE
    assert s.on_frame(ev(2), 0, 0)["action"] == ACCEPT


def test_seq_wraps_modulo_65536():
    s = Session()
    s.restore({"src": "board", "boot_id": 3, "seq": 65534})
    assert s.on_frame(ev(65535), 0, 0)["action"] == ACCEPT
    assert s.on_frame(ev(0), 0, 0)["action"] == ACCEPT
    assert s.on_frame(ev(65535), 0, 0)["action"] == DUPLICATE
    assert s.ack_seq() == 0


@given(st.integers(0, 65535), st.integers(0, 65535))
def test_seq_diff_is_signed_distance(a, b):
    d = seq_diff(a, b)
    assert -32768 <= d < 32768 and (b + d) % 65536 == a


def test_lights_mask():
    assert lights_for({"called": {"ball": 3, "pocket": "foot-left"}, "ball_in_hand": None}) == (4, 0)
    st_ = {"called": None, "ball_in_hand": "kitchen", "last_shot": {"fouls": ["cue_pocketed"]},
           "decision": {"player": 1, "options": ["accept"]}}
    assert lights_for(st_) == ((1 << 8) | (1 << 9), 1)
    assert lights_for(None) == (0, 0)


def test_parse_command_payloads():
    assert parse_command(b"") == ({}, None)
    assert parse_command(b'{"ball": 1}') == ({"ball": 1}, None)
    assert parse_command(b"{")[0] is None
    assert "object" in parse_command(b"3")[1]


def test_parse_broker_urls():
    assert parse_broker("mqtt://h:1884") == {"host": "h", "port": 1884, "tls": False,
                                             "username": None, "password": None}
    b = parse_broker("mqtts://ann:p%40ss@broker.local:8884")
    assert (b["tls"], b["username"], b["password"], b["port"]) == (True, "ann", "p@ss", 8884)
    assert parse_broker("mqtts://x")["port"] == 8883
