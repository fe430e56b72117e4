"""Long uptime: the per-millisecond path allocates nothing, however long the board is up.

Runs the board's step and link polling under `micropython.heap_lock()`, so any allocation
is a MemoryError. MicroPython only (run by tests/firmware/test_on_micropython.py): CPython
has no heap lock. On a 32-bit board small ints stop at 2**30 - 1 (18 minutes of
microseconds); on the 64-bit unix port at 2**62 - 1, so vboard.fakechip.EdgeTime puts the
board at that edge to show what a board meets at 2**30 us and after the 2**32 us wrap.
"""
import micropython

from shared_rules.link.names import LIGHT_FOUL

from tests.firmware.rig import Rig, load_cfg
from vboard.fakemachine import FakeTime, PERIOD
from vboard.fakechip import EdgeTime

BUF = bytearray(512)


def ready(cfg_name="pico.json", clock=None):
    r = Rig(cfg=load_cfg(cfg_name), clock=clock, ports=True)
    r.m.pin(r.cfg["buttons"]["shift_in"]["data"]).level = 1    # no button held (active low)
    r.run_ms(50)
    r.lights(0x3F | LIGHT_FOUL, 1)        # blinking lamps: outputs change all along
    r.run_ms(50)
    return r


def age(r, total_us, step_us):
    """Make the board `total_us` older, stepping it at least every half ticks period."""
    while total_us > 0:
        d = step_us if step_us < total_us else total_us
        r.time.jump(d) if hasattr(r.time, "jump") else r.time.advance_us(d)
        r.board.step()
        total_us -= d
    r.run_ms(20)


def after_heartbeat(r):
    """Step until a heartbeat has just gone out: framing one is where the 64-bit time is made."""
    s = r.board.sender
    for _ in range(1100):
        r.run_ms(1)
        if s._last_hb == r.time.ticks_ms() & 0x3FFFFFFF:
            return
    raise AssertionError("no heartbeat")


def busy_table(r, k):
    """Sensor work that reports nothing: beam chatter, a soft rail tap, a bounced button."""
    if k % 50 == 0:                       # a glitch on a beam, shorter than a ball
        p = r.pin_of_pocket(k % 6)
        p.drive(0)
        p.drive(1)
    if k % 70 == 0:                       # a tap on a rail, under its threshold
        c = r.m.pin(r.cfg["rails"][k % 6]["comp"])
        c.drive(1)
        c.drive(0)


def locked_ms(r, ms):
    """`ms` milliseconds of the board's loop with the heap locked; True if nothing allocated."""
    board = r.board
    clock = r.time
    ok = True
    micropython.heap_lock()
    try:
        for k in range(ms):
            busy_table(r, k)
            clock.advance_us(1000)
            board.step()
            board.link_out(BUF)
    except MemoryError:
        ok = False
    finally:
        micropython.heap_unlock()
    return ok


def soft_impacts(r):
    for rc in r.cfg["rails"]:
        r.m.set_analog(rc["adc"]["adc"], 500, rc["adc"]["mux"])     # under every threshold


def test_the_loop_allocates_nothing_past_2_30_us_of_uptime():
    r = ready(clock=FakeTime(start_ticks=PERIOD - 5000))
    soft_impacts(r)
    age(r, (1 << 30) + 1000000, (PERIOD >> 1) - 1)
    assert r.board.uptime_us() > 1 << 30
    after_heartbeat(r)
    assert locked_ms(r, 900)


def test_the_loop_allocates_nothing_past_the_2_32_us_wrap():
    r = ready(clock=FakeTime(start_ticks=12345))
    soft_impacts(r)
    age(r, (1 << 32) + 3000000, (PERIOD >> 1) - 1)
    assert r.board.uptime_us() > 1 << 32
    after_heartbeat(r)
    assert locked_ms(r, 900)


def test_at_the_small_int_edge_the_loop_still_allocates_nothing():
    # The unix port's small ints end at 2**62: the board's uptime crosses it, and its ticks
    # wrap, inside the locked run, as a 32-bit board's do at 2**30.
    e = EdgeTime(bits=62)
    r = ready(clock=e)
    soft_impacts(r)
    half = e.half
    age(r, half - 1, half - 1)
    age(r, half - 1 - 3000000, half - 1)
    age(r, e.mask - e.ticks_us() - 1300000, half - 1)      # ticks wrap ~0.3 s into the run
    after_heartbeat(r)
    t = e.ticks_us()
    assert locked_ms(r, 900)
    assert e.ticks_us() < t                                # the ticks wrapped meanwhile
    assert r.board.uptime_us() > e.mask                    # past the edge, and still counting


def test_the_loop_s_rate_is_measured_and_framed_without_allocating_past_2_30_us():
    # LOOP_RATE (issue 16): a window closes and its frame goes out inside the locked run.
    cfg = load_cfg("pico.json")
    cfg["loop_report_s"] = 1
    r = Rig(cfg=cfg, clock=FakeTime(start_ticks=PERIOD - 5000), ports=True)
    r.m.pin(r.cfg["buttons"]["shift_in"]["data"]).level = 1
    soft_impacts(r)
    age(r, (1 << 30) + 1000000, (PERIOD >> 1) - 1)
    after_heartbeat(r)
    lr = r.board.sender._loop              # [window, passes, longest, busy, not yet sent]
    lr[1] = 0
    lr[4] = False
    assert locked_ms(r, 1200)
    assert lr[1] >= 900 and not lr[4]      # a window was reported, and its frame went out


def test_events_keep_their_time_across_the_small_int_edge():
    e = EdgeTime(bits=62)
    r = ready(clock=e)
    half = e.half
    age(r, half - 1, half - 1)
    age(r, half - 1, half - 1)
    t0 = r.board.uptime_us()
    r.impact(3, 7000)
    r.run_ms(40)
    ev = [x for x in r.events() if x["kind"] == 2]
    assert [x["value"] for x in ev] == [7000] and 0 <= ev[0]["t_us"] - t0 < 2000


if __name__ == "__main__":
    from tests.firmware.mptest import run
    run(globals())
