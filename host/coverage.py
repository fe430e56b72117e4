"""`billiards coverage`: each rule clause of CLAUSES.md, whether the engine implements it, and
how many tests name it (pytest `@pytest.mark.clause("ID")` or a scenario file's "clauses")."""
import argparse
import json
import os
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
ID_ROW = re.compile(r"^\|\s*((?:GEN|EB|NB|SP)\.[A-Z0-9-]+)\s*\|")
MARK = re.compile(r"clause\(\s*[\"']((?:GEN|EB|NB|SP)\.[A-Z0-9-]+)[\"']\s*\)")
ID_ANY = re.compile(r"[\"']((?:GEN|EB|NB|SP)\.[A-Z0-9-]+)[\"']")


def find_clauses_file(given=None):
    candidates = [given] if given else []
    candidates += [os.environ.get("BILLIARDS_CLAUSES"), pathlib.Path.cwd().parent / "shared/rules/CLAUSES.md",
                   ROOT.parent / "shared/rules/CLAUSES.md"]
    for c in candidates:
        if c and pathlib.Path(c).is_file():
            return pathlib.Path(c)
    return None


def clause_ids(path):
    ids = []
    for line in pathlib.Path(path).read_text(encoding="utf-8").splitlines():
        m = ID_ROW.match(line)
        if m and m.group(1) not in ids:
            ids.append(m.group(1))
    return ids


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
        rows.append({"id": cid, "implemented": cid in impl, "tests": len(tests.get(cid, [])),
                     "where": tests.get(cid, [])[:3]})
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(prog="billiards coverage", description=__doc__)
    ap.add_argument("--clauses", help="path to CLAUSES.md (default: ../shared/rules/CLAUSES.md)")
    ap.add_argument("--json", action="store_true", help="print JSON rows instead of a table")
    ap.add_argument("--strict", action="store_true", help="exit 1 if any clause lacks code or a test")
    a = ap.parse_args(argv)
    path = find_clauses_file(a.clauses)
    if path is None:
        print("CLAUSES.md not found; pass --clauses PATH", file=sys.stderr)
        return 2
    rows = report(clause_ids(path), clause_tests(ROOT / "tests"), implemented(ROOT / "shared_rules"))
    if a.json:
        print(json.dumps(rows, indent=1))
    else:
        for r in rows:
            print("{:<22} {:<16} {:>3} test{}  {}".format(
                r["id"], "implemented" if r["implemented"] else "NOT IMPLEMENTED", r["tests"],
                "" if r["tests"] == 1 else "s", ", ".join(r["where"])))
        done = sum(1 for r in rows if r["implemented"] and r["tests"])
        print("{} of {} clauses implemented and tested".format(done, len(rows)))
    missing = [r for r in rows if not (r["implemented"] and r["tests"])]
    return 1 if (a.strict and missing) else 0


if __name__ == "__main__":
    sys.exit(main())
