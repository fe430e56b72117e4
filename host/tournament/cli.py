"""`billiards venue run|token` and `billiards tournament create|show|list|start|report|move|
ratings|league|standings` (docs/tournament.md). The commands read and write the venue's SQLite
file directly; a running `venue run` notices their changes at once."""
import json
import os
import re
import signal
import sys

from host.tournament import brackets, model, ratings, races, seeding, store as store_mod
from host.tournament.schedule import TABLE_ID


def _db_arg(p):
    p.add_argument("--db", default=None, metavar="FILE",
                   help="the venue's tournament database (default ./journal/venue/tournament.sqlite3, "
                   "beside the tables' history)")


def add_parsers(sub):
    v = sub.add_parser("venue", help="the venue service: tournaments and queues the tables fill in")
    vs = v.add_subparsers(dest="venue_command", required=True)
    r = vs.add_parser("run", help="run the venue service (one per venue, on the tables' broker)")
    r.add_argument("--broker", default="mqtt://127.0.0.1:1883",
                   help="mqtt://[USER@]HOST:PORT or mqtts://... (default mqtt://127.0.0.1:1883; the "
                   "venue account is `venue`); the password in --broker-password-file or "
                   "BILLIARDS_BROKER_PASSWORD")
    r.add_argument("--broker-password-file", metavar="FILE",
                   help="file whose first line is the broker password (e.g. a systemd credential)")
    _db_arg(r)
    r.add_argument("--http", type=int, default=None, metavar="PORT",
                   help="port of the venue's pages: /tournament/<id> for the TV, /director, /ratings, "
                   "/queue/<table> (default: no pages)")
    r.add_argument("--http-bind", default="lan", metavar="ADDRESS",
                   help="'lan' (default): every interface, serving only this machine and private "
                   "networks; or an address to bind")
    r.add_argument("--public-url", default=None, metavar="URL",
                   help="address phones use to reach --http, for the QR codes (default: this "
                   "machine's LAN address and --http)")
    r.add_argument("--venue", default="venue", help="the venue's id in topics and Home Assistant "
                   "(default venue)")
    r.add_argument("--name", default=None, help="the venue's name in Home Assistant")
    r.add_argument("--prefix", default="billiards", help="the tables' topic prefix (default billiards)")
    r.add_argument("--discovery-prefix", default="homeassistant",
                   help="Home Assistant discovery prefix, or 'none' (default homeassistant)")
    r.add_argument("--lang", default="en", choices=("en", "ru"), help="pages' default language")
    r.add_argument("--ca-file", help="CA certificate for mqtts:// with a private CA")
    r.add_argument("--insecure", action="store_true", help="mqtts:// without certificate checks")
    from host.logs import LEVELS
    r.add_argument("--log-level", default="info", choices=LEVELS, help="default info")
    tk = vs.add_parser("token", help="print (or --rotate) the director's token for /director")
    _db_arg(tk)
    tk.add_argument("--rotate", action="store_true", help="make a new token (the old one stops working)")

    t = sub.add_parser("tournament", help="create, show, start and correct tournaments")
    ts = t.add_subparsers(dest="tournament_command", required=True)
    c = ts.add_parser("create", help="a new tournament; prints its id")
    c.add_argument("name")
    c.add_argument("--game", default="nine-ball", choices=races.GAMES)
    c.add_argument("--format", default="single", choices=brackets.FORMATS)
    c.add_argument("--race", type=int, required=True,
                   help="games each match is played to (points in straight pool)")
    c.add_argument("--race-final", type=int, default=None, help="the final's race (default --race)")
    c.add_argument("--round-race", default="", metavar="ROUND=N,...",
                   help="race per round, by round key: W1=2,L1=2,GF=5 (docs/tournament.md)")
    c.add_argument("--players", required=True, help='"Anna,Bob,Cid,..." (in seed order with --seed hand)')
    c.add_argument("--tables", required=True, help="t1,t2: the tables it is played on")
    c.add_argument("--seed", default="hand", choices=seeding.METHODS,
                   help="random, rating (best first) or hand (as listed; default)")
    c.add_argument("--seed-number", type=int, default=None, help="the random seeding's seed (default: any)")
    c.add_argument("--groups", type=int, default=2, help="--format groups: number of groups (default 2)")
    c.add_argument("--advance", type=int, default=2, help="--format groups: players through per group")
    c.add_argument("--league", type=int, default=None, help="a night of this league (its id)")
    c.add_argument("--handicap", type=int, nargs="?", const=races.HANDICAP_STEP, default=None, metavar="STEP",
                   help="races by rating: the weaker player needs one game less per STEP rating points "
                        "(default %d) between the two, fixed when the match goes to its table" % races.HANDICAP_STEP)
    c.add_argument("--winner-breaks", action="store_true",
                   help="house rule: the winner of a rack breaks the next (default: the seed's rule, the "
                        "breaks alternate and the deciding rack is lagged for)")
    _db_arg(c)
    s = ts.add_parser("show", help="a tournament's matches and winner")
    s.add_argument("id", type=int)
    s.add_argument("--json", action="store_true", help="print JSON (docs/tournament.md)")
    _db_arg(s)
    li = ts.add_parser("list", help="every tournament")
    li.add_argument("--json", action="store_true")
    _db_arg(li)
    st = ts.add_parser("start", help="start: the service sends the first matches to free tables")
    st.add_argument("id", type=int)
    _db_arg(st)
    rp = ts.add_parser("report", help="the director's result for a match (correction, ruling, walkover)")
    rp.add_argument("id", type=int)
    rp.add_argument("match", help="the match id, e.g. W1.2 (show lists them)")
    rp.add_argument("--winner", required=True, help="the winner's name")
    rp.add_argument("--score", default=None, metavar="X-Y", help="the score in the match's player order")
    rp.add_argument("--walkover", action="store_true", help="the other player did not show up")
    _db_arg(rp)
    ro = ts.add_parser("reopen", help="take a match's result back: it is played again")
    ro.add_argument("id", type=int)
    ro.add_argument("match")
    _db_arg(ro)
    mv = ts.add_parser("move", help="move a match to another table")
    mv.add_argument("id", type=int)
    mv.add_argument("match")
    mv.add_argument("--table", required=True)
    _db_arg(mv)
    ra = ts.add_parser("ratings", help="every player's Glicko-2 rating")
    ra.add_argument("--json", action="store_true")
    _db_arg(ra)
    lg = ts.add_parser("league", help="create a league (a season of nights); prints its id")
    lg.add_argument("name")
    lg.add_argument("--win-points", type=int, default=1, help="points per match won (default 1)")
    lg.add_argument("--slug", default=None,
                    help="the league's id across venues (default: made from NAME, e.g. winter-league); "
                         "give the same slug at every venue of the league")
    _db_arg(lg)
    sd = ts.add_parser("standings", help="a league's standings over all its nights")
    sd.add_argument("league", help="the league's id here, or its slug")
    sd.add_argument("--json", action="store_true")
    _db_arg(sd)


def _store(args):
    return store_mod.Store(args.db or store_mod.default_db())


def _fail(msg, code=2):
    print("billiards: %s" % msg, file=sys.stderr)
    return code


def _round_races(text):
    out = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        k, _, v = part.partition("=")
        if not k or not v.isdigit():
            raise ValueError("--round-race takes ROUND=N pairs, e.g. W1=2,GF=5")
        out[k.strip()] = int(v)
    return out


def create(args, st):
    names = seeding.told_apart(seeding.clean_names(args.players))
    if len(names) < 2:
        raise ValueError("a tournament needs two players or more")
    tables = [x.strip() for x in args.tables.split(",") if x.strip()]
    if not tables or not all(TABLE_ID.match(x) for x in tables):
        raise ValueError("--tables: table ids of letters, digits, '-' and '_', comma separated")
    per_round = _round_races(args.round_race)
    for r in [args.race, args.race_final] + list(per_round.values()):
        if r is not None:
            races.check(args.game, r)
    if getattr(args, "handicap", None) is not None:
        races.check_handicap(args.game, args.handicap)
    brackets.build(args.format, len(names), args.groups, args.advance)       # refuses what cannot be built
    rated = {n: p["rating"] for n, p in ratings.fold(st.rated_matches()).items()} if args.seed == "rating" else None
    rng = args.seed_number if args.seed_number is not None else int.from_bytes(os.urandom(4), "big")
    order = seeding.seed_order(names, args.seed, rated, rng)
    if args.league is not None and args.league not in [l["id"] for l in st.leagues()]:
        raise ValueError("no league %d (billiards tournament league NAME makes one)" % args.league)
    return st.create(args.name, args.game, args.format, args.race, [names[i] for i in order], tables,
                     args.seed, args.race_final, per_round,
                     _options(args), args.league)


def _options(args):
    """The tournament's options: groups and advance (--format groups), and the house rule
    `winner_breaks` (sent to the tables with each match: docs/tournament.md)."""
    o = {"groups": args.groups, "advance": args.advance}
    if getattr(args, "winner_breaks", False):
        o["winner_breaks"] = True
    if getattr(args, "handicap", None) is not None:
        o["handicap"] = args.handicap
    return o


def _show_text(shown):
    lines = ["%s (#%d): %s, %s, %s%s" % (shown["name"], shown["id"], shown["format"], shown["game"],
                                         shown["status"], ", winner %s" % shown["winner"] if shown["winner"] else "")]
    for m in shown["matches"]:
        p = [x or "?" for x in m["players"]]
        score = "-".join(map(str, m["score"])) if m["score"] else ""
        lines.append("  %-7s %-20s %-32s %-8s %-6s %s" % (m["id"], m["label"], " v ".join(p), m["status"],
                                                         m["table"] or "", score))
    return "\n".join(lines)


def cmd_tournament(args):
    st = _store(args)
    try:
        return _tournament(args, st)
    except ValueError as e:
        return _fail(str(e))
    finally:
        st.close()


def _tournament(args, st):
    from host.tournament.service import VenueService, director_reopen, director_report
    c = args.tournament_command
    if c == "create":
        print(create(args, st))
        return 0
    if c == "list":
        rows = [model.show(st.tournament(i)) for i in st.ids()]
        if args.json:
            print(json.dumps([{k: r[k] for k in ("id", "name", "format", "game", "status", "winner")} for r in rows],
                             ensure_ascii=False))
        else:
            for r in rows:
                print("%4d  %-30s %-12s %-13s %-9s %s" % (r["id"], r["name"], r["format"], r["game"], r["status"],
                                                          r["winner"] or ""))
        return 0
    if c in ("league", "standings", "ratings"):
        return _season(args, st, VenueService)
    t = st.tournament(args.id)
    if t is None:
        return _fail("no tournament %d" % args.id)
    if c == "show":
        shown = model.show(t)
        print(json.dumps(shown, ensure_ascii=False) if args.json else _show_text(shown))
        return 0
    if c == "start":
        if t["status"] != "waiting":
            return _fail("tournament %d is already %s" % (args.id, model.status(t)))
        st.start(args.id)
        print("tournament %d started" % args.id)
        return 0
    if c == "report":
        score = None
        if args.score:
            m = re.match(r"^\s*(\d{1,4})\s*[-:]\s*(\d{1,4})\s*$", args.score)
            if not m:
                return _fail("--score is X-Y, e.g. 3-1")
            score = [int(m.group(1)), int(m.group(2))]
        how = "walkover" if args.walkover else "correction"
        ok, msg = director_report(st, args.id, args.match, args.winner, score, how, st.clock())
        print(msg) if ok else None
        return 0 if ok else _fail(msg)
    if c == "reopen":
        ok, msg = director_reopen(st, args.id, args.match)
        print(msg) if ok else None
        return 0 if ok else _fail(msg)
    if c == "move":
        svc = VenueService(st, lambda *a: None)
        ok, msg = svc.move(args.id, args.match, args.table)
        print(msg) if ok else None
        return 0 if ok else _fail(msg)
    return 2


def _season(args, st, service_cls):
    if args.tournament_command == "league":
        print(st.create_league(args.name, args.win_points, args.slug))
        return 0
    svc = service_cls(st, lambda *a: None)
    if args.tournament_command == "ratings":
        rows = ratings.table(svc.ratings())
        if args.json:
            print(json.dumps(rows, ensure_ascii=False))
        else:
            for r in rows:
                print("%-32s %5d ±%-4d %3d matches, %d won" % (r["name"], r["rating"], r["rd"], r["matches"], r["wins"]))
        return 0
    lg = svc.league(int(args.league) if args.league.isdigit() else args.league)
    if lg is None:
        return _fail("no league %s" % args.league)
    out = [{"name": n, **{k: r[k] for k in ("rank", "played", "won", "lost", "points", "racks_for", "racks_against")}}
           for r in lg["rows"] for n in [r["player"]]]
    if args.json:
        print(json.dumps({"league": lg["league"], "nights": lg["nights"], "venues": lg["venues"], "standings": out},
                         ensure_ascii=False))
    else:
        for r in out:
            print("%2d. %-32s %3d pts  %d-%d  racks %d-%d" % (r["rank"], r["name"], r["points"], r["won"], r["lost"],
                                                              r["racks_for"], r["racks_against"]))
    return 0


def cmd_venue(args):
    if args.venue_command == "token":
        from host.web.access import TokenStore
        db = args.db or store_mod.default_db()
        tokens = TokenStore(os.path.dirname(os.path.abspath(db)), "director")
        print(tokens.rotate() if args.rotate else tokens.current())
        return 0
    return run_venue(args)


def run_venue(args):
    from host.cli import _set_broker_password
    from host.logs import setup_logging
    from host.mqtt import MqttShell, parse_broker
    from host.tournament.service import VenueService, run
    setup_logging(args.log_level)
    try:
        broker = parse_broker(args.broker)
        _set_broker_password(broker, args)
    except (ValueError, OSError) as e:
        return _fail(str(e))
    import queue
    st = _store(args)
    q = queue.Queue()
    holder = {}

    def send(topic, payload, retain):
        holder["shell"].publish([(topic, payload, retain)])
    svc = VenueService(st, send, venue=args.venue, prefix=args.prefix,
                       discovery_prefix=None if args.discovery_prefix == "none" else args.discovery_prefix,
                       name=args.name)
    shell = MqttShell(broker, "billiards-venue-%s-%d" % (args.venue, os.getpid()), svc.will(), q,
                      svc.subscriptions(), ca_file=args.ca_file, insecure=args.insecure)
    holder["shell"] = shell
    svc.subscribe = shell.subscribe          # a league made meanwhile: other venues' results of it
    web = None
    if args.http:
        from host.tournament.web import start_pages
        web = start_pages(svc, args.http, args.http_bind, args.public_url, args.lang, st.path)
        svc.url = web.base_url
    shell.start()
    print("billiards: venue service on %s:%d, database %s%s" % (
        broker["host"], broker["port"], st.path, ", pages %s" % web.base_url if web else ""), file=sys.stderr)
    stopping = []
    signal.signal(signal.SIGINT, lambda *a: stopping.append(1))
    signal.signal(signal.SIGTERM, lambda *a: stopping.append(1))
    try:
        run(svc, shell, lambda: bool(stopping))
    finally:
        shell.stop([(svc.out_topic("status"), "offline", True)])
        if web is not None:
            web.stop()
        st.close()
    return 0
