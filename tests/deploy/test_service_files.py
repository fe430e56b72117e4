"""The service files an installer copies (hardware/systemd, hardware/udev) are valid and agree
with the daemon's command line.

The unit is checked by `systemd-analyze verify` (a copy whose ExecStart points at this venv's
`billiards`, since /opt/billiards does not exist here). udev rules: `udevadm verify` when the
installed udev has it (systemd 253 and later); older udev (Debian 12 ships 252) has no offline
checker, so a parser written from udev(7) checks every line's keys, operators and quoting."""
import pathlib
import re
import shlex
import shutil
import subprocess
import sys

import pytest

from host.cli import build_parser

ROOT = pathlib.Path(__file__).resolve().parents[2]
UNIT = ROOT / "hardware" / "systemd" / "billiards@.service"
ENV_EXAMPLE = ROOT / "hardware" / "systemd" / "billiards.env.example"
RULES = ROOT / "hardware" / "udev" / "70-billiards.rules"
BILLIARDS = pathlib.Path(sys.executable).parent / "billiards"


def unit_settings(unit=UNIT):
    out = {}
    for line in unit.read_text().splitlines():
        if "=" in line and not line.startswith(("#", "[")):
            k, v = line.split("=", 1)
            out.setdefault(k, []).append(v)
    return out


def verify(tmp_path, text):
    (tmp_path / "billiards@.service").write_text(text)
    inst = tmp_path / "billiards@t1.service"
    if not inst.exists():
        inst.symlink_to("billiards@.service")
    p = subprocess.run(["systemd-analyze", "verify", str(inst)], capture_output=True, text=True,
                       timeout=60)
    return p.returncode, (p.stdout + p.stderr).strip()


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze not installed")
def test_systemd_analyze_verifies_the_unit_without_a_word(tmp_path):
    assert BILLIARDS.exists()
    text = UNIT.read_text().replace("/opt/billiards/venv/bin/billiards", str(BILLIARDS))
    assert verify(tmp_path, text) == (0, "")
    # ...and it does speak up about a mistake, so the empty answer above means something.
    rc, out = verify(tmp_path, text.replace("Restart=on-failure", "Restart=sometimes"))
    assert out and "restart" in out.lower()


def test_the_unit_is_one_restarting_service_per_table_as_its_own_user():
    s = unit_settings()
    assert s["Restart"] == ["on-failure"]
    assert s["User"] == ["billiards"] and s["Group"] == ["billiards"]
    assert s["StateDirectory"] == ["billiards"]
    assert s["EnvironmentFile"] == ["/etc/billiards/%i.env"]
    assert s["LoadCredential"] == ["broker-password:/etc/billiards/%i.broker-password"]
    assert "dialout" in s["SupplementaryGroups"][0]


def exec_start_words(unit=UNIT, env_file=ENV_EXAMPLE):
    """The unit's ExecStart as systemd runs it with the example env file: ${X} is one word, $X
    splits on spaces; specifiers for table t1."""
    cmd = unit_settings(unit)["ExecStart"][0]
    env = {}
    for line in env_file.read_text().splitlines():
        if "=" in line and not line.startswith("#"):
            k, v = line.split("=", 1)
            env[k] = v
    assert set(re.findall(r"\$\{?(BILLIARDS_[A-Z_]+)", cmd)) <= set(env)
    words = []
    for w in shlex.split(cmd):
        w = w.replace("%i", "t1").replace("%S", "/var/lib").replace("%d", "/run/credentials/x")
        if w.startswith("${"):
            words.append(env[w[2:-1]])
        elif w.startswith("$"):
            words.extend(env[w[1:]].split())
        else:
            words.append(w)
    return words


def test_execstart_uses_only_flags_the_daemon_knows_and_no_password():
    argv = exec_start_words()
    assert argv[0] == "/opt/billiards/venv/bin/billiards" and argv[1] == "run"
    args = build_parser().parse_args(argv[1:])
    assert args.table == "t1" and args.serial == "/dev/billiards-t1"
    assert args.broker == "mqtt://billiards-t1@127.0.0.1:1883"
    assert args.broker_password_file == "/run/credentials/x/broker-password"
    assert args.journal == "/var/lib/billiards" and args.http == 8080
    assert ":" not in args.broker.split("//", 1)[1].split("@")[0], "no password in the URL"


# --- udev -------------------------------------------------------------------------------------

MATCH_KEYS = {"ACTION", "DEVPATH", "KERNEL", "KERNELS", "NAME", "SYMLINK", "SUBSYSTEM", "SUBSYSTEMS",
              "DRIVER", "DRIVERS", "ATTR", "ATTRS", "SYSCTL", "TAG", "TAGS", "ENV", "CONST", "TEST",
              "PROGRAM", "RESULT"}
ASSIGN_KEYS = {"NAME", "SYMLINK", "OWNER", "GROUP", "MODE", "ATTR", "SYSCTL", "ENV", "TAG", "RUN",
               "LABEL", "GOTO", "IMPORT", "OPTIONS", "SECLABEL"}
TOKEN = re.compile(r'\s*([A-Z]+)(\{[^}]+\})?\s*(==|!=|\+=|-=|:=|=)\s*"([^"]*)"\s*(,|$)')


def parse_rule(line):
    """[(key, attr, op, value)] of one rule line, or an AssertionError naming what is wrong."""
    out, pos = [], 0
    while pos < len(line):
        m = TOKEN.match(line, pos)
        assert m, "cannot read %r" % line[pos:]
        key, attr, op, value = m.group(1), m.group(2), m.group(3), m.group(4)
        if op in ("==", "!="):
            assert key in MATCH_KEYS, "%s cannot be matched" % key
        else:
            assert key in ASSIGN_KEYS, "%s cannot be assigned" % key
        if key in ("ATTR", "ATTRS", "ENV", "SYSCTL"):
            assert attr, "%s needs {name}" % key
        out.append((key, attr, op, value))
        pos = m.end()
        if m.group(5) == "":
            break
    return out


def rules():
    return [(n, line) for n, line in enumerate(RULES.read_text().splitlines(), 1)
            if line.strip() and not line.lstrip().startswith("#")]


def test_every_udev_line_parses():
    assert rules()
    for n, line in rules():
        parse_rule(line)


def test_the_parser_catches_the_usual_mistakes():
    for bad in ('SUBSYSTEM="tty", SYMLINK+="x"', 'ATTRS=="x"', 'SUBSYSTEM=="tty" SYMLINK+="x"',
                'SUBSYSTEM=="tty", SYMLINK+=x', 'SUBSYSTEM=="tty", FROB="1"'):
        with pytest.raises(AssertionError):
            parse_rule(bad)


def test_each_table_gets_a_stable_name_from_its_serial_number_and_modemmanager_stays_away():
    tables = []
    for n, line in rules():
        toks = parse_rule(line)
        keys = {(k, a, op): v for k, a, op, v in toks}
        assert keys.get(("ENV", "{ID_MM_DEVICE_IGNORE}", "=")) == "1", n
        if ("SYMLINK", None, "+=") in keys:
            name = keys[("SYMLINK", None, "+=")]
            assert re.fullmatch(r"billiards-[A-Za-z0-9_-]+", name), name
            assert keys[("SUBSYSTEM", None, "==")] == "tty"
            assert keys[("ATTRS", "{serial}", "==")], "a board is told apart by its USB serial number"
            assert keys[("GROUP", None, "=")] == "dialout"
            tables.append(name)
    assert tables and len(tables) == len(set(tables))
    assert "billiards-t1" in tables


@pytest.mark.skipif(subprocess.run(["udevadm", "verify", "--help"], capture_output=True).returncode != 0
                    if shutil.which("udevadm") else True,
                    reason="this udevadm has no 'verify' (systemd < 253): the parser above checks the rules")
def test_udevadm_verify():
    p = subprocess.run(["udevadm", "verify", str(RULES)], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stdout + p.stderr
