"""The referee's commands (CONTRACT section 2, plus the referee's own) and the board's buttons.

Each handler validates everything first and changes nothing when it refuses, so
a refused command never reaches the journal and a replay never meets one.
"""
from shared_rules.link import names
from shared_rules.rules import common, settings as settings_mod
from shared_rules.rules.data import clone, is_int
from shared_rules.rules.events import event
from shared_rules.rules.messages import refusal, say, say_each, sensor_label, word
from shared_rules.rules.game import new_game_state
from shared_rules.rules.book import new_match
from shared_rules.rules.games import GAMES, module_for
from shared_rules.rules import racks

FOUL_CODES = tuple(common.MANUAL_FOULS)
MAX_NAME = 32

# Choices after which the balls stay as they lie, so a late drop can still belong to the shot.
PLAY_ON = ("accept", "pass_back", "reshoot", "spot_eight")

COMMANDS = ("new_game", "call", "safety", "push_out", "choose", "foul", "identify", "end_shot", "undo",
            "lag", "spot", "stalemate", "rack", "legal_break", "rename", "next_rack")


def _renamed(entry, p, name):
    """An undo entry with player `p` renamed (a copy: older entries are shared by earlier books)."""
    before = clone(entry["before"])
    before["players"][p]["name"] = name
    return {"before": before, "shot": entry["shot"]}


def _drop_to_identify(drops):
    """Of a pocket's drops, the one an `identify` names: an unknown ball first, then an uncertain
    reading, else the first."""
    for d in drops:
        if d[0] is None:
            return d
    for d in drops:
        if d[3]:
            return d
    return drops[0]


def is_number(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _ok(events=None):
    return {"ok": True, "error": None, "events": events or []}


def _named(prefix, codes):
    """Codes (options, games, pockets) by their Russian names, for a refusal's Russian text."""
    return ", ".join("«" + word(prefix + c, "ru") + "»" for c in codes)


class Commands:
    """Mixed into Referee: the handlers use its game state and judging."""

    # --------------------------------------------------------------- commands
    def command(self, name, body, t_us=None, wall=None):
        """Run command `name`; `t_us` is the board's time of it, `wall` the host's (a label only)."""
        if not isinstance(name, str):
            return refusal("no_command_name")
        if not isinstance(body, dict):
            return refusal("body_not_object", (name,))
        handler = getattr(self, "_cmd_" + name, None) if name in COMMANDS else None
        if handler is None:
            return refusal("unknown_command", (name, ", ".join(COMMANDS)))
        if name != "new_game" and self.book.game is None:
            return refusal("no_game")
        return handler(body, t_us, wall)

    def _idle_error(self):
        """Why a declaration for the next shot cannot be taken now, or None."""
        g = self.book.game
        if g["phase"] == "over":
            return ("game_over",)
        if self.book.open_shot is not None:
            return ("balls_rolling",)
        if g["phase"] == "decision":
            d = g["decision"]
            who = common.name(g, d["player"])
            return ("decision_pending", (who, ", ".join(d["options"])), (who, _named("option.", d["options"])))
        if self.book.pending is not None:
            return ("identify_first",)
        return None

    def _cmd_new_game(self, body, t_us, wall):
        """A new game, which begins a new match (its id and the `wall` of this entry)."""
        refused = self._match_refusal(body)
        if refused:
            return refused
        game = body.get("game", self.book.last_game or "eight-ball")
        if game not in GAMES:
            return refusal("unknown_game", (game, ", ".join(GAMES)), (game, _named("game.", GAMES)))
        players = body.get("players", self.book.last_players)
        if (not isinstance(players, list) or len(players) != 2 or
                not all(isinstance(p, str) and 0 < len(p.strip()) <= MAX_NAME for p in players)):
            return refusal("bad_players", (MAX_NAME,))
        players = [p.strip() for p in players]
        breaker = body.get("breaker", 0)
        if not is_int(breaker) or breaker not in (0, 1):
            return refusal("bad_breaker")
        lag = body.get("lag", False)
        if not isinstance(lag, bool):
            return refusal("bad_flag", ("lag",))
        st, refused = self._match_settings(body)
        if refused:
            return refused
        target = body.get("target", st["target"])
        if not is_int(target) or not 1 <= target <= 1000:
            return refusal("bad_target")
        race = _race(body.get("race_to", st["race_to"]))
        if race is None:
            return refusal("bad_race")
        if self.book.open_shot is not None:
            return refusal("balls_rolling")
        fresh = self._fresh(game, players, breaker, st, race, target)
        if lag:     # GEN.LAG: the players lag for the first break (asked for like a deciding rack's)
            en, ru = say("lag_for_break")
            fresh["needs"] = [{"cmd": "lag", "text": {"en": en, "ru": ru}}]
        # The game it replaces stays one undo away (a new game pressed by mistake is not final).
        self.book.replaced = self.book.game_record() if self.book.game is not None else None
        self.book.game = fresh
        self.book.faults = [f for f in self.book.faults if f.get("what") != "board"]   # seen through a game
        self.book.history = []
        self.book.pending = None
        self.book.facts_open = False
        self.book.last_game = game
        self.book.last_players = players
        self.book.match = new_match(self.book.match["id"] + 1, wall if is_number(wall) else None)
        if "assignment" in body:
            self.book.match["assignment"] = body["assignment"]
        clauses = ["GEN.RACK", module_for(game).SETUP_CLAUSE]
        if st["shot_clock"]:
            clauses.append("GEN.SLOW-PLAY")    # a time limit to prepare and play each shot
        ev = []
        common.tell(ev, "rerack", breaker, clauses, "new_game", game, players[0], players[1], players[breaker])
        return _ok(ev)

    def _match_refusal(self, body):
        """A new game's terms about the match it replaces: `unless_playing` refuses it while a
        match is under way (a venue service assigning the table must not end one), and
        `assignment` (the sender's label for the match, echoed in `state.match` and in the
        match record) must be a short text."""
        a = body.get("assignment")
        if "assignment" in body and not (isinstance(a, str) and 0 < len(a) <= 64):
            return refusal("bad_assignment")
        g = self.book.game
        if body.get("unless_playing") is True and g is not None and g["winner"] is None and (
                g["shot"] > 0 or g["rack"] > 1):
            return refusal("match_in_progress")
        if "unless_playing" in body and not isinstance(body["unless_playing"], bool):
            return refusal("bad_flag", ("unless_playing",))
        return None

    def _match_settings(self, body):
        """(the table's defaults with the house rules and shot clock `body` sets, None), or
        (None, a refusal) if it sets one to a value the setting does not take."""
        st = clone(self.defaults)
        for k in settings_mod.CHOICES:
            if k in body:
                allowed = settings_mod.CHOICES[k]
                if not [v for v in allowed if v == body[k] and type(v) is type(body[k])]:
                    if isinstance(allowed[0], bool):
                        return None, refusal("bad_flag", (k,))
                    return None, refusal("bad_setting", (k, ", ".join(allowed)))
                st[k] = body[k]
        if "shot_clock" in body:
            sc = body["shot_clock"]
            if sc is not None and not (is_int(sc) and 10 <= sc <= 600):
                return None, refusal("bad_shot_clock")
            st["shot_clock"] = sc
        return st, None

    def _fresh(self, game, players, breaker, st, race, target):
        g = new_game_state(game, players, breaker, st, race, target)
        module_for(game).setup(g, st)
        return g

    def _cmd_call(self, body, t_us, wall):
        err = self._idle_error()
        if err:
            return refusal(*err)
        g = self.book.game
        ball = body.get("ball")
        pocket = names.pocket_index(body.get("pocket"))
        if body.get("pocket") is not None and pocket is None:
            return refusal("unknown_pocket_call", (body.get("pocket"), ", ".join(names.POCKETS)),
                           (body.get("pocket"), _named("pocket.", names.POCKETS)))
        if ball is not None:
            if not is_int(ball) or not 1 <= ball <= 15:
                return refusal("bad_call_ball")
            if ball not in g["on_table"]:
                return refusal("ball_not_on_table", (ball,))
        if ball is None and pocket is None:
            return refusal("call_nothing")
        err = module_for(g["game"]).check_call(g, ball, pocket)
        if err:
            return refusal(*err)
        g["called"] = {"ball": ball, "pocket": names.POCKETS[pocket] if pocket is not None else None}
        g["safety"] = False
        en, ru = self._call_words(g, ball, pocket)
        return _ok([event("call", g["shooter"], [module_for(g["game"]).CALL_CLAUSE], en, ru,
                          {"ball": ball, "pocket": g["called"]["pocket"]})])

    def _call_words(self, g, ball, pocket):
        """"Anna calls ball 3 in foot-left" (or only the ball, or only the pocket), per language."""
        b = say("call_ball", ball) if ball is not None else ("", "")
        k = say("call_pocket", names.POCKETS[pocket]) if pocket is not None else ("", "")
        who = common.name(g, g["shooter"])
        return say_each("call", (who, b[0], k[0]), (who, b[1], k[1]))

    def _cmd_safety(self, body, t_us, wall):
        err = self._idle_error()
        if err:
            return refusal(*err)
        g = self.book.game
        err = module_for(g["game"]).check_safety(g)
        if err:
            return refusal(*err)
        g["safety"] = True
        g["called"] = None
        return _ok([event("safety", g["shooter"], [module_for(g["game"]).SAFETY_CLAUSE],
                          *say("safety", common.name(g, g["shooter"])))])

    def _cmd_push_out(self, body, t_us, wall):
        err = self._idle_error()
        if err:
            return refusal(*err)
        g = self.book.game
        err = module_for(g["game"]).check_push_out(g)
        if err:
            return refusal(*err)
        g["push_out"] = True
        return _ok([event("push_out", g["shooter"], ["NB.PUSH"],
                          *say("push_out", common.name(g, g["shooter"])))])

    def _cmd_choose(self, body, t_us, wall):
        g = self.book.game
        if self.book.open_shot is not None:
            return refusal("balls_rolling")
        d = g["decision"]
        if not d:
            return refusal("no_decision")
        option = body.get("option")
        if option not in d["options"]:
            return refusal("not_an_option", (option, ", ".join(d["options"])), (option, _named("option.", d["options"])))
        events = []
        on_last_shot = self.book.facts_open and self.book.history
        module_for(g["game"]).choose(g, option, self._settings(), events)
        self.book.facts_open = False
        # A ball hanging on the lip may still drop within 5 s (GEN.HANGING-EARLY); a choice that
        # plays the table as it lies is then made again on the re-judged shot.
        self.book.chosen = ({"option": option, "shot": self.book.history[-1]["shot"]["n"]}
                            if on_last_shot and option in PLAY_ON else None)
        return _ok(events)

    def _chosen_on_last_shot(self):
        """The option chosen on the newest shot, while no other shot has been played."""
        c = self.book.chosen
        if c is None or self.book.open_shot is not None or not self.book.history:
            return None
        shot = self.book.history[-1]["shot"]     # None in an entry from an old journal head
        return c["option"] if shot is not None and shot["n"] == c["shot"] else None

    def _choose_again(self, option, events):
        g = self.book.game
        d = g["decision"]
        if d and option in d["options"]:
            module_for(g["game"]).choose(g, option, self._settings(), events)
            self.book.facts_open = False
        else:
            self.book.chosen = None
            common.tell(events, "warning", d["player"] if d else g["shooter"], ["GEN.HANGING-EARLY"], "choice_void")

    def _last_shot(self):
        """The shot just played, to enter a fact on: waiting for an identity, or the newest one
        kept for undo."""
        return self.book.pending if self.book.pending is not None else self.book.amend_last_shot()

    def _position_before_last_shot(self):
        return self.book.game if self.book.pending is not None else self.book.history[-1]["before"]

    def _last_shot_error(self):
        if self.book.open_shot is not None:
            return ("balls_rolling_fact",)
        if self.book.pending is None and not (self.book.history and self.book.facts_open):
            return ("nothing_to_amend",)
        return None

    def _cmd_foul(self, body, t_us, wall):
        """A foul no sensor saw, entered on the shot just played, which is then judged again."""
        code = body.get("code")
        if code not in FOUL_CODES:
            return refusal("unknown_foul", (code, ", ".join(FOUL_CODES)))
        err = self._last_shot_error()
        if err:
            return refusal(*err)
        enter = {"cue_pocketed": self._enter_scratch, "jumped_ball": self._enter_jumped,
                 "interference": self._enter_interference}.get(code, self._enter_foul)
        refused = enter(self._last_shot(), code, body)
        if refused:
            return refused
        events = []
        self._rejudge(events)
        return _ok(events)

    def _enter_scratch(self, shot, code, body):
        """A scratch the cue-ball detector missed is a scratch with all it brings (from the kitchen
        in 14.1 and on the eight-ball break: SP.CUE-OUT, EB.BREAK-SCRATCH), as `identify` with
        ball 0 makes it; not a bare code the games would not see."""
        if shot["cue_pocketed"]:
            return refusal("foul_entered")
        shot["cue_pocketed"] = True

    def _enter_jumped(self, shot, code, body):
        """A ball off the table (GEN.JUMPED): the cue ball's is always a foul, an object ball's as
        the game says (jump_is_foul)."""
        ball = body.get("ball")
        if not is_int(ball) or not 0 <= ball <= 15:
            return refusal("jumped_needs_ball")
        if ball in shot["jumped"]:
            return refusal("jumped_entered", (ball,))
        if ball != 0 and ball not in self._position_before_last_shot()["on_table"]:
            return refusal("ball_not_there_then", (ball,))
        shot["jumped"].append(ball)
        if ball == 0 or module_for(self.book.game["game"]).jump_is_foul(self.book.game, shot, ball):
            common.add_new(shot["fouls"], ["jumped_ball"])

    def _enter_interference(self, shot, code, body):
        """GEN.OPPONENT: the opponent's foul; with `ball`, a ball the opponent stopped on its way to
        a pocket (the called one if `pocket` is not given) counts as pocketed there."""
        if "interference" in shot["fouls"]:
            return refusal("foul_entered")
        ball = body.get("ball")
        stopped = None
        if ball is not None:
            if not is_int(ball) or ball not in self._position_before_last_shot()["on_table"]:
                return refusal("bad_stopped_ball")
            if ball in [d[0] for d in shot["pocketed"]] or ball in shot["jumped"]:
                return refusal("stopped_ball_counted", (ball,))
            pocket = names.pocket_index(body.get("pocket", (shot["called"] or {}).get("pocket")))
            if pocket is None:
                return refusal("stopped_ball_pocket", (ball,))
            stopped = [ball, pocket, shot["end_us"] or shot["start_us"], False]
        shot["fouls"].append(code)
        shot["fouler"] = common.other(shot["shooter"])
        if stopped is not None:
            shot["pocketed"].append(stopped)
            shot["stopped"] = ball

    def _enter_foul(self, shot, code, body):
        if code == "illegal_break" and not shot["break"]:
            return refusal("not_a_break")
        if code in shot["fouls"]:
            return refusal("foul_entered")
        shot["fouls"].append(code)

    def _cmd_legal_break(self, body, t_us, wall):
        """The referee saw enough balls reach a rail on the break: overrules the rail-impact
        estimate (EB.BREAK-LEGAL, NB.BREAK, SP.BREAK), which piezos alone cannot be sure of."""
        err = self._last_shot_error()
        if err:
            return refusal(*err)
        shot = self._last_shot()
        if not shot["break"]:
            return refusal("not_a_break")
        if shot.get("rails_ruled"):
            return refusal("break_ruled_legal")
        if "illegal_break" in shot["fouls"]:
            return refusal("illegal_break_entered")
        shot["rails_ruled"] = True
        events = []
        self._rejudge(events)
        return _ok(events)

    def _cmd_identify(self, body, t_us, wall):
        """Which ball dropped in a pocket on the shot just played (the referee asked in `needs`,
        or a sensor's reading was wrong); the shot is judged again."""
        err = self._last_shot_error()
        if err:
            return refusal(*err)
        pocket = names.pocket_index(body.get("pocket"))
        if pocket is None:
            return refusal("unknown_pocket", (body.get("pocket"),))
        ball = body.get("ball")
        if not is_int(ball) or not 0 <= ball <= 15:
            return refusal("bad_identify_ball")
        shot = self._last_shot()
        drops = [d for d in shot["pocketed"] if d[1] == pocket]
        if not drops:
            return refusal("no_drop_there", (names.POCKETS[pocket],), (word("pocket." + names.POCKETS[pocket], "ru"),))
        target = _drop_to_identify(drops)
        if ball in [d[0] for d in shot["pocketed"] if d is not target]:
            return refusal("ball_in_other_drop", (ball,))
        g_before = self._position_before_last_shot()
        if ball != 0 and ball not in g_before["on_table"]:
            return refusal("ball_was_not_on_table", (ball,))
        target[0] = ball
        target[3] = False
        if ball == 0:
            shot["cue_pocketed"] = True
        events = []
        self._rejudge(events)
        return _ok(events)

    def _cmd_end_shot(self, body, t_us, wall):
        if self.book.open_shot is None:
            return refusal("no_shot_playing")
        events = []
        t = t_us if is_int(t_us) else self.book.last_activity
        if self.book.last_activity is not None and (t is None or t < self.book.last_activity):
            t = self.book.last_activity
        self._end_shot(t, events)
        return _ok(events)

    def _cmd_undo(self, body, t_us, wall):
        if self.book.open_shot is not None:
            return refusal("balls_rolling_undo")
        events = []
        if self.book.pending is not None:
            self.book.pending = None
            self.book.game["needs"] = []
        elif not self.book.history and self.book.replaced is not None:
            return self._undo_new_game()
        elif not self.book.history:
            return refusal("nothing_to_undo")
        else:
            self.book.game = clone(self.book.history.pop()["before"])
        self.book.facts_open = False
        self.book.ended_us = None
        g = self.book.game
        common.tell(events, "undo", g["shooter"], ["GEN.INTERFERENCE", "GEN.HANGING-SHOT"], "undo",
                    common.name(g, g["shooter"]))
        return _ok(events)

    def _undo_new_game(self):
        """`undo` right after new_game: the game it replaced comes back as it stood, with its shots
        (each can be taken back in turn) and its match."""
        self.book.take_back(self.book.replaced)
        self.book.facts_open = False
        self.book.chosen = None
        self.book.ended_us = None
        self.book.replaced = None
        g = self.book.game
        events = []
        common.tell(events, "undo", g["shooter"], ["GEN.RACK", module_for(g["game"]).SETUP_CLAUSE], "undo_new_game",
                    g["game"], common.name(g, g["shooter"]), extra={"new_game": True})
        return _ok(events)

    def _cmd_rename(self, body, t_us, wall):
        """A player's name, changed between shots without touching the game (e.g. from Home
        Assistant); the saved shots are renamed too so that `undo` keeps the new name."""
        p = body.get("player")
        if not is_int(p) or p not in (0, 1):
            return refusal("bad_player")
        n = body.get("name")
        if not isinstance(n, str) or not 0 < len(n.strip()) <= MAX_NAME:
            return refusal("bad_name", (MAX_NAME,))
        n = n.strip()
        g = self.book.game
        g["players"][p]["name"] = n
        self.book.history = [_renamed(h, p, n) for h in self.book.history]
        self.book.last_players = [q["name"] for q in g["players"]]
        return _ok()    # no rule is involved, so no event: the new state shows the name

    def _cmd_lag(self, body, t_us, wall):
        """GEN.LAG / SP.BREAK-CHOICE: the lag winner breaks or hands the break over."""
        g = self.book.game
        between = racks.between_racks(g)       # before a match's next rack (the decider)
        if ((g["shot"] != 0 and not between) or self.book.open_shot is not None or self.book.pending is not None
                or g["phase"] not in ("break", "over")):
            return refusal("lag_too_late")
        w = body.get("winner")
        if not is_int(w) or w not in (0, 1):
            return refusal("bad_lag_winner")
        breaks = body.get("breaks", True)
        if not isinstance(breaks, bool):
            return refusal("bad_breaks")
        b = w if breaks else common.other(w)
        g["shooter"] = b
        g["breaker"] = b
        g["needs"] = [n for n in g["needs"] if n.get("cmd") != "lag"]
        if between:
            g["next_break"] = racks.lagged(g, b)
        self.book.facts_open = False    # the next game is under way: the last game's final shot stays as judged
        self.book.chosen = None
        return _ok([event("turn", b, ["GEN.LAG", "SP.BREAK-CHOICE"],
                          *say("lag", common.name(g, w), common.name(g, b)))])

    def _cmd_next_rack(self, body, t_us, wall):
        """Between the racks of a match: the balls are racked, the next rack begins (as the break
        itself would begin it), its breaker by the seed's rule or the house rule (`next_break`)."""
        g = self.book.game
        if not racks.between_racks(g):
            return refusal("game_over" if g["winner"] is not None else "not_between_racks")
        if self.book.open_shot is not None:
            return refusal("balls_rolling")
        if racks.lag_pending(g):
            return refusal("lag_first")
        events = []
        self._next_rack(events)
        self.book.facts_open = False    # the last rack's final shot stays as judged
        self.book.chosen = None
        return _ok(events)

    def _cmd_spot(self, body, t_us, wall):
        """GEN.POCKETED: a ball rolled in along the rail on purpose is put back, no penalty."""
        err = self._last_shot_error()
        if err:
            return refusal(*err)
        ball = body.get("ball")
        shot = self._last_shot()
        if not is_int(ball) or ball not in [d[0] for d in shot["pocketed"]] or ball == 0:
            return refusal("bad_spot_ball")
        if ball in shot["spotted"]:
            return refusal("spotted_already", (ball,))
        shot["spotted"].append(ball)
        events = []
        self._rejudge(events)
        return _ok(events)

    def _cmd_rack(self, body, t_us, wall):
        """SP.FULL-RERACK / SP.RACK-CONFLICT: where the 15th and the cue ball lie after a re-rack."""
        err = self._last_shot_error()
        if err:
            return refusal(*err)
        hook = getattr(module_for(self.book.game["game"]), "rack_facts", None)
        if hook is None:
            return refusal("rack_only_straight_pool")
        shot = self._last_shot()
        err = hook(self.book.game, shot, body)
        if err:
            return refusal(*err)
        events = []
        self._rejudge(events)
        return _ok(events)

    def _cmd_stalemate(self, body, t_us, wall):
        """GEN.STALEMATE: the referee re-racks what is left; the lag winner plays from the kitchen."""
        err = self._idle_error()
        if err:
            return refusal(*err)
        g = self.book.game
        w = body.get("shooter")
        if not is_int(w) or w not in (0, 1):
            return refusal("stalemate_shooter")
        g["shooter"] = w
        g["ball_in_hand"] = "kitchen"
        self.book.facts_open = False
        self.book.chosen = None
        return _ok([event("rerack", w, ["GEN.STALEMATE"],
                          *say("stalemate", common.name(g, w)))])

    # ----------------------------------------------------- buttons and faults
    def _button(self, index, value, t, wall):
        """The board's buttons are the same commands as MQTT (CONTRACT section 1); a refused press
        is told to the table as a warning (the refusal itself rides along in `refusal`)."""
        if value not in (names.PRESS, names.LONG_PRESS):
            return _ok()
        if self.book.game is None and index != names.BUTTON_NEW_GAME:
            return _ok()
        if index == names.BUTTON_NEW_GAME and value != names.LONG_PRESS:
            return _ok([event("warning", None, [], *say("hold_new_game"))])
        res = self._press(index, t, wall)
        if res is None or res["ok"]:
            return res or _ok()
        p = self.book.game["shooter"] if self.book.game else None
        en, ru = say_each("button_refused", (res["text"]["en"],), (res["text"]["ru"],))
        return _ok([event("warning", p, [], en, ru, extra={"refusal": {"code": res["code"], "text": res["text"]}})])

    def _press(self, index, t, wall):
        """The command a button stands for, run; None for a button that stands for none."""
        g = self.book.game
        if 0 <= index <= 5:
            return self.command("call", {"pocket": index}, t)
        if index == names.BUTTON_SAFETY:
            return self.command("push_out" if g["game"] == "nine-ball" else "safety", {}, t)
        if index == names.BUTTON_CONFIRM:
            d = g["decision"]
            if not d and racks.between_racks(g):
                return self.command("next_rack", {}, t)       # the balls are racked: the next rack
            if not d:
                return refusal("nothing_to_confirm")
            return self.command("choose", {"option": "accept" if "accept" in d["options"] else d["options"][0]}, t)
        if index == names.BUTTON_UNDO:
            return self.command("undo", {}, t)
        if index == names.BUTTON_NEW_GAME:
            return self.command("new_game", {}, t, wall)
        return None

    def _fault(self, index, value, detail=None):
        """FAULT from a sensor: shown in the state until it clears (labels and kinds in English:
        they are state values). `detail`: a board fault's own words (FAULT_TEXT, firmware 1.2+)."""
        if index == names.FAULT_BOARD:
            return self._board_fault(value, detail)
        label, label_ru = sensor_label(index, "en"), sensor_label(index, "ru")
        if value == names.FAULT_CLEAR:
            self.book.faults = [f for f in self.book.faults if f["sensor"] != index]
            return _ok([event("warning", None, [], *say_each("sensor_back", (label,), (label_ru,)))])
        kind = {names.FAULT_BLOCKED: "fault_blocked", names.FAULT_SILENT: "fault_silent"}.get(value, "fault_other")
        why = word(kind, "en")
        if not [f for f in self.book.faults if f["sensor"] == index]:
            self.book.faults.append({"sensor": index, "what": label, "fault": why})
        return _ok([event("warning", None, [], *say_each("sensor_fault", (label, why),
                                                         (label_ru, word(kind, "ru"))))])

    def _board_fault(self, value, detail=None):
        """FAULT 255: the board restarted by itself (watchdog, crash...) or refused its
        configuration. Shown in the state until the next new game; a newer one replaces it.
        With the board's own words (`detail`), the text says them too."""
        code = names.BOARD_FAULTS.get(value, "restart")
        if value == names.BOARD_CONFIG:
            en, ru = say("board_config")
        else:
            en, ru = say("board_restart", code.replace("_", " "))
        fault = {"sensor": None, "what": "board", "fault": code, "text": en}
        if isinstance(detail, str) and detail:
            detail = detail[:64]
            en, ru = en + ": " + detail, ru + ": " + detail
            fault["text"] = en
            fault["detail"] = detail
        self.book.faults = [f for f in self.book.faults if f.get("what") != "board"]
        self.book.faults.append(fault)
        return _ok([event("warning", None, [], en[0].upper() + en[1:], ru[0].upper() + ru[1:])])


def _race(race):
    """The games to win the match: one number for both players, or each player's own race
    `[a, b]` (a handicap; two equal races are one race). None if it is neither."""
    if is_int(race) and 1 <= race <= 99:
        return race
    if (isinstance(race, list) and len(race) == 2 and
            all(is_int(r) and 1 <= r <= 99 for r in race)):
        return race[0] if race[0] == race[1] else [race[0], race[1]]
    return None
