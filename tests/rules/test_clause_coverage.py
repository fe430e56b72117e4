"""Every clause of CLAUSES.md is named by at least one test and by the engine's code."""
from host.coverage import clause_ids, find_clauses_file, implemented, report, clause_tests
from tests.conftest import ROOT, SHARED


def rows():
    path = find_clauses_file(str(SHARED / "rules" / "CLAUSES.md"))
    assert path is not None, "shared/rules/CLAUSES.md is missing"
    ids = clause_ids(path)
    assert len(ids) > 80
    return report(ids, clause_tests(ROOT / "tests"), implemented(ROOT / "shared_rules"))


def test_every_clause_is_named_by_a_test():
    missing = [r["id"] for r in rows() if r["tests"] == 0]
    assert missing == []


def test_every_clause_is_named_by_the_engine():
    missing = [r["id"] for r in rows() if not r["implemented"]]
    assert missing == []


def test_coverage_command_prints_every_clause(capsys):
    from host.coverage import main
    main(["--clauses", str(SHARED / "rules" / "CLAUSES.md")])
    out = capsys.readouterr().out
    assert "EB.BREAK-8" in out and "SP.3-FOULS" in out and "clauses implemented and tested" in out
