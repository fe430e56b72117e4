"""The firmware on a fake board: what the host sees for balls, impacts, buttons, faults and link trouble.

Plain test functions: pytest collects them under CPython; under MicroPython
`run(globals())` runs them with a 192K heap (tests/firmware/test_on_micropython.py).
"""
import gc
import json

from shared_rules.link.names import POCKET, RAIL, CUE, MOTION, BUTTON, FAULT, HELLO
from shared_rules.link.names import UNKNOWN_BALL, FLAG_UNCERTAIN
from shared_rules.link import frames

from tests.firmware.rig import Rig, load_cfg, load_table
from vboard.fakemachine import FakeMachine, FakeTime, PERIOD
from vboard.balls import readings
from tableboard.isr import EdgeRing, edge_handler
from tableboard import colour, config

TABLE = load_table()


def roll(rig, pocket, ball=None, block_ms=25):
    if ball is not None:
        rig.show_colour(pocket, readings(ball, TABLE))
    rig.beam(pocket, True)
    rig.run_ms(block_ms)
    rig.beam(pocket, False)
    rig.run_ms(5)


# --- pocket beams ----------------------------------------------------------------------

def test_a_ball_through_a_pocket_is_one_event_with_its_number_and_time():
    r = Rig()
    r.run_ms(100)
    t_in = r.time.us
    roll(r, 2, ball=3)
    r.run_ms(50)
    ev = r.events(POCKET)
    assert len(ev) == 1
    assert ev[0]["index"] == 2 and ev[0]["value"] == 3 and ev[0]["flags"] == 0
    assert ev[0]["t_us"] == t_in


def test_chatter_on_the_beam_edge_gives_one_event_and_a_second_ball_another():
    r = Rig()
    r.run_ms(10)
    r.show_colour(0, readings(9, TABLE))
    for _ in range(4):           # the ball wobbles on the edge of the beam
        r.beam(0, True)
        r.run_ms(3)
        r.beam(0, False)
        r.run_ms(2)
    r.beam(0, True)
    r.run_ms(20)
    r.beam(0, False)
    r.run_ms(200)
    roll(r, 0, ball=12)
    r.run_ms(50)
    ev = r.events(POCKET)
    assert [e["value"] for e in ev] == [9, 12]


def test_a_glitch_shorter_than_a_ball_is_not_a_ball():
    r = Rig()
    r.run_ms(10)
    r.beam(1, True)
    r.beam(1, False)             # both edges inside one millisecond
    r.run_ms(50)
    assert r.events(POCKET) == []


def test_stuck_beam_gives_fault_1_then_fault_2_when_clear():
    r = Rig()
    r.run_ms(10)
    r.show_colour(4, readings(8, TABLE))
    r.beam(4, True)
    r.run_ms(2900)
    assert r.events(FAULT) == []
    r.run_ms(200)
    f = r.events(FAULT)
    assert [(e["index"], e["value"]) for e in f] == [(4, 1)]
    r.beam(4, False)
    r.run_ms(20)
    f = r.events(FAULT)
    assert [(e["index"], e["value"]) for e in f] == [(4, 1), (4, 2)]
    assert [e["value"] for e in r.events(POCKET)] == [8]


def test_a_beam_blocked_at_power_up_is_not_a_ball():
    m = FakeMachine()
    m.pin(5).level = 0
    r = Rig(machine=m)
    r.run_ms(100)
    assert r.events(POCKET) == []


# --- ball identity -----------------------------------------------------------------------

def test_solids_stripes_cue_and_eight_are_told_apart():
    r = Rig()
    r.run_ms(10)
    balls = [1, 9, 0, 8, 7, 15, 6, 14]
    for b in balls:
        roll(r, 5, ball=b)
        r.run_ms(100)
    ev = r.events(POCKET)
    assert [e["value"] for e in ev] == balls
    assert all(e["flags"] == 0 for e in ev)


def test_a_colour_between_two_balls_is_flagged_uncertain():
    t = {"white_c": 20000, "balls": [{"ball": 3, "hue": 5, "white": 0.0, "dark": 0.0, "level": 0.6},
                                     {"ball": 5, "hue": 28, "white": 0.0, "dark": 0.0, "level": 0.6}]}
    f = (16, 0.0, 0.0, 0.6)      # halfway between red and orange
    ball, flags = colour.classify(f, t["balls"])
    assert ball in (3, 5) and flags & FLAG_UNCERTAIN
    ball, flags = colour.classify((200, 0.0, 0.0, 0.6), t["balls"])   # blue: nothing like it
    assert ball == UNKNOWN_BALL and flags & FLAG_UNCERTAIN
    assert colour.classify((5, 0.0, 0.0, 0.6), t["balls"]) == (3, 0)


def test_a_dead_colour_sensor_gives_unknown_ball_and_fault_3():
    r = Rig()
    r.run_ms(10)
    r.m.colour(0, 1).alive = False
    roll(r, 1)
    r.run_ms(50)
    ev = r.events(POCKET)
    assert [(e["value"], e["flags"]) for e in ev] == [(UNKNOWN_BALL, FLAG_UNCERTAIN)]
    assert [(e["index"], e["value"]) for e in r.events(FAULT)] == [(1, 3)]


def test_cue_ball_return_detector_gives_cue_event():
    r = Rig()
    r.run_ms(10)
    p = r.m.pin(8)
    p.drive(0)
    r.run_ms(30)
    p.drive(1)
    r.run_ms(20)
    ev = r.events(CUE)
    assert [(e["index"], e["value"]) for e in ev] == [(255, 1)]


# --- rails -------------------------------------------------------------------------------

def test_piezo_dead_time_one_impact_one_event():
    r = Rig()
    r.run_ms(10)
    r.impact(3, 5000)
    r.run_ms(10)
    r.impact(3, 9000)            # ringing of the same impact, inside 30 ms
    r.run_ms(25)
    r.impact(3, 4000)            # a new impact
    r.impact(1, 2500)            # another rail is not held back
    r.run_ms(5)
    r.impact(0, 500)             # under the threshold: not reported
    r.run_ms(5)
    ev = r.events(RAIL)
    assert sorted([(e["index"], e["value"]) for e in ev]) == [(1, 2500), (3, 4000), (3, 5000)]


# --- motion, buttons, lamps -----------------------------------------------------------------

def test_motion_with_hysteresis():
    r = Rig()
    r.m.set_analog(27, 100)
    r.run_ms(100)
    r.m.set_analog(27, 6000)
    r.run_ms(100)
    r.m.set_analog(27, 2000)     # between low and high: still moving
    r.run_ms(2000)
    r.m.set_analog(27, 100)
    r.run_ms(1000)
    r.m.set_analog(27, 2000)     # a wobble before the table settles restarts the wait
    r.run_ms(100)
    r.m.set_analog(27, 100)
    r.run_ms(1400)
    assert [e["value"] for e in r.events(MOTION)] == [1]
    r.run_ms(200)
    assert [e["value"] for e in r.events(MOTION)] == [1, 0]


def test_buttons_press_long_press_and_bounce():
    r = Rig()
    r.run_ms(10)
    b7 = r.m.pin(47)
    for _ in range(3):           # contact bounce
        b7.drive(0)
        r.run_ms(2)
        b7.drive(1)
        r.run_ms(2)
    b7.drive(0)
    r.run_ms(150)
    b7.drive(1)
    r.run_ms(100)
    b9 = r.m.pin(49)
    b9.drive(0)
    r.run_ms(1500)
    b9.drive(1)
    r.run_ms(100)
    ev = r.events(BUTTON)
    assert [(e["index"], e["value"]) for e in ev] == [(7, 1), (9, 2)]


def test_lights_drive_pocket_lamps_and_blink():
    r = Rig()
    r.run_ms(10)
    r.lights((1 << 0) | (1 << 3) | (1 << 8), 0)
    r.run_ms(10)
    lv = [r.m.pin(n).level for n in (50, 51, 52, 53, 54, 55, 58, 59)]
    assert lv == [1, 0, 0, 1, 0, 0, 1, 0]
    r.lights(1 << 9, 1)
    seen = []
    for _ in range(8):
        r.run_ms(125)
        seen.append(r.m.pin(59).level)
    assert 0 in seen and 1 in seen and r.m.pin(50).level == 0


# --- time --------------------------------------------------------------------------------

def test_ticks_wrap_does_not_disturb_event_times():
    r = Rig(start_ticks=PERIOD - 300000)     # ticks_us wraps 0.3 s after power-up
    r.run_ms(100)
    times = []
    for k in range(6):
        times.append(r.time.us)
        r.impact(k, 3000 + k)
        r.run_ms(100)
    ev = r.events(RAIL)
    assert [e["t_us"] for e in ev] == times
    # And far beyond 32 bits of microseconds the clock keeps counting.
    for _ in range(5000):
        r.time.advance_us(PERIOD // 3)
        r.board.step()
    t0 = r.time.us
    r.impact(2, 7777)
    r.run_ms(40)
    assert r.events(RAIL)[-1]["t_us"] == t0 and t0 > 2 ** 40


# --- buffers and the link ----------------------------------------------------------------

def test_isr_ring_full_counts_the_loss_in_dropped():
    r = Rig()
    r.run_ms(10)
    n = r.board.ring.size
    p = r.pin_of_pocket(0)
    for _ in range(n):
        p.drive(0)
        p.drive(1)
    r.run_ms(1100)
    hb = r.heartbeats()[-1]
    assert hb["dropped"] == n + 1      # 2n edges into a ring holding n - 1
    assert r.board.isr_lost == n + 1


def test_edge_handler_allocates_nothing():
    try:
        import micropython
        lock = micropython.heap_lock
        unlock = micropython.heap_unlock
    except (ImportError, AttributeError):
        return                 # CPython: nothing to check
    m = FakeMachine()
    t = FakeTime()
    ring = EdgeRing(8)
    h = edge_handler(ring, 3, t.ticks_us)
    pin = m.pin(1)
    lock()
    try:
        for _ in range(20):    # also past full
            h(pin)
    finally:
        unlock()
    assert ring.lost() == 13 and ring.chan[0] == 3


def test_event_buffer_full_never_stalls_sensors_and_counts_loss():
    r = Rig()
    r.acking = False
    r.run_ms(10)
    for k in range(300):
        r.impact(k % 6, 2000 + k)
        r.run_ms(6)
    assert r.board.sender.backlog() == 257 and r.board.sender.dropped == 44
    # The sensors kept working: all 300 impacts were seen by the rails.
    assert sum(x.impacts for x in r.board.rails) == 300
    r.acking = True
    r.run_ms(3000)
    ev = r.events(RAIL)
    assert len(ev) == 256
    for k in range(256):                   # compared in place: no second list on a small heap
        assert ev[k]["value"] == 2000 + k
    assert r.heartbeats()[-1]["dropped"] == 44 and r.board.sender.backlog() == 0


def test_lost_ack_leads_to_retransmit_and_nothing_counts_twice():
    r = Rig()
    r.run_ms(10)
    r.lose_acks = 100           # the host's ACKs are lost for a while
    for k in range(5):
        r.impact(k, 3000 + k)
        r.run_ms(40)
    r.run_ms(400)
    assert r.sends[1] >= 2   # seq 1 went out again after 250 ms without an ACK
    r.lose_acks = 0
    r.run_ms(600)
    assert r.board.sender.backlog() == 0
    assert [e["value"] for e in r.events(RAIL)] == [3000, 3001, 3002, 3003, 3004]
    assert r.board.sender.retransmits >= 1


def test_board_reset_says_hello_again_with_a_new_boot_id_from_seq_0():
    m = FakeMachine()
    a = Rig(machine=m, boot_id=111)
    a.run_ms(50)
    a.impact(0, 5000)
    a.run_ms(50)
    a = None                             # power cycle: the old firmware state is gone,
    gc.collect()
    b = Rig(machine=m, boot_id=222)      # same pins, new firmware state
    b.run_ms(50)
    hello = b.hellos
    assert hello[0]["boot_id"] == 222 and hello[0]["seq"] == 0
    assert hello[0]["pockets"] == 6 and hello[0]["rails"] == 6 and hello[0]["features"] == 15
    # An ACK for the old boot changes nothing on the new one.
    b.acking = False
    b.impact(1, 4000)
    b.run_ms(10)
    b.board.link_in(frames.encode({"type": 0x81, "seq": 0, "boot_id": 111, "ack": 1}))
    assert b.board.sender.backlog() == 1


def test_random_boot_ids_differ():
    from tableboard.board import make_boot_id
    import os
    m = FakeMachine()
    ids = [make_boot_id(m, os) for _ in range(5)]
    assert len(set(ids)) == 5


def test_garbage_from_the_host_changes_nothing():
    r = Rig()
    r.run_ms(10)
    r.acking = False
    r.impact(0, 3000)
    r.run_ms(10)
    before = r.board.sender.backlog()
    r.board.link_in(b"\x05\xff\x00\x00\x01\x02\x03\x00" + bytes(range(1, 200)) + b"\x00")
    assert r.board.sender.backlog() == before
    assert r.board.lamps.mask == 0


# --- configurations ------------------------------------------------------------------------

def test_pico_and_esp32_configurations_build_and_report_a_ball():
    r = None
    for name in ("pico.json", "esp32.json"):
        r = None                # the last board goes before the next is built: a board-sized heap
        gc.collect()
        cfg = load_cfg(name)
        assert config.check(cfg) == []
        r = Rig(cfg=cfg)
        r.run_ms(10)
        roll(r, 0, ball=11)
        r.impact(2, 4242)
        r.lights(1 << 2, 0)
        r.run_ms(50)
        assert [e["value"] for e in r.events(POCKET)] == [11], name
        assert [e["value"] for e in r.events(RAIL)] == [4242], name
        assert r.events(BUTTON) == [], name
    # ESP32's lamps sit on the MCP23017 at 0x21.
    assert r.m.expanders[0x21].output() == 1 << 2


def test_bad_configurations_are_named():
    assert config.check({"pockets": [{"colour": {}}], "rails": [{"comp": 1}]}) == [
        "pockets[0]: missing beam", "rails[0]: missing adc"]
    assert config.check([]) != []


if __name__ == "__main__":
    from tests.firmware.mptest import run
    run(globals())
