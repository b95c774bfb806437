#!/usr/bin/env python3
"""The docs stay a reference a user can read: README.md is a short landing page, no page cites
this project's issues or measuring sessions, every relative link resolves, and every figure of
README's "How accurate" table links to committed evidence.

Rules, for each Markdown file given:

1. length: README.md (the repository's own, at its root) has at most README_MAX_LINES lines.
2. numbers: the prose names no issue or pull request of this project and no measuring session:
   `#12`, `issue #12`, `issues #23, #26`, `issue 12`, `session 10`, `session10`, `sessions 1
   and 2` are refused (case-insensitive). A run is named by its date and GPU instead. Allowed:
   another project's issue, where the number follows its name (`NVIDIA/cccl#10780`,
   `google/benchmark#2184`), and anything in code: fenced blocks (``` or ~~~), inline code
   spans (so a committed file may be named as it is, `fma_rounds_session10.txt`) and link
   targets (URLs). Link texts are prose and are checked.
3. links: every relative link `[text](target)`, `![alt](target)` or reference definition
   `[label]: target` outside code resolves. Its path (relative to the page, or the page itself
   for `#anchor`) is a file or folder inside the repository; an `#anchor` into a Markdown file
   names one of its headings (ATX headings, `#` to `######`, outside code blocks) or an HTML
   `id`/`name` in it, by GitHub's slug rules: the heading's text as rendered (code spans and
   links by their text, emphasis marks dropped), lower-cased, every character but letters,
   digits, spaces, `-` and `_` removed (so `→`, `×`, `:` go, `µ` stays), each space turned
   into `-`; the second heading with the same slug gets `-1`, the third `-2`. Links with a
   scheme (`https:`, `mailto:`) are not followed.
4. evidence: README.md has a section whose heading starts with "How accurate", holding a table;
   each of the table's rows links to its evidence, and every link of a row is relative and names
   a file committed to git (a folder counts when a committed file lies under it; `git ls-files`
   decides, or, outside a git checkout, the file's existence).

Usage: check_docs.py REPO FILE_OR_GLOB...   (paths relative to REPO, e.g. README.md 'docs/*.md';
                                             exit 1 with one line per violation)
       check_docs.py --self-test          (a clean miniature passes, and each planted violation
                                             is found)
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unicodedata
import urllib.parse

README_MAX_LINES = 150

FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1", re.DOTALL)
# [text](target "title") and ![alt](target); the text may span lines and hold [brackets].
INLINE_LINK = re.compile(r"!?\[((?:[^\[\]]|\[[^\[\]]*\])*)\]"
                         r"\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE_DEFINITION = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$", re.MULTILINE)
HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
HTML_ANCHOR = re.compile(r"<a\s[^>]*\b(?:id|name)\s*=\s*\"([^\"]+)\"", re.IGNORECASE)
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")

# An issue or pull request of this project: `#12` not glued to a name before it (another
# project's `owner/repo#12` is), or `issue 12` / `issues 12`; a measuring session by number.
ISSUE_NUMBER = re.compile(r"(?<![\w/#&.-])#\d+\b|\b(?:issues?|pull requests?|PRs?)\s+\d+\b",
                          re.IGNORECASE)
# A session's number is an integer, possibly on the next line ("profiling sessions\n0.48 s" is
# a time, not a session).
SESSION_NUMBER = re.compile(r"\bsessions?[ \t]*\n?[ \t]*\d+\b(?![.,]\d)", re.IGNORECASE)


def split_code(text):
    """The text with its fenced code blocks blanked, line numbers kept (a fence may be indented,
    as inside a list item, and ends at a fence of its kind at least as long)."""
    out, fence = [], None
    for line in text.split("\n"):
        m = FENCE.match(line)
        if fence is None:
            if m:
                fence = m.group(1)
            out.append("" if m else line)
            continue
        out.append("")
        if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) and \
                line.strip() == m.group(1):
            fence = None
    return "\n".join(out)


def blank_inline_code(prose):
    """Inline code spans replaced by spaces (newlines kept, so offsets keep their line)."""
    return INLINE_CODE.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), prose)


def line_of(text, offset):
    return text.count("\n", 0, offset) + 1


def rendered_heading_text(raw):
    """A heading's text as GitHub renders it: code spans and links by their text, no emphasis
    marks (outside code spans), no HTML tags."""
    spans = []

    def keep(m):
        spans.append(m.group(2).strip())
        return f"\0{len(spans) - 1}\0"
    text = re.sub(r"(`+)(.+?)\1", keep, raw)
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"<[^>]+>", "", text)
    text = re.sub(r"(\*\*|__|\*|(?<!\w)_|_(?!\w))", "", text)
    return re.sub(r"\0(\d+)\0", lambda m: spans[int(m.group(1))], text)


def slug(heading_text):
    """GitHub's anchor of a heading (before the -1, -2 of duplicates)."""
    text = rendered_heading_text(heading_text).strip().lower()
    text = "".join(c for c in text if unicodedata.category(c)[0] in "LMN" or
                   unicodedata.category(c) == "Pc" or c in " -")
    return text.replace(" ", "-")


def headings(text):
    """[(level, raw text, line)] of the ATX headings outside fenced blocks."""
    prose = split_code(text)
    found = []
    for number, line in enumerate(prose.split("\n"), 1):
        m = HEADING.match(line)
        if m:
            found.append((len(m.group(1)), m.group(2), number))
    return found


def anchors(text):
    """Every anchor a link may name in this Markdown text."""
    seen, result = {}, set()
    for _, raw, _ in headings(text):
        base = slug(raw)
        count = seen.get(base, 0)
        result.add(base if count == 0 else f"{base}-{count}")
        seen[base] = count + 1
    result.update(HTML_ANCHOR.findall(text))
    return result


def links(text):
    """[(target, line)] of the links outside code, inline and reference definitions."""
    prose = split_code(text)
    prose = blank_inline_code(prose)
    found = [(m.group(2), line_of(prose, m.start())) for m in INLINE_LINK.finditer(prose)]
    found += [(m.group(1), line_of(prose, m.start()))
              for m in REFERENCE_DEFINITION.finditer(prose)]
    return sorted(found, key=lambda item: item[1])


def numbers_in_prose(text):
    """[(line, kind, what)] of the issue and session numbers in the prose."""
    prose = split_code(text)
    prose = blank_inline_code(prose)
    # Link targets are addresses, not prose: blank them, keep the link text.
    def blank_target(m):
        start, end = m.start(2) - m.start(0), m.end(2) - m.start(0)
        return m.group(0)[:start] + " " * (end - start) + m.group(0)[end:]
    prose = INLINE_LINK.sub(blank_target, prose)
    prose = REFERENCE_DEFINITION.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), prose)
    found = []
    for pattern, kind in ((ISSUE_NUMBER, "an issue number"),
                          (SESSION_NUMBER, "a measuring-session number")):
        for m in pattern.finditer(prose):
            found.append((line_of(prose, m.start()), kind, " ".join(m.group(0).split())))
    return sorted(found)


class Repo:
    """The repository's files: what exists, what git has committed, and headings by file."""

    def __init__(self, root):
        self.root = os.path.realpath(root)
        self._anchors = {}
        try:
            out = subprocess.run(["git", "-C", self.root, "ls-files", "-z"], check=True,
                                 capture_output=True).stdout.decode("utf-8")
            self.committed = set(path for path in out.split("\0") if path)
        except (OSError, subprocess.CalledProcessError):
            self.committed = None  # not a git checkout: existence decides

    def inside(self, path):
        real = os.path.realpath(path)
        return real == self.root or real.startswith(self.root + os.sep)

    def is_committed(self, path):
        if not self.inside(path) or not os.path.exists(path):
            return False
        if self.committed is None:
            return True
        rel = os.path.relpath(os.path.realpath(path), self.root).replace(os.sep, "/")
        if rel in self.committed:
            return True
        return any(name.startswith(rel.rstrip("/") + "/") for name in self.committed)

    def anchors_of(self, path):
        if path not in self._anchors:
            with open(path, encoding="utf-8") as f:
                self._anchors[path] = anchors(f.read())
        return self._anchors[path]


def resolve(repo, page, target):
    """(path, anchor, problem): where a relative link leads, or why it leads nowhere."""
    path_part, _, anchor = target.partition("#")
    path_part = urllib.parse.unquote(path_part)
    anchor = urllib.parse.unquote(anchor)
    path = page if not path_part else os.path.normpath(
        os.path.join(os.path.dirname(page), path_part))
    if not repo.inside(path):
        return path, anchor, "leads outside the repository"
    if not os.path.exists(path):
        return path, anchor, "names no file"
    if anchor and path.endswith(".md") and os.path.isfile(path):
        if anchor not in repo.anchors_of(path):
            return path, anchor, (f"names no heading of {os.path.relpath(path, repo.root)} "
                                  f"(no heading has the anchor #{anchor})")
    return path, anchor, None


def check_links(repo, page, rel, text):
    problems = []
    for target, line in links(text):
        if not target or SCHEME.match(target):
            continue
        _, _, problem = resolve(repo, page, target)
        if problem:
            problems.append(f"{rel}:{line}: the link ({target}) {problem}")
    return problems


def how_accurate_rows(text):
    """(heading line or None, [(line, row text)]) of README's "How accurate" table."""
    prose = split_code(text)
    lines = prose.split("\n")
    start = None
    for number, line in enumerate(lines, 1):
        m = HEADING.match(line)
        if start is None and m and rendered_heading_text(m.group(2)).lower().startswith(
                "how accurate"):
            start, level = number, len(m.group(1))
        elif start is not None and m and len(m.group(1)) <= level:
            lines = lines[:number - 1]
            break
    if start is None:
        return None, []
    rows = []
    table = [(n, line) for n, line in enumerate(lines, 1) if n > start and
             line.lstrip().startswith("|")]
    for index, (number, line) in enumerate(table):
        if index == 0 or re.fullmatch(r"\s*\|?[\s:|-]+\|?\s*", line):
            continue  # the header row and the separator
        rows.append((number, line))
    return start, rows


def check_evidence(repo, page, rel, text):
    start, rows = how_accurate_rows(text)
    if start is None:
        return [f"{rel}: has no section whose heading starts with 'How accurate' (its table of "
                "headline figures, each linking to its evidence)"]
    if not rows:
        return [f"{rel}:{start}: the 'How accurate' section holds no table of figures"]
    problems = []
    for number, row in rows:
        targets = [m.group(2) for m in INLINE_LINK.finditer(blank_inline_code(row))]
        if not targets:
            problems.append(f"{rel}:{number}: this figure links to no evidence: add a link to "
                            "the committed file or docs section that states it")
        for target in targets:
            if SCHEME.match(target) or not target:
                problems.append(f"{rel}:{number}: the evidence link ({target}) is not a file "
                                "of this repository: link the committed file")
                continue
            path, _, _ = resolve(repo, page, target)
            if not repo.is_committed(path):
                problems.append(f"{rel}:{number}: the evidence link ({target}) points to no "
                                "committed file: commit the evidence or link the file that is")
    return problems


def check_file(repo, rel):
    page = os.path.join(repo.root, rel)
    with open(page, encoding="utf-8") as f:
        text = f.read()
    problems = []
    is_readme = os.path.normpath(rel) == "README.md"
    if is_readme:
        count = len(text.splitlines())
        if count > README_MAX_LINES:
            problems.append(f"{rel}: {count} lines, over {README_MAX_LINES}: README is a landing "
                            "page; move the detail to the user guide and link it")
    for line, kind, what in numbers_in_prose(text):
        fix = ("say what was asked or found, without the number" if kind.startswith("an issue")
               else "name the run by its date and GPU")
        problems.append(f"{rel}:{line}: {kind} ('{what}'): {fix}")
    problems += check_links(repo, page, rel, text)
    if is_readme:
        problems += check_evidence(repo, page, rel, text)

    def line(problem):
        m = re.match(re.escape(rel) + r":(\d+):", problem)
        return int(m.group(1)) if m else 0
    return sorted(problems, key=line)


def expand(root, patterns):
    """The files named (relative to root), globs expanded, in order, each once."""
    files = []
    for pattern in patterns:
        matches = sorted(glob.glob(os.path.join(root, pattern)))
        if not matches and not glob.has_magic(pattern):
            matches = [os.path.join(root, pattern)]
        for path in matches:
            rel = os.path.relpath(path, root)
            if rel not in files:
                files.append(rel)
    return files


def run(root, patterns):
    repo = Repo(root)
    problems = []
    files = expand(repo.root, patterns)
    for rel in files:
        if not os.path.isfile(os.path.join(repo.root, rel)):
            problems.append(f"{rel}: no such file")
            continue
        problems += check_file(repo, rel)
    return files, problems


# --- self-test ---------------------------------------------------------------------------------

CLEAN = {
    "README.md": """# tool

What it is; [the guide](docs/guide.md#writing-benchmarks) and [its table](docs/guide.md#a--b-c_d).
Another project's bug: NVIDIA/cccl#10780,
[google/benchmark#2184](https://github.com/google/benchmark/issues/2184).
A committed file named as it is: `runs/fma_rounds_session10.txt`, and `#12` in code.

```sh
echo "issue #12, session 10"   # code is not prose
```

## How accurate

| claim | figure | GPU | evidence |
|---|---|---|---|
| time against ncu | +0.4% | H200 | [data](data/run.json), [section](docs/guide.md#settings) |
| a folder of runs | 2.005 | H200 | [runs](data/) |
""",
    "docs/guide.md": """# Guide

Back to [README](../README.md), to [myself](#settings-1) and [a folder](../data).
A link named as its target: [../data/run.json](../data/run.json);
an anchor: [#kept-anchor](#kept-anchor).

## Writing benchmarks
## A → B: c_d
## Settings
## Settings
<a id="kept-anchor"></a>
""",
    "data/run.json": "{}\n",
}

# (what is planted, file, text appended to it, the words the finding must hold)
PLANTS = [
    ("a README over 150 lines", "README.md", "line\n" * 150, "lines, over 150"),
    ("issue #12", "docs/guide.md", "As issue #12 asked.\n", "an issue number ('#12')"),
    ("a bare #12", "README.md", "Fixed in #12.\n", "an issue number ('#12')"),
    ("issues #23, #26", "docs/guide.md", "From issues #23, #26.\n", "('#26')"),
    ("issue 12", "docs/guide.md", "As issue 12 asked.\n", "('issue 12')"),
    ("session 10", "docs/guide.md", "Measured in session 10.\n", "measuring-session number"),
    ("session10", "README.md", "Seen in session10's run.\n", "('session10')"),
    ("an issue number in a link text", "docs/guide.md", "[issue #7](https://x.org/7)\n",
     "('#7')"),
    ("a missing file", "docs/guide.md", "[gone](missing.md)\n", "(missing.md) names no file"),
    ("a missing anchor", "README.md", "[x](docs/guide.md#writing)\n", "no heading has the anchor"),
    ("a missing anchor of its own page", "docs/guide.md", "[x](#settings-2)\n",
     "no heading has the anchor #settings-2"),
    ("a heading inside code is no anchor", "docs/guide.md",
     "```yaml\n# Not a heading\n```\n[x](#not-a-heading)\n", "#not-a-heading"),
    ("a link out of the repository", "docs/guide.md", "[x](../../elsewhere.md)\n",
     "leads outside the repository"),
    ("a reference definition to no file", "docs/guide.md", "[ref]: nowhere.txt\n",
     "(nowhere.txt) names no file"),
]


def write_tree(root, files):
    for rel, text in files.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)


def git(root, *args):
    subprocess.run(["git", "-C", root, "-c", "user.name=check", "-c", "user.email=check@localhost",
                    *args], check=True, capture_output=True)


def self_test():
    failures = []
    base = tempfile.mkdtemp(prefix="check_docs_")
    try:
        clean = os.path.join(base, "clean")
        write_tree(clean, CLEAN)
        git(clean, "init", "-q")
        git(clean, "add", ".")
        git(clean, "commit", "-q", "-m", "clean")
        _, problems = run(clean, ["README.md", "docs/*.md"])
        if problems:
            failures.append(f"the clean miniature fails: {problems}")

        copies = []

        def planted(name, files, patterns=("README.md", "docs/*.md")):
            copies.append(name)
            copy = os.path.join(base, f"plant{len(copies)}")
            shutil.copytree(clean, copy)
            write_tree(copy, files)
            return run(copy, list(patterns))[1]

        for name, rel, addition, expected in PLANTS:
            problems = planted(name, {rel: CLEAN[rel] + addition})
            if not any(expected in p for p in problems):
                failures.append(f"{name}: expected a finding with '{expected}', got {problems}")
            elif len(problems) != 1 and name not in ("issues #23, #26",):
                failures.append(f"{name}: expected one finding, got {problems}")

        # Evidence: a row without a link, a row linking a file that exists but is not committed,
        # an external link as evidence, and a README without the section.
        table_row = ("| time against ncu | +0.4% | H200 | [data](data/run.json), "
                     "[section](docs/guide.md#settings) |\n")
        cases = [
            ("a figure without evidence", table_row, "| time | +0.4% | H200 | the docs |\n",
             {}, "links to no evidence"),
            ("evidence not committed", table_row,
             "| time | +0.4% | H200 | [data](data/new.json) |\n", {"data/new.json": "{}\n"},
             "(data/new.json) points to no committed file"),
            ("evidence elsewhere", table_row,
             "| time | +0.4% | H200 | [data](https://example.org/run.json) |\n", {},
             "is not a file of this repository"),
            ("no How accurate section", "## How accurate\n", "## Accuracy\n", {},
             "has no section whose heading starts with 'How accurate'"),
        ]
        for name, old, new, extra, expected in cases:
            files = dict(extra)
            files["README.md"] = CLEAN["README.md"].replace(old, new)
            problems = planted(name, files)
            if not any(expected in p for p in problems):
                failures.append(f"{name}: expected a finding with '{expected}', got {problems}")

        # The line limit is README's alone, and a file named on the command line must exist.
        problems = planted("a long guide", {"docs/guide.md": CLEAN["docs/guide.md"] +
                                            "line\n" * 200})
        if problems:
            failures.append(f"a long docs page was held to README's limit: {problems}")
        problems = planted("a missing page", {}, ("README.md", "docs/absent.md"))
        if problems != ["docs/absent.md: no such file"]:
            failures.append(f"a missing page given: expected 'no such file', got {problems}")
    finally:
        shutil.rmtree(base)

    # Slugs as GitHub makes them.
    for heading, want in [("Converting a suite: GB form → gpubench form",
                           "converting-a-suite-gb-form--gpubench-form"),
                          ("GPU time against Nsight Compute (`ctest -R gpu_ncu_crosscheck`)",
                           "gpu-time-against-nsight-compute-ctest--r-gpu_ncu_crosscheck"),
                          ("Change points over a history (`--changes`)",
                           "change-points-over-a-history---changes"),
                          ("Keeping GB's own macros", "keeping-gbs-own-macros"),
                          ("Use `_private` names", "use-_private-names"),
                          ("**Bold** and [a link](x.md)", "bold-and-a-link")]:
        if slug(heading) != want:
            failures.append(f"slug({heading!r}) = {slug(heading)!r}, GitHub's is {want!r}")
    duplicates = sorted(anchors("# A\n## A\n## A\n"))
    if duplicates != ["a", "a-1", "a-2"]:
        failures.append(f"three headings 'A' give the anchors {duplicates}, not a, a-1, a-2")

    for failure in failures:
        print("self-test: " + failure)
    if not failures:
        print(f"self-test: ok ({len(PLANTS) + 4} planted violations found, the clean pages pass)")
    return 1 if failures else 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    if len(argv) < 3:
        print(__doc__)
        return 2
    files, problems = run(argv[1], argv[2:])
    for problem in problems:
        print(problem)
    if not problems:
        print(f"{len(files)} pages: README within {README_MAX_LINES} lines, no issue or session "
              "number, every relative link and anchor resolves, every README figure's evidence "
              "committed")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
