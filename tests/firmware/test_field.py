"""What real boards do to the firmware, on the port models of vboard/fakechip.py (issue 8).

Plain test functions: pytest collects them under CPython; under MicroPython `run(globals())`
runs them (tests/firmware/test_on_micropython.py).
"""
from shared_rules.link.names import RAIL, POCKET

from tests.firmware.rig import Rig, load_cfg, load_table
from tableboard import app, colour, config
from tableboard.isr import LOST
from vboard import fakechip
from vboard.balls import readings

TABLE = load_table()


def raises(exc, fn, *a, **kw):
    try:
        fn(*a, **kw)
    except exc:
        return True
    return False


# --- the rail peak is read at its time, not when the loop gets to it ---------------------------

def test_a_rail_peak_is_read_a_settle_time_after_its_edge_even_while_the_loop_is_stuck():
    r = Rig(ports=True)
    r.run_ms(10)
    r.impact(2, 40000, tau_us=20000)      # the peak-hold bleeds with tau 20 ms
    r.time.advance_us(90000)              # the loop is stuck 90 ms in a link write
    r.run_ms(5)
    v = [e["value"] for e in r.events(RAIL)]
    assert len(v) == 1 and v[0] >= 36000, v   # read ~1 ms after the edge: ~95 %, not ~1 %


def test_rail_strength_does_not_depend_on_loop_load():
    got = []
    for stuck_ms in (0, 7, 30, 60):
        r = Rig(ports=True)
        r.run_ms(10)
        r.impact(0, 20000, tau_us=20000)
        r.time.advance_us(stuck_ms * 1000)
        r.run_ms(5)
        got.append(r.events(RAIL)[0]["value"])
    assert max(got) - min(got) <= 200, got


# --- the watchdog ------------------------------------------------------------------------------

def test_the_watchdog_is_fed_by_every_sensor_step_and_bites_when_they_stop():
    r = Rig(ports=True)
    r.board.wdt = r.m.WDT(timeout=app.WDT_MS)
    r.run_ms(20000)                        # 20 s of normal running: fed all along
    assert r.board.wdt.feeds >= 19000
    bit = False
    try:
        for _ in range(10):
            r.time.advance_ms(1000)        # nothing steps the sensors any more
    except fakechip.Reset as e:
        bit = e.cause == fakechip.WDT_RESET
    assert bit


def test_rp2_refuses_a_watchdog_timeout_over_8388_ms_and_ours_fits():
    r = Rig(ports=True)
    assert raises(ValueError, r.m.WDT, timeout=9000)
    assert app.WDT_MS <= 8388 and r.m.WDT(timeout=app.WDT_MS).timeout == app.WDT_MS


# --- lost edges ----------------------------------------------------------------------------------

class _RaceIdx:
    """The ring's index array, with an edge interrupt arriving right after `lost` is read."""

    def __init__(self, idx, fire):
        self.idx = idx
        self.fire = fire
        self.armed = True

    def __getitem__(self, i):
        v = self.idx[i]
        if i == LOST and self.armed:
            self.armed = False
            self.fire()
        return v

    def __setitem__(self, i, v):
        self.idx[i] = v


def test_the_lost_edge_counter_is_read_and_cleared_with_interrupts_off():
    r = Rig(ports=True)
    r.run_ms(10)
    ring = r.board.ring
    p = r.pin_of_pocket(0)
    for _ in range(ring.size):            # fill the ring: every further edge is lost
        p.drive(0)
        p.drive(1)
    before = ring.idx[LOST]
    ring.idx = _RaceIdx(ring.idx, lambda: p.drive(0))
    n = ring.take_lost(r.m)
    ring.idx = ring.idx.idx
    assert n == before and ring.idx[LOST] == 1      # the edge in between is still counted


# --- ESP32 -------------------------------------------------------------------------------------

def test_esp32_pin_irq_has_no_hard_argument():
    r = Rig(cfg=load_cfg("esp32.json"))
    pin = r.m.Pin(4)
    assert raises(TypeError, pin.irq, handler=print, trigger=12, hard=True)


def test_esp32_adc_reads_only_about_1_volt_at_its_default_and_the_board_sets_11_db():
    r = Rig(cfg=load_cfg("esp32.json"))
    raw = r.m.ADC(r.m.Pin(39))                     # attenuation left at the default
    r.m.set_analog(39, 30000)                      # ~1.5 V
    assert raw.read_u16() == 65535
    r.run_ms(10)
    r.impact(1, 30000)
    r.run_ms(10)
    assert [e["value"] for e in r.events(RAIL)] == [30000]


def test_esp32_beams_and_rails_work_by_scan_and_a_late_scan_counts_lost_edges():
    r = Rig(cfg=load_cfg("esp32.json"))
    r.run_ms(10)
    r.show_colour(0, readings(7, TABLE))
    r.beam(0, True)
    r.run_ms(30)
    r.beam(0, False)
    r.run_ms(30)
    assert [e["value"] for e in r.events(POCKET)] == [7]
    assert r.board.isr_lost == 0
    # The main thread sits 20 ms in a blocking UART0 write: the 1 kHz scan timer's callbacks
    # fill the 8-deep scheduler queue and the rest are lost; the beam moves meanwhile.
    r.m.busy = True
    r.beam(1, True)
    r.time.advance_us(20000)
    r.beam(1, False)
    r.time.advance_us(5000)
    r.beam(1, True)
    r.m.busy = False
    r.run_ms(40)
    assert r.m.mp.lost_schedules > 0
    assert r.board.isr_lost > 0                    # counted, so the host's `dropped` shows it


def test_esp32_rail_peaks_are_sampled_by_the_scan_not_the_stuck_loop():
    r = Rig(cfg=load_cfg("esp32.json"))
    r.run_ms(10)
    rc = r.cfg["rails"][4]
    r.m.set_analog(rc["adc"]["adc"], 30000, rc["adc"]["mux"], 20000)
    p = r.m.pin(rc["comp"])
    p.drive(1)
    r.time.advance_us(2000)               # the comparator pulse, stretched to 2 ms
    p.drive(0)
    r.time.advance_us(60000)              # the loop is busy 60 ms in Python (I2C reads, GC): the
                                          # scheduler still runs the scan between bytecodes
    r.run_ms(5)
    v = [e["value"] for e in r.events(RAIL)]
    assert len(v) == 1 and v[0] >= 25000, v


def test_esp32_pin_maps_avoid_strapping_pins_and_the_adc1_glitch_pins():
    assert config.check_chip(load_cfg("esp32.json"), "esp32") == []
    assert config.check_chip(load_cfg("pico.json"), "rp2040") == []
    bad = load_cfg("esp32.json")
    bad["pockets"][2]["beam"] = 36
    bad["pockets"][5]["beam"] = 5
    bad["rails"][0]["adc"]["adc"] = 25
    bad["pockets"][0]["pull"] = "up"
    problems = " ".join(config.check_chip(bad, "esp32"))
    for why in ("GPIO 36 gives false edges", "GPIO 5 is a strapping pin", "GPIO 25 is on ADC2",
                "GPIO 34 is input-only"):
        assert why in problems, (why, problems)
    assert config.check_chip(load_cfg("esp32.json"), "rp2040") != []


# --- colour sensor ---------------------------------------------------------------------------

def test_the_colour_sensor_waits_its_warm_up_after_power_on():
    r = Rig(ports=True)
    log = []
    orig = r.m.I2C

    class LoggingI2C(orig):
        def writeto_mem(self, addr, reg, buf):
            if addr == colour.ADDR:
                log.append((reg & 0x1F, buf[0], r.time.us))
            orig.writeto_mem(self, addr, reg, buf)
    r.m.I2C = LoggingI2C
    for ch in range(6):
        r.m.colour(0, ch)                  # a sensor behind every pocket's mux channel
    r2 = Rig(machine=r.m, clock=r.time, ports=True)
    assert r2 is not None
    enable = [(v, t) for reg, v, t in log if reg == colour.ENABLE][:2]
    assert enable[0][0] == colour.PON and enable[1][0] == colour.PON | colour.AEN
    assert enable[1][1] - enable[0][1] >= colour.WARMUP_US


def test_an_uncalibrated_table_takes_the_atime_full_scale_as_white():
    assert colour.WHITE_C == 1024                # ATIME 0xFF: one 2.4 ms cycle, 1024 counts
    bright_white = [(950, 300, 320, 330)] * 8
    f = colour.features(bright_white)            # no white_c from a calibration table
    assert f[2] == 0.0 and f[1] == 1.0           # white, not dark


if __name__ == "__main__":
    from tests.firmware.mptest import run
    run(globals())
