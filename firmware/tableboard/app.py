"""The asyncio main loop: sensors stepped every millisecond, the link read and written.

`main(board, link)` where `link` is a transport (tableboard.transport: Stdio for USB
CDC on the Pico and the USB bridge on ESP32 boards, Uart for a machine.UART, or any
object with the same `readinto`/`write`/`drain`), or ("tcp", host, port) for the
virtual board. `sleep_ms` is asyncio's unless a test passes one on a fake clock.
"""
import asyncio

from shared_rules.link import names
from tableboard import transport

STEP_MS = 1
TX_MS = 5


async def sense(board, sleep_ms, on_crash=None):
    """Steps the sensors every millisecond (and so feeds the watchdog). An error here must not
    leave a silent task behind: `on_crash` (record and reset, on a board) or raise."""
    try:
        while True:
            board.step()
            await sleep_ms(STEP_MS)
    except Exception as e:
        if on_crash is None:
            raise
        on_crash(e)


async def serve(board, link, sleep_ms):
    """Every TX_MS: hand the board what the host sent, then write what the link takes now.

    Only `link.room()` bytes are framed a pass, so a write never waits on the port and
    the sensors never wait on the link; what is not due yet stays with the sender.
    """
    inbuf = bytearray(board.cfg.get("in_size", 256))
    imv = memoryview(inbuf)
    buf = bytearray(board.cfg.get("out_size", 1024))
    while True:
        n = link.readinto(inbuf)
        if n:
            board.link_in(imv[:n])
        room = link.room()
        if room:
            k = board.link_out(buf, room)
            if k:
                link.write(buf, k)
                await link.drain()
        await sleep_ms(TX_MS)


async def _serve_stream(board, reader, writer):
    """One TCP connection from the host: served until it closes."""
    link = transport.Stream(reader, writer)
    t = asyncio.create_task(serve(board, link, asyncio.sleep_ms))
    try:
        await link.pump()
    finally:
        t.cancel()
        try:
            writer.close()
            await writer.wait_closed()
        except Exception:
            pass


async def main(board, link, ready=None, sleep_ms=None, on_crash=None):
    sleep_ms = sleep_ms or asyncio.sleep_ms
    s = asyncio.create_task(sense(board, sleep_ms, on_crash))
    try:
        if isinstance(link, tuple) and link[0] == "tcp":
            def on_conn(reader, writer):
                return _serve_stream(board, reader, writer)
            srv = await asyncio.start_server(on_conn, link[1], link[2])
            if ready is not None:
                ready()
            while True:
                await asyncio.sleep_ms(1000)
        else:
            if ready is not None:
                ready()
            await serve(board, link, sleep_ms)
    finally:
        s.cancel()               # a cancelled main leaves no sensing task behind


def open_link(machine, lc, clock=None):
    """The transport a board configuration's "link" names: USB stdio unless it gives a UART."""
    if lc.get("uart") is None:
        import micropython
        micropython.kbd_intr(-1)       # frames may hold 0x03; Ctrl-C must not stop the board
        return transport.Stdio()
    return transport.Uart(transport.open_uart(machine, lc), lc.get("baud", 115200), clock)


WDT_MS = 8000     # under the rp2 maximum of 8388 ms (ports/rp2/machine_wdt.c)


def start(config_path="board.json"):
    """Entry point on a board (main.py calls it through boot.run, which resets on any error).

    The watchdog starts before the sensors are built and is fed at every sensor step, so a
    board that stops stepping (a hang, a dead task) resets within WDT_MS.
    """
    import machine
    import time
    import micropython
    from tableboard import config, boot
    from tableboard.board import Board
    micropython.kbd_intr(-1)
    micropython.alloc_emergency_exception_buf(100)
    code, why = boot.reason(machine)
    wdt = machine.WDT(timeout=WDT_MS)
    cfg, bad = config.load_checked(config_path, chip_of())
    if bad:
        # Never a half-working board: no sensors at all, a FAULT to the host, the reason here.
        print("board configuration refused:", "; ".join(bad))
        code = names.BOARD_CONFIG
    elif why and code == names.BOARD_CRASH:
        print("restarted after:", why)
    wdt.feed()
    board = Board(cfg, machine, time)
    board.wdt = wdt
    if code is not None:
        board.restarted(code)
    link = open_link(machine, cfg.get("link", {}), time)

    def on_crash(e):
        boot.record(e)
        machine.reset()
    asyncio.run(main(board, link, on_crash=on_crash))


def chip_of():
    """The chip this runs on, as board configurations name it ("rp2040", "esp32", or None)."""
    import sys
    return {"rp2": "rp2040", "esp32": "esp32"}.get(sys.platform)
