"""Every clause of the clause index is named by at least one test and by the engine's code."""
import json
import subprocess
import sys

from host.coverage import clause_ids, clause_tests, implemented, load_clauses, report
from tests.conftest import ROOT


def rows():
    ids = clause_ids()
    assert len(ids) > 80
    return report(ids, clause_tests(ROOT / "tests"), implemented(ROOT / "shared_rules"))


def test_every_clause_is_named_by_a_test():
    missing = [r["id"] for r in rows() if r["tests"] == 0]
    assert missing == []


def test_every_clause_is_named_by_the_engine():
    missing = [r["id"] for r in rows() if not r["implemented"]]
    assert missing == []


def test_every_clause_has_a_seed_section_and_an_english_summary():
    seen = set()
    for c in load_clauses():
        assert c["id"] not in seen, c["id"]
        seen.add(c["id"])
        assert c["seed"] in ("000", "002") and c["line"] > 0 and c["section"], c
        assert set(c["seen_by"].split()) <= set("SDRC"), c
        assert c["summary"].isascii() and 20 < len(c["summary"]) < 200, c
    by_game = {i.split(".")[0] for i in seen}
    assert by_game == {"GEN", "EB", "NB", "SP"}


def test_coverage_command_prints_every_clause(capsys):
    from host.coverage import main
    assert main([]) == 0
    out = capsys.readouterr().out
    assert "EB.BREAK-8" in out and "SP.3-FOULS" in out
    assert "%d of %d clauses implemented and tested" % (len(clause_ids()), len(clause_ids())) in out


def test_coverage_runs_where_there_is_no_clone(tmp_path):
    """From another folder (as from an installed package) it still lists every clause."""
    p = subprocess.run([sys.executable, "-m", "host.coverage", "--json"], cwd=tmp_path,
                       capture_output=True, text=True, timeout=60,
                       env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert p.returncode == 0, p.stderr
    got = json.loads(p.stdout)
    assert [r["id"] for r in got] == clause_ids()
    assert all(r["implemented"] and r["summary"] for r in got)
