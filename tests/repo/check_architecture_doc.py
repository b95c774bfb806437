#!/usr/bin/env python3
"""docs/architecture.md names every file under src/, and no file under src/ is over 600 lines.

Its folder table has a row for every folder of src/ that holds sources directly, with the right
number of them (a row `| `src/measure/stages/` | 5 | ...`), so that the table does not go stale.

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


def folder_counts(files):
    """{folder: number of files directly in it} for paths relative to src/."""
    counts = {}
    for path in files:
        folder = os.path.dirname(path)
        counts[folder] = counts.get(folder, 0) + 1
    return counts


def folder_rows(doc):
    """{folder: stated count} from the doc's table rows `| `src/FOLDER/` | N | ...`."""
    return {m[1]: int(m[2])
            for m in re.finditer(r"^\| `src/([\w/]+)/` \| (\d+) \|", doc, re.MULTILINE)}


def folder_mismatches(files, doc):
    """One message per folder with sources that has no row, or a row with another count."""
    stated = folder_rows(doc)
    messages = []
    for folder, count in sorted(folder_counts(files).items()):
        if folder not in stated:
            messages.append(f"src/{folder}/ holds {count} source files and has no row in the "
                            "folder table: add `| `src/{folder}/` | {count} | lines | what |`")
        elif stated[folder] != count:
            messages.append(f"src/{folder}/ holds {count} source files, the folder table says "
                            f"{stated[folder]}: correct its row")
    for folder in sorted(set(stated) - set(folder_counts(files))):
        messages.append(f"the folder table has a row for src/{folder}/, which holds no source "
                        "file: remove the row")
    return messages


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
    table = "| `src/measure/` | 2 | 9 | x |\n| `src/gone/` | 1 | 1 | y |\n"
    got = folder_mismatches(["measure/loop.cpp", "measure/loop.hpp", "tools/compare/main.cpp"],
                            table)
    if len(got) != 2 or "src/tools/compare/" not in got[0] or "src/gone/" not in got[1]:
        print(f"self-test: folder table check expected a missing row and a stale one, got {got}")
        return 1
    if folder_mismatches(["measure/loop.cpp"], table) != [
            "src/measure/ holds 1 source files, the folder table says 2: correct its row",
            "the folder table has a row for src/gone/, which holds no source file: remove the row"]:
        print("self-test: a wrong count is not found")
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
    folders = folder_mismatches(files, doc)
    for message in folders:
        print("docs/architecture.md: " + message)
    if not folders:
        print(f"the folder table counts the files of all {len(folder_counts(files))} folders")
    return 1 if missing or long_files or folders else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
