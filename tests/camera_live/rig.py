"""A table with a camera on one host clock: the daemon in-process (its loop's steps taken by hand),
a fake board sending framed EVENTs and HEARTBEATs on the host clock, and the camera edge fed the
frames of a video file at their host times. No threads, no sleeping: the host clock is a number
the rig moves forward, so every run is the same whatever the machine's load."""
from host.camera.edge import CameraEdge
from host.daemon import Daemon
from shared_rules.link import frames, names
from shared_rules.link.names import EVENT, HEARTBEAT, HELLO

BOOT = 0x0CA11E7A
BOARD_T0_US = 7000000        # the board's clock when the host's read HOST_T0
HOST_T0 = 100.0


class Clock:
    def __init__(self, now=HOST_T0):
        self.now = now

    def __call__(self):
        return self.now


class Rig:
    def __init__(self, folder, game="nine-ball", features=15):
        self.clock = Clock()
        self.events = []
        self.d = Daemon("t1", "loop://", journal_dir=str(folder), outputs=[], game=game,
                        players=("Anna", "Bob"), clock=self.clock)
        self.d.listeners.append(lambda state, events: self.events.extend(events))
        self.edge = None
        self.seq = 0
        self.features = features

    def with_camera(self, path, corners, table="7ft"):
        self.edge = CameraEdge(path, put=self.d.queue.put, corners=corners, table=table, clock=self.clock)
        self.d.camera.attach(self.edge)
        return self

    def start(self):
        self.d.start_journal()
        self._send(frames.encode({"type": HELLO, "seq": 0, "boot_id": BOOT, "proto": 1, "fw_major": 1,
                                  "fw_minor": 2, "pockets": 6, "rails": 6, "features": self.features,
                                  "name": "rig"}))
        self.seq = 1
        self.heartbeat()
        return self

    # --- the board
    def board_us(self, host_t):
        return int(round((host_t - HOST_T0) * 1e6)) + BOARD_T0_US

    def heartbeat(self):
        self._send(frames.encode({"type": HEARTBEAT, "seq": self.seq, "boot_id": BOOT,
                                  "t_us": self.board_us(self.clock.now), "backlog": 0, "dropped": 0}))

    def sensor(self, kind, index, value, at=None):
        """One board EVENT that happened at host time `at` (default now), received now."""
        t = self.clock.now if at is None else at
        self._send(frames.encode({"type": EVENT, "seq": self.seq, "t_us": self.board_us(t), "kind": kind,
                                  "index": index, "value": value, "flags": 0}))
        self.seq += 1

    def shot(self, rails=9, drops=(), t=None, still_s=1.5):
        """A whole stroke felt by the board only: motion, rails, drops, still."""
        t = self.clock.now if t is None else t
        self.at(t)
        self.sensor(names.MOTION, 0, 1)
        for i in range(rails):
            self.at(t + 0.1 + 0.05 * i)
            self.sensor(names.RAIL, i % 6, 20000)
        for i, (ball, p) in enumerate(drops):
            self.at(t + 0.8 + 0.05 * i)
            self.sensor(names.POCKET, p, ball)
        self.at(t + 1.5 + still_s)
        self.sensor(names.MOTION, 0, 0)

    def _send(self, data):
        _, _, events = self.d.handle_bytes(data, self.clock.now)
        self.d._changed(events)

    # --- time
    def at(self, t):
        """Move the host clock to `t`, taking the loop's steps on the way (every 20 ms)."""
        while self.clock.now + 0.02 < t:
            self.clock.now += 0.02
            self.loop()
        self.clock.now = max(self.clock.now, t)
        self.loop()

    def loop(self):
        """What Daemon.step does after reading the board: the queue, the camera's wait."""
        self.d._take_queue()
        self.d.camera.tick(self.clock.now)

    def play(self, clip, board, start):
        """The clip's frames at host time `start` + video time, interleaved with `board`
        ([(video seconds, kind, index, value)]); the loop runs between them."""
        from host.camera.sources import FileSource
        src = FileSource(clip["path"])
        self.edge.fps = src.fps
        board = list(board)
        last_beat = self.clock.now
        try:
            for t_video, frame in src:
                t = start + t_video
                while board and start + board[0][0] <= t:
                    tb, kind, index, value = board.pop(0)
                    self.at(start + tb)
                    self.sensor(kind, index, value)
                self.at(t)
                self.edge.frame(t, frame)
                self.loop()
                if t - last_beat >= 1.0:
                    self.heartbeat()
                    last_beat = t
        finally:
            src.close()
        for tb, kind, index, value in board:
            self.at(start + tb)
            self.sensor(kind, index, value)
        self.at(self.clock.now + 1.0)

    @property
    def state(self):
        return self.d.table_state()

    def journal(self):
        from host.journal import read_entries
        return read_entries(self.d.journal.path)

    def close(self):
        self.d.close()
