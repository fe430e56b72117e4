"""What a stranger meets on the first run: every message names a way forward that works, a typo
is refused rather than silently making something new, and `--help` tells the defaults."""
import argparse
import subprocess
import sys

import pytest

from host import broker
from host.cli import build_parser, main


def test_without_the_embedded_broker_the_advice_works(monkeypatch):
    """The advice must not be a bare --broker: that alone is refused (no --serial)."""
    monkeypatch.setitem(sys.modules, "amqtt.broker", None)          # import fails
    with pytest.raises(RuntimeError) as e:
        broker.EmbeddedBroker("127.0.0.1", 1).start()
    text = str(e.value)
    assert "pip install 'billiards-referee[broker]'" in text
    assert "--simulate" in text and "--serial" in text


def test_history_refuses_a_journal_directory_that_is_not_there(tmp_path, capsys):
    missing = tmp_path / "jornal"
    assert main(["history", "--journal", str(missing)]) == 2
    assert "no journal directory %s" % missing in capsys.readouterr().err
    assert not missing.exists()                     # no empty database made at the typo


def test_history_of_a_journal_without_matches_says_none_yet(tmp_path, capsys):
    assert main(["history", "--journal", str(tmp_path)]) == 0
    assert "(none yet)" in capsys.readouterr().out


def test_an_unknown_game_is_refused_before_anything_starts(tmp_path):
    p = subprocess.run([sys.executable, "-m", "host.cli", "run", "--game", "snooker",
                        "--journal", str(tmp_path / "j")], capture_output=True, text=True, timeout=60)
    assert p.returncode == 2
    assert "eight-ball" in p.stderr and "nine-ball" in p.stderr and "straight-pool" in p.stderr
    assert not (tmp_path / "j").exists()


def test_run_help_tells_every_default():
    run = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)).choices["run"]
    silent = [a.option_strings[0] for a in run._actions
              if a.default not in (None, False, argparse.SUPPRESS) and "default" not in (a.help or "")]
    assert silent == []


def test_docs_daemon_md_names_every_flag():
    """docs/daemon.md is the command line's page: a flag it does not name is one nobody finds."""
    import pathlib
    doc = (pathlib.Path(__file__).resolve().parents[2] / "docs" / "daemon.md").read_text()
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    missing = ["%s %s" % (name, o) for name, p in sub.choices.items() for a in p._actions
               for o in a.option_strings if o.startswith("--") and o != "--help" and o not in doc]
    assert missing == []


def documented_command_lines():
    """(file:line, argv) of every whole `billiards run|replay|history|token ...` in the Markdown."""
    import pathlib
    import re
    import shlex
    root = pathlib.Path(__file__).resolve().parents[2]
    found = []
    for page in sorted(root.glob("*.md")) + sorted(root.glob("docs/*.md")) + sorted(root.glob("hardware/**/*.md")):
        for n, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
            for m in re.finditer(r"(?:`|^\s*(?:sudo )?)(?:\S*/)?billiards ((?:run|replay|history|token)\b[^`\n#]*)", line):
                cmd = m.group(1).strip()
                if not re.search(r"[\[…]|\.\.\.|--help", cmd):      # synopses and mentions
                    found.append(("%s:%d" % (page.relative_to(root), n), shlex.split(cmd)))
    return found


def test_every_documented_command_line_parses():
    parser = build_parser()
    lines = documented_command_lines()
    assert len(lines) >= 10
    bad = []
    for where, argv in lines:
        try:
            parser.parse_args(argv)
        except SystemExit:
            bad.append("%s: billiards %s" % (where, " ".join(argv)))
    assert bad == []


def test_version_is_the_one_the_table_publishes(capsys):
    from host.outputs import _version
    with pytest.raises(SystemExit) as e:
        main(["--version"])
    assert e.value.code == 0
    assert capsys.readouterr().out.strip() == "billiards-referee %s" % _version()
