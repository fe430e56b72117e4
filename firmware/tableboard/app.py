"""The asyncio main loop: sensors stepped every millisecond, the link read and written.

`main(board, link)` where `link` is a transport (tableboard.transport: Stdio for USB
CDC on the Pico and the USB bridge on ESP32 boards, Uart for a machine.UART, or any
object with the same `readinto`/`write`/`drain`), or ("tcp", host, port) for the
virtual board. `sleep_ms` is asyncio's unless a test passes one on a fake clock.
"""
import asyncio

from tableboard import transport

STEP_MS = 1
TX_MS = 5


async def sense(board, sleep_ms):
    while True:
        board.step()
        await sleep_ms(STEP_MS)


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


async def main(board, link, ready=None, sleep_ms=None):
    sleep_ms = sleep_ms or asyncio.sleep_ms
    s = asyncio.create_task(sense(board, sleep_ms))
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


def start(config_path="board.json"):
    """Entry point on a board (main.py calls it)."""
    import machine
    import time
    import micropython
    from tableboard import config
    from tableboard.board import Board
    micropython.alloc_emergency_exception_buf(100)
    cfg = config.load(config_path)
    sp = cfg.get("safe_pin")
    if sp is not None and machine.Pin(sp, machine.Pin.IN, machine.Pin.PULL_UP).value() == 0:
        print("safe mode: link not started, REPL free")
        return
    board = Board(cfg, machine, time)
    link = open_link(machine, cfg.get("link", {}), time)
    asyncio.run(main(board, link))
