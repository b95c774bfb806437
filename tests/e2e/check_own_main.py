#!/usr/bin/env python3
"""A suite with a main of its own that follows README's recipe (tests/e2e/own_main_suite.cpp).

- A bad gpubench flag, or a bad GB flag, exits 2 with the reason on stderr and runs nothing.
- A plain run exits 0, keeps GB's names (no count gpubench set in them), and says once on stderr
  that GB's stopping rule is kept and how to get gpubench's; the context block says the same
  (gpubench_stopping_rule=gb and gpubench_stopping_note).
- With --benchmark_min_time the user asked GB for its rule: nothing is said on the console.

Usage: check_own_main.py BINARY OUT_DIR
"""
import json
import os
import subprocess
import sys

NOTE = "gpubench: GB's rule: a main of your own"


def run(binary, args, json_path):
    if os.path.exists(json_path):
        os.remove(json_path)
    return subprocess.run([binary] + args + ["--benchmark_out=" + json_path,
                                             "--benchmark_out_format=json"],
                          capture_output=True, text=True, timeout=300)


def main():
    binary, out_dir = sys.argv[1], sys.argv[2]
    os.makedirs(out_dir, exist_ok=True)
    problems = []

    for name, args, expected in [
        ("bad gpubench flag", ["--gpubench_cache=cold"], ["cold", "flush", "keep"]),
        ("bad GB flag", ["--benchmark_filtr=Memset"], ["--benchmark_filtr"]),
    ]:
        path = os.path.join(out_dir, "bad.json")
        result = run(binary, args, path)
        if result.returncode != 2:
            problems.append("%s: exit code %d, expected 2" % (name, result.returncode))
        for text in expected:
            if text not in result.stderr:
                problems.append("%s: stderr lacks %r:\n%s" % (name, text, result.stderr))
        if os.path.exists(path):
            problems.append("%s: benchmarks ran (JSON written)" % name)

    path = os.path.join(out_dir, "plain.json")
    result = run(binary, [], path)
    if result.returncode != 0:
        problems.append("plain run: exit code %d, expected 0:\n%s" % (result.returncode,
                                                                        result.stderr))
    if result.stderr.count(NOTE) != 1:
        problems.append("plain run: stderr says %r %d times, expected once:\n%s" % (
            NOTE, result.stderr.count(NOTE), result.stderr))
    if "gpubench::Main(argc, argv)" not in result.stderr:
        problems.append("plain run: stderr does not say how to get gpubench's rule")
    try:
        report = json.load(open(path))
        context = report["context"]
        if context.get("gpubench_stopping_rule") != "gb":
            problems.append("plain run: gpubench_stopping_rule=%r, expected 'gb'" %
                            context.get("gpubench_stopping_rule"))
        if "a main of your own" not in context.get("gpubench_stopping_note", ""):
            problems.append("plain run: gpubench_stopping_note lacks the reason: %r" %
                            context.get("gpubench_stopping_note"))
        names = [row["name"] for row in report["benchmarks"]]
        if not names:
            problems.append("plain run: no rows")
        for name in names:
            if "iterations:" in name:
                problems.append("plain run: a count in GB's name: %s" % name)
    except (OSError, ValueError, KeyError) as error:
        problems.append("plain run: no readable JSON (%s)" % error)

    result = run(binary, ["--benchmark_min_time=0.01"], os.path.join(out_dir, "min_time.json"))
    if result.returncode != 0:
        problems.append("min_time run: exit code %d" % result.returncode)
    if NOTE in result.stderr:
        problems.append("min_time run: the own-main note was printed, but GB's rule was asked for")

    for problem in problems:
        print("FAIL: " + problem)
    if problems:
        return 1
    print("OK: own main: bad flags exit 2, GB's rule kept and said once, names unchanged")
    return 0


if __name__ == "__main__":
    sys.exit(main())
