"""What the board tells the host about itself (issue 16, findings 10-12): why it restarted, as far
as its chip can tell; the firmware version; the sensor loop's rate, measured on its own clock.

Plain test functions: pytest collects them under CPython; under MicroPython `run(globals())`
runs them (tests/firmware/test_on_micropython.py).
"""
from shared_rules.link import frames, names
from shared_rules.link.names import LOOP_RATE, FAULT_TEXT, EVENT, ACK

from tableboard import VERSION, chips
from tests.firmware.rig import Rig, load_cfg
from vboard import fakechip
from vboard.fakemachine import FakeMachine, FakeTime

PICO = "Raspberry Pi Pico with RP2040"


# --- reset reasons, named for what each chip can tell (ports/*/modmachine.c) -------------------

def machine(port, cause, reason=0):
    m = FakeMachine(port=port)
    m.attach(FakeTime())
    m.cause = cause
    m.wdt_reason = reason
    return m


def test_rp2_tells_the_watchdog_from_machine_reset_by_the_watchdog_s_reason_register():
    W = fakechip.WDT_RESET
    assert chips.restart(machine("rp2", W, fakechip.REASON_TIMER), "rp2040", PICO) == (names.BOARD_WATCHDOG, None)
    code, text = chips.restart(machine("rp2", W, fakechip.REASON_FORCE), "rp2040", PICO)
    assert code == names.BOARD_SOFT_RESET and "machine.reset()" in text
    # Power-on, the RUN pin and a brown-out all read PWRON_RESET on rp2: nothing to report.
    assert chips.restart(machine("rp2", fakechip.PWRON_RESET), "rp2040", PICO) == (None, None)
    # Where the register is not known, the board says it cannot tell rather than "watchdog".
    code, text = chips.restart(machine("rp2", W, fakechip.REASON_FORCE), "rp2040", "some RP2 board")
    assert "cannot tell" in text


def test_esp32_reports_its_causes_as_its_port_means_them():
    def said(cause):
        return chips.restart(machine("esp32", cause), "esp32", "Generic ESP32 module with ESP32")
    assert said(fakechip.WDT_RESET) == (names.BOARD_WATCHDOG, None)
    code, text = said(fakechip.HARD_RESET)                   # esp_restart or a panic
    assert code == names.BOARD_SOFT_RESET and "panic" in text
    assert said(fakechip.SOFT_RESET)[0] == names.BOARD_SOFT_RESET
    assert said(fakechip.PWRON_RESET) == (None, None)        # power-on, EN button, brown-out
    # The port model's machine.reset(): HARD_RESET since v1.13 (ESP_RST_SW).
    m = machine("esp32", fakechip.PWRON_RESET)
    try:
        m.reset()
    except fakechip.Reset as e:
        assert e.cause == fakechip.HARD_RESET


def test_no_code_is_sent_that_no_port_can_tell():
    # reset_button (19) and brownout (18) stay known to hosts but no MicroPython port reports
    # them; every code the registry can send is one of BOARD_FAULTS.
    sent = set()
    for port, chip, mcu in (("rp2", "rp2040", PICO), ("esp32", "esp32", "ESP32")):
        for cause in (1, 2, 3, 4, 5):
            for reason in (0, 1, 2):
                code = chips.restart(machine(port, cause, reason), chip, mcu)[0]
                if code is not None:
                    sent.add(code)
    assert sent == {names.BOARD_WATCHDOG, names.BOARD_SOFT_RESET}


# --- the firmware version moves with what it offers -------------------------------------------

def test_hello_says_the_version_of_the_newest_addition_the_firmware_offers():
    offered = (names.FW_BOARD_FAULT, names.FW_FAULT_TEXT, names.FW_LOOP_RATE)
    assert VERSION == max(offered)
    r = Rig()
    r.run_ms(10)
    h = r.hellos[0]
    assert (h["fw_major"], h["fw_minor"]) == VERSION


# --- a FAULT's text --------------------------------------------------------------------------

def test_a_fault_text_goes_before_its_fault_every_time_it_is_sent_until_acknowledged():
    r = Rig()
    r.acking = False
    seq = r.board.restarted(names.BOARD_CRASH, "RuntimeError: shift register on fire")
    seen = []
    for _ in range(700):                  # no ACK: HELLO and the FAULT go again after 250 ms
        r.time.advance_us(1000)
        r.board.step()
        k = r.board.link_out(r.buf, 64)
        for f in r.reader.feed(r.mv[:k]):
            if f["type"] in (FAULT_TEXT, EVENT):
                seen.append((f["type"], f["seq"]))
    assert seen[:2] == [(FAULT_TEXT, seq), (EVENT, seq)] and seen.count((FAULT_TEXT, seq)) >= 2
    assert all(seen[i + 1] == (EVENT, seq) for i in range(len(seen)) if seen[i][0] == FAULT_TEXT)
    acked = []
    r.board.sender.text_acked = acked.append
    r.board.link_in(frames.encode({"type": ACK, "seq": 0, "boot_id": r.boot_id, "ack": seq}))
    assert acked == [seq]
    n = r.board.link_out(r.buf, 64)
    assert [f for f in r.reader.feed(r.mv[:n]) if f["type"] == FAULT_TEXT] == []


def test_a_long_text_is_cut_on_a_character_and_the_frame_fits_the_reader():
    w = frames.fault_text(1, 5, 17, "ошибка: " + "я" * 40)
    f = frames.decode(w)
    assert f["type"] == FAULT_TEXT and f["value"] == 17 and f["text"].startswith("ошибка")
    assert len(f["text"].encode()) <= frames.TEXT_MAX and len(w) - 1 <= frames.FrameReader.MAX_FRAME


# --- the loop's rate, on the board's own clock ------------------------------------------------

def loop_rig(every_us):
    cfg = load_cfg()
    cfg["loop_report_s"] = 1
    r = Rig(cfg=cfg)
    r.run_ms(50, step_us=every_us)
    return r


def reports(r):
    return [f for f in r.others if f["type"] == LOOP_RATE]


def test_the_board_reports_how_often_its_loop_really_ran():
    r = loop_rig(1000)
    r.run_ms(2100)                                   # a pass every millisecond
    f = reports(r)[-1]
    assert f["boot_id"] == r.boot_id and 999000 <= f["window_us"] <= 1002000
    assert 995 <= f["passes"] <= 1002 and f["longest_us"] == 1000
    r = loop_rig(3000)
    r.run_ms(2100, step_us=3000)                     # a slow loop: a pass every 3 ms
    f = reports(r)[-1]
    assert 330 <= f["passes"] <= 335 and f["longest_us"] == 3000
    r.time.advance_us(90000)                         # stuck 90 ms in something
    r.run_ms(1100)
    assert reports(r)[-1]["longest_us"] >= 90000


def test_the_loop_report_waits_while_events_wait_for_their_ack():
    # A host that does not know LOOP_RATE may answer it with a duplicate ACK: sent only when
    # nothing is held, that ACK makes the board resend nothing.
    r = loop_rig(1000)
    r.acking = False
    r.impact(0, 3000)
    n0 = len(reports(r))
    r.run_ms(2100)
    assert len(reports(r)) == n0 and r.board.sender.backlog() > 0
    r.acking = True
    r.run_ms(1100)
    assert len(reports(r)) > n0


def test_loop_report_s_0_sends_none():
    cfg = load_cfg()
    cfg["loop_report_s"] = 0
    r = Rig(cfg=cfg)
    r.run_ms(2100)
    assert reports(r) == [] and len(r.hbs) >= 2


def passes_a_second(pass_us):
    """Passes in the board's own first LOOP_RATE window when a pass costs `pass_us`, the
    loop (app.sense) sleeping on a clock that moves as its sleeps do."""
    import asyncio
    from tableboard import app
    cfg = load_cfg()
    cfg["loop_report_s"] = 1
    r = Rig(cfg=cfg)
    clock = r.time
    tick = r.board.lamps.tick

    def slow(t):
        tick(t)
        clock.advance_us(pass_us)
    r.board.lamps.tick = slow
    windows = []
    r.board.loop.report = lambda w, passes, longest, busy: windows.append(passes * 1000000 // w)

    async def sleep_ms(ms):
        clock.advance_us(ms * 1000)
        await asyncio.sleep(0)

    async def go():
        task = asyncio.create_task(app.sense(r.board, sleep_ms))
        while not windows:
            await asyncio.sleep(0)
        task.cancel()
        await asyncio.sleep(0)
    asyncio.run(go())
    return windows[0]


def test_the_loop_aims_at_1000_passes_and_a_slow_board_runs_as_many_as_it_can():
    assert 995 <= passes_a_second(0) <= 1001            # a millisecond apart, never spinning
    assert 420 <= passes_a_second(2300) <= 435           # 2.3 ms a pass: no millisecond's sleep


if __name__ == "__main__":
    from tests.firmware.mptest import run
    run(globals())
