"""The referee's commands (CONTRACT section 2, plus the referee's own) and the board's buttons.

Each handler validates everything first and changes nothing when it refuses, so
a refused command never reaches the journal and a replay never meets one.
"""
from shared_rules.link import names
from shared_rules.rules import common, settings as settings_mod
from shared_rules.rules.data import clone, is_int
from shared_rules.rules.events import event
from shared_rules.rules.messages import say, say_each
from shared_rules.rules.game import new_game_state
from shared_rules.rules.games import GAMES, module_for

FOUL_CODES = tuple(common.MANUAL_FOULS)
MAX_NAME = 32

# Choices after which the balls stay as they lie, so a late drop can still belong to the shot.
PLAY_ON = ("accept", "pass_back", "reshoot", "spot_eight")

COMMANDS = ("new_game", "call", "safety", "push_out", "choose", "foul", "identify", "end_shot", "undo",
            "lag", "spot", "stalemate", "rack", "legal_break", "rename")


def _ok(events=None):
    return {"ok": True, "error": None, "events": events or []}


def _fail(why):
    return {"ok": False, "error": why, "events": []}


class Commands:
    """Mixed into Referee: the handlers use its game state and judging."""

    # --------------------------------------------------------------- commands
    def command(self, name, body, t_us=None):
        if not isinstance(name, str):
            return _fail("a command needs a name")
        if not isinstance(body, dict):
            return _fail("the body of '{}' must be a JSON object".format(name))
        handler = getattr(self, "_cmd_" + name, None) if name in COMMANDS else None
        if handler is None:
            return _fail("unknown command '{}'; known: {}".format(name, ", ".join(COMMANDS)))
        if name != "new_game" and self.g is None:
            return _fail("no game is running; send new_game first")
        return handler(body, t_us)

    def _idle_error(self):
        """Why a declaration for the next shot cannot be taken now, or None."""
        g = self.g
        if g["phase"] == "over":
            return "the game is over"
        if self.open is not None:
            return "the balls are still rolling; wait until the shot ends"
        if g["phase"] == "decision":
            return "a decision is pending: {} must choose one of {}".format(
                common.name(g, g["decision"]["player"]), ", ".join(g["decision"]["options"]))
        if self.pending is not None:
            return "identify the pocketed ball first"
        return None

    def _cmd_new_game(self, body, t_us):
        game = body.get("game", self.last_game or "eight-ball")
        if game not in GAMES:
            return _fail("unknown game '{}'; choose one of {}".format(game, ", ".join(GAMES)))
        players = body.get("players", self.last_players)
        if (not isinstance(players, list) or len(players) != 2 or
                not all(isinstance(p, str) and 0 < len(p.strip()) <= MAX_NAME for p in players)):
            return _fail("players must be a list of two names of 1 to {} characters".format(MAX_NAME))
        players = [p.strip() for p in players]
        breaker = body.get("breaker", 0)
        if not is_int(breaker) or breaker not in (0, 1):
            return _fail("breaker must be 0 or 1")
        st = clone(self.defaults)
        for k in settings_mod.CHOICES:
            if k in body:
                allowed = settings_mod.CHOICES[k]
                if not [v for v in allowed if v == body[k] and type(v) is type(body[k])]:
                    if isinstance(allowed[0], bool):
                        return _fail("{} must be true or false".format(k))
                    return _fail("{} must be one of {}".format(k, ", ".join(allowed)))
                st[k] = body[k]
        if "shot_clock" in body:
            sc = body["shot_clock"]
            if sc is not None and not (is_int(sc) and 10 <= sc <= 600):
                return _fail("shot_clock must be null or 10 to 600 seconds")
            st["shot_clock"] = sc
        target = body.get("target", st["target"])
        if not is_int(target) or not 1 <= target <= 1000:
            return _fail("target must be a whole number of points from 1 to 1000")
        race = body.get("race_to", st["race_to"])
        if not is_int(race) or not 1 <= race <= 99:
            return _fail("race_to must be a whole number of games from 1 to 99")
        if self.open is not None:
            return _fail("the balls are still rolling; wait until the shot ends")
        fresh = self._fresh(game, players, breaker, st, race, target)
        # The game it replaces stays one undo away (a new game pressed by mistake is not final).
        self.before_new = self._whole_game() if self.g is not None else None
        self.g = fresh
        self.faults = [f for f in self.faults if f.get("what") != "board"]   # seen through a game
        self.history = []
        self.pending = None
        self.facts_open = False
        self.last_game = game
        self.last_players = players
        clauses = ["GEN.RACK", module_for(game).SETUP_CLAUSE]
        if st["shot_clock"]:
            clauses.append("GEN.SLOW-PLAY")    # a time limit to prepare and play each shot
        ev = []
        common.tell(ev, "rerack", breaker, clauses, "new_game", game, players[0], players[1], players[breaker])
        return _ok(ev)

    def _fresh(self, game, players, breaker, st, race, target):
        g = new_game_state(game, players, breaker, st, race, target)
        module_for(game).setup(g, st)
        return g

    def _cmd_call(self, body, t_us):
        err = self._idle_error()
        if err:
            return _fail(err)
        g = self.g
        ball = body.get("ball")
        pocket = names.pocket_index(body.get("pocket"))
        if body.get("pocket") is not None and pocket is None:
            return _fail("no such pocket '{}'; pockets are {} or 0-5".format(
                body.get("pocket"), ", ".join(names.POCKETS)))
        if ball is not None:
            if not is_int(ball) or not 1 <= ball <= 15:
                return _fail("ball must be a number from 1 to 15")
            if ball not in g["on_table"]:
                return _fail("ball {} is not on the table".format(ball))
        if ball is None and pocket is None:
            return _fail("call a ball, a pocket or both")
        err = module_for(g["game"]).check_call(g, ball, pocket)
        if err:
            return _fail(err)
        g["called"] = {"ball": ball, "pocket": names.POCKETS[pocket] if pocket is not None else None}
        g["safety"] = False
        en, ru = self._call_words(g, ball, pocket)
        return _ok([event("call", g["shooter"], ["EB.CALL" if g["game"] == "eight-ball" else
                                                  "SP.CALL" if g["game"] == "straight-pool" else "NB.NO-CALL"],
                          en, ru, {"ball": ball, "pocket": g["called"]["pocket"]})])

    def _call_words(self, g, ball, pocket):
        """"Anna calls ball 3 in foot-left" (or only the ball, or only the pocket), per language."""
        b = say("call_ball", ball) if ball is not None else ("", "")
        k = say("call_pocket", names.POCKETS[pocket]) if pocket is not None else ("", "")
        who = common.name(g, g["shooter"])
        return say_each("call", (who, b[0], k[0]), (who, b[1], k[1]))

    def _cmd_safety(self, body, t_us):
        err = self._idle_error()
        if err:
            return _fail(err)
        g = self.g
        err = module_for(g["game"]).check_safety(g)
        if err:
            return _fail(err)
        g["safety"] = True
        g["called"] = None
        return _ok([event("safety", g["shooter"], [module_for(g["game"]).SAFETY_CLAUSE],
                          *say("safety", common.name(g, g["shooter"])))])

    def _cmd_push_out(self, body, t_us):
        err = self._idle_error()
        if err:
            return _fail(err)
        g = self.g
        err = module_for(g["game"]).check_push_out(g)
        if err:
            return _fail(err)
        g["push_out"] = True
        return _ok([event("push_out", g["shooter"], ["NB.PUSH"],
                          *say("push_out", common.name(g, g["shooter"])))])

    def _cmd_choose(self, body, t_us):
        g = self.g
        if self.open is not None:
            return _fail("the balls are still rolling; wait until the shot ends")
        d = g["decision"]
        if not d:
            return _fail("there is no decision to make now")
        option = body.get("option")
        if option not in d["options"]:
            return _fail("'{}' is not an option now; choose one of {}".format(option, ", ".join(d["options"])))
        events = []
        on_last_shot = self.facts_open and self.history
        module_for(g["game"]).choose(g, option, self._settings(), events)
        self.facts_open = False
        # A ball hanging on the lip may still drop within 5 s (GEN.HANGING-EARLY); a choice that
        # plays the table as it lies is then made again on the re-judged shot.
        self.chosen = (option, self.history[-1][1]) if on_last_shot and option in PLAY_ON else None
        return _ok(events)

    def _chosen_on_last_shot(self):
        if self.chosen is None or self.open is not None or not self.history:
            return None
        return self.chosen[0] if self.history[-1][1] is self.chosen[1] else None

    def _choose_again(self, option, events):
        g = self.g
        d = g["decision"]
        if d and option in d["options"]:
            module_for(g["game"]).choose(g, option, self._settings(), events)
            self.facts_open = False
        else:
            self.chosen = None
            common.tell(events, "warning", d["player"] if d else g["shooter"], ["GEN.HANGING-EARLY"], "choice_void")

    def _last_shot_error(self):
        if self.open is not None:
            return "the balls are still rolling; enter it when the shot has ended"
        if self.pending is None and not (self.history and self.facts_open):
            return "there is no shot just played to amend (it was followed by a choice or another shot)"
        return None

    def _cmd_foul(self, body, t_us):
        code = body.get("code")
        if code not in FOUL_CODES:
            return _fail("unknown foul code '{}'; known: {}".format(code, ", ".join(FOUL_CODES)))
        err = self._last_shot_error()
        if err:
            return _fail(err)
        ball = body.get("ball")
        if code == "jumped_ball":
            if not is_int(ball) or not 0 <= ball <= 15:
                return _fail("jumped_ball needs the ball that left the table (0 for the cue ball)")
        shot = self.pending if self.pending is not None else self.history[-1][1]
        if code == "illegal_break" and not shot["break"]:
            return _fail("the last shot was not a break")
        if code == "cue_pocketed":
            # A scratch the cue-ball detector missed is a scratch with all it brings (from the
            # kitchen in 14.1 and on the eight-ball break: SP.CUE-OUT, EB.BREAK-SCRATCH), as
            # `identify` with ball 0 makes it; not a bare code the games would not see.
            if shot["cue_pocketed"]:
                return _fail("that foul is already entered")
            shot["cue_pocketed"] = True
        elif code == "jumped_ball":
            if ball in shot["jumped"]:
                return _fail("ball {} is already entered as jumped".format(ball))
            before = self.g if self.pending is not None else self.history[-1][0]
            if ball != 0 and ball not in before["on_table"]:
                return _fail("ball {} was not on the table for that shot".format(ball))
            shot["jumped"].append(ball)
            if ball == 0 or module_for(self.g["game"]).jump_is_foul(self.g, shot, ball):
                if "jumped_ball" not in shot["fouls"]:
                    shot["fouls"].append("jumped_ball")
        elif code == "interference":
            if "interference" in shot["fouls"]:
                return _fail("that foul is already entered")
            stopped = None
            if ball is not None:
                # GEN.OPPONENT: a ball the opponent stopped on its way to a pocket counts as pocketed.
                before = self.g if self.pending is not None else self.history[-1][0]
                if not is_int(ball) or ball not in before["on_table"]:
                    return _fail("ball must be an object ball that was on the table for that shot")
                if ball in [d[0] for d in shot["pocketed"]] or ball in shot["jumped"]:
                    return _fail("ball {} is already counted as pocketed or jumped".format(ball))
                called = shot["called"] or {}
                where = body.get("pocket", called.get("pocket"))
                pocket = names.pocket_index(where)
                if pocket is None:
                    return _fail("say which pocket ball {} was heading to (pocket)".format(ball))
                stopped = [ball, pocket, shot["end_us"] or shot["start_us"], False]
            shot["fouls"].append(code)
            shot["fouler"] = common.other(shot["shooter"])
            if stopped is not None:
                shot["pocketed"].append(stopped)
                shot["stopped"] = ball
        else:
            if code in shot["fouls"]:
                return _fail("that foul is already entered")
            shot["fouls"].append(code)
        events = []
        self._rejudge(events)
        return _ok(events)

    def _cmd_legal_break(self, body, t_us):
        """The referee saw enough balls reach a rail on the break: overrules the rail-impact
        estimate (EB.BREAK-LEGAL, NB.BREAK, SP.BREAK), which piezos alone cannot be sure of."""
        err = self._last_shot_error()
        if err:
            return _fail(err)
        shot = self.pending if self.pending is not None else self.history[-1][1]
        if not shot["break"]:
            return _fail("the last shot was not a break")
        if shot.get("rails_ruled"):
            return _fail("the break is already ruled legal")
        if "illegal_break" in shot["fouls"]:
            return _fail("an illegal break was entered for that shot; undo it first")
        shot["rails_ruled"] = True
        events = []
        self._rejudge(events)
        return _ok(events)

    def _cmd_identify(self, body, t_us):
        err = self._last_shot_error()
        if err:
            return _fail(err)
        pocket = names.pocket_index(body.get("pocket"))
        if pocket is None:
            return _fail("no such pocket '{}'".format(body.get("pocket")))
        ball = body.get("ball")
        if not is_int(ball) or not 0 <= ball <= 15:
            return _fail("ball must be a number from 0 (cue ball) to 15")
        shot = self.pending if self.pending is not None else self.history[-1][1]
        drops = [d for d in shot["pocketed"] if d[1] == pocket]
        if not drops:
            return _fail("no ball dropped in {} on the last shot".format(names.POCKETS[pocket]))
        target = None
        for d in drops:
            if d[0] is None:
                target = d
                break
        if target is None:
            for d in drops:
                if d[3]:
                    target = d
                    break
        if target is None:
            target = drops[0]
        if ball in [d[0] for d in shot["pocketed"] if d is not target]:
            return _fail("ball {} is already counted in another drop of that shot".format(ball))
        g_before = self.g if self.pending is not None else self.history[-1][0]
        if ball != 0 and ball not in g_before["on_table"]:
            return _fail("ball {} was not on the table".format(ball))
        target[0] = ball
        target[3] = False
        if ball == 0:
            shot["cue_pocketed"] = True
        events = []
        self._rejudge(events)
        return _ok(events)

    def _cmd_end_shot(self, body, t_us):
        if self.open is None:
            return _fail("no shot is being played")
        events = []
        t = t_us if is_int(t_us) else self.last_activity
        if self.last_activity is not None and (t is None or t < self.last_activity):
            t = self.last_activity
        self._end_shot(t, events)
        return _ok(events)

    def _cmd_undo(self, body, t_us):
        if self.open is not None:
            return _fail("the balls are still rolling; undo when the shot has ended")
        events = []
        if self.pending is not None:
            self.pending = None
            self.g["needs"] = []
        elif not self.history and self.before_new is not None:
            return self._undo_new_game()
        elif not self.history:
            return _fail("there is no shot to take back")
        else:
            before, shot = self.history.pop()
            self.g = before
        self.facts_open = False
        self.ended_us = None
        g = self.g
        common.tell(events, "undo", g["shooter"], ["GEN.INTERFERENCE", "GEN.HANGING-SHOT"], "undo",
                    common.name(g, g["shooter"]))
        return _ok(events)

    def _whole_game(self):
        """What `undo` needs to bring a replaced game back; new_game builds new objects, so no copy.
        Its shot history is left behind: the board's heap holds one game's history, not two."""
        return (self.g, self.pending, self.last_game, self.last_players)

    def _undo_new_game(self):
        """`undo` right after new_game: the game it replaced comes back as it stood."""
        self.g, self.pending, self.last_game, self.last_players = self.before_new
        self.history = []
        self.facts_open = False
        self.chosen = None
        self.ended_us = None
        self.before_new = None
        g = self.g
        events = []
        common.tell(events, "undo", g["shooter"], ["GEN.RACK", module_for(g["game"]).SETUP_CLAUSE], "undo_new_game",
                    g["game"], common.name(g, g["shooter"]), extra={"new_game": True})
        return _ok(events)

    def _cmd_rename(self, body, t_us):
        """A player's name, changed between shots without touching the game (e.g. from Home
        Assistant); the saved shots are renamed too so that `undo` keeps the new name."""
        p = body.get("player")
        if not is_int(p) or p not in (0, 1):
            return _fail("player must be 0 or 1")
        n = body.get("name")
        if not isinstance(n, str) or not 0 < len(n.strip()) <= MAX_NAME:
            return _fail("name must be 1 to {} characters".format(MAX_NAME))
        n = n.strip()
        g = self.g
        for state in [g] + [h[0] for h in self.history]:
            state["players"][p]["name"] = n
        self.last_players = [q["name"] for q in g["players"]]
        return _ok()    # no rule is involved, so no event: the new state shows the name

    def _cmd_lag(self, body, t_us):
        """GEN.LAG / SP.BREAK-CHOICE: the lag winner breaks or hands the break over."""
        g = self.g
        between = g["phase"] == "over" and g["winner"] is None   # before a match's next rack (decider)
        if ((g["shot"] != 0 and not between) or self.open is not None or self.pending is not None
                or g["phase"] not in ("break", "over")):
            return _fail("the lag decides the break only before a game's first shot")
        w = body.get("winner")
        if not is_int(w) or w not in (0, 1):
            return _fail("winner must be 0 or 1")
        breaks = body.get("breaks", True)
        if not isinstance(breaks, bool):
            return _fail("breaks must be true or false")
        b = w if breaks else common.other(w)
        g["shooter"] = b
        g["breaker"] = b
        g["needs"] = [n for n in g["needs"] if n.get("cmd") != "lag"]
        self.facts_open = False    # the next game is under way: the last game's final shot stays as judged
        self.chosen = None
        return _ok([event("turn", b, ["GEN.LAG", "SP.BREAK-CHOICE"],
                          *say("lag", common.name(g, w), common.name(g, b)))])

    def _cmd_spot(self, body, t_us):
        """GEN.POCKETED: a ball rolled in along the rail on purpose is put back, no penalty."""
        err = self._last_shot_error()
        if err:
            return _fail(err)
        ball = body.get("ball")
        shot = self.pending if self.pending is not None else self.history[-1][1]
        if not is_int(ball) or ball not in [d[0] for d in shot["pocketed"]] or ball == 0:
            return _fail("ball must be an object ball pocketed on the last shot")
        if ball in shot["spotted"]:
            return _fail("ball {} is already spotted".format(ball))
        shot["spotted"].append(ball)
        events = []
        self._rejudge(events)
        return _ok(events)

    def _cmd_rack(self, body, t_us):
        """SP.FULL-RERACK / SP.RACK-CONFLICT: where the 15th and the cue ball lie after a re-rack."""
        err = self._last_shot_error()
        if err:
            return _fail(err)
        hook = getattr(module_for(self.g["game"]), "rack_facts", None)
        if hook is None:
            return _fail("rack facts are entered only in straight pool")
        shot = self.pending if self.pending is not None else self.history[-1][1]
        err = hook(self.g, shot, body)
        if err:
            return _fail(err)
        events = []
        self._rejudge(events)
        return _ok(events)

    def _cmd_stalemate(self, body, t_us):
        """GEN.STALEMATE: the referee re-racks what is left; the lag winner plays from the kitchen."""
        err = self._idle_error()
        if err:
            return _fail(err)
        g = self.g
        w = body.get("shooter")
        if not is_int(w) or w not in (0, 1):
            return _fail("shooter (the lag winner, 0 or 1) is required")
        g["shooter"] = w
        g["ball_in_hand"] = "kitchen"
        self.facts_open = False
        self.chosen = None
        return _ok([event("rerack", w, ["GEN.STALEMATE"],
                          *say("stalemate", common.name(g, w)))])

    # ----------------------------------------------------- buttons and faults
    def _button(self, index, value, t):
        """The board's buttons are the same commands as MQTT (CONTRACT section 1)."""
        if value not in (names.PRESS, names.LONG_PRESS):
            return _ok()
        if self.g is None and index != names.BUTTON_NEW_GAME:
            return _ok()
        if 0 <= index <= 5:
            res = self.command("call", {"pocket": index}, t)
        elif index == names.BUTTON_SAFETY:
            if self.g["game"] == "nine-ball":
                res = self.command("push_out", {}, t)
            else:
                res = self.command("safety", {}, t)
        elif index == names.BUTTON_CONFIRM:
            d = self.g["decision"]
            if not d:
                res = _fail("there is no decision to confirm")
            else:
                res = self.command("choose", {"option": "accept" if "accept" in d["options"] else d["options"][0]}, t)
        elif index == names.BUTTON_UNDO:
            res = self.command("undo", {}, t)
        elif index == names.BUTTON_NEW_GAME:
            if value != names.LONG_PRESS:
                return _ok([event("warning", None, [], "Hold the new-game button to start a new game",
                                  "Удерживайте кнопку, чтобы начать новую партию")])
            res = self.command("new_game", {}, t)
        else:
            return _ok()
        if res["ok"]:
            return res
        p = self.g["shooter"] if self.g else None
        return _ok([event("warning", p, [], "Button refused: " + res["error"],
                          "Кнопка не принята: " + res["error"])])

    def _fault(self, index, value):
        if index == names.FAULT_BOARD:
            return self._board_fault(value)
        label = ("pocket " + names.POCKETS[index] if 0 <= index <= 5 else
                 "rail " + names.RAILS[index - 16] if 16 <= index <= 21 else "sensor {}".format(index))
        if value == names.FAULT_CLEAR:
            self.faults = [f for f in self.faults if f["sensor"] != index]
            return _ok([event("warning", None, [], "{} works again".format(label),
                              "{}: датчик снова работает".format(label))])
        why = {names.FAULT_BLOCKED: "beam blocked", names.FAULT_SILENT: "not responding"}.get(value, "fault")
        if not [f for f in self.faults if f["sensor"] == index]:
            self.faults.append({"sensor": index, "what": label, "fault": why})
        return _ok([event("warning", None, [], "Sensor fault: {} {}".format(label, why),
                          "Неисправность датчика: {} ({})".format(label, why))])

    def _board_fault(self, value):
        """FAULT 255: the board restarted by itself (watchdog, crash...) or refused its
        configuration. Shown in the state until the next new game; a newer one replaces it."""
        code = names.BOARD_FAULTS.get(value, "restart")
        if value == names.BOARD_CONFIG:
            text, ru = "board configuration refused", "конфигурация платы отвергнута"
        else:
            text = "board restarted: " + code.replace("_", " ")
            ru = "плата перезапустилась: " + code.replace("_", " ")
        self.faults = [f for f in self.faults if f.get("what") != "board"]
        self.faults.append({"sensor": None, "what": "board", "fault": code, "text": text})
        return _ok([event("warning", None, [], text[0].upper() + text[1:], ru[0].upper() + ru[1:])])
