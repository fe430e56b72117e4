"""`billiards camera analyse VIDEO [--corners "x,y x,y x,y x,y" | --head SIDE] [--table SIZE] [--game G] --json`."""
import json
import sys

from host.camera.ends import SIDES


def add_parser(sub):
    """The `camera` subcommand and its `analyse` (host/cli.py calls this)."""
    cam = sub.add_parser("camera", help="the overhead camera: analyse footage (docs/camera.md)")
    csub = cam.add_subparsers(dest="camera_command", required=True)
    a = csub.add_parser("analyse", help="per-shot facts of a video file, as JSON (docs/camera.md)")
    a.add_argument("video", metavar="VIDEO", help="a video file of the table from above")
    a.add_argument("--corners", metavar='"x,y x,y x,y x,y"',
                   help="image pixels of the playing area's cushion-nose corners: head-left, "
                   "head-right, foot-right, foot-left (default: found in the picture)")
    a.add_argument("--head", choices=list(SIDES),
                   help="where the table's head end is in the picture (default: told from the "
                   "picture, a rack or the foot spot; the image's left when it shows neither); "
                   "ignored with --corners, which name the head already")
    a.add_argument("--table", default="auto", metavar="SIZE",
                   help="playing area: 7ft, 8ft, 9ft or LENGTHxWIDTH in mm (default auto: "
                   "from the balls' size against the table's)")
    a.add_argument("--game", choices=["eightball", "nineball", "straight"],
                   help="the game played: its ball numbers only (nine-ball: 1-9); default: "
                   "any of 1-15")
    a.add_argument("--json", action="store_true",
                   help="print the JSON list of shots (the stable interface); without it, one "
                   "line per shot for people")
    a.add_argument("--facts", action="store_true",
                   help="print each shot's live record with confidences (JSON), as the daemon "
                   "journals it")
    return cam


def cmd_camera(args):
    if args.camera_command == "analyse":
        return cmd_analyse(args)
    return 2


def cmd_analyse(args, out=None):
    out = out or sys.stdout
    try:
        from host.camera.analyse import Analyser
        from host.camera.facts import cli_record, live_dict
        from host.camera.geometry import Table, parse_corners
        from host.camera.sources import FileSource, SourceError
    except ImportError as e:
        print("billiards camera: OpenCV and NumPy are needed: pip install -e '.[camera]' (%s)" % e,
              file=sys.stderr)
        return 2
    try:
        corners = parse_corners(args.corners) if args.corners else None
        if args.table != "auto":
            Table.named(args.table)
        src = FileSource(args.video)
    except (ValueError, SourceError) as e:
        print("billiards camera analyse: %s" % e, file=sys.stderr)
        return 2
    analyser = Analyser(corners=corners, table=args.table, fps=src.fps, clock="video",
                        game=getattr(args, "game", None), head=getattr(args, "head", None))
    shots = []
    try:
        for t, frame in src:
            shots.extend(analyser.feed(t, frame))
        shots.extend(analyser.close())
    except ValueError as e:           # no table in the picture
        print("billiards camera analyse: %s" % e, file=sys.stderr)
        return 2
    finally:
        src.close()
    head = analyser.head_end
    if head is not None and head["found_by"] not in ("--corners", "--head"):
        print("billiards camera analyse: the head end is at the image's %s (%s, confidence %.2f)%s" % (
            head["image_side"], head["found_by"], head["confidence"],
            "; give --head if it is not" if head["found_by"].startswith("assumed") else ""),
            file=sys.stderr)
    if args.facts:
        out.write(json.dumps([live_dict(f) for f in shots], indent=1) + "\n")
    elif args.json:
        out.write(json.dumps([cli_record(f) for f in shots]) + "\n")
    else:
        for f in shots:
            r = cli_record(f)
            out.write("%7.2f-%7.2f s  first %-4s railed %-20s pocketed %s\n" % (
                r["t_start"], r["t_end"], r["first_contact"], r["railed_after_contact"], r["pocketed"]))
        if not shots:
            out.write("no shots\n")
    return 0
