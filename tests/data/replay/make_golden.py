"""Makes the replay-equality data: journals, and what the referee answered at each of their entries.

    .venv/bin/python tests/data/replay/make_golden.py

Run once, on the code before a reshaping of the referee or the daemon (issue 15 was the
first), and commit its output; `tests/host/test_replay_equality.py` then replays every journal
with the code of the day and asks for the same answers, events and states at every entry.
Running it again after a change would only compare the new code with itself.

Three kinds of journal, all written to `golden.json.gz` (and one folder):
- `scenario/...`: each rule scenario of tests/scenarios, as the scenario runner journals it
  (board events and the commands the referee accepted);
- `monkey/...`: seeded random play of each game, with and without a motion sensor: plausible
  shots, late drops, buttons, sensor faults and every command with plausible and silly bodies;
- `daemon-t1/`: a table's journal folder as the daemon of the day wrote it (board frames through
  `handle_bytes`, commands through `submit_command`), with small segments so that heads fall in
  the middle of matches; its golden part is each file folded from its own head (what start-up
  does), the whole folder folded through, the daemon's state after start-up on it, and history.
"""
import gzip
import json
import os
import random
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, ROOT)

from shared_rules.link import names                                 # noqa: E402
from tests.scenarios.runner import Run, load                        # noqa: E402

GOLDEN = os.path.join(HERE, "golden.json.gz")
DAEMON_DIR = os.path.join(HERE, "daemon-t1")
GAMES = ("eight-ball", "nine-ball", "straight-pool")
FOULS = ("wrong_first_contact", "no_contact", "jumped_ball", "double_hit", "push_shot", "touched_ball",
         "no_foot_on_floor", "bad_stroke", "near_ball", "moving_ball", "kitchen", "interference",
         "cue_pocketed", "no_rail", "illegal_break", "made_up")
OPTIONS = ("accept", "rebreak", "rerack", "rerack_offender_breaks", "spot_eight", "pass_back", "reshoot",
           "nonsense")


# ------------------------------------------------------------------ the referee's answers
def referee_class():
    sys.path.insert(0, ROOT)
    from host.daemon import load_referee_class
    return load_referee_class()


def answers(entries, referee=None):
    """[[answer, state or None]] for each entry: the state only where it changed."""
    ref = referee or referee_class()("t1", None)
    out = []
    last = None
    for e in entries:
        res = ref.apply(json.loads(json.dumps(e)))
        state = ref.state()
        text = json.dumps(state, sort_keys=True)
        out.append([res, state if text != last else None])
        last = text
    return out


# ------------------------------------------------------------------ scenario journals
def scenario_journals():
    base = os.path.join(ROOT, "tests", "scenarios")
    found = []
    for d, _dirs, files in os.walk(base):
        for f in sorted(files):
            if f.endswith(".json") or (f.endswith(".jsonl") and "scenarios" in d):
                found.append(os.path.join(d, f))
    out = {}
    for path in sorted(found):
        run = Run(load(path), True)
        try:
            run.run()
        except Exception:      # an xfail scenario: its journal up to the failure still counts
            pass
        out["scenario/" + os.path.relpath(path, base)] = run.journal
    return out


# ------------------------------------------------------------------ seeded random play
class Monkey:
    """Random play through the scenario runner's referee: what is accepted is journaled."""

    def __init__(self, seed, game, motion):
        self.r = random.Random(seed)
        self.game = game
        self.run = Run({"features": 15 if motion else 11, "steps": []})
        self.motion = motion
        self.wall = 1764000000.0 + seed * 100000

    def state(self):
        return self.run.ref.state()

    def stamp(self):
        for e in self.run.journal:
            if "wall" not in e:
                e["wall"] = round(self.wall + e.get("t_us", 0) / 1e6, 3) if e.get("t_us") is not None else self.wall

    def cmd(self, name, body):
        self.run.command(name, body, None, None)

    def board(self, kind, index, value, flags=0):
        self.run.board(kind, index, value, flags)

    def new_game(self):
        r = self.r
        body = {"game": self.game, "players": [r.choice(["Anna", "Ann", " Bo "]), r.choice(["Bob", "Boris"])]}
        if r.random() < 0.5:
            body["breaker"] = r.choice([0, 1])
        if self.game == "straight-pool":
            body["target"] = r.choice([10, 20, 30])
            if r.random() < 0.3:
                body["sp_illegal_break"] = "wpa"
            if r.random() < 0.2:
                body["call_required"] = False
        else:
            body["race_to"] = r.choice([1, 2, 3])
        if self.game == "nine-ball" and r.random() < 0.4:
            body["miss_option"] = True
        if r.random() < 0.2:
            body["shot_clock"] = 30
        self.cmd("new_game", body)

    def shot(self):
        r = self.r
        s = self.state()
        on = list(s.get("on_table") or [])
        brk = s.get("phase") == "break"
        n_rails = r.randint(0, 12) if brk else r.choice([0, 1, 1, 2, 3, 4])
        rails = [[r.randrange(6), r.randint(500, 40000)] for _ in range(n_rails)]
        drops = []
        for b in r.sample(on, min(len(on), r.choice([0, 0, 0, 1, 1, 2] if not brk else [0, 1, 1, 2, 3]))):
            ball = b if r.random() < 0.7 else None
            drops.append([ball, r.randrange(6), 1 if r.random() < 0.05 else 0])
        if r.random() < 0.04:
            drops.append([0, r.randrange(6)])
        sh = {"rails": rails, "pocketed": drops, "ms": r.randint(800, 6000), "gap_ms": r.choice([500, 2000, 7000])}
        if r.random() < 0.08:
            sh["cue"] = True
        if not self.motion and r.random() < 0.3:
            sh["end"] = "quiet"
        try:
            self.run.shot(sh)
        except AssertionError:      # e.g. end_shot refused: nothing moved on a table without motion sensor
            pass
        if r.random() < 0.06:        # a ball hanging on the lip drops after the shot, early or late
            self.run.t_ms -= sh["gap_ms"] - r.choice([1000, 3000, 9000])
            left = [b for b in on if b not in [d[0] for d in drops]]
            if left:
                self.board(names.POCKET, r.randrange(6), r.choice(left))

    def command(self):
        r = self.r
        s = self.state()
        on = list(s.get("on_table") or []) or [1]
        pocket = r.choice(list(names.POCKETS) + [r.randrange(6), "nowhere"])
        d = s.get("decision") or {}
        k = r.random()
        if d and k < 0.6:
            self.cmd("choose", {"option": r.choice(list(d.get("options") or ["accept"]) + ["nonsense"])})
        elif s.get("needs") and k < 0.8:
            need = s["needs"][0]
            if need.get("cmd") == "identify":
                self.cmd("identify", {"pocket": need.get("pocket"), "ball": r.choice(on + [0])})
            elif need.get("cmd") == "lag":
                self.cmd("lag", {"winner": r.choice([0, 1]), "breaks": r.random() < 0.8})
            else:
                self.cmd("end_shot", {})
        else:
            name = r.choice(["call", "call", "call", "safety", "push_out", "choose", "foul", "foul", "identify",
                             "end_shot", "undo", "undo", "lag", "spot", "stalemate", "rack", "legal_break",
                             "rename", "new_game", "nonsense"])
            if name == "new_game":
                return self.new_game() if r.random() < 0.3 else None
            body = {}
            if name == "call":
                body = {"ball": r.choice(on + [None]), "pocket": pocket}
            elif name == "choose":
                body = {"option": r.choice(OPTIONS)}
            elif name == "foul":
                body = {"code": r.choice(FOULS)}
                if body["code"] in ("jumped_ball", "interference") and r.random() < 0.7:
                    body["ball"] = r.choice(on + [0])
                    if body["code"] == "interference":
                        body["pocket"] = pocket
            elif name == "identify":
                body = {"pocket": pocket, "ball": r.choice(on + [0, 99])}
            elif name == "lag":
                body = {"winner": r.choice([0, 1, 2]), "breaks": r.choice([True, False])}
            elif name == "spot":
                body = {"ball": r.choice(on)}
            elif name == "stalemate":
                body = {"shooter": r.choice([0, 1])}
            elif name == "rack":
                body = {"fifteenth": r.choice(["clear", "rack", "apex", "kitchen"]), "cue": r.choice(["clear", "rack"])}
            elif name == "rename":
                body = {"player": r.choice([0, 1]), "name": r.choice(["Zoe", "Яна", ""])}
            self.cmd(name, body)

    def button(self):
        r = self.r
        index = r.choice([0, 3, names.BUTTON_SAFETY, names.BUTTON_CONFIRM, names.BUTTON_UNDO,
                          names.BUTTON_NEW_GAME])
        value = names.LONG_PRESS if index == names.BUTTON_NEW_GAME and r.random() < 0.5 else names.PRESS
        self.board(names.BUTTON, index, value)

    def fault(self):
        r = self.r
        if r.random() < 0.3:
            self.board(names.FAULT, names.FAULT_BOARD, r.choice([16, 17, 18, names.BOARD_CONFIG]))
        else:
            self.board(names.FAULT, r.choice([0, 2, 5, 16, 19]),
                       r.choice([names.FAULT_BLOCKED, names.FAULT_SILENT, names.FAULT_CLEAR]))

    def play(self, steps):
        self.new_game()
        for _ in range(steps):
            k = self.r.random()
            pending = self.state().get("decision") or self.state().get("push_out_allowed")
            if pending and k < 0.7:
                k = 0.6 if not self.state().get("push_out_allowed") or k < 0.35 else 0.5
                if k == 0.5:
                    self.cmd("push_out", {})
            if k < 0.5:
                self.shot()
            elif k < 0.9:
                self.command()
            elif k < 0.96:
                self.button()
            else:
                self.fault()
            self.run.t_ms += 300
        self.stamp()
        return self.run.journal


def monkey_journals(seeds=range(1, 13), steps=260):
    out = {}
    for game in GAMES:
        for seed in seeds:
            motion = seed % 2 == 1
            out["monkey/%s-%d%s" % (game, seed, "" if motion else "-nomotion")] = Monkey(
                seed * 7 + GAMES.index(game), game, motion).play(steps)
    return out


# ------------------------------------------------------------------ a folder the daemon wrote
def daemon_folder(journal, folder, segment_entries=120):
    """Feed a monkey journal to the daemon of the day: board events as frames, commands as commands."""
    from shared_rules.link import frames as codec
    from host.daemon import Daemon
    from host.link.port import Port

    class NullPort(Port):
        def __init__(self):
            super().__init__("none://")

        def write(self, data, now):
            return True

    if os.path.isdir(folder):
        shutil.rmtree(folder)
    d = Daemon("t1", "loop://", journal_dir=folder, outputs=[], segment_entries=segment_entries)
    d.port = NullPort()
    d.start_journal()
    boot, seq = 0x5EED, 0
    d.handle_bytes(codec.encode({"type": names.HELLO, "seq": 0, "boot_id": boot, "proto": 1, "fw_major": 1,
                                 "fw_minor": 0, "pockets": 6, "rails": 6, "features": 15, "name": "golden"}),
                   1.0)
    for e in journal:
        if e.get("src") == "board":
            seq = (seq + 1) & 0xFFFF
            d.handle_bytes(codec.encode({"type": names.EVENT, "seq": seq, "t_us": e["t_us"], "kind": e["kind"],
                                         "index": e["index"], "value": e["value"], "flags": e.get("flags", 0)}),
                           1.0 + e["t_us"] / 1e6)
        elif e.get("src") == "cmd":
            d.submit_command(e["cmd"], dict(e.get("body") or {}))
    d.journal.wait_tidy(60)
    d.close()
    for n in os.listdir(folder):              # the history database is not the journal's
        if os.path.isdir(os.path.join(folder, n)) and n == "venue":
            shutil.rmtree(os.path.join(folder, n))


def daemon_golden(folder):
    from host.journal import read_entries, table_files, HEAD
    from host.daemon import Daemon
    from host.history import matches_from_journals
    path = os.path.join(folder, "t1.jsonl")
    files = table_files(path)
    per_file = {}
    for f in files:
        entries = read_entries(f)
        ref = referee_class()("t1", None)
        if entries and entries[0].get("src") == HEAD:
            ref.restore(entries[0]["referee"])
            entries = entries[1:]
        per_file[os.path.relpath(f, folder)] = answers(entries, ref)
    whole = []
    for f in files:
        whole.extend(e for e in read_entries(f) if e.get("src") != HEAD)
    tmp = tempfile.mkdtemp()
    try:
        shutil.copytree(folder, os.path.join(tmp, "j"))
        d = Daemon("t1", "loop://", journal_dir=os.path.join(tmp, "j"), outputs=[])
        d.start_journal()
        state = d.state
        d.close()
    finally:
        shutil.rmtree(tmp)
    records, withdrawn = matches_from_journals(files, "t1")
    return {"files": per_file, "whole": answers(whole), "start_up_state": state,
            "history": records, "withdrawn": sorted(withdrawn, key=lambda x: (x is None, x))}


def main():
    journals = scenario_journals()
    journals.update(monkey_journals())
    golden = {"journals": {}}
    for name in sorted(journals):
        golden["journals"][name] = {"entries": journals[name], "answers": answers(journals[name])}
    long_play = Monkey(4242, "eight-ball", True).play(900) + Monkey(4243, "nine-ball", True).play(600)[1:]
    daemon_folder(long_play, DAEMON_DIR)
    golden["daemon-t1"] = daemon_golden(DAEMON_DIR)
    with gzip.open(GOLDEN, "wt", encoding="utf-8") as f:
        json.dump(golden, f, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    n = sum(len(j["entries"]) for j in golden["journals"].values())
    print("%d journals, %d entries; daemon folder: %d files; %s bytes" % (
        len(golden["journals"]), n, len(golden["daemon-t1"]["files"]), os.path.getsize(GOLDEN)))


if __name__ == "__main__":
    main()
