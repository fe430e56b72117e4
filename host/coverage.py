"""`billiards coverage`: each rule clause, whether the engine implements it, and how many tests
name it (pytest `@pytest.mark.clause("ID")` or a scenario file's "clauses").

The clause index is package data (host/data/clauses.tsv), so the command works from an
installed package; the test count needs the project's tests/ folder (a clone), and is left out
when there is none."""
import argparse
import json
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
CLAUSES_TSV = pathlib.Path(__file__).resolve().parent / "data" / "clauses.tsv"
ID_ROW = re.compile(r"^\|\s*((?:GEN|EB|NB|SP)\.[A-Z0-9-]+)\s*\|")
MARK = re.compile(r"clause\(\s*[\"']((?:GEN|EB|NB|SP)\.[A-Z0-9-]+)[\"']\s*\)")
ID_ANY = re.compile(r"[\"']((?:GEN|EB|NB|SP)\.[A-Z0-9-]+)[\"']")
COLUMNS = ("id", "seen_by", "seed", "line", "section", "summary")


def load_clauses(path=None):
    """[{id, seen_by, seed, line, section, summary}] from the clause index, in rule-text order."""
    text = pathlib.Path(path or CLAUSES_TSV).read_text(encoding="utf-8")
    rows = [line.split("\t") for line in text.splitlines() if line and not line.startswith("#")]
    if not rows or tuple(rows[0]) != COLUMNS:
        raise ValueError("%s: the first row must name the columns %s" % (path or CLAUSES_TSV, COLUMNS))
    out = []
    for r in rows[1:]:
        if len(r) != len(COLUMNS):
            raise ValueError("%s: %r has %d columns, not %d" % (path or CLAUSES_TSV, r[0], len(r), len(COLUMNS)))
        c = dict(zip(COLUMNS, r))
        c["line"] = int(c["line"])
        out.append(c)
    return out


def clause_ids(path=None):
    """Clause IDs in order: from the package's index, or from a Markdown table given as `path`."""
    if path is not None and pathlib.Path(path).suffix == ".md":
        ids = []
        for line in pathlib.Path(path).read_text(encoding="utf-8").splitlines():
            m = ID_ROW.match(line)
            if m and m.group(1) not in ids:
                ids.append(m.group(1))
        return ids
    return [c["id"] for c in load_clauses(path)]


def clause_tests(tests_dir):
    """{clause ID: [test names]} from pytest markers and scenario files."""
    found = {}
    for p in sorted(pathlib.Path(tests_dir).rglob("*")):
        if p.suffix == ".py":
            text = p.read_text(encoding="utf-8", errors="replace")
            for m in MARK.finditer(text):
                line = text.count("\n", 0, m.start()) + 1
                found.setdefault(m.group(1), []).append("{}:{}".format(p.relative_to(tests_dir), line))
        elif p.suffix in (".json", ".jsonl"):
            text = p.read_text(encoding="utf-8")
            try:
                # A .jsonl scenario names its clauses in its first line, the header.
                data = json.loads(text.split("\n", 1)[0] if p.suffix == ".jsonl" else text)
            except ValueError:
                continue
            scenarios = data if isinstance(data, list) else [data]
            for s in scenarios:
                if isinstance(s, dict) and isinstance(s.get("clauses"), list):
                    for cid in s["clauses"]:
                        found.setdefault(cid, []).append(str(p.relative_to(tests_dir)))
    return found


def implemented(code_dir):
    """Clause IDs the engine names in its code (each decision it takes names its clause)."""
    seen = set()
    for p in pathlib.Path(code_dir).rglob("*.py"):
        seen.update(ID_ANY.findall(p.read_text(encoding="utf-8", errors="replace")))
    return seen


def report(ids, tests, impl):
    rows = []
    for cid in ids:
        rows.append({"id": cid, "implemented": cid in impl,
                     "tests": None if tests is None else len(tests.get(cid, [])),
                     "where": [] if tests is None else tests.get(cid, [])[:3]})
    return rows


def engine_dir():
    """The installed rules engine (shared_rules), wherever the package lives."""
    import shared_rules
    return pathlib.Path(shared_rules.__file__).resolve().parent


def find_tests_dir(given=None):
    """The project's tests/: given, beside the package (a clone), or ./tests; None if absent."""
    for c in ([given] if given else []) + [ROOT / "tests", pathlib.Path.cwd() / "tests"]:
        if c and (pathlib.Path(c) / "scenarios").is_dir():
            return pathlib.Path(c)
    return None


def main(argv=None):
    ap = argparse.ArgumentParser(prog="billiards coverage", description=__doc__)
    ap.add_argument("--clauses", help="another clause index (.tsv in the package's format, or a "
                    "Markdown table with one | ID | row per clause); default: the package's own")
    ap.add_argument("--tests", help="the project's tests folder (default: the clone's, or ./tests)")
    ap.add_argument("--json", action="store_true", help="print JSON rows instead of a table")
    ap.add_argument("--strict", action="store_true", help="exit 1 if any clause lacks code or a test")
    a = ap.parse_args(argv)
    try:
        ids = clause_ids(a.clauses)
    except (OSError, ValueError) as e:
        print("billiards coverage: %s" % e, file=sys.stderr)
        return 2
    tests_dir = find_tests_dir(a.tests)
    tests = clause_tests(tests_dir) if tests_dir else None
    rows = report(ids, tests, implemented(engine_dir()))
    summaries = {c["id"]: c["summary"] for c in load_clauses()}
    if a.json:
        for r in rows:
            r["summary"] = summaries.get(r["id"])
        print(json.dumps(rows, indent=1, ensure_ascii=False))
    else:
        for r in rows:
            n = "  ? tests" if r["tests"] is None else "{:>3} test{}".format(r["tests"], "" if r["tests"] == 1 else "s")
            print("{:<22} {:<16} {}  {}".format(
                r["id"], "implemented" if r["implemented"] else "NOT IMPLEMENTED", n,
                ", ".join(r["where"]) or summaries.get(r["id"], "")))
        if tests is None:
            print("no tests/ folder here (an installed package): test counts need a clone, "
                  "or --tests DIR", file=sys.stderr)
            done = sum(1 for r in rows if r["implemented"])
            print("{} of {} clauses implemented".format(done, len(rows)))
        else:
            done = sum(1 for r in rows if r["implemented"] and r["tests"])
            print("{} of {} clauses implemented and tested".format(done, len(rows)))
    missing = [r for r in rows if not (r["implemented"] and r["tests"] != 0)]
    return 1 if (a.strict and (missing or tests is None)) else 0


if __name__ == "__main__":
    sys.exit(main())
