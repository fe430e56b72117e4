"""The referee: a pure fold over the journal (board events and commands) into the table state.

No clock, no I/O: time is the board's `t_us` carried by each entry, so replaying
a journal rebuilds the same state every time, on CPython as on MicroPython.
"""
from shared_rules.link import names
from shared_rules.rules import common, settings as settings_mod
from shared_rules.rules.data import clone, is_int
from shared_rules.rules.events import event
from shared_rules.rules.messages import refusal, say, say_each
from shared_rules.rules.commands import Commands, _ok
from shared_rules.rules import old_heads
from shared_rules.rules.book import Book
from shared_rules.rules.camera import CameraSight
from shared_rules.rules.games import module_for
from shared_rules.rules.shot import new_shot
from shared_rules.rules.racks import match_score, match_state, next_breaker, races

SNAPSHOT_VERSION = 3       # 1 and 2: the heads of the daemons before the book (old_heads.py)

class Referee(Commands, CameraSight):
    """Fold entries with `apply`; read the table with `state`. Commands live in commands.py.

    A referee is its table name and default settings (both fixed at construction: the host's)
    plus its book (book.py), everything the fold has built. `snapshot()` and `restore()` carry
    the book alone.
    """

    def __init__(self, table="t1", settings=None):
        self.table = table
        self.defaults = settings_mod.merge(settings)
        self.book = Book()
        self._wall = None           # the entry being folded's `wall`: labels a match's end, never judged on

    @property
    def g(self):
        """The game being played, read only (the host's history fold reads it where a whole
        `state()` per entry would cost too much); None before the first game."""
        return self.book.game

    # ------------------------------------------------------------------ input
    def apply(self, entry):
        """Fold one journal entry in; never raises, and a refused entry changes nothing."""
        if not isinstance(entry, dict):
            return refusal("entry_not_object")
        # Rail hits during a shot only append to it; everything else may judge, so keep a way back.
        light = (entry.get("src") == "board" and entry.get("kind") == names.RAIL
                 and self.book.open_shot is not None and self.book.has_motion)
        saved = None if light else self.book.copy()
        self._wall = entry.get("wall")
        try:
            res = self._fold(entry)
            if res["ok"]:
                self._note_visit()
            return res
        except Exception as e:  # a rule bug must not take the daemon down or half-change a game
            if saved is not None:
                self.book = saved
            return refusal("internal_error", (repr(e),))

    def _fold(self, entry):
        src = entry.get("src")
        if src == "board":
            return self._sensor(entry)
        if src == "cmd":
            body = entry.get("body")
            return self.command(entry.get("cmd"), {} if body is None else body, entry.get("t_us"),
                                entry.get("wall"))
        if src == "camera":
            return self._camera_entry(entry)
        if src == "hello":
            f = entry.get("features")
            if is_int(f):
                self.book.features = f
                self.book.has_motion = bool(f & names.FEATURE_MOTION)
            return _ok()
        return refusal("unknown_source", (src,))

    # ------------------------------------------------------------- journal heads
    def snapshot(self):
        """Everything the fold has built, as JSON-able data (a journal segment's head).

        `fields` also names the table that wrote it, for readers of a head alone (`billiards
        replay`); `restore` does not read it back.
        """
        fields = self.book.to_json()
        fields["table"] = self.table
        return {"referee": SNAPSHOT_VERSION, "fields": fields}

    def restore(self, snap):
        """This referee made what `snap` was taken of, so the fold goes on as if it had never
        stopped. Heads of the daemons before the book (`"referee": 1 or 2`) are read too; the
        table name and the default settings stay this referee's own. Returns the referee."""
        fields = snap.get("fields") or {}
        if snap.get("referee") == SNAPSHOT_VERSION:
            self.book = Book.from_json(fields)
        else:
            self.book = old_heads.book_from(fields)
        return self

    def match(self):
        """The match in play: {"id", "started", "ended"} (`ended`: the wall of the entry that won it,
        while it is won). Cheap: the history fold asks after every entry."""
        m = dict(self.book.match)
        g = self.book.game
        m["ended"] = g.get("won_wall") if g is not None and g["winner"] is not None else None
        return m

    def shot_open(self):
        """Whether a shot is being played (state()["shot_open"], cheaply: the host asks before
        every command, for the head of a journal segment it may have to begin)."""
        return self.book.open_shot is not None

    def changes_match(self, entry):
        """Whether folding `entry` now would change the match in play (a new game, or the undo of
        one), asked of a copy so that nothing here changes: the host begins a new journal
        segment before such an entry. Only a command or a button can."""
        if not isinstance(entry, dict) or not (entry.get("src") == "cmd" or (
                entry.get("src") == "board" and entry.get("kind") == names.BUTTON)):
            return False
        probe = Referee(self.table)
        probe.defaults = self.defaults
        probe.book = self.book.copy()
        probe.apply(entry)
        return probe.book.match != self.book.match

    def adopt_match_start(self, wall):
        """The match in play began at `wall` (an old head's `match_started`), if the book does not
        know it yet. Like every `wall`, it only labels the match: no rule reads it."""
        if self.book.match["started"] is None:
            self.book.match["started"] = wall

    # ---------------------------------------------------------------- sensors
    def _sensor(self, e):
        """A board event: a button or fault, or what the table saw (motion, a ball, a rail hit)."""
        kind, index, value, t = e.get("kind"), e.get("index"), e.get("value"), e.get("t_us")
        flags = e.get("flags") or 0
        if not (is_int(kind) and is_int(index) and is_int(value) and is_int(t) and is_int(flags)):
            return refusal("bad_sensor_event")
        if kind == names.BUTTON:
            return self._button(index, value, t, e.get("wall"))
        if kind == names.FAULT:
            return self._fault(index, value, e.get("text"))
        if kind == names.MOTION:
            self.book.has_motion = True
        if self.book.game is None:
            return _ok()
        events = []
        # No motion sensor: a long quiet gap ends the shot before this event counts.
        if (self.book.open_shot is not None and not self.book.has_motion and self.book.last_activity is not None
                and t - self.book.last_activity > self._quiet_us()):
            self._end_shot(self.book.last_activity, events)
        if kind == names.MOTION:
            self._motion(value, t, events)
        elif kind == names.POCKET or kind == names.CUE:
            self._ball_seen(kind, index, value, bool(flags & names.FLAG_UNCERTAIN), t, events)
        elif kind == names.RAIL:
            self._rail_hit(index, value, t, events)
        return _ok(events)

    def _motion(self, value, t, events):
        """GEN.SHOT-START-END: the table moving starts a shot, the balls all still end it."""
        if value == 1 and self._camera_waiting():
            self._camera_release("interrupted", events)     # camera.py: the held shot is judged first
        if value == 1 and self.book.open_shot is None:
            self._start_shot(t, events)
        elif value == 0 and self.book.open_shot is not None and not self._camera_holds(t):
            self._end_shot(t, events)

    def _ball_seen(self, kind, index, value, uncertain, t, events):
        """A pocket beam (ball number, or unknown) or the cue-ball detector (CONTRACT: index a
        pocket 0-5 or 255 for the shared return, value 1); anything else is no sighting."""
        if kind == names.CUE:
            if value != 1 or not (0 <= index <= 5 or index == 255):
                return
            ball = 0
        elif value == names.UNKNOWN_BALL:
            ball = None
        elif 0 <= value <= 15:
            ball = value
        else:
            return
        if kind == names.POCKET and not 0 <= index <= 5:
            return
        self._pocket(ball, index if kind == names.POCKET else None, t, uncertain, events)

    def _rail_hit(self, index, strength, t, events):
        """A rail piezo: part of the shot being played (without a motion sensor, it starts one)."""
        if not 0 <= index <= 5:
            return
        if self.book.open_shot is None and not self.book.has_motion:
            self._start_shot(t, events)
        if self.book.open_shot is not None and not self._camera_waiting():
            self.book.open_shot["rails"].append([t, index, strength])
            self.book.last_activity = t

    def _quiet_us(self):
        return int(self.defaults["quiet_s"] * 1000000)

    def _hanging_us(self):
        return int(self._settings()["hanging_s"] * 1000000)

    def _pocket(self, ball, pocket, t, uncertain, events):
        drop = [ball, pocket, t, uncertain]
        if self.book.open_shot is not None:
            if ball == 0:
                self.book.open_shot["cue_pocketed"] = True
            if ball != 0 or pocket is not None:
                self.book.open_shot["pocketed"].append(drop)
            self.book.last_activity = t
            return
        late = self.book.ended_us is not None and t - self.book.ended_us
        chosen = self._chosen_on_last_shot()
        last = self.book.pending or (self.book.history[-1]["shot"] if self.book.history and
                                     (self.book.facts_open or chosen) else None)
        if last is not None and late is not False and 0 <= late <= self._hanging_us():
            # GEN.HANGING-EARLY: it hung on the lip and fell in time; it belongs to that shot.
            if last is not self.book.pending:
                last = self.book.amend_last_shot()
            if ball == 0:
                last["cue_pocketed"] = True
            if ball != 0 or pocket is not None:
                last["pocketed"].append(drop)
            common.tell(events, "pocketed", last["shooter"], ["GEN.HANGING-EARLY"], "hanging_early",
                        extra={"balls": [ball], "late": True})
            self._rejudge(events)
            if chosen:
                self._choose_again(chosen, events)
            return
        if not self.book.has_motion and (last is None or late is False or late > self._hanging_us()):
            # Without a motion sensor a drop after a quiet spell is the start of a new shot.
            self._start_shot(t, events)
            if self.book.open_shot is not None:    # a won match opens no new shot
                self._pocket(ball, pocket, t, uncertain, events)
            return
        # GEN.HANGING: dropped too late, or the table was bumped: it goes back where it hung.
        where = names.POCKETS[pocket] if pocket is not None else "the cue-ball return"
        en, ru = say_each("hanging_late", ((late // 100000) / 10 if late is not False else "?", where), (where,))
        events.append(event("respot", self.book.game["shooter"], ["GEN.HANGING"], en, ru, {"balls": [ball], "pocket": where}))

    def _start_shot(self, t, events):
        g = self.book.game
        if self.book.pending is not None:
            self._guess_pending(events)
        if g["phase"] == "decision" and g["decision"]:
            self._implied_choice(events)
        if g["phase"] == "over":
            if g["winner"] is not None:
                self.book.facts_open = False   # balls moving after the match is won change nothing
                return
            self._next_rack(events)
        self._drop_lag_need()
        self.book.shots += 1
        # _next_rack may have replaced the game: the shot is the new rack's break.
        self.book.open_shot = new_shot(self.book.game, t, self.book.shots)
        self.book.last_activity = t
        self.book.facts_open = False
        # GEN.SHOT-START-END: the shot runs until every ball has stopped; displays stop the clock.
        common.tell(events, "shot", self.book.game["shooter"], ["GEN.SHOT-START-END"], "shot",
                    common.name(self.book.game, self.book.game["shooter"]), extra={"break": self.book.open_shot["break"]})

    def _drop_lag_need(self):
        """Play began without the lag asked for (new_game `lag`): the break decided it."""
        g = self.book.game
        g["needs"] = [n for n in g["needs"] if n.get("cmd") != "lag"]

    def _end_shot(self, t, events):
        shot = self.book.open_shot
        self.book.open_shot = None
        if shot is None:
            return
        shot["end_us"] = t
        self.book.ended_us = t
        self._camera_settle(shot, events)       # camera.py: what the camera's facts decide, or why not
        self._judge(shot, events, True)

    # ---------------------------------------------------------------- judging
    def _settings(self):
        if self.book.game is not None:
            return self.book.game["settings"]
        return self.defaults

    def _judge(self, shot, events, push):
        g = self.book.game
        mod = module_for(g["game"])
        needs = mod.resolve(g, shot, self._settings())
        if needs:
            self.book.pending = shot
            g["needs"] = needs
            for n in needs:
                events.append(event("warning", shot["shooter"], ["GEN.POCKETED"], n["text"]["en"],
                                    n["text"]["ru"], {"needs": n}))
            return
        self.book.pending = None
        g["needs"] = []
        if push:
            self._keep_for_undo(g, shot)
        p = shot["shooter"]
        g["warning"] = None
        g["ball_in_hand"] = None      # the cue ball in hand was used by this shot
        g["decision"] = None
        verdict = mod.judge(g, shot, self._settings(), events)
        g["shot"] += 1
        g["called"] = None
        g["safety"] = False
        g["push_out"] = False
        self._account(g, shot, p, verdict)
        self.book.facts_open = True
        if g["phase"] == "over":
            self._match_point(events)

    def _keep_for_undo(self, g, shot):
        """The position before `shot`, with the shot itself, is one undo away; `undo_depth` bounds
        how many are kept, and once the oldest goes undo can no longer reach the game's start."""
        self.book.history.append({"before": clone(g), "shot": shot})
        depth = self.defaults["undo_depth"]
        if len(self.book.history) > depth:
            del self.book.history[0:len(self.book.history) - depth]
            self.book.replaced = None

    def _account(self, g, shot, p, v):
        """What the verdict `v` leaves in the state: the last shot, the stats, the run."""
        g["last_shot"] = {
            "shooter": p,
            "pocketed": [d[0] for d in shot["pocketed"]] + ([0] if shot["cue_pocketed"] and
                                                             not [d for d in shot["pocketed"] if d[0] == 0] else []),
            "rails": len(shot["rails"]),
            "fouls": list(v.fouls),
            "clauses": list(v.clauses),
            "called": clone(shot["called"]),
            "break": shot["break"],
            "safety": shot["safety"],
            "push_out": shot["push_out"],
        }
        if not v.fouls:
            g["last_foul"] = None
        st = g["stats"][p]
        st["pocketed"] += len(v.credited)
        # GEN.OPPONENT: an interference foul is the opponent's, not the shooter's.
        own = [c for c in v.fouls if c != "interference"]
        if len(own) < len(v.fouls) and shot.get("fouler") is not None:
            g["stats"][shot["fouler"]]["fouls"] += 1
        if own:
            st["fouls"] += 1
        if shot["break"]:
            st["breaks"] += 1
            if v.legal_break:
                st["legal_breaks"] += 1
        if g.get("inning_of") != p:         # a visit to the table begins (a game from an old head had no count)
            g.setdefault("innings", [0, 0])[p] += 1
            g["inning_of"] = p
        # The run is what the shooter scored in this inning (SP: points); a foul or a miss ends it.
        g["run"] += v.run
        if g["run"] > st["high_run"]:
            st["high_run"] = g["run"]
        if own or g["shooter"] != p:
            g["run"] = 0

    def _rejudge(self, events):
        """The last shot learned a fact (a foul, an identity, a late drop): judge it again."""
        if self.book.pending is not None:
            self._judge(self.book.pending, events, True)
            return
        last = self.book.history[-1]
        said = self.book.game
        self.book.game = clone(last["before"])
        self._judge(last["shot"], events, False)
        if self.book.pending is last["shot"]:
            # It waits for an identity again; judging it then pushes its history entry anew.
            self.book.history.pop()
        self._keep_declarations(said)

    def _keep_declarations(self, said):
        """The next shot's call, safety or push-out survive a re-judge if the same player still
        shoots and the re-judged table still allows them."""
        g, mod = self.book.game, module_for(self.book.game["game"])
        if (self.book.pending is not None or g["shooter"] != said["shooter"] or g["phase"] != said["phase"]
                or g["phase"] in ("over", "decision")):
            return
        c = said["called"]
        if c and (c["ball"] is None or c["ball"] in g["on_table"]) and not mod.check_call(
                g, c["ball"], names.pocket_index(c["pocket"])):
            g["called"] = c
        if said["safety"] and not mod.check_safety(g):
            g["safety"] = True
        if said["push_out"] and not mod.check_push_out(g):
            g["push_out"] = True

    def _guess_pending(self, events):
        """Play went on without `identify`: judge the waiting shot on the likeliest identities."""
        shot = self.book.pending
        mod = module_for(self.book.game["game"])
        mod.guess(self.book.game, shot)
        common.tell(events, "warning", shot["shooter"], ["GEN.POCKETED"], "guessed",
                    extra={"guessed": [d[0] for d in shot["pocketed"]]})
        self._judge(shot, events, True)

    def _implied_choice(self, events):
        """A shot played while a choice was pending takes the option that plays on."""
        d = self.book.game["decision"]
        for o in ("accept", "spot_eight", "reshoot"):
            if o in d["options"]:
                common.tell(events, "warning", d["player"], d.get("clauses", []), "implied_choice", o)
                module_for(self.book.game["game"]).choose(self.book.game, o, self._settings(), events)
                return

    def _note_visit(self):
        """The breaker's opponent came to the table in this rack: no break-and-run for it."""
        g = self.book.game
        if g is not None and g["shot"] > 0 and g["shooter"] != g["breaker"] and g["phase"] != "over":
            g["visited"] = True

    def _match_point(self, events):
        """A rack is over: its winner takes a game of the match; the match is won, or the next
        rack waits (between racks: who breaks it, by the seed's rule or the house rule)."""
        g = self.book.game
        w = g["game_winner"]
        bnr_now = w == g["breaker"] and not g.get("visited")
        if bnr_now:
            bnr = g.setdefault("break_and_runs", [0, 0])     # a game from an old head has none
            bnr[w] += 1
        won = self._match_score(g)
        won[w] += 1
        if g["game"] != "straight-pool":
            g["players"][w]["score"] += 1
        g.setdefault("racks", []).append({"rack": g["rack"], "winner": w, "breaker": g["breaker"],
                                          "shots": g["shot"], "break_and_run": bnr_now})
        if won[w] >= races(g)[w]:         # a handicapped player's own race
            g["winner"] = w
            g["won_wall"] = self._wall if isinstance(self._wall, (int, float)) and not isinstance(
                self._wall, bool) else None
            return
        g["shooter"], g["next_break"] = next_breaker(g, w, self._settings().get("winner_breaks"))
        if g["next_break"]["player"] is None:
            en, ru = say("deciding_lag")
            g["needs"] = [{"cmd": "lag", "text": {"en": en, "ru": ru}}]

    @staticmethod
    def _match_score(g):
        """Racks won in the match, kept in the game from now on."""
        g["match_score"] = match_score(g)
        return g["match_score"]

    def _next_rack(self, events):
        g = self.book.game
        breaker = g["shooter"]
        rack = g["rack"] + 1
        keep = {"stats": g["stats"], "settings": g["settings"],
                "break_and_runs": g.get("break_and_runs", [0, 0]), "match_score": self._match_score(g),
                "racks": g.get("racks", []), "innings": g.get("innings", [0, 0]), "race_to": g["race_to"], "target": g["target"], "shot": 0}
        if g["game"] != "straight-pool":
            keep["players"] = g["players"]      # their score is the racks won; 14.1 points start again
        self.book.game = self._fresh(g["game"], [p["name"] for p in g["players"]], breaker, g["settings"],
                             races(g), g["target"])
        for k in keep:
            self.book.game[k] = keep[k]
        for p in self.book.game["players"]:
            p["fouls"] = 0
            p["group"] = None
        self.book.game["rack"] = rack
        common.tell(events, "rerack", breaker, ["GEN.RACK", "GEN.LAG"], "next_rack", rack,
                    common.name(self.book.game, breaker))

    # ----------------------------------------------------------------- output
    def game_name(self):
        """The game on the table ("eight-ball", ...) or None; cheap, for an edge that follows
        it at every loop step (the camera names balls by the game's set)."""
        g = self.book.game
        return g["game"] if g is not None else None

    def state(self):
        """The table state of CONTRACT section 2 (the daemon adds `link`)."""
        g = self.book.game
        if g is None:
            return {"table": self.table, "game": None, "players": [], "shooter": None, "phase": None,
                    "ball_in_hand": None, "table_open": False, "on_table": [], "decision": None,
                    "needs": [], "winner": None, "shot": 0, "last_shot": None,
                    "shot_open": self.book.open_shot is not None, "faults": clone(self.book.faults),
                    "match": self.match(), "camera": self._camera_state()}
        d = g["decision"]
        s = {"game": g["game"], "players": clone(g["players"]), "shooter": g["shooter"], "phase": g["phase"],
             "ball_in_hand": g["ball_in_hand"],
             "table_open": bool(g["table_open"]) if g["game"] == "eight-ball" else False,
             "on_table": list(g["on_table"]), "needs": clone(g["needs"]), "winner": g["winner"],
             "game_winner": g["game_winner"], "shot": g["shot"], "last_shot": clone(g["last_shot"]),
             "called": clone(g["called"]), "safety": g["safety"], "push_out": g["push_out"],
             "last_foul": clone(g["last_foul"]), "warning": clone(g["warning"]), "stats": clone(g["stats"]),
             "race_to": g["race_to"], "target": g["target"], "rack": g["rack"], "breaker": g["breaker"],
             "run": g["run"], "table": self.table, "break_and_runs": list(g.get("break_and_runs", [0, 0])),
             "decision": {"player": d["player"], "options": list(d["options"])} if d else None,
             "decision_reason": _decision_reason(d),
             "shot_open": self.book.open_shot is not None, "shot_clock": g["settings"]["shot_clock"],
             "settings": dict((k, g["settings"].get(k, settings_mod.DEFAULTS[k])) for k in settings_mod.MATCH_KEYS),
             "faults": clone(self.book.faults), "innings": list(g.get("innings", [0, 0])),
             "can_undo": bool(self.book.history) or self.book.pending is not None or self.book.replaced is not None,
             "match": self.match()}
        extra = module_for(g["game"]).extra_state(g)
        extra.update(match_state(g))
        for k in extra:
            s[k] = extra[k]

        s["camera"] = self._camera_state()
        return s


def _decision_reason(d):
    """Why a pending decision is asked: the offer's words (en, ru) and its clauses; None when none
    is pending (a decision from an old head has no words: only its clauses)."""
    if not d:
        return None
    return {"text": dict(d["text"]) if d.get("text") else None, "clauses": list(d.get("clauses") or [])}


def replay(entries, table="t1", settings=None):
    """Fold a whole journal; the state it ends in."""
    r = Referee(table, settings)
    for e in entries:
        r.apply(e)
    return r
