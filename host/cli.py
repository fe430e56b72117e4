"""`billiards` command line (CONTRACT section 3): run, replay, coverage, history; token (the phone page);
camera analyse (docs/camera.md)."""
import argparse
import json
import os
import signal
import sys


def _players(text):
    names = [p.strip() for p in text.split(",")]
    if len(names) != 2 or not all(names):
        raise argparse.ArgumentTypeError("give two names separated by a comma, e.g. Anna,Bob")
    return names


def build_parser():
    p = argparse.ArgumentParser(prog="billiards",
                                description="The referee inside a smart pool table.")
    from host.outputs import _version         # the version Home Assistant and …/info show
    from host.camera.ends import SIDES as HEAD_SIDES   # pure: no OpenCV is imported for it
    p.add_argument("--version", action="version", version="billiards-referee %s" % _version())
    sub = p.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", help="run the daemon for one table")
    r.add_argument("--serial", help="serial port or URL (/dev/billiards-t1, /dev/ttyACM0, "
                   "socket://HOST:PORT, loop://); without it a simulated table plays, but only on the "
                   "embedded defaults (no --broker) or with --simulate")
    r.add_argument("--simulate", action="store_true",
                   help="play a simulated table (no --serial) even on the --broker given: a demo; "
                   "its state says link.simulated: true")
    r.add_argument("--broker", help="mqtt://[USER@]HOST:PORT or mqtts://[USER@]HOST:PORT; without it "
                   "127.0.0.1:1883, started embedded if nothing listens there. Put the password in "
                   "--broker-password-file or BILLIARDS_BROKER_PASSWORD, not here (ps shows it)")
    r.add_argument("--broker-password-file", metavar="FILE",
                   help="file whose first line is the broker password (e.g. a systemd credential)")
    r.add_argument("--table", default="t1", help="table id (topic billiards/<table>/...; default t1)")
    r.add_argument("--journal", default="journal", help="journal directory (default ./journal)")
    r.add_argument("--prefix", default="billiards", help="first word of the MQTT topics (default billiards)")
    from shared_rules.rules.games import GAMES
    r.add_argument("--game", default="eight-ball", choices=GAMES,
                   help="game started when the journal has none (default eight-ball)")
    r.add_argument("--players", type=_players, default=["Player 1", "Player 2"],
                   help="two player names, comma separated (default \"Player 1,Player 2\")")
    r.add_argument("--quiet-s", type=float, default=3.0,
                   help="seconds of quiet that end a shot on tables without a motion sensor (default 3)")
    r.add_argument("--http", type=int, default=None, metavar="PORT",
                   help="port of the TV page server, e.g. 8080 (default: no server); it also serves the "
                   "phone page /play, /venue and /history")
    r.add_argument("--play-url", default=None, metavar="URL",
                   help="address phones use to reach --http, for the QR code (e.g. "
                   "http://192.168.1.20:8080); default: this machine's LAN address")
    r.add_argument("--http-bind", default="lan", metavar="ADDRESS",
                   help="address of the TV page server: 'lan' (default) listens on every interface "
                   "and serves only this machine and private networks (10/8, 172.16/12, 192.168/16, "
                   "link-local, 100.64/10, fc00::/7); an address (127.0.0.1, 192.168.1.20, 0.0.0.0) "
                   "binds exactly that and serves whoever reaches it")
    r.add_argument("--tv-address", default=None, metavar="ADDRESS[,ADDRESS...]",
                   help="the TV pages' addresses or networks (e.g. 192.168.1.50 or 192.168.50.0/24): "
                   "they alone get the QR code with the table's token (/play/qr.svg, /play/sticker), "
                   "may rotate it over the API, and keep their live stream when many phones open "
                   "theirs; this machine always does; 'any' gives the QR code to every client")
    r.add_argument("--venue-url", default=None, metavar="URL",
                   help="the venue service's pages (billiards venue run --http; docs/tournament.md): "
                   "the phone page's 'join the queue' leads to URL/queue/<table> (default: "
                   "$BILLIARDS_VENUE_URL, or none)")
    r.add_argument("--ca-file", help="CA certificate for mqtts:// with a private CA")
    r.add_argument("--insecure", action="store_true", help="mqtts:// without certificate checks")
    r.add_argument("--sim-speed", type=float, default=1.0,
                   help="simulated table only: time factor (2 = twice as fast; default 1)")
    r.add_argument("--sim-seed", type=int, default=None, help="simulated table only: random seed")
    r.add_argument("--no-console", action="store_true", help="do not show the live status line")
    r.add_argument("--lang", choices=("en", "ru"), default="en", help="language of the LED display text (default en)")
    r.add_argument("--awtrix", metavar="PREFIX", default=None,
                   help="also drive an AWTRIX 3 clock listening under this MQTT prefix; set the "
                   "clock's prefix to one under awtrix/ (e.g. awtrix/t1), which the venue ACL lets "
                   "the daemon publish (awtrix/#)")
    r.add_argument("--discovery-prefix", default="homeassistant",
                   help="Home Assistant discovery prefix (default homeassistant); 'none' turns discovery off")
    r.add_argument("--name", default=None, metavar="TEXT",
                   help='the table\'s name in Home Assistant, e.g. "Table by the window" '
                   '(default: Pool table <table>)')
    r.add_argument("--history-db", default=None, metavar="FILE",
                   help="SQLite file of finished matches (default: venue/history.sqlite3 in the journal directory)")
    from host.logs import LEVELS
    r.add_argument("--log-level", choices=LEVELS, default="info",
                   help="least important log line shown (default info; stderr; no time stamps under systemd)")
    r.add_argument("--serial-dtr", choices=("on", "off"), default="on",
                   help="DTR line while the port is open (default on: with RTS also on, an ESP32 "
                   "DevKit's auto-reset circuit does not reset the board)")
    r.add_argument("--serial-rts", choices=("on", "off"), default="on",
                   help="RTS line while the port is open (default on, see --serial-dtr)")
    r.add_argument("--journal-keep", type=int, default=None, metavar="N",
                   help="closed match files kept (compressed) in <journal>/<table>/; default all")
    r.add_argument("--journal-segment-entries", type=int, default=None, metavar="N",
                   help="a journal file is closed after this many entries even mid-match "
                   "(default 8000)")
    r.add_argument("--shot-clock", type=int, default=None, metavar="SECONDS",
                   help="shot clock for every game (GEN.SLOW-PLAY), e.g. 60; a new_game body may set its own")
    r.add_argument("--camera", default=None, metavar="SOURCE",
                   help="the overhead camera (docs/camera.md): a V4L2 device (0, /dev/video0), an "
                   "rtsp:// or http:// stream, picamera2 (Raspberry Pi), or a video file played in "
                   "real time; its facts judge first contacts, cushions and breaks (default: no camera; "
                   "needs the camera extra)")
    r.add_argument("--camera-corners", default=None, metavar='"x,y x,y x,y x,y"',
                   help="the camera's image pixels of the cushion-nose corners: head-left, head-right, "
                   "foot-right, foot-left (default: found in the picture; the calibration view /camera "
                   "shows them)")
    r.add_argument("--camera-head", default=None, choices=list(HEAD_SIDES),
                   help="where the table's head end is in the camera's picture (default: told from the "
                   "picture, a rack or the foot spot; the image's left when it shows neither); ignored "
                   "with --camera-corners")
    r.add_argument("--camera-table", default="auto", metavar="SIZE",
                   help="the playing area the camera sees: 7ft, 8ft, 9ft or LENGTHxWIDTH in mm "
                   "(default auto: from the balls' size)")
    hp = sub.add_parser("history", help="finished matches and per-player totals (what /history shows)")
    hp.add_argument("--journal", default="journal", help="journal directory (default ./journal)")
    hp.add_argument("--history-db", default=None, metavar="FILE",
                    help="SQLite file (default: venue/history.sqlite3 in the journal directory)")
    hp.add_argument("--rebuild", action="store_true",
                    help="empty the database and fold every journal in the directory again")
    hp.add_argument("--limit", type=int, default=20, help="recent matches shown (default 20)")
    hp.add_argument("--json", action="store_true", help="print the figures as JSON")
    tk = sub.add_parser("token", help="print (or --rotate) the table's phone-page access token and URL")
    tk.add_argument("--journal", default="journal", help="journal directory (the token is kept there)")
    tk.add_argument("--table", default="t1", help="table id")
    tk.add_argument("--rotate", action="store_true",
                    help="make a new token: phones holding the old one must scan again")
    tk.add_argument("--http", type=int, default=8080, help="port of the daemon's --http server")
    tk.add_argument("--play-url", default=None, metavar="URL",
                    help="address phones use (default: this machine's LAN address and --http)")
    rp = sub.add_parser("replay", help="judge a journal and print the final state as JSON")
    rp.add_argument("file", help="a journal file (<dir>/<table>.jsonl, or a closed match "
                    "<dir>/<table>/NNNNNN.jsonl.gz): that file's final state; or the journal "
                    "directory with --table: the table's current state")
    rp.add_argument("--table", default=None, help="table id (default: the file name)")
    sub.add_parser("coverage", help="rule clause coverage report", add_help=False)
    from host.tournament.cli import add_parsers as tournament_parsers   # venue run, tournament ...
    tournament_parsers(sub)
    from host.camera.cli import add_parser as add_camera_parser
    add_camera_parser(sub)
    return p


def cmd_replay(args):
    from host.journal import journal_path
    from host.fold import fold_files, head_table, new_referee
    path = args.file
    if os.path.isdir(path):
        if not args.table:
            print("billiards replay: %s is a directory: name the table with --table" % path,
                  file=sys.stderr)
            return 2
        path = journal_path(path, args.table)
    ref = new_referee(args.table or "t1")
    try:
        fold = fold_files([path], ref)
    except (OSError, EOFError) as e:
        print("billiards replay: %s" % e, file=sys.stderr)
        return 2
    name = os.path.basename(path).split(".")[0]
    table = args.table or head_table(fold.head) or name
    ref.table = table
    state = ref.state()
    state["table"] = table
    state["link"] = {"state": "down", "dropped": 0, "corrupt": 0,   # same shape as …/state
                     "simulated": False}
    print(json.dumps(state, indent=2, ensure_ascii=False, sort_keys=True))
    return 0


def cmd_history(args):
    from host import history
    db_path = args.history_db or history.default_db(args.journal)
    if (args.rebuild or not args.history_db) and not os.path.isdir(args.journal):
        # A mistyped --journal would otherwise make an empty database there and say "none yet".
        print("billiards history: no journal directory %s (give the daemon's --journal DIR)"
              % args.journal, file=sys.stderr)
        return 2
    if args.rebuild:
        n = history.rebuild(db_path, args.journal)
        print("billiards history: %d finished matches rebuilt from %s into %s" % (n, args.journal, db_path),
              file=sys.stderr)
    try:
        db = history.HistoryDB(db_path)
    except Exception as e:
        print("billiards history: %s: %s" % (db_path, e), file=sys.stderr)
        return 2
    try:
        rep = history.report(db, args.limit)
    finally:
        db.close()
    if args.json:
        print(json.dumps(rep, indent=2, ensure_ascii=False, sort_keys=True))
    else:
        sys.stdout.write(history.render_text(rep))
    return 0


def cmd_token(args):
    from host.web.access import TokenStore, lan_address, play_url
    store = TokenStore(args.journal, args.table)
    token = store.rotate() if args.rotate else store.current()
    base = args.play_url or "http://%s:%d" % (lan_address(), args.http)
    print(play_url(base, token))
    print("billiards: token %s in %s" % ("rotated" if args.rotate else "kept", store.path),
          file=sys.stderr)
    return 0


def _play_routes(daemon, journal_dir, base_url, venue_url=None):
    """The phone page: the table's token from the journal directory; commands go through the
    daemon's queue (Daemon.request_command), never straight to the referee."""
    from host.web.access import TokenStore
    from host.web.play import PlayRoutes
    tokens = TokenStore(journal_dir, daemon.table)
    tokens.current()                      # created (0600) at start, not at the first scan
    return PlayRoutes(daemon.table, tokens, daemon.request_command, base_url=base_url, venue_url=venue_url)


def _http_address(bind):
    """(host, local_only) for `--http-bind`: 'lan' is every interface, private clients only."""
    if bind == "lan":
        return "0.0.0.0", True
    return bind, False


def _start_http(daemon, port, pages=(), journal_dir="journal", base_url=None, bind="lan", tv=None,
                venue_url=None):
    """The TV page server (host/web) on `port`, fed every state through `daemon.listeners`,
    with the phone page /play; `tv`: --tv-address (ip networks besides this machine)."""
    try:
        from host.web.server import ScoreboardServer
        play = _play_routes(daemon, journal_dir, base_url, venue_url)
    except ImportError as e:
        print("billiards: --http %d ignored: the web pages cannot load (%s)" % (port, e),
              file=sys.stderr)
        return None
    try:
        host, local_only = _http_address(bind)
        server = ScoreboardServer(host=host, port=port, play=play, local_only=local_only, tv=tv)
        for page in pages:
            server.add_page(page)
        server.start()
    except OSError as e:
        print("billiards: --http %d: %s" % (port, e), file=sys.stderr)
        return None
    daemon.listeners.append(server.publish)      # (state, events): the pages' state and shot log
    if daemon.state is not None:
        server.publish(daemon.state)
    print("billiards: TV page on %s; phone page %splay (its QR code with the token is on the TV "
          "page; `billiards token --journal %s --table %s` prints the URL)%s"
          % (server.url, server.url, journal_dir, daemon.table,
             "; this machine and private networks only, --http-bind to change" if bind == "lan" else ""),
          file=sys.stderr)
    return server


def _tv_url(args, broker):
    """The TV page's address as Home Assistant will reach it (device configuration_url), or None.

    A page bound to every interface is named by the address this machine uses to reach the
    broker, which is where Home Assistant lives too (a UDP connect sends nothing); when that is
    a loopback address (the broker on this machine, the README's set-up), by this machine's LAN
    address: the `info` message's links are followed by phones too, and no phone can follow
    127.0.0.1 (issue 17)."""
    if not args.http:
        return None
    if getattr(args, "play_url", None):           # the address given for phones (--play-url)
        return args.play_url.rstrip("/") + "/"
    host = getattr(args, "http_bind", None)
    if not host or host in ("0.0.0.0", "::", "lan"):
        import socket
        try:
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
                s.connect((broker["host"], broker["port"]))
                host = s.getsockname()[0]
        except OSError:
            host = socket.gethostname()
        from host.web.venue import is_loopback_host
        if is_loopback_host(host):
            from host.web.access import lan_address
            host = lan_address()
    if ":" in host:
        host = "[%s]" % host
    return "http://%s:%d/" % (host, args.http)


def _simulation_refusal(args):
    """Why this run must not start, or None: a simulated table publishes made-up games, so it
    runs on the embedded defaults (no --broker) or when asked for with --simulate, never by
    forgetting --serial while pointing at a venue's broker."""
    if args.serial and args.simulate:
        return "--simulate and --serial exclude each other: --serial is a real board"
    if args.broker and not args.serial and not args.simulate:
        return ("--broker %s without --serial: refusing to start, a simulated table would publish "
                "made-up games on that broker as if they were real. Give --serial PORT for the "
                "table's board (e.g. --serial /dev/billiards-%s), or --simulate for a demo."
                % (_without_password(args.broker), args.table))
    return None


def _without_password(url):
    """The broker URL as safe to print: any password replaced by ***."""
    import urllib.parse
    u = urllib.parse.urlsplit(url if "://" in url else "mqtt://" + url)
    if u.password is None:
        return url
    netloc = "%s:***@%s" % (u.username or "", u.netloc.rsplit("@", 1)[1])
    return urllib.parse.urlunsplit((u.scheme, netloc, u.path, u.query, u.fragment))


def _set_broker_password(broker, args, environ=os.environ):
    """The broker password from --broker-password-file, else BILLIARDS_BROKER_PASSWORD, else the
    URL (with a warning: `ps` and /proc/PID/cmdline show the command line to every user)."""
    from_env = environ.pop("BILLIARDS_BROKER_PASSWORD", None)     # not inherited by children
    if broker.get("password") is not None:
        print("billiards: warning: the broker password is on the command line, where ps shows it "
              "to every user; use --broker-password-file FILE or BILLIARDS_BROKER_PASSWORD",
              file=sys.stderr)
    if args.broker_password_file:
        with open(args.broker_password_file, encoding="utf-8") as f:
            lines = f.read().splitlines()
        if not lines or not lines[0]:
            raise ValueError("--broker-password-file %s: the first line is empty"
                             % args.broker_password_file)
        broker["password"] = lines[0]
    elif from_env:
        broker["password"] = from_env
    if broker.get("password") is not None and not broker.get("username"):
        raise ValueError("a broker password needs a user name: --broker mqtt://USER@HOST:PORT")


def cmd_run(args):
    from host.daemon import Daemon
    from host.console import terminal_printer
    from host.mqtt import MqttShell, parse_broker
    from host.broker import listening, EmbeddedBroker
    from host.lock import TableLock, TableBusy
    from host.logs import setup_logging

    refusal = _simulation_refusal(args)
    if refusal:
        print("billiards: %s" % refusal, file=sys.stderr)
        return 2
    try:
        from host.web.access import tv_networks
        tv = tv_networks(args.tv_address)
    except ValueError as e:
        print("billiards: --tv-address %s: %s" % (args.tv_address, e), file=sys.stderr)
        return 2
    edge = None
    if args.camera:                 # refused before anything starts, like a bad --tv-address
        edge = _camera_edge(args)
        if edge is None:
            return 2
    if args.awtrix and args.awtrix != "awtrix" and not args.awtrix.startswith("awtrix/"):
        print("billiards: warning: --awtrix %s: the venue ACL (hardware/mosquitto/acl) lets the "
              "daemon publish under awtrix/# only; set the clock's prefix to e.g. awtrix/%s"
              % (args.awtrix, args.table), file=sys.stderr)

    # One daemon per table, decided before anything is connected or published.
    lock = TableLock(args.journal, args.table)
    try:
        lock.acquire()
    except TableBusy as e:
        print("billiards: %s" % e, file=sys.stderr)
        return 3
    except OSError as e:      # e.g. a full disk on the very first start: serve, but say so
        print("billiards: no table lock %s (%s): nothing stops a second daemon" % (lock.path, e),
              file=sys.stderr)
    console = None if args.no_console else terminal_printer()
    setup_logging(args.log_level, console)
    embedded = None
    if args.broker:
        try:
            broker = parse_broker(args.broker)
            _set_broker_password(broker, args)
        except (ValueError, OSError) as e:
            print("billiards: %s" % e, file=sys.stderr)
            return 2
    else:
        broker = {"host": "127.0.0.1", "port": 1883, "tls": False, "username": None,
                  "password": None}
        if not listening("127.0.0.1", 1883):
            embedded = EmbeddedBroker("127.0.0.1", 1883)
            try:
                embedded.start()
            except RuntimeError as e:
                print("billiards: %s" % e, file=sys.stderr)
                return 2
            print("billiards: started an embedded MQTT broker on 127.0.0.1:1883", file=sys.stderr)
        else:       # say which broker, so nobody wonders where the state goes
            print("billiards: MQTT broker 127.0.0.1:1883 (one listens there already; --broker for "
                  "another)", file=sys.stderr)

    sim = None
    serial_url = args.serial
    if not serial_url:
        from host.sim.board import start_simulated_table
        sim = start_simulated_table(speed=args.sim_speed, seed=args.sim_seed)
        serial_url = sim.url
        print("billiards: no --serial: a SIMULATED table plays on %s (state link.simulated: true)"
              % serial_url, file=sys.stderr)

    from host.outputs.venue import Venue
    from host import history
    from host.recorder import MatchRecorder
    from host.journal import table_files
    venue = Venue()
    db_path = args.history_db or history.default_db(args.journal)
    if sim is not None:     # said in Home Assistant too, so nobody takes the demo for a table
        args.name = "%s (simulated)" % (args.name or "Pool table %s" % args.table)
    daemon = Daemon(args.table, serial_url, journal_dir=args.journal, prefix=args.prefix,
                    game=args.game, players=args.players, quiet_s=args.quiet_s, console=console,
                    output_options={"lang": args.lang, "awtrix": args.awtrix,
                                    "discovery_prefix": None if args.discovery_prefix == "none"
                                    else args.discovery_prefix,
                                    "device_name": args.name,
                                    "configuration_url": _tv_url(args, broker),
                                    "venue": venue},
                    shot_clock_s=args.shot_clock, journal_keep=args.journal_keep,
                    segment_entries=args.journal_segment_entries,
                    serial_dtr=args.serial_dtr == "on", serial_rts=args.serial_rts == "on",
                    simulated=sim is not None)
    for o in daemon.outputs:
        if hasattr(o, "board_info"):        # Home Assistant shows the board and its firmware
            o.board_info = lambda: daemon.session.hello
    if edge is not None:
        edge.put = daemon.queue.put
        daemon.camera.attach(edge)
    n = daemon.start_journal()
    if n:
        print("billiards: replayed %d journal entries from %s" % (n, daemon.journal.path),
              file=sys.stderr)
    shell = MqttShell(broker, client_id(args.table), daemon.will(),
                      daemon.queue, daemon.subscriptions(), ca_file=args.ca_file,
                      insecure=args.insecure, commands=daemon.base + "/cmd/",
                      mqtt5=embedded is None)
    daemon.attach_mqtt(shell)
    shell.start()
    recorder = MatchRecorder(args.table, db_path, lambda: table_files(daemon.journal.path), publish=shell.publish,
                             prefix=args.prefix)
    daemon.listeners.append(recorder)
    daemon.outputs.append(recorder)
    recorder.start(daemon.state)
    if edge is not None:
        edge.start()
        print("billiards: camera %s%s" % (args.camera, "; its calibration view is /camera on the TV page"
                                          if args.http else ""), file=sys.stderr)
    http = None
    if args.http:
        from host.web.venue import VenuePages
        http = _start_http(daemon, args.http, pages=[VenuePages(venue, db_path, public_url=args.play_url)],
                           journal_dir=args.journal, base_url=args.play_url, bind=args.http_bind,
                           tv=tv, venue_url=args.venue_url)
        if http is not None and edge is not None:
            from host.web.camera_view import CameraView       # the installer's calibration view
            http.add_page(CameraView(edge))

    def stop(signum, frame):
        daemon.stopping = True

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    try:
        daemon.run()
    finally:
        if edge is not None:
            edge.stop()
        daemon.close()
        recorder.stop()
        if http is not None:
            http.stop()
        if sim is not None:
            sim.stop()
        if embedded is not None:
            embedded.stop()
        lock.release()
    return 0


def _camera_edge(args):
    """The camera's thread for --camera (not started), or None after saying why it cannot be."""
    try:
        from host.camera.edge import CameraEdge
        from host.camera.geometry import Table, parse_corners
    except ImportError as e:
        print("billiards: --camera needs OpenCV and NumPy: pip install 'billiards-referee[camera]' (%s)" % e,
              file=sys.stderr)
        return None
    try:
        corners = parse_corners(args.camera_corners) if args.camera_corners else None
        if args.camera_table != "auto":
            Table.named(args.camera_table)
    except ValueError as e:
        print("billiards: --camera: %s" % e, file=sys.stderr)
        return None
    return CameraEdge(args.camera, put=None, corners=corners, table=args.camera_table,
                      head=getattr(args, "camera_head", None))


def client_id(table):
    """The daemon's MQTT client id: the table and a random part. An id another client can guess
    (it was the pid) lets that client disconnect the daemon by connecting with it."""
    import secrets
    return "billiards-%s-%s" % (table, secrets.token_hex(8))


def private_files():
    """Whatever the daemon and its tools create (journals, locks, tokens, history) is for their
    user alone, run by hand as under systemd: 0600 files, 0700 folders. A stricter umask given by
    the caller is kept."""
    os.umask(os.umask(0o077) | 0o077)


def main(argv=None):
    private_files()
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] == "coverage":
        from host.coverage import main as coverage_main
        return coverage_main(argv[1:])
    args = build_parser().parse_args(argv)
    if args.command == "run":
        return cmd_run(args)
    if args.command == "replay":
        return cmd_replay(args)
    if args.command == "history":
        return cmd_history(args)
    if args.command == "token":
        return cmd_token(args)
    if args.command in ("venue", "tournament"):
        from host.tournament import cli as tournament_cli
        return getattr(tournament_cli, "cmd_" + args.command)(args)
    if args.command == "camera":
        from host.camera.cli import cmd_camera
        return cmd_camera(args)
    return 2


if __name__ == "__main__":
    sys.exit(main())
