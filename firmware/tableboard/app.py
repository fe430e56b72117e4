"""The asyncio main loop: sensors stepped every millisecond, the link read and written.

`main(board, link)` where `link` is a transport (tableboard.transport: Stdio for USB
CDC on the Pico and the USB bridge on ESP32 boards, Uart for a machine.UART, or any
object with the same `readinto`/`write`/`drain`), or ("tcp", host, port) for the
virtual board. `sleep_ms` is asyncio's unless a test passes one on a fake clock.
"""
import asyncio

from shared_rules.link import names
from tableboard import schema, transport

STEP_MS = 1
TX_MS = 5


async def sense(board, sleep_ms, on_crash=None):
    """Steps the sensors every millisecond (and so feeds the watchdog); a pass that took a
    millisecond or more is followed by the next at once (a yield, not a sleep), so a slow
    board runs as many passes as it can rather than a millisecond fewer each. An error here
    must not leave a silent task behind: `on_crash` (record and reset, on a board) or raise."""
    loop = board.loop
    try:
        while True:
            board.step()
            await sleep_ms(0 if loop.last >= STEP_MS * 1000 else STEP_MS)
    except Exception as e:
        if on_crash is None:
            raise
        on_crash(e)


async def serve(board, link, sleep_ms):
    """Every TX_MS: hand the board what the host sent, then write what the link takes now.

    Only `link.room()` bytes are framed a pass, so a write never waits on the port and
    the sensors never wait on the link; what is not due yet stays with the sender.
    """
    inbuf = bytearray(schema.get(board.cfg, transport.CONFIG, "in_size"))
    imv = memoryview(inbuf)
    buf = bytearray(board.out_size)
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
    c = schema.get({"link": lc}, transport.CONFIG, "link") if lc else None
    if not c or c["uart"] is None:
        import micropython
        micropython.kbd_intr(-1)       # frames may hold 0x03; Ctrl-C must not stop the board
        return transport.Stdio()
    return transport.Uart(transport.open_uart(machine, lc), c["baud"], clock)


WDT_MS = 8000     # under the rp2 maximum of 8388 ms (ports/rp2/machine_wdt.c)
BOOT_ONLY = ("config", "chips")     # modules a board needs only while it boots


def say(*words):
    """A line for a person at the REPL, then a 0x00: on USB stdio the host's frame reader
    takes the line as one bad frame and is in step again for the HELLO that follows."""
    print(*words, end="\n\x00")


def build(cfg, machine, time_mod, boot_id=None):
    """(board, None), or, when building it fails, (a board that only speaks, the error's text):
    never a silent reset loop for a configuration the check could not fault. What only the
    fallback needs is imported only then (the virtual board builds from source in 192K)."""
    from tableboard.board import Board
    try:
        return Board(cfg, machine, time_mod, boot_id=boot_id), None
    except Exception as e:
        from tableboard import boot
        boot.show(e)
        why = boot.describe(e)
        e = None
        import gc
        gc.collect()
        from tableboard import config
        return Board(config.minimal(cfg), machine, time_mod, boot_id=boot_id), why


def _boot(config_path):
    """Everything a board does once at power-up; returns (board, link, on_crash)."""
    import machine
    import time
    import micropython
    from tableboard import config, boot
    micropython.kbd_intr(-1)
    micropython.alloc_emergency_exception_buf(100)
    chip = chip_of()
    code, why = boot.reason(machine, chip)
    wdt = machine.WDT(timeout=WDT_MS)
    warn = []
    cfg, bad = config.load_checked(config_path, chip, warn)
    for w in warn:
        say("board configuration: warning:", w)
    failure = None
    if bad:
        # Never a half-working board: no sensors at all, a FAULT to the host, the reason here.
        say("board configuration refused:", "; ".join(bad))
        failure = (names.BOARD_CONFIG, "; ".join(bad))
    elif why and code == names.BOARD_CRASH:
        say("restarted after:", why)
    wdt.feed()
    board, broke = build(cfg, machine, time)
    if broke:
        boot.record(broke)             # once per distinct failure: the same text is not rewritten
        failure = (names.BOARD_CRASH, broke)
        cfg = config.minimal(cfg)
    board.wdt = wdt
    # Why it restarted (unless that is the failure it has again), then why it cannot run. The
    # crash file stays until the host has acknowledged the FAULT that told it.
    if code is not None and not (failure and failure[1] == why):
        told = board.restarted(code, why)
        if code == names.BOARD_CRASH:
            def acked(seq):
                if seq == told:
                    boot.forget(why)
            board.sender.text_acked = acked
    if failure:
        board.restarted(failure[0], failure[1])
    try:
        link = open_link(machine, cfg.get("link"), time)
    except Exception as e:             # a UART the chip refuses: speak on USB instead
        say("link:", boot.describe(e))
        link = open_link(machine, None, time)

    def on_crash(e):
        boot.show(e)
        boot.record(e)
        machine.reset()
    return board, link, on_crash


def start(config_path="board.json"):
    """Entry point on a board (main.py calls it through boot.run, which resets on any error).

    The watchdog starts before the sensors are built and is fed at every sensor step, so a
    board that stops stepping (a hang, a dead task) resets within WDT_MS. What only booting
    needs (the configuration's checks, the chip registry) leaves the heap before the loop.
    """
    board, link, on_crash = _boot(config_path)
    _drop(BOOT_ONLY)
    asyncio.run(main(board, link, on_crash=on_crash))


def _drop(modules):
    """Forget tableboard modules that are no longer needed, so their code's heap is free again."""
    import gc
    import sys
    import tableboard
    for n in modules:
        sys.modules.pop("tableboard." + n, None)
        try:
            delattr(tableboard, n)
        except Exception:
            pass
    gc.collect()


def chip_of():
    """The chip this runs on, as board configurations name it ("rp2040", "esp32", or None)."""
    import sys
    from tableboard import chips
    return chips.of_platform(sys.platform)
