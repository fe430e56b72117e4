"""The venue service (`billiards venue run`): the MQTT shell around the tournament core.

It reads every table's retained `state`, `status` and `match` (docs/mqtt.md), assigns the next
ready match of each running tournament to a free table of that tournament by sending the
table's `new_game` (players, game, race), records a result only when `referee.verdict` says the
record came from the table the match was assigned to and is that match, and serves the
winner-stays-on queues. Every change is committed to SQLite (store.py) before anything is sent
or announced; after a restart the service waits for the broker's retained messages before it
sends anything, so a match already won is recorded, not restarted.

Single-threaded core: MQTT callbacks and the HTTP server only queue work or take `lock`.
"""
import json
import logging
import queue as queue_mod
import time

from host.tournament import advance, chain, ha, model, queue, ratings, referee, schedule, standings

log = logging.getLogger("billiards.venue")

RESEND_S = 3.0          # a new_game the table has not taken (balls rolling, link down) goes again
SETTLE_S = 1.5          # after (re)connecting: the broker's retained messages come first
MAX_PAYLOAD = 64 * 1024
CHAIN_GAP_S = 1.0       # one venue's league results are taken in at most once a second


class VenueService:
    """The service's decisions and its store; `send(topic, payload, retain)` is the MQTT edge."""

    def __init__(self, store, send, venue="venue", prefix="billiards", clock=time.time,
                 monotonic=time.monotonic, discovery_prefix="homeassistant", name=None, url=None):
        import threading
        self.store = store
        self.send = send
        self.venue = venue
        self.prefix = prefix
        self.clock = clock
        self.monotonic = monotonic
        self.lock = threading.RLock()
        self.views = {}              # table -> {"status", "state"}
        # An assignment is (tournament, match, table, sent_at): a move (here, or by `billiards
        # tournament move` in another process) is a new assignment, never taken for the old one.
        self.started = set()         # assignments seen started on their table
        self.last_sent = {}          # assignment -> monotonic time of its last new_game
        self.ready_at = None         # no new_game before this (retained messages first)
        self.listeners = []          # callables told after each change (HA, pages)
        self.sent_log = []           # (monotonic, table, body): for the benchmark and tests
        self.heard = set()           # record keys delivered since this process started
        self.last_record = {}        # table -> its last match record (plain), for winner stays on
        self.queue_sent = {}         # table -> monotonic time its queue game was last sent
        self._rating_cache = None
        self.discovery = discovery_prefix
        self.name = name
        self.url = url
        self.subscribe = None        # the MQTT edge's subscribe(topic), for a league made meanwhile
        self.chain_subs = set()      # league slugs whose results from other venues are subscribed
        self.chain_pending = {}      # (venue, slug) -> the latest payload, taken in by _chain_ingest
        self.chain_last = {}         # venue -> monotonic time its results were last taken in
        self.chain_sent = {}         # slug -> the results payload this venue last published
        self._leagues = {}           # league id or slug -> standings, until the next change

    # ------------------------------------------------------------------ topics
    def subscriptions(self):
        p = self.prefix
        subs = ["%s/+/state" % p, "%s/+/status" % p, "%s/+/match" % p]
        self.chain_subs = {l["slug"] for l in self.store.leagues()}
        subs += [chain.chain_topic(p, s) for s in sorted(self.chain_subs)]
        return subs + (["%s/status" % self.discovery] if self.discovery else [])

    def _discovery(self):
        if self.discovery:
            for topic, payload, retain in ha.messages(self.venue, self.out_topic(), self.discovery,
                                                      self.name, self.url):
                self.send(topic, payload, retain)

    def out_topic(self, *parts):
        return "/".join(("%s-venue" % self.prefix, self.venue) + parts)

    def will(self):
        return (self.out_topic("status"), "offline", True)

    # ------------------------------------------------------------------ MQTT in
    def connected(self):
        with self.lock:
            self.ready_at = self.monotonic() + SETTLE_S
            self.chain_sent = {}          # the broker may have lost them: published again
            self.send(self.out_topic("status"), "online", True)
            self._discovery()
            self.announce()

    def message(self, topic, payload):
        if self.discovery and topic == self.discovery + "/status":
            if payload.strip() == b"online":          # Home Assistant restarted: announce again
                with self.lock:
                    self._discovery()
            return
        if topic.startswith(self.prefix + "-chain/"):
            self._chain_message(topic, payload)
            return
        parts = topic.split("/")
        if len(parts) != 3 or parts[0] != self.prefix or len(payload) > MAX_PAYLOAD:
            return
        table, kind = parts[1], parts[2]
        with self.lock:
            view = self.views.setdefault(table, {})
            before = _what_counts(view)
            if kind == "status":
                view["status"] = payload.decode("utf-8", "replace")
            elif kind == "state":
                try:
                    view["state"] = json.loads(payload) if payload else None
                except ValueError:
                    return
            elif kind == "match":
                self._match_record(table, payload)
            if kind == "match" or _what_counts(view) != before:     # a shot changes nothing here
                self.step()

    # ------------------------------------------------------------------ results
    def _assignment_for(self, table, record):
        """The assignment a record from `table` is checked against: the table's own match of the
        record's players, else those players' match on another table (so a moved match, or
        another table's daemon reporting it, says so), else the table's own match."""
        rows = self.store.assignments()
        got = sorted(p.get("name") for p in record["players"] if isinstance(p, dict)) \
            if isinstance(record, dict) and isinstance(record.get("players"), list) else None
        named = [r for r in rows if sorted(r[4].get("players", [])) == got]
        mine = [r for r in rows if r[2] == table]
        for tid, mid, tb, sent_at, body in [r for r in mine if r in named] or named or mine:
            t = self.store.tournament(tid)
            m = model.find_match(t, mid)
            if m is not None and m["status"] == "playing":
                return t, m, model.assignment(t, m, tb, sent_at, body)
        return None, None, None

    def _match_record(self, table, payload):
        if not payload:
            return
        try:
            record = json.loads(payload)
        except ValueError:
            self._ignored(table, "malformed match record: not JSON")
            return
        plain = referee.plain(table, record) if referee.well_formed(table, record) is None else None
        if plain is not None:
            if plain["key"] in self.heard and self.store.known_record(plain["key"]):
                # (a retained record at connect is not news)
                self._ignored(table, "duplicate: match record %s was received before" % plain["key"])
                return
            self.heard.add(plain["key"])
            self.last_record[table] = plain
        t, m, assigned = self._assignment_for(table, record)
        label = self._label(t["id"], m["id"]) if assigned is not None else None
        verdict, what = referee.verdict(table, record, assigned, self.store.counted_keys(), label)
        if verdict != "count":
            if assigned is not None or plain is None:
                self._ignored(table, what)
            if plain is not None and not self._claims_a_match(table, record, assigned):
                self._rate(table, plain)          # a game of the table's own, not a tournament's
            return
        names = assigned["names"]
        result = {"players": list(m["players"]), "winner": m["players"][names.index(what["winner"])],
                  "score": what["score"], "how": "table", "table": table, "at": self.clock()}
        text = "tournament %d match %s won on table %s by %s %s" % (
            t["id"], m["id"], table, what["winner"], "-".join(map(str, what["score"] or [])))
        self._rate(table, plain)
        if self.store.put_result(t["id"], m["id"], result, referee.record_key(table, record), text):
            log.info(text)
            self._forget(t["id"], m["id"])
            self._rating_cache = None
            self.changed()

    def _claims_a_match(self, table, record, assigned):
        """A record that did not count but speaks for a tournament match: it carries one of this
        venue's assignments, or names the players of a match assigned to another table (a
        moved match's old table, another table's daemon). It is rated only through the match's
        result, so an ignored record changes no rating either."""
        if str(record.get("assignment") or "").startswith("venue-%s-t" % self.venue):
            return True
        return assigned is not None and assigned["table"] != table

    def _rate(self, table, plain):
        """Keep a finished match for the ratings (once); the queue's next game after it."""
        if self.store.add_record(plain):
            self._rating_cache = None
            self._queue_after(table, plain)

    def _ignored(self, table, why):
        text = "result from table %s ignored: %s" % (table, why)
        log.warning(text)
        self.store.log("ignored", text)

    def _forget(self, tid, mid):
        for key in [k for k in self.started | set(self.last_sent) if k[:2] == (tid, mid)]:
            self.started.discard(key)
            self.last_sent.pop(key, None)

    # ------------------------------------------------------------------ leagues across venues
    def _chain_message(self, topic, payload):
        """Another venue's results of a league this venue keeps: only noted here (the latest per
        venue and league, at most one per league of this venue for each of MAX_VENUES venues);
        `_chain_ingest` checks and keeps them, one venue at most once a second, so a venue
        publishing without pause costs a dict entry, not a parse and a disk write each time."""
        where = chain.from_topic(self.prefix, topic)
        if where is None or where[0] == self.venue:
            return
        venue, slug = where
        with self.lock:
            if slug not in {l["slug"] for l in self.store.leagues()}:
                return
            if (venue, slug) not in self.chain_pending:
                venues = {v for v, _s in self.chain_pending} | set(self.chain_last)
                if venue not in venues and len(venues) >= chain.MAX_VENUES * 4:
                    return
            if len(payload) > chain.MAX_PAYLOAD:
                payload = payload[:chain.MAX_PAYLOAD + 1]      # refused as too long, not kept whole
            self.chain_pending[(venue, slug)] = payload
            self._chain_ingest()

    def _chain_ingest(self):
        now = self.monotonic()
        for (venue, slug), payload in list(self.chain_pending.items()):
            last = self.chain_last.get(venue)
            if last is not None and now - last < CHAIN_GAP_S:
                continue
            del self.chain_pending[(venue, slug)]
            self.chain_last[venue] = now
            if not payload:
                self.store.drop_chain_results(venue, slug)
                self.changed()
                continue
            doc, why = chain.parse(venue, slug, payload)
            if doc is None:
                text = "league %s results from venue %s ignored: %s" % (slug, venue, why)
                log.warning(text)
                self.store.log("ignored", text)
                continue
            kept = self.store.put_chain_results(venue, slug, doc)
            if kept is False:
                text = "league %s results from venue %s ignored: the league keeps %d other venues already" % (
                    slug, venue, chain.MAX_VENUES)
                log.warning(text)
                self.store.log("ignored", text)
            elif kept:
                self.changed()

    def _chain_subscriptions(self):
        """A league made while the service runs: its other venues' results are subscribed to."""
        if self.subscribe is None:
            return
        for lg in self.store.leagues():
            if lg["slug"] not in self.chain_subs:
                self.chain_subs.add(lg["slug"])
                self.subscribe(chain.chain_topic(self.prefix, lg["slug"]))

    def _publish_leagues(self):
        """This venue's results of each league, retained, when they changed (the bridge carries
        them to the chain's other venues)."""
        for lg in self.store.leagues():
            nights = [self.store.tournament(tid) for tid in self.store.league_nights(lg["id"])]
            doc = chain.results(self.venue, lg, [(t, _finished(t)) for t in nights], self.name)
            text = chain.encode(doc)
            if self.chain_sent.get(lg["slug"]) != text:
                self.chain_sent[lg["slug"]] = text
                self.send(chain.topic(self.prefix, self.venue, lg["slug"]), text, True)

    # ------------------------------------------------------------------ assigning
    def step(self):
        """Assign ready matches to free tables, send again what a table has not taken, start
        queued games. Called after every message, every tick and every change."""
        with self.lock:
            if self.chain_pending:
                self._chain_ingest()
            if self.ready_at is None or self.monotonic() < self.ready_at:
                return
            rows = self.store.assignments()
            busy = {r[2] for r in rows}
            for tid, mid, table, sent_at, body in rows:
                self._keep_going((tid, mid, table, sent_at), body)
            for tid in self.store.ids("running"):
                t = self.store.tournament(tid)
                ms = model.matches(t)
                if model.winner(t, ms) is not None:
                    continue
                for m, table in schedule.plan(advance.next_ready(ms), t["tables"], self.views, busy):
                    body = model.new_game(t, m, self._rated(t))
                    sent_at = self.clock()
                    self.store.assign(tid, m["id"], table, body, sent_at)   # durable first
                    busy.add(table)
                    self._forget(tid, m["id"])
                    self._new_game((tid, m["id"], table, sent_at), body)
                    self.changed()
            self._queues(busy)

    def _keep_going(self, key, body):
        """An assignment (tournament, match, table, sent_at): seen started (the table shows its
        players' game, not yet won), nothing more to do until its record comes; otherwise its
        new_game goes again while the table is free, every RESEND_S (a refusal, a board just
        plugged in)."""
        table = key[2]
        state = (self.views.get(table) or {}).get("state")
        if key not in self.started and schedule.started(state, body["players"]) and state.get("winner") is None:
            self.started.add(key)
        if key in self.started:
            return
        last = self.last_sent.get(key)
        if schedule.is_free(self.views.get(table) or {}) and (last is None or self.monotonic() - last >= RESEND_S):
            self._new_game(key, body)

    def _label(self, tid, mid):
        """The match's label: the new_game's id and `assignment`, echoed in the table's record."""
        return "venue-%s-t%d-%s" % (self.venue, tid, mid)

    def _new_game(self, key, body):
        tid, mid, table = key[:3]
        self.last_sent[key] = self.monotonic()
        # `unless_playing`: a table whose players are in the middle of a match keeps it (the
        # assignment goes again once it is over).
        label = self._label(tid, mid)
        cmd = dict(body, id=label, assignment=label, unless_playing=True)
        self.sent_log.append((self.monotonic(), table, dict(body)))
        del self.sent_log[:-200]
        self.send("%s/%s/cmd/new_game" % (self.prefix, table), json.dumps(cmd), False)
        log.info("table %s: new_game %s (tournament %d match %s)", table, " v ".join(body["players"]), tid, mid)

    # ------------------------------------------------------------------ winner stays on
    def tournament_tables(self):
        out = set()
        for tid in self.store.ids("running"):
            t = self.store.tournament(tid)
            if model.winner(t) is None:
                out.update(t["tables"])
        return out

    def join_queue(self, table, name):
        with self.lock:
            q = queue.join(self.store.queue(table), name)
            self.store.set_queue(table, q, "%s joined the queue of table %s" % (name.strip(), table))
            self.step()
            self.changed()
            return q

    def leave_queue(self, table, name):
        with self.lock:
            self.store.set_queue(table, queue.leave(self.store.queue(table), name))
            self.changed()

    def _queue_after(self, table, plain):
        """A game ended on a table of no tournament (its new record): the winner stays on and the
        first challenger plays him, unless the queue's own game there is still to be played
        (someone played another game meanwhile: the queue's game goes again when the table is free)."""
        if table in self.tournament_tables():
            return
        pending = self.store.queue_games().get(table)
        if pending is not None and sorted(pending["players"]) != sorted(plain["players"]):
            return
        q = self.store.queue(table)
        if not q and pending is None:
            return
        loser = [n for n in plain["players"] if n != plain["winner"]][0]
        rest, pair = queue.after_match(q, plain["winner"], loser)
        if pair:
            self._queue_game(table, rest, pair, plain, "table %s: %s stays on, %s plays next" % (table, pair[0], pair[1]))
        else:
            self.store.set_queue(table, q, game_over=True)

    def _queues(self, busy):
        """Free tables of no tournament: the queue's game not yet taken goes again (every
        RESEND_S); a finished game whose record is in: its winner stays on against the first
        in the queue; an idle table: the first two play."""
        tt = self.tournament_tables()
        queues, pending = self.store.queues(), self.store.queue_games()
        for table in sorted(set(queues) | set(pending)):
            view = self.views.get(table) or {}
            if table in busy or table in tt or not schedule.is_free(view):
                continue
            state = view.get("state") if isinstance(view.get("state"), dict) else {}
            last = self._finished_here(table, state)
            game = pending.get(table)
            if game is not None:
                taken = schedule.shows_match(state, game["players"]) and last is None
                sent = self.queue_sent.get(table)
                if not taken and (sent is None or self.monotonic() - sent >= RESEND_S):
                    self._send_queue_game(table, game)
                continue
            q = queues.get(table) or []
            if state.get("winner") is not None:
                if last is None:
                    continue          # a finished game: its winner stays on when its record comes
                loser = [n for n in last["players"] if n != last["winner"]][0]
                rest, pair = queue.after_match(q, last["winner"], loser)
                text = "table %s: %s stays on, %s plays next" % (table, pair[0], pair[1]) if pair else None
            else:
                rest, pair = queue.at_idle(q)
                text = "table %s: %s v %s from the queue" % (table, pair[0], pair[1]) if pair else None
            if pair:
                self._queue_game(table, rest, pair, last or state, text)

    def _finished_here(self, table, state):
        """The table's last match record if its state shows that very game finished, else None."""
        last = self.last_record.get(table)
        players = state.get("players") if isinstance(state.get("players"), list) else []
        names = [p.get("name") for p in players if isinstance(p, dict)]
        w = state.get("winner")
        if last is None or w not in (0, 1) or len(names) != 2 or sorted(names) != sorted(last["players"]):
            return None
        return last if names[w] == last["winner"] else None

    def _queue_game(self, table, rest, pair, last, text):
        """The next queue game: kept with the queue in SQLite, then sent."""
        body = {"game": last.get("game") or "eight-ball", "players": pair, "breaker": 0}
        for k in ("race_to", "target"):          # the same length as the game that ended
            if isinstance(last.get(k), int) and not isinstance(last.get(k), bool):
                body[k] = last[k]
        self.store.set_queue(table, rest, text, game=body)
        self._send_queue_game(table, body)
        self.changed()

    def _send_queue_game(self, table, body):
        self.queue_sent[table] = self.monotonic()
        self.sent_log.append((self.monotonic(), table, dict(body)))
        del self.sent_log[:-200]
        self.send("%s/%s/cmd/new_game" % (self.prefix, table), json.dumps(body), False)

    # ------------------------------------------------------------------ the director
    def report(self, tid, match_id, winner, score=None, how="correction"):
        """A result ruled by the director (walkover, ruling, correction): (ok, message)."""
        with self.lock:
            ok, msg = director_report(self.store, tid, match_id, winner, score, how, self.clock())
            if ok:
                self._forget(tid, match_id)
                self._rating_cache = None
                self.step()
                self.changed()
            return ok, msg

    def reopen(self, tid, match_id):
        """Take a result back (the director's): the match is played again."""
        with self.lock:
            ok, msg = director_reopen(self.store, tid, match_id)
            if ok:
                self._rating_cache = None
                self.step()
                self.changed()
            return ok, msg

    def move(self, tid, match_id, table):
        """The director's move of a match to `table` (a table id as in the tables' topics)."""
        if not isinstance(table, str) or not schedule.TABLE_ID.match(table):
            return False, "a table id is 1 to 32 letters, digits, '-' and '_'"
        with self.lock:
            t = self.store.tournament(tid)
            m = model.find_match(t, match_id) if t else None
            if m is None or m["status"] not in ("ready", "playing"):
                return False, "match %s is not waiting for a table or being played" % match_id
            busy = {r[2] for r in self.store.assignments() if (r[0], r[1]) != (tid, match_id)}
            if table in busy:
                return False, "table %s has a match assigned" % table
            body = model.new_game(t, m, self._rated(t))
            self.store.assign(tid, match_id, table, body, self.clock())
            self._forget(tid, match_id)
            self.step()
            self.changed()
            return True, "match %s moved to table %s" % (match_id, table)

    # ------------------------------------------------------------------ out
    def changed(self):
        """Announce the tournaments (after the store has it) and tell the listeners."""
        self._leagues = {}
        self.announce()
        for f in list(self.listeners):
            try:
                f()
            except Exception as e:         # a page or HA output must not stop the service
                log.warning("venue listener failed: %r", e)

    def announce(self):
        for tid in self.store.ids():
            t = self.store.tournament(tid)
            if t["status"] == "waiting":
                continue
            self.send(self.out_topic("tournament", str(tid)), json.dumps(model.show(t), ensure_ascii=False), True)
        self.send(self.out_topic("now"), json.dumps(self.now(), ensure_ascii=False), True)
        self._publish_leagues()
        self._chain_subscriptions()

    def now(self):
        """The matches on tables and the next ones, over every running tournament."""
        current, upcoming = [], []
        for tid in self.store.ids("running"):
            t = self.store.tournament(tid)
            shown = model.show(t)
            for m in shown["matches"]:
                item = {"tournament": tid, "name": t["name"], "match": m["id"], "label": m["label"],
                        "players": m["players"], "table": m["table"]}
                if m["status"] == "playing":
                    current.append(item)
                elif m["status"] == "waiting" and None not in m["players"]:
                    upcoming.append(item)
        return {"current": current, "next": upcoming[:8], "queues": self.store.queues()}

    def _rated(self, t):
        """{name: rating} for a handicapped tournament's races (None without a handicap)."""
        if model.handicap_step(t) is None:
            return None
        return {n: p["rating"] for n, p in self.ratings().items()}

    def ratings(self):
        with self.lock:
            if self._rating_cache is None:
                self._rating_cache = ratings.fold(self.store.rated_matches())
            return self._rating_cache

    def league(self, league_id):
        """Standings of a league: every night (tournament) of it, points per match won, racks;
        with the other venues' nights of the league (same slug) that came over the chain's
        central broker. league_id: its id here, or its slug. Kept until the next change (every
        change goes through `changed`), so a page shown again costs nothing."""
        with self.lock:
            if league_id not in self._leagues:
                self._leagues[league_id] = self._league(league_id)
            return self._leagues[league_id]

    def _league(self, league_id):
        lg = [l for l in self.store.leagues() if league_id in (l["id"], l["slug"])]
        if not lg:
            return None
        lg = lg[0]
        finished = []
        for tid in self.store.league_nights(lg["id"]):
            finished += _finished(self.store.tournament(tid))
        venues = []
        for doc, at in self.store.chain_results(lg["slug"]):
            if doc["venue"] == self.venue:
                continue
            finished += doc["matches"]
            venues.append({"venue": doc["venue"], "name": doc["venue_name"], "nights": doc["nights"],
                           "matches": len(doc["matches"]), "updated": at})
        names = {}                     # in the order they first appear (a dict: many venues' names)
        for m in finished:
            for n in m["players"]:
                names.setdefault(n, len(names))
        return {"league": lg, "nights": self.store.league_nights(lg["id"]), "venues": venues,
                "rows": standings.rows(names, finished, lg["win_points"])}


def _finished(t):
    """A night's finished matches as the standings take them (names, not seeds)."""
    out = []
    for m in model.matches(t):
        if m["status"] != "done":
            continue
        out.append({"id": m["id"], "players": [t["players"][p] for p in m["players"]],
                    "winner": t["players"][m["winner"]], "score": m["score"], "walkover": m["how"] == "walkover"})
    return out


def _what_counts(view):
    """What of a table's messages can change the service's decisions: whether it is free, and
    whose fresh game it shows."""
    s = view.get("state") if isinstance(view.get("state"), dict) else {}
    players = s.get("players") if isinstance(s.get("players"), list) else []
    return (schedule.is_free(view), tuple(p.get("name") for p in players if isinstance(p, dict)),
            s.get("winner"), s.get("shot") == 0)


def director_report(store, tid, match_id, winner, score, how, now):
    """The director's ruling, checked by the core, stored in one transaction: (ok, message)."""
    t = store.tournament(tid)
    if t is None:
        return False, "no tournament %s" % tid
    if how == "walkover":
        score = None
    result, why = model.correction(t, match_id, winner, score, how, at=now)
    if result is None:
        return False, why
    prev = (t["results"].get(match_id) or {})
    result["table"] = prev.get("table") or t["playing"].get(match_id)
    key = prev.get("record_key")   # kept: the table's record is still never counted twice
    store.put_result(tid, match_id, result, key, "tournament %d match %s: %s, %s wins %s" % (
        tid, match_id, how, winner, "-".join(map(str, score)) if score else ""))
    return True, "match %s: %s wins (%s)" % (match_id, winner, how)


def director_reopen(store, tid, match_id):
    t = store.tournament(tid)
    if t is None:
        return False, "no tournament %s" % tid
    why = model.reopen(t, match_id)
    if why:
        return False, why
    store.drop_result(tid, match_id, "by the director")
    return True, "match %s reopened: it will be played again" % match_id


def run(service, shell, stop, tick_s=0.25, on_tick=None):
    """The service's loop: MQTT items from the shell's queue, a tick for resends, and the
    store's data_version for changes made by `billiards tournament ...` meanwhile."""
    version = service.store.data_version()
    while not stop():
        try:
            kind, data = shell.queue.get(timeout=tick_s)
        except queue_mod.Empty:
            kind, data = "tick", None
        try:
            if kind == "message":
                service.message(data[0], data[1])
            elif kind == "connected":
                service.connected()
            elif kind in ("mqtt_error", "mqtt_unreachable", "disconnected"):
                log.warning("broker: %s %s", kind, data)
            v = service.store.data_version()
            if v != version:
                version = v
                service._rating_cache = None
                service.changed()
            service.step()
            if on_tick:
                on_tick()
        except Exception as e:            # one bad message must not stop the venue
            log.exception("venue service: %r", e)
