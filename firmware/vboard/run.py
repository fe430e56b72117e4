"""The virtual board: the real firmware under the MicroPython unix port, inputs from a script.

    MICROPYPATH=.frozen:<repo>:<repo>/firmware micropython -X heapsize=192K \
        firmware/vboard/run.py --port 7000 --script break.jsonl [--config ...] [--colours ...]

Listens on TCP 127.0.0.1:PORT (the daemon connects with --serial socket://127.0.0.1:PORT)
and plays the script once the first connection comes. The script is JSON lines,
each with `t` (ms after the start) and one action:

    {"t": 0,   "motion": 1}                      balls moving (bed sensor high); 0 still
    {"t": 40,  "rail": 3, "strength": 5200}      a ball hits rail 3
    {"t": 300, "ball": 3, "pocket": 2}           ball 3 rolls through pocket 2's beam
    {"t": 300, "beam": 2, "blocked": true}       raw beam level
    {"t": 900, "cue": true}                      the cue ball passes the return detector
    {"t": 950, "button": 7, "press": "short"}    or "long"
    {"t": 990, "exit": true}                     stop the board (else it runs on)

`--broken-pin N` makes every read of pin N raise (a shorted input, read while the board is
built): the board is built as on a real one (tableboard.app.build), so it falls back to a
board that only speaks and tells the host why (FAULT 255/17 with its text).
"""
import sys
import json
import time
import asyncio

# The fakes first: this runs from source, and compiling the biggest module while the heap is
# still empty leaves the firmware's own imports less fragmented room.
from vboard.fakemachine import FakeMachine
from vboard.balls import readings
from tableboard.board import Board  # noqa: F401  compiled here, while the heap is still empty
from tableboard import app
from shared_rules.link import names


def args(argv):
    a = {"--port": "7000", "--script": None, "--config": None, "--colours": None,
         "--boot-id": None, "--broken-pin": None}
    i = 1
    while i < len(argv):
        a[argv[i]] = argv[i + 1]
        i += 2
    return a


def here():
    f = __file__
    i = f.rfind("/")
    return f[:i] if i >= 0 else "."


class Player:
    def __init__(self, board, m, cfg, table, lines):
        self.board = board
        self.m = m
        self.cfg = cfg
        self.table = table
        self.lines = lines
        self.started = False

    async def pulse(self, pin, active, ms):
        p = self.m.pin(pin)
        p.drive(active)
        await asyncio.sleep_ms(ms)
        p.drive(1 - active)

    async def act(self, a):
        m = self.m
        if "ball" in a:
            pk = a.get("pocket", 0)
            cc = self.cfg["pockets"][pk].get("colour")
            if cc:
                m.colour(cc.get("i2c", 0), cc.get("mux")).show(readings(a["ball"], self.table))
            asyncio.create_task(self.pulse(self.cfg["pockets"][pk]["beam"], 0, a.get("ms", 30)))
        elif "beam" in a:
            m.pin(self.cfg["pockets"][a["beam"]]["beam"]).drive(0 if a.get("blocked") else 1)
        elif "rail" in a:
            rc = self.cfg["rails"][a["rail"]]
            m.set_analog(rc["adc"]["adc"], a.get("strength", 5000), rc["adc"].get("mux"))
            p = m.pin(rc["comp"])
            p.drive(1)
            p.drive(0)
        elif "motion" in a:
            m.set_analog(self.cfg["motion"]["adc"], 6000 if a["motion"] else 100)
        elif "cue" in a:
            asyncio.create_task(self.pulse(self.cfg["cue"]["pin"], self.cfg["cue"].get("active", 0), 30))
        elif "button" in a:
            ms = 1300 if a.get("press") == "long" else 120
            asyncio.create_task(self.pulse(self.cfg["buttons"]["pins"][a["button"]], 0, ms))
        elif "exit" in a:
            sys.exit(0)

    async def play(self):
        while not self.started:
            await asyncio.sleep_ms(10)
        t0 = time.ticks_ms()
        for a in self.lines:
            wait = time.ticks_diff(time.ticks_add(t0, a.get("t", 0)), time.ticks_ms())
            if wait > 0:
                await asyncio.sleep_ms(wait)
            await self.act(a)
        print("script done")


def main():
    a = args(sys.argv)
    d = here()
    with open(a["--config"] or d + "/../boards/virtual.json") as f:
        cfg = json.load(f)
    cfg["colour_table"] = a["--colours"] or d + "/../colours.json"
    with open(cfg["colour_table"]) as f:
        table = json.load(f)
    lines = []
    if a["--script"]:
        with open(a["--script"]) as f:
            for ln in f:
                ln = ln.strip()
                if ln and not ln.startswith("#"):
                    lines.append(json.loads(ln))
    m = FakeMachine()
    if cfg.get("analog_mux"):
        m.mux_select = cfg["analog_mux"]["select"]
    for p in cfg.get("pockets", []):
        m.pin(p["beam"]).level = 1
    if cfg.get("cue"):
        m.pin(cfg["cue"]["pin"]).level = 1 - cfg["cue"].get("active", 0)
    for n in cfg.get("buttons", {}).get("pins", []):
        if n is not None:
            m.pin(n).level = 1
    bid = int(a["--boot-id"]) if a["--boot-id"] else None
    import gc
    gc.collect()                 # the source was compiled here: give the board unfragmented room
    if a["--broken-pin"] is not None:
        broken = int(a["--broken-pin"])

        def shorted(pin):
            if pin.id == broken:
                raise RuntimeError("pin %d shorted" % broken)
        m.on_read = shorted
    board, why = app.build(cfg, m, time, boot_id=bid)
    if why:                      # as app._boot: HELLO, then FAULT 255/17 and the error's text
        print("board could not be built:", why)
        board.restarted(names.BOARD_CRASH, why)
    player = Player(board, m, cfg, table, lines)
    port = int(a["--port"])

    # The script starts with the first connection from the host.
    orig = app._serve_stream

    def serve(b, r, w):
        player.started = True
        return orig(b, r, w)
    app._serve_stream = serve

    def ready():
        print("listening", port)

    async def go():
        asyncio.create_task(player.play())
        await app.main(board, ("tcp", "127.0.0.1", port), ready)

    asyncio.run(go())


main()
