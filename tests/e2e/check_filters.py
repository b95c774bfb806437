#!/usr/bin/env python3
"""--benchmark_filter under GPUBENCH_MAIN(), end to end (tests/e2e/aborting_suite.cpp).

- A filter written for the plain GB names of converted benchmarks, anchored at the end
  ('BM_DeviceFill/1048576$', also 'a$|b$' and a negative '-...$'), still selects them, although
  GB names them .../manual_time (and .../iterations:2/manual_time under gpubench's count).
- A filter that selects no benchmark exits 2 with gpubench's message naming the filter as given,
  for a run and for --benchmark_list_tests; nothing is silently empty.

Usage: check_filters.py BINARY OUT_DIR
"""
import json
import os
import subprocess
import sys

PROBLEMS = []


def check(condition, message):
    if not condition:
        PROBLEMS.append(message)
    return condition


def run(binary, args):
    # No --benchmark_min_time: gpubench's count, so GB names the GPU instances
    # .../iterations:2/manual_time, which the filter must still select.
    return subprocess.run([binary] + args, capture_output=True,
                          text=True, timeout=300)


def selected(binary, out_dir, flt, label):
    path = os.path.join(out_dir, label + ".json")
    if os.path.exists(path):
        os.remove(path)
    result = run(binary, ["--benchmark_filter=" + flt, "--benchmark_out=" + path,
                          "--benchmark_out_format=json"])
    if not check(result.returncode == 0, "%s (%s): exit %d, expected 0; stderr: %s"
                 % (label, flt, result.returncode, result.stderr[-2000:])):
        return None
    with open(path) as handle:
        names = sorted(row["name"] for row in json.load(handle)["benchmarks"])
    print("%s: --benchmark_filter='%s' selects %s" % (label, flt, names))
    return names


def main():
    binary, out_dir = sys.argv[1], sys.argv[2]
    os.makedirs(out_dir, exist_ok=True)
    small, large = "BM_DeviceFill/1048576/manual_time", "BM_DeviceFill/4194304/manual_time"

    names = selected(binary, out_dir, "BM_DeviceFill/1048576$", "plain_name")
    check(names == [small], "plain GB name: selects %s, expected %s" % (names, [small]))
    names = selected(binary, out_dir, "^BM_DeviceFill/1048576$|^BM_HostLast$", "alternatives")
    check(names == sorted([small, "BM_HostLast"]), "a$|b$: selects %s" % names)
    names = selected(binary, out_dir, "-BM_DeviceFill/1048576$", "negative")
    check(names == sorted(["BM_HostFirst", large, "BM_HostLast"]),
          "negative filter: selects %s" % names)
    names = selected(binary, out_dir, "^" + small + "$", "printed_name")
    check(names == [small], "the name gpubench prints: selects %s" % names)

    for args, label in ((["--benchmark_filter=^BM_Nothing$"], "run"),
                        (["--benchmark_filter=^BM_Nothing$", "--benchmark_list_tests"], "list")):
        result = run(binary, args)
        check(result.returncode == 2, "a filter that selects nothing (%s): exit %d, expected 2"
              % (label, result.returncode))
        check("gpubench: --benchmark_filter='^BM_Nothing$' selects no benchmark" in result.stderr,
              "a filter that selects nothing (%s): gpubench's message is missing:\n%s"
              % (label, result.stderr[-2000:]))
        print("%s with --benchmark_filter='^BM_Nothing$': exit %d" % (label, result.returncode))

    for problem in PROBLEMS:
        print("FAIL: " + problem)
    return 1 if PROBLEMS else 0


if __name__ == "__main__":
    sys.exit(main())
