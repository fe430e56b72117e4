"""Every relative link in the Markdown a stranger reads lands on a file of the clone (and, with
`#anchor`, on a heading of that file): a link that works only in a developer's tree, or a page
renamed without its links, is a dead end for the reader."""
import pathlib
import re
import subprocess

ROOT = pathlib.Path(__file__).resolve().parents[2]
FENCE = re.compile(r"^(```|~~~).*?^\1", re.S | re.M)
INLINE_CODE = re.compile(r"`[^`\n]*`")
LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$", re.M)


def markdown_files():
    """The Markdown files git knows (a clone has exactly these), else every one outside .venv."""
    try:
        out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard",
                              "*.md"], cwd=ROOT, capture_output=True, check=True, timeout=30).stdout
        files = [ROOT / f for f in out.decode().split("\0") if f]
    except (OSError, subprocess.CalledProcessError):
        files = [p for p in ROOT.rglob("*.md") if ".venv" not in p.parts]
    return sorted(p for p in files if p.exists())


def links(text):
    """Link targets of a Markdown text, code blocks and code spans left out."""
    text = INLINE_CODE.sub("", FENCE.sub("", text))
    return LINK.findall(text) + REFERENCE.findall(text)


def slug(heading):
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to '-'."""
    text = re.sub(r"[`*_]|<[^>]+>", "", heading.strip().lower())
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(path):
    found, seen = set(), {}
    for line in FENCE.sub("", path.read_text(encoding="utf-8")).splitlines():
        m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if m:
            s = slug(m.group(1))
            n = seen.get(s, 0)
            seen[s] = n + 1
            found.add(s if n == 0 else "%s-%d" % (s, n))
    return found


def broken(path, root=ROOT):
    out = []
    for target in links(path.read_text(encoding="utf-8")):
        if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target):      # http:, mailto:, file:
            continue
        name, _, anchor = target.partition("#")
        dest = (path.parent / name).resolve() if name else path
        if not dest.exists():
            out.append("%s: %s (no such file)" % (path.relative_to(root), target))
        elif root not in dest.parents:
            out.append("%s: %s (outside the clone)" % (path.relative_to(root), target))
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            out.append("%s: %s (no such heading)" % (path.relative_to(root), target))
    return out


def test_every_relative_link_lands_in_the_clone():
    files = markdown_files()
    assert ROOT / "README.md" in files and len(files) >= 5
    assert [b for p in files for b in broken(p)] == []


def test_the_checker_finds_what_it_is_for(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# Install as a service (Raspberry Pi OS)\n## Notes\n## Notes\n")
    page = tmp_path / "README.md"
    page.write_text(
        "[ok](docs/a.md) [ok](docs/a.md#install-as-a-service-raspberry-pi-os) [ok](docs/a.md#notes-1)\n"
        "[ok](https://example.org/x.md) `[code](nowhere.md)`\n```\n[code](nowhere.md)\n```\n"
        "[gone](docs/b.md) ![gone](docs/tv.png) [bad anchor](docs/a.md#install)\n"
        "[outside](../elsewhere/NOTES.md)\n[ref]: docs/missing.md\n")
    (tmp_path.parent / "elsewhere").mkdir(exist_ok=True)
    (tmp_path.parent / "elsewhere" / "NOTES.md").write_text("x")
    assert [b.split(": ", 1)[1] for b in broken(page, tmp_path)] == [
        "docs/b.md (no such file)", "docs/tv.png (no such file)",
        "docs/a.md#install (no such heading)", "../elsewhere/NOTES.md (outside the clone)",
        "docs/missing.md (no such file)"]
