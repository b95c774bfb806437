#!/usr/bin/env python3
"""docs/architecture.md names every file under src/, and no file under src/ is over 600 lines.

A source and its header are one unit: a .hpp (or .cuh) counts as named when it is named itself or
its .cpp/.cu is. A name shared by files of several folders (main.cpp) must appear with its folder
(compare/main.cpp). Usage: check_architecture_doc.py REPO, or --self-test.
"""
import os
import re
import sys

SOURCE_EXTENSIONS = (".cpp", ".hpp", ".cu", ".cuh", ".js", ".css")


def source_files(src):
    """Paths relative to src/, of every source file under it."""
    files = []
    for root, _, names in os.walk(src):
        for name in names:
            if name.endswith(SOURCE_EXTENSIONS):
                files.append(os.path.relpath(os.path.join(root, name), src))
    return sorted(files)


def unnamed(files, doc):
    """The files the text `doc` does not name, by the rules above."""
    by_basename = {}
    for path in files:
        by_basename.setdefault(os.path.basename(path), []).append(path)

    def named(path):
        base = os.path.basename(path)
        if len(by_basename[base]) > 1:
            # Its last folder and name, e.g. compare/main.cpp (or more of the path).
            tail = "/".join(path.split("/")[-2:])
            return re.search(r"(?<![\w.])" + re.escape(tail) + r"\b", doc) is not None
        return re.search(r"(?<![\w.])" + re.escape(base) + r"(?![\w])", doc) is not None

    missing = []
    for path in files:
        if named(path):
            continue
        stem, ext = os.path.splitext(path)
        if ext in (".hpp", ".cuh") and any(
                stem + source in files and named(stem + source) for source in (".cpp", ".cu")):
            continue
        missing.append(path)
    return missing


MAX_LINES = 600  # a file past it holds several concerns (issue #38): split it by concern


def too_long(line_counts):
    """The files of {path: lines} over MAX_LINES."""
    return sorted(path for path, lines in line_counts.items() if lines > MAX_LINES)


def line_counts(src, files):
    counts = {}
    for path in files:
        with open(os.path.join(src, path), encoding="utf-8") as f:
            counts[path] = sum(1 for _ in f)
    return counts


def self_test():
    files = ["measure/loop.cpp", "measure/loop.hpp", "measure/alone.hpp", "tools/compare/main.cpp",
             "tools/export/main.cpp", "frontend/gb_compat.hpp"]
    doc = "`loop.cpp` runs; `compare/main.cpp` parses; gb_compat.hpp hides versions."
    got = unnamed(files, doc)
    want = ["measure/alone.hpp", "tools/export/main.cpp"]
    if got != want:
        print(f"self-test: expected {want}, got {got}")
        return 1
    # A name inside a longer one is not a mention.
    if unnamed(["gpu/flush.hpp"], "no_flush.hpp") != ["gpu/flush.hpp"]:
        print("self-test: no_flush.hpp counted as naming flush.hpp")
        return 1
    if too_long({"a.cpp": 600, "b.cpp": 601}) != ["b.cpp"]:
        print("self-test: the 600-line limit is not applied as 'at most 600'")
        return 1
    print("self-test: ok")
    return 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    repo = argv[1]
    with open(os.path.join(repo, "docs", "architecture.md"), encoding="utf-8") as f:
        doc = f.read()
    src = os.path.join(repo, "src")
    files = source_files(src)
    missing = unnamed(files, doc)
    for path in missing:
        print(f"docs/architecture.md does not name src/{path}: say what it holds, in its layer's "
              "section")
    if not missing:
        print("docs/architecture.md names every file under src/")
    counts = line_counts(src, files)
    long_files = too_long(counts)
    for path in long_files:
        print(f"src/{path} has {counts[path]} lines, over {MAX_LINES}: split it by concern")
    if not long_files:
        print(f"no file under src/ is over {MAX_LINES} lines")
    return 1 if missing or long_files else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
