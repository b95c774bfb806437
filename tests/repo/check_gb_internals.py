#!/usr/bin/env python3
"""Google Benchmark's internals stay in one file (docs/architecture.md "Google Benchmark's
internals"): what depends on GB's private members, its internal namespace, the way it names rows,
its JSON layout or the differences between its versions is in src/gb/gb_internals.{hpp,cpp}, which
tests/unit/test_gb_internals.cpp checks against the GB it is built with.

This check fails when one of the patterns below appears in src/ outside src/gb/. src/tools/ is not
searched: the tools read GB's documented JSON fields only. Comments are not searched; patterns of
GB's identifiers are searched in code, those of GB's text (row names, the JSON layout) in string
literals. A use that cannot move is a named exception below, with the reason.

Usage: check_gb_internals.py SOURCE_DIR   (exit 1 with one line per use outside src/gb/)
       check_gb_internals.py --self-test  (the check finds a planted use of each pattern)
"""
import os
import re
import sys
import tempfile

# name: (where it is searched, pattern). gpubench has no namespace of its own named `internal`,
# so every `internal::` is GB's (benchmark::internal::, or unqualified under its using).
PATTERNS = {
    "internal::": ("code", r"\binternal::"),
    "run_name.": ("code", r"\brun_name\s*\."),
    "run_type": ("code", r"\brun_type\b"),
    "RT_Aggregate|RT_Iteration": ("code", r"\bRT_(Aggregate|Iteration)\b"),
    "aggregate_name": ("code", r"\baggregate_name\b"),
    "repetition_index": ("code", r"\brepetition_index\b"),
    "min_time_": ("code", r"\bmin_time_\b"),
    "ArgsCnt": ("code", r"\bArgsCnt\b"),
    "KeepRunningBatch": ("code", r"\bKeepRunningBatch\b"),
    "ConsoleReporter's protected members": (
        "code", r"\b(output_options_|name_field_width_|prev_counters_|printed_header_)\b"),
    '"iterations:': ("string", r'^"iterations:'),
    "manual_time": ("string", r"\bmanual_time\b"),
    "process_time": ("string", r"\bprocess_time\b"),
    "repeats:": ("string", r"\brepeats:"),
    '"benchmarks": [': ("string", r'\\"benchmarks\\": \['),
}

# Uses that cannot move: (path below src/, pattern name) -> why.
EXCEPTIONS = {
    # Only a class derived from GB's ConsoleReporter can read its protected members; gpubench's
    # console reporter is that class. test_gb_internals.cpp compiles a derived class naming them.
    ("frontend/hooks/reporter.cpp", "ConsoleReporter's protected members"):
        "a subclass of ConsoleReporter, the only place that can read them",
    # The help text of --gpubench_devices shows the user a row name as GB prints it
    # (BM_Copy/1024/gpu:1/manual_time): text for the reader, nothing depends on it.
    ("config/settings_table.cpp", "manual_time"): "a row name in the help text",
}

SOURCE_EXTENSIONS = (".hpp", ".cpp", ".cu", ".cuh")


def split_code(text):
    """[(line, kind, text)] of a C++ source: kind is "code" or "string" (a string literal with its
    quotes, or a character literal); comments are dropped. Raw strings are taken as code."""
    pieces = []
    i = 0
    code_start = 0

    def flush_code(end):
        if end > code_start:
            pieces.append((line_of(code_start), "code", text[code_start:end]))

    starts = [0]
    for index, char in enumerate(text):
        if char == "\n":
            starts.append(index + 1)

    def line_of(offset):
        low, high = 0, len(starts)
        while high - low > 1:
            middle = (low + high) // 2
            if starts[middle] <= offset:
                low = middle
            else:
                high = middle
        return low + 1

    while i < len(text):
        if text.startswith("//", i):
            flush_code(i)
            end = text.find("\n", i)
            i = len(text) if end < 0 else end
            code_start = i
        elif text.startswith("/*", i):
            flush_code(i)
            end = text.find("*/", i + 2)
            i = len(text) if end < 0 else end + 2
            code_start = i
        elif text[i] in "\"'":
            quote = text[i]
            flush_code(i)
            j = i + 1
            while j < len(text) and text[j] != quote and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            pieces.append((line_of(i), "string", text[i:j + 1]))
            i = j + 1
            code_start = i
        else:
            i += 1
    flush_code(len(text))
    return pieces


def uses(relative, text):
    """The uses of PATTERNS in one file's text: [(line, pattern name)]."""
    found = []
    for line, kind, piece in split_code(text):
        for name, (where, pattern) in PATTERNS.items():
            if where != kind or (relative, name) in EXCEPTIONS:
                continue
            for match in re.finditer(pattern, piece, re.MULTILINE):
                found.append((line + piece.count("\n", 0, match.start()), name))
    return found


def check(root):
    problems = []
    src = os.path.join(root, "src")
    for folder, _, files in os.walk(src):
        for name in sorted(files):
            if not name.endswith(SOURCE_EXTENSIONS):
                continue
            path = os.path.join(folder, name)
            relative = os.path.relpath(path, src).replace(os.sep, "/")
            if relative.startswith(("gb/", "tools/")):
                continue
            with open(path, encoding="utf-8") as handle:
                text = handle.read()
            for line, pattern in uses(relative, text):
                problems.append("src/%s:%d: %s is Google Benchmark's internals: move it into "
                                "src/gb/gb_internals.cpp (or name an exception in %s)"
                                % (relative, line, pattern, os.path.basename(__file__)))
    return problems


def self_test():
    planted = {
        "internal::": "auto* b = benchmark::internal::RegisterBenchmarkInternal(x);\n",
        "run_name.": "run->run_name.args += tag;\n",
        "run_type": "if (run.run_type == 0) {}\n",
        "RT_Aggregate|RT_Iteration": "bool a = kind == Run::RT_Aggregate;\n",
        "aggregate_name": 'bool mean = run.aggregate_name == "mean";\n',
        "repetition_index": "auto i = run.repetition_index;\n",
        "min_time_": "double t = b.*&Benchmark::min_time_;\n",
        "ArgsCnt": "int n = b.ArgsCnt();\n",
        "KeepRunningBatch": "state.KeepRunningBatch(1);\n",
        "ConsoleReporter's protected members": "if (!printed_header_) {}\n",
        '"iterations:': 'std::string part = "iterations:" + count;\n',
        "manual_time": 'bool manual = type.find("manual_time") != npos;\n',
        "process_time": 'bool process = type == "process_time";\n',
        "repeats:": 'std::string r = "/repeats:3";\n',
        '"benchmarks": [': 'const std::string marker = "\\"benchmarks\\": [";\n',
    }
    failures = 0
    for name, line in planted.items():
        with tempfile.TemporaryDirectory() as root:
            path = os.path.join(root, "src", "measure", "a.cpp")
            os.makedirs(os.path.dirname(path))
            with open(path, "w") as handle:
                handle.write("#include <x>\n\nint f() {\n  " + line + "}\n")
            found = check(root)
            if len(found) != 1 or "src/measure/a.cpp:4: %s " % name not in found[0]:
                print("self-test FAIL: %s planted at line 4, found %s" % (name, found))
                failures += 1
    # Not uses: the same lines in src/gb/ and src/tools/, in comments, gpubench's own names that
    # contain a pattern, and a named exception.
    allowed = {
        "src/gb/gb_internals.cpp": "".join(planted.values()),
        "src/tools/load/rows.cpp": "".join(planted.values()),
        "src/measure/b.cpp": "// run.run_name.args, KeepRunningBatch, \"iterations:\"\n"
                             "/* benchmark::internal::Benchmark, min_time_ */\n"
                             "double own_min_time_seconds = min_time_seconds_;\n"
                             "bool Compare(bool process_time);\n"
                             "std::string note = \"see GB's ArgsCnt\";\n",
        "src/frontend/hooks/reporter.cpp": "if (!printed_header_) prev_counters_ = counters;\n",
    }
    with tempfile.TemporaryDirectory() as root:
        for file, content in allowed.items():
            os.makedirs(os.path.dirname(os.path.join(root, file)), exist_ok=True)
            with open(os.path.join(root, file), "w") as handle:
                handle.write(content)
        if check(root):
            print("self-test FAIL: allowed text reported: %s" % check(root))
            failures += 1
    total = len(planted) + 1
    print("self-test: %d of %d cases as expected" % (total - failures, total))
    return 1 if failures else 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-2], file=sys.stderr)
        return 2
    problems = check(sys.argv[1])
    for problem in problems:
        print(problem)
    if not problems:
        print("gb internals: none used outside src/gb/ (%d named exceptions)" % len(EXCEPTIONS))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
