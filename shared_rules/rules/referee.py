"""The referee: a pure fold over the journal (board events and commands) into the table state.

No clock, no I/O: time is the board's `t_us` carried by each entry, so replaying
a journal rebuilds the same state on CPython and on the board's MicroPython.
"""
from shared_rules.link import names
from shared_rules.rules import common, settings as settings_mod
from shared_rules.rules.data import clone, is_int
from shared_rules.rules.events import event
from shared_rules.rules.messages import say, say_each
from shared_rules.rules.commands import Commands, _ok, _fail
from shared_rules.rules.games import module_for
from shared_rules.rules.shot import new_shot

class Referee(Commands):
    """Fold entries with `apply`; read the table with `state`. Commands live in commands.py."""

    def __init__(self, table="t1", settings=None):
        self.table = table
        self.defaults = settings_mod.merge(settings)
        self.g = None
        self.features = 0
        self.has_motion = False
        self.open = None            # the shot being played, or None while the balls are still
        self.last_activity = None   # t_us of the last pocket or rail event of the open shot
        self.ended_us = None        # when the last shot ended (GEN.HANGING)
        self.history = []           # [(state before the shot, shot)], newest last
        self.pending = None         # a finished shot waiting for `identify`
        self.facts_open = False     # the last judged shot can still take fouls and identities
        self.chosen = None          # (option, shot): a choice that left the table as it lies
        self.faults = []
        self.before_new = None      # the game a new_game replaced, while undo can still bring it back
        self.last_game = None
        self.last_players = ["Player 1", "Player 2"]

    # ------------------------------------------------------------------ input
    def apply(self, entry):
        """Fold one journal entry in; never raises, and a refused entry changes nothing."""
        if not isinstance(entry, dict):
            return _fail("an entry must be a JSON object")
        # Rail hits during a shot only append to it; everything else may judge, so keep a way back.
        light = (entry.get("src") == "board" and entry.get("kind") == names.RAIL and self.open is not None
                 and self.has_motion)
        saved = None if light else self._save()
        try:
            src = entry.get("src")
            if src == "board":
                return self._sensor(entry)
            if src == "cmd":
                name = entry.get("cmd")
                body = entry.get("body")
                if body is None:
                    body = {}
                return self.command(name, body, entry.get("t_us"))
            if src == "hello":
                f = entry.get("features")
                if is_int(f):
                    self.features = f
                    self.has_motion = bool(f & names.FEATURE_MOTION)
                return _ok()
            return _fail("unknown entry source: {}".format(src))
        except Exception as e:  # a rule bug must not take the daemon down or half-change a game
            if saved is not None:
                self._restore(saved)
            return _fail("internal error, nothing changed: {}".format(repr(e)))

    def _save(self):
        return (clone(self.g), clone(self.open), self.last_activity, self.ended_us,
                len(self.history), clone(self.pending), self.facts_open, self.chosen, self.before_new,
                self.history, self.last_game, self.last_players, self.history[-1] if self.history else None)

    def _restore(self, s):
        self.g, self.open, self.last_activity, self.ended_us = s[0], s[1], s[2], s[3]
        self.history, self.last_game, self.last_players = s[9], s[10], s[11]
        del self.history[s[4]:]
        if s[12] is not None and self.history:
            self.history[-1] = s[12]
        self.pending, self.facts_open, self.chosen, self.before_new = s[5], s[6], s[7], s[8]

    # ---------------------------------------------------------------- sensors
    def _sensor(self, e):
        kind, index, value, t = e.get("kind"), e.get("index"), e.get("value"), e.get("t_us")
        flags = e.get("flags") or 0
        if not (is_int(kind) and is_int(index) and is_int(value) and is_int(t) and is_int(flags)):
            return _fail("sensor event needs integer kind, index, value, flags and t_us")
        events = []
        if kind == names.BUTTON:
            return self._button(index, value, t)
        if kind == names.FAULT:
            return self._fault(index, value)
        if kind == names.MOTION:
            self.has_motion = True
        g = self.g
        if g is None:
            return _ok()
        # No motion sensor: a long quiet gap ends the shot before this event counts.
        if (self.open is not None and not self.has_motion and self.last_activity is not None
                and t - self.last_activity > self._quiet_us()):
            self._end_shot(self.last_activity, events)
        if kind == names.MOTION:
            if value == 1 and self.open is None:
                self._start_shot(t, events)
            elif value == 0 and self.open is not None:
                self._end_shot(t, events)
        elif kind == names.POCKET or kind == names.CUE:
            if kind == names.CUE:
                # CONTRACT: index a pocket 0-5 or 255 (shared return), value 1; else not a sighting.
                if value != 1 or not (0 <= index <= 5 or index == 255):
                    return _ok(events)
                ball = 0
            elif value == names.UNKNOWN_BALL:
                ball = None
            elif 0 <= value <= 15:
                ball = value
            else:
                return _ok(events)
            if kind == names.POCKET and not 0 <= index <= 5:
                return _ok(events)
            pocket = index if kind == names.POCKET else None
            self._pocket(ball, pocket, t, bool(flags & names.FLAG_UNCERTAIN), events)
        elif kind == names.RAIL:
            if not 0 <= index <= 5:
                return _ok(events)
            if self.open is None and not self.has_motion:
                self._start_shot(t, events)
            if self.open is not None:
                self.open["rails"].append((t, index, value))     # a tuple: lighter on the board's heap
                self.last_activity = t
        return _ok(events)

    def _quiet_us(self):
        return int(self.defaults["quiet_s"] * 1000000)

    def _hanging_us(self):
        return int(self._settings()["hanging_s"] * 1000000)

    def _pocket(self, ball, pocket, t, uncertain, events):
        drop = [ball, pocket, t, uncertain]
        if self.open is not None:
            if ball == 0:
                self.open["cue_pocketed"] = True
            if ball != 0 or pocket is not None:
                self.open["pocketed"].append(drop)
            self.last_activity = t
            return
        late = self.ended_us is not None and t - self.ended_us
        chosen = self._chosen_on_last_shot()
        last = self.pending or (self.history[-1][1] if self.history and (self.facts_open or chosen)
                                else None)
        if last is not None and late is not False and 0 <= late <= self._hanging_us():
            # GEN.HANGING-EARLY: it hung on the lip and fell in time; it belongs to that shot.
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
        if not self.has_motion and (last is None or late is False or late > self._hanging_us()):
            # Without a motion sensor a drop after a quiet spell is the start of a new shot.
            self._start_shot(t, events)
            if self.open is not None:    # a won match opens no new shot
                self._pocket(ball, pocket, t, uncertain, events)
            return
        # GEN.HANGING: dropped too late, or the table was bumped: it goes back where it hung.
        where = names.POCKETS[pocket] if pocket is not None else "the cue-ball return"
        en, ru = say_each("hanging_late", ((late // 100000) / 10 if late is not False else "?", where), (where,))
        events.append(event("respot", self.g["shooter"], ["GEN.HANGING"], en, ru, {"balls": [ball], "pocket": where}))

    def _start_shot(self, t, events):
        g = self.g
        if self.pending is not None:
            self._guess_pending(events)
        if g["phase"] == "decision" and g["decision"]:
            self._implied_choice(events)
        if g["phase"] == "over":
            if g["winner"] is not None:
                self.facts_open = False   # balls moving after the match is won change nothing
                return
            self._next_rack(events)
        self.open = new_shot(self.g, t)   # _next_rack may have replaced self.g: the new rack's break
        self.last_activity = t
        self.facts_open = False
        # GEN.SHOT-START-END: the shot runs until every ball has stopped; displays stop the clock.
        common.tell(events, "shot", self.g["shooter"], ["GEN.SHOT-START-END"], "shot",
                    common.name(self.g, self.g["shooter"]), extra={"break": self.open["break"]})

    def _end_shot(self, t, events):
        shot = self.open
        self.open = None
        if shot is None:
            return
        shot["end_us"] = t
        self.ended_us = t
        self._judge(shot, events, True)

    # ---------------------------------------------------------------- judging
    def _settings(self):
        if self.g is not None:
            return self.g["settings"]
        return self.defaults

    def _judge(self, shot, events, push):
        g = self.g
        mod = module_for(g["game"])
        needs = mod.resolve(g, shot, self._settings())
        if needs:
            self.pending = shot
            g["needs"] = needs
            for n in needs:
                events.append(event("warning", shot["shooter"], ["GEN.POCKETED"], n["text"]["en"],
                                    n["text"]["ru"], {"needs": n}))
            return
        self.pending = None
        g["needs"] = []
        if push:
            if self.history:
                # Only the newest shot can learn a fact and be judged again; an older one is kept for
                # undo by the state before it alone (its sensor record would crowd the board's heap).
                self.history[-1] = (self.history[-1][0], None)
            self.history.append((clone(g), shot))
            depth = self.defaults["undo_depth"]
            if len(self.history) > depth:
                del self.history[0:len(self.history) - depth]
                self.before_new = None     # undo can no longer reach this game's start
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
        self.facts_open = True
        if g["phase"] == "over":
            self._match_point(events)

    def _account(self, g, shot, p, verdict):
        fouls = verdict.get("fouls", [])
        credited = verdict.get("credited", [])
        g["last_shot"] = {
            "shooter": p,
            "pocketed": [d[0] for d in shot["pocketed"]] + ([0] if shot["cue_pocketed"] and
                                                             not [d for d in shot["pocketed"] if d[0] == 0] else []),
            "rails": len(shot["rails"]),
            "fouls": list(fouls),
            "clauses": list(verdict.get("clauses", [])),
            "called": shot["called"],
            "break": shot["break"],
            "safety": shot["safety"],
            "push_out": shot["push_out"],
        }
        if not fouls:
            g["last_foul"] = None
        st = g["stats"][p]
        st["pocketed"] += len(credited)
        # GEN.OPPONENT: an interference foul is the opponent's, not the shooter's.
        own = [c for c in fouls if c != "interference"]
        if len(own) < len(fouls) and shot.get("fouler") is not None:
            g["stats"][shot["fouler"]]["fouls"] += 1
        if own:
            st["fouls"] += 1
        if shot["break"]:
            st["breaks"] += 1
            if verdict.get("legal_break"):
                st["legal_breaks"] += 1
        # The run is what the shooter scored in this inning (SP: points); a foul or a miss ends it.
        g["run"] += verdict.get("run", len(credited))
        if g["run"] > st["high_run"]:
            st["high_run"] = g["run"]
        if own or g["shooter"] != p:
            g["run"] = 0

    def _rejudge(self, events):
        """The last shot learned a fact (a foul, an identity, a late drop): judge it again."""
        if self.pending is not None:
            self._judge(self.pending, events, True)
            return
        before, shot = self.history[-1]
        said = self.g
        self.g = clone(before)
        self._judge(shot, events, False)
        if self.pending is shot:
            # It waits for an identity again; judging it then pushes its history entry anew.
            self.history.pop()
        self._keep_declarations(said)

    def _keep_declarations(self, said):
        """The next shot's call, safety or push-out survive a re-judge if the same player still
        shoots and the re-judged table still allows them."""
        g, mod = self.g, module_for(self.g["game"])
        if (self.pending is not None or g["shooter"] != said["shooter"] or g["phase"] != said["phase"]
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
        shot = self.pending
        mod = module_for(self.g["game"])
        mod.guess(self.g, shot)
        common.tell(events, "warning", shot["shooter"], ["GEN.POCKETED"], "guessed",
                    extra={"guessed": [d[0] for d in shot["pocketed"]]})
        self._judge(shot, events, True)

    def _implied_choice(self, events):
        """A shot played while a choice was pending takes the option that plays on."""
        d = self.g["decision"]
        for o in ("accept", "spot_eight", "reshoot"):
            if o in d["options"]:
                common.tell(events, "warning", d["player"], d.get("clauses", []), "implied_choice", o)
                module_for(self.g["game"]).choose(self.g, o, self._settings(), events)
                return

    def _match_point(self, events):
        g = self.g
        w = g["game_winner"]
        if g["game"] != "straight-pool":
            g["players"][w]["score"] += 1
        race = g["race_to"] if g["game"] != "straight-pool" else 1
        if g["game"] == "straight-pool" or g["players"][w]["score"] >= race:
            g["winner"] = w
            return
        # The match goes on: the break alternates; a deciding game is lagged for (GEN.LAG).
        g["shooter"] = common.other(g["breaker"])
        if g["players"][0]["score"] == race - 1 and g["players"][1]["score"] == race - 1:
            en, ru = say("deciding_lag")
            g["needs"] = [{"cmd": "lag", "text": {"en": en, "ru": ru}}]

    def _next_rack(self, events):
        g = self.g
        breaker = g["shooter"]
        rack = g["rack"] + 1
        keep = {"players": g["players"], "stats": g["stats"], "settings": g["settings"],
                "race_to": g["race_to"], "target": g["target"], "shot": 0}
        self.g = self._fresh(g["game"], [p["name"] for p in g["players"]], breaker, g["settings"],
                             g["race_to"], g["target"])
        for k in keep:
            self.g[k] = keep[k]
        for p in self.g["players"]:
            p["fouls"] = 0
            p["group"] = None
        self.g["rack"] = rack
        common.tell(events, "rerack", breaker, ["GEN.RACK", "GEN.LAG"], "next_rack", rack,
                    common.name(self.g, breaker))

    # ----------------------------------------------------------------- output
    def state(self):
        """The table state of CONTRACT section 2 (the daemon adds `link`)."""
        g = self.g
        if g is None:
            return {"table": self.table, "game": None, "players": [], "shooter": None, "phase": None,
                    "ball_in_hand": None, "table_open": False, "on_table": [], "decision": None,
                    "needs": [], "winner": None, "shot": 0, "last_shot": None,
                    "shot_open": self.open is not None, "faults": clone(self.faults)}
        d = g["decision"]
        # One dict literal, allocated once at its size (growing it key by key fragments the board's heap).
        s = {"game": g["game"], "players": clone(g["players"]), "shooter": g["shooter"], "phase": g["phase"],
             "ball_in_hand": g["ball_in_hand"],
             "table_open": bool(g["table_open"]) if g["game"] == "eight-ball" else False,
             "on_table": list(g["on_table"]), "needs": clone(g["needs"]), "winner": g["winner"],
             "game_winner": g["game_winner"], "shot": g["shot"], "last_shot": clone(g["last_shot"]),
             "called": clone(g["called"]), "safety": g["safety"], "push_out": g["push_out"],
             "last_foul": clone(g["last_foul"]), "warning": clone(g["warning"]), "stats": clone(g["stats"]),
             "race_to": g["race_to"], "target": g["target"], "rack": g["rack"], "breaker": g["breaker"],
             "run": g["run"], "table": self.table,
             "decision": {"player": d["player"], "options": list(d["options"])} if d else None,
             "shot_open": self.open is not None, "shot_clock": g["settings"]["shot_clock"],
             "faults": clone(self.faults),
             "can_undo": bool(self.history) or self.pending is not None or self.before_new is not None}
        extra = module_for(g["game"]).extra_state(g)
        for k in extra:
            s[k] = extra[k]
        return s


def replay(entries, table="t1", settings=None):
    """Fold a whole journal; the state it ends in."""
    r = Referee(table, settings)
    for e in entries:
        r.apply(e)
    return r
