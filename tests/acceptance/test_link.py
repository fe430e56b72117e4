"""CONTRACT section 1 through the pty the daemon opens as --serial, checked with our own codec."""
import random
import struct

import pytest

from tests.host.harness import wait_for
from tests.acceptance import wire
from tests.acceptance.helpers import Table

pytestmark = pytest.mark.slow
MOTION_BOARD = 0b0101          # pocket ball-ID + motion sensor: shots end on MOTION 0


@pytest.fixture
def table(tmp_path, broker, sub):
    t = Table(tmp_path, broker, sub).start()
    yield t
    assert t.stop() == 0, t.proc.output()


def shot(seq, t_us, items):
    """Raw EVENT frames for MOTION 1, `items` (kind, index, value[, flags]), MOTION 0."""
    out = [wire.event(seq, t_us, wire.MOTION, 0, 1)]
    for i, it in enumerate(items):
        out.append(wire.event(seq + 1 + i, t_us + 1000 * (i + 1), *it))
    out.append(wire.event(seq + 1 + len(items), t_us + 1000 * (len(items) + 1), wire.MOTION, 0, 0))
    return out


def test_vectors_match_our_codec():
    """Sanity of the suite itself: our independent codec reproduces tests/data/link-v1.json."""
    import json
    from tests.conftest import LINK_VECTORS
    v = json.loads(LINK_VECTORS.read_text(encoding="utf-8"))
    assert wire.crc16(b"123456789") == 0x29B1
    for f in v["frames"]:
        raw = bytes.fromhex(f["decoded_hex"])
        assert wire.crc16(raw[:-2]) == struct.unpack("<H", raw[-2:])[0], f["name"]
        assert wire.cobs.encode(raw) + b"\x00" == bytes.fromhex(f["wire_hex"]), f["name"]


def test_ack_bytes_in_order_duplicates_and_gaps(table):
    B = 0x0ACCE551
    mark = table.mark()
    table.write(wire.hello(B, MOTION_BOARD))
    a = table.wait_ack(B, 0, after=mark)
    # Byte for byte: type 0x81, seq field 0, boot_id u32, ack u16, CRC, COBS, 0x00.
    assert a["wire"] == wire.ack_bytes(B, 0)
    assert a["seq"] == 0 and a["len"] == 6

    frames = shot(1, 2_000_000, [(wire.RAIL, 0, 900), (wire.RAIL, 1, 900), (wire.RAIL, 2, 900),
                                 (wire.RAIL, 3, 900), (wire.POCKET, 2, 3)])
    last = len(frames)                                  # seqs 1..last
    table.write(*frames[:-1])                           # everything but MOTION 0
    a = table.wait_ack(B, last - 1)
    assert a["wire"] == wire.ack_bytes(B, last - 1)

    # A duplicate (the POCKET of ball 3 again) is acknowledged again and does not count twice.
    mark = table.mark()
    table.write(frames[-2])
    table.wait_ack(B, last - 1, after=mark)

    # A frame from the future (gap) is ignored: no ACK for it, and it is not acted on.
    mark = table.mark()
    table.write(wire.event(last + 1, 2_100_000, wire.POCKET, 3, 7))
    table.settle(0.5)
    table.pump()
    assert not any(f["type"] == wire.ACK and f.get("ack") == last + 1 for f in table.host_frames[mark:])
    # The gap filled: the missing frame, then the future one again.
    table.write(frames[-1])
    table.wait_ack(B, last)
    s = table.wait_state(lambda s: s["shot"] == 1, what="the break judged")
    assert s["last_shot"]["pocketed"] == [3]            # once, not twice
    assert 7 in s["on_table"]                            # the out-of-order frame was not acted on
    # Every ACK the host ever sent has seq field 0 and a 6-byte payload.
    assert all(f["seq"] == 0 and f["len"] == 6 for f in table.acks())


def test_seq_wrap_and_board_learned_from_heartbeat(table):
    """No HELLO at all: the host learns boot_id from a HEARTBEAT and expects seq - backlog."""
    B = 0x5EED0001
    # The board has sent 65533 frames already; it still holds 65532 and 65533 (backlog 2).
    table.write(wire.heartbeat(B, 65534, 50_000_000, 2, dropped=0))
    table.settle(0.3)
    mark = table.mark()
    table.write(wire.event(65533, 50_000_100, wire.RAIL, 1, 100))     # not the oldest held: ignored
    table.settle(0.4)
    table.pump()
    # At most a duplicate ACK of what the host has (65531: it waits for 65532), never 65533.
    assert not [f for f in table.host_frames[mark:] if f["type"] == wire.ACK
                and f.get("boot_id") == B and f.get("ack") != 65531]
    table.write(wire.event(65532, 50_000_000, wire.MOTION, 0, 1))
    a = table.wait_ack(B, 65532)
    assert a["wire"] == wire.ack_bytes(B, 65532)
    table.write(wire.event(65533, 50_000_100, wire.RAIL, 1, 100),
                wire.event(65534, 50_000_200, wire.RAIL, 2, 100),
                wire.event(65535, 50_000_300, wire.RAIL, 3, 100))
    table.wait_ack(B, 65535)
    table.write(wire.event(0, 50_000_400, wire.RAIL, 0, 100),          # wraps to 0
                wire.event(1, 50_000_500, wire.POCKET, 4, 6),
                wire.event(2, 50_000_600, wire.MOTION, 0, 0))
    a = table.wait_ack(B, 2)
    assert a["wire"] == wire.ack_bytes(B, 2)
    s = table.wait_state(lambda s: s["shot"] == 1, what="the shot across the wrap judged")
    assert s["last_shot"]["pocketed"] == [6]
    assert s["last_shot"]["rails"] >= 4


def test_new_boot_id_hello_starts_over(table):
    B1, B2 = 0x0000B001, 0x0000B002
    table.write(wire.hello(B1, MOTION_BOARD), *shot(1, 1_000_000, [(wire.RAIL, 0, 5)]))
    table.wait_ack(B1, 3)
    # The board resets: HELLO of a new boot_id, seq 0 again.
    mark = table.mark()
    table.write(wire.hello(B2, MOTION_BOARD))
    a = table.wait_ack(B2, 0, after=mark)
    assert a["wire"] == wire.ack_bytes(B2, 0)
    table.write(wire.event(1, 10_000, wire.MOTION, 0, 1))
    table.wait_ack(B2, 1)
    # Old-boot frames are not acted on as new ones.
    mark = table.mark()
    table.write(wire.event(4, 1_900_000, wire.POCKET, 2, 5))
    table.settle(0.5)
    assert not any(f.get("boot_id") == B1 and f.get("ack") == 4 for f in table.host_frames[mark:])
    assert 5 in table.state()["on_table"]


def test_bad_crc_and_bad_length_dropped_and_garbage_survived(table):
    B = 0x00BADC0C
    table.write(wire.hello(B, MOTION_BOARD))
    table.wait_ack(B, 0)
    before = table.state()

    table.write(wire.event(1, 500, wire.MOTION, 0, 1))
    table.wait_ack(B, 1)
    good = wire.event(2, 1000, wire.POCKET, 2, 8)
    body = struct.pack("<BH", wire.EVENT, 2) + struct.pack("<QBBHB", 1000, wire.POCKET, 2, 8, 0)
    bad_crc = wire.cobs.encode(body + struct.pack("<H", wire.crc16(body) ^ 0x0100)) + b"\x00"
    short = body[:-1]                                    # 12-byte EVENT payload, CRC correct
    bad_len = wire.cobs.encode(short + struct.pack("<H", wire.crc16(short))) + b"\x00"
    longer = body + b"\x07"                              # 14-byte EVENT payload, CRC correct
    too_long = wire.cobs.encode(longer + struct.pack("<H", wire.crc16(longer))) + b"\x00"
    mark = table.mark()
    table.write(bad_crc, bad_len, too_long)
    table.settle(0.6)
    assert not any(f["type"] == wire.ACK and f.get("ack") == 2 for f in table.host_frames[mark:]), \
        "a frame with a bad CRC or length was acknowledged"

    # Garbage of every kind: random bytes, long runs with no 0x00, lone zeros, unknown types,
    # host-to-board types coming from the board, a truncated frame, a half frame then a good one.
    rnd = random.Random(1234)
    junk = [bytes(rnd.randrange(256) for _ in range(3000)), b"\x01" * 700 + b"\x00", b"\x00" * 50,
            wire.frame(0x44, 1, b"xyz"), wire.frame(wire.ACK, 1, struct.pack("<IH", B, 9)),
            wire.frame(wire.LIGHTS, 1, b"\x01\x00\x00"), wire.frame(wire.EVENT, 1, b""),
            wire.frame(wire.HELLO, 1, b"\x01"), wire.frame(wire.HEARTBEAT, 5, b"\x00" * 3),
            good[:5]]
    for j in junk:
        table.write(j)
    table.write(b"\x00")                                 # end the half frame
    table.settle(0.5)
    assert table.proc.proc.poll() is None, "the daemon died on garbage:\n" + table.proc.output()
    s = table.state()
    assert s["on_table"] == before["on_table"]
    # The link carries on: the good frame after all that is accepted.
    table.write(good)
    table.wait_ack(B, 2)
    table.write(*shot(2, 2000, [(wire.RAIL, 0, 5)])[1:])       # RAIL, MOTION 0 as seqs 3, 4
    s = table.wait_state(lambda s: s["shot"] == 1, what="the shot after the garbage judged")
    assert s["last_shot"]["pocketed"] == [8]


def test_heartbeat_dropped_reaches_state_link(table):
    B = 0x00D80001
    table.write(wire.hello(B, MOTION_BOARD))
    table.wait_ack(B, 0)
    table.write(wire.heartbeat(B, 1, 2_000_000, 0, dropped=7))
    s = table.wait_state(lambda s: s["link"]["dropped"] == 7, what="link.dropped 7")
    assert s["link"]["state"] == "up"
    assert isinstance(s["link"]["dropped"], int)


def test_link_goes_down_when_the_board_is_silent(table):
    B = 0x00D0E001
    table.write(wire.hello(B, MOTION_BOARD))
    table.wait_state(lambda s: s["link"]["state"] == "up", what="link up")
    table.wait_state(lambda s: s["link"]["state"] == "down", timeout=10, what="link down")


def test_lights_every_second_and_on_change(table):
    B = 0x0011647
    table.write(wire.hello(B, MOTION_BOARD))
    table.wait_ack(B, 0)
    mark = table.mark()
    # About every second with nothing changing: three in a row (a loaded machine may be late).
    wait_for(lambda: len([f for f in table.host_frames[mark:] + table.pump()
                          if f["type"] == wire.LIGHTS]) >= 3, 15, what="LIGHTS repeated with no change")
    ls = [f for f in table.host_frames[mark:] if f["type"] == wire.LIGHTS]
    assert all(f["len"] == 3 for f in ls)
    s = table.state()
    assert s["phase"] == "break" and s["ball_in_hand"] == "kitchen"
    assert ls[-1]["mask"] == 1 << 8, "before the break: ball in hand (kitchen) only"

    # Legal break (4 rails, ball 3 down), then a call: the called pocket's lamp lights.
    table.write(*shot(1, 1_000_000, [(wire.RAIL, r, 900) for r in range(4)] + [(wire.POCKET, 2, 3)]))
    table.wait_state(lambda s: s["shot"] == 1 and s["phase"] == "play", what="break judged")
    mark = table.mark()
    assert table.cmd("call", {"ball": 1, "pocket": "foot-right"})["ok"]
    # The daemon ends the step that took the call by sending LIGHTS, before it takes a later
    # command: once that one is answered, the new LIGHTS are on the wire (a board that only got
    # them once a second would not have them yet, unless a second had gone by).
    table.flush()
    ls = [f for f in table.host_frames[mark:] + table.pump() if f["type"] == wire.LIGHTS and f["mask"] & 0x3FF]
    assert ls, "LIGHTS must be sent on change, not only once a second"
    f = ls[0]
    assert f["mask"] == 1 << 3 and f["mode"] == 0, f

    # Same call by pocket number: side-left is pocket 1.
    mark = table.mark()
    assert table.cmd("call", {"ball": 1, "pocket": 1})["ok"]
    table.wait_lights(lambda x: x["mask"] == 1 << 1, mark, what="LIGHTS with pocket 1")

    # A scratch: cue ball pocketed -> ball in hand (bit 8) and foul (bit 9).
    mark = table.mark()
    table.write(*shot(8, 2_000_000, [(wire.RAIL, 0, 900), (wire.POCKET, 4, 0)]))
    s = table.wait_state(lambda s: s["shot"] == 2, what="the scratch judged")
    assert s["ball_in_hand"] in ("table", "kitchen")
    assert "cue_pocketed" in s["last_shot"]["fouls"]
    table.wait_lights(lambda x: x["mask"] & (1 << 8) and x["mask"] & (1 << 9), mark,
                      what="LIGHTS with ball in hand and foul bits")


def test_restarted_host_carries_on_from_its_journal(tmp_path, broker, sub):
    B = 0x00E57A27
    t = Table(tmp_path, broker, sub, table="rs1").start()
    t.write(wire.hello(B, MOTION_BOARD), *shot(1, 1_000_000, [(wire.RAIL, 0, 5000)]))
    t.wait_ack(B, 3)
    assert t.stop() == 0
    t2 = Table(tmp_path, broker, sub, table="rs1").start()     # same journal dir
    try:
        mark = t2.mark()
        # No HELLO, no HEARTBEAT: the board simply resends what it thinks is unacknowledged.
        t2.write(wire.event(3, 1_003_000, wire.MOTION, 0, 0))
        a = t2.wait_ack(B, 3, after=mark)
        assert a["wire"] == wire.ack_bytes(B, 3)
        t2.write(*shot(4, 3_000_000, [(wire.RAIL, 1, 5000), (wire.POCKET, 2, 4)]))
        t2.wait_ack(B, 7)
        s = t2.wait_state(lambda s: s["shot"] == 2, what="the second shot judged once")
        assert s["last_shot"]["pocketed"] == [4]
    finally:
        assert t2.stop() == 0
