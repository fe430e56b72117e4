"""A user's clone has nothing beside it: no code or test reads a sibling `shared` folder
(the developers' reading material). .ci/run proves it by testing a copy in an empty folder;
this catches a new reference before that, in any run."""
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]
SIBLING = re.compile(r"""\.\./shared\b(?!_rules)|BILLIARDS_SHARED|parent\s*/\s*["']shared["']|["']shared/(rules|vectors|seeds)""")


def test_no_code_or_test_reads_a_sibling_shared_folder():
    hits = []
    for folder in ("host", "shared_rules", "tests", "tools", "firmware"):
        for p in (ROOT / folder).rglob("*.py"):
            if p == pathlib.Path(__file__):
                continue
            for n, line in enumerate(p.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
                if SIBLING.search(line):
                    hits.append("%s:%d: %s" % (p.relative_to(ROOT), n, line.strip()))
    assert hits == []


def test_the_docs_link_only_inside_the_clone():
    hits = []
    for p in [ROOT / "README.md", ROOT / "ARCHITECTURE.md"] + sorted((ROOT / "docs").glob("*.md")) + \
            sorted((ROOT / "hardware").rglob("*.md")):
        for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1):
            if SIBLING.search(line):
                hits.append("%s:%d" % (p.relative_to(ROOT), n))
    assert hits == []


def test_the_pattern_finds_what_it_is_for():
    for bad in ('ROOT.parent / "shared" / "rules"', "os.environ['BILLIARDS_SHARED']",
                "see ../shared/CONTRACT.md", 'open("shared/vectors/link-v1.json")'):
        assert SIBLING.search(bad), bad
    assert not SIBLING.search("from ../shared_rules import x")
