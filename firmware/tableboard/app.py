"""The asyncio main loop: sensors stepped every millisecond, the link written and read.

`run(board, link)` where `link` is "stdio" (USB CDC on the Pico, the USB bridge on
ESP32 boards), a machine.UART, or ("tcp", host, port) for the virtual board.
"""
import asyncio

STEP_MS = 1
TX_MS = 5


async def sense(board):
    while True:
        board.step()
        await asyncio.sleep_ms(STEP_MS)


async def tx(board, write, drain=None):
    buf = bytearray(board.cfg.get("out_size", 1024))
    mv = memoryview(buf)
    while True:
        n = board.link_out(buf)
        if n:
            write(mv[:n])
            if drain is not None:
                await drain()
        await asyncio.sleep_ms(TX_MS)


async def rx(board, reader):
    while True:
        data = await reader.read(64)
        if not data:
            return
        board.link_in(data)


async def _serve_stream(board, reader, writer):
    t = asyncio.create_task(tx(board, writer.write, writer.drain))
    try:
        await rx(board, reader)
    finally:
        t.cancel()
        try:
            writer.close()
            await writer.wait_closed()
        except Exception:
            pass


async def main(board, link, ready=None):
    asyncio.create_task(sense(board))
    if link == "stdio":
        import sys
        import micropython
        micropython.kbd_intr(-1)       # frames may hold 0x03; Ctrl-C must not stop the board
        out = sys.stdout.buffer
        asyncio.create_task(tx(board, out.write))
        await rx(board, asyncio.StreamReader(sys.stdin.buffer))
    elif isinstance(link, tuple) and link[0] == "tcp":
        def on_conn(reader, writer):
            return _serve_stream(board, reader, writer)
        srv = await asyncio.start_server(on_conn, link[1], link[2])
        if ready is not None:
            ready()
        while True:
            await asyncio.sleep_ms(1000)
    else:
        w = asyncio.StreamWriter(link, {})
        await _serve_stream(board, asyncio.StreamReader(link), w)


def open_uart(machine, lc):
    return machine.UART(lc.get("uart", 0), baudrate=lc.get("baud", 115200),
                        tx=machine.Pin(lc["tx"]), rx=machine.Pin(lc["rx"]),
                        txbuf=lc.get("txbuf", 1024), rxbuf=lc.get("rxbuf", 256))


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
    lc = cfg.get("link", {})
    link = "stdio" if lc.get("uart") is None else open_uart(machine, lc)
    asyncio.run(main(board, link))
