#!/usr/bin/env python3
"""On a GPU: a benchmark of gpubench's form that prints a line and calls std::terminate()
before its loop, after two GPU benchmarks that finish (tests/e2e/aborting_suite.cpp with
ABORTING_SUITE_GPU_TERMINATE=1). Exits 77 (skip) without a GPU.

1. Metrics off (--gpubench_profile_iterations=0: no profiling child): the process ends with
   SIGABRT; the JSON file is valid and keeps the rows before it, all measured; the last row is an
   error row for BM_DeviceTerminates/manual_time that names SIGABRT; the benchmark after it did
   not run; the suite's line reached stdout; gpubench names the benchmark on stderr.
2. The default (a profiling child first, where the profiler is on): the child aborts in
   BM_DeviceTerminates; this process does not run it again, its row is an error that says the
   child aborted in it, the benchmarks after it are timed, the JSON is valid and the exit code
   is 1. Where the profiler is off, no child runs and the run is the first case's.

Usage: check_abort.py BINARY OUT_DIR
"""
import json
import os
import signal
import subprocess
import sys

NAME = "BM_DeviceTerminates/manual_time"
BEFORE = ["BM_HostFirst", "BM_DeviceFill/1048576/manual_time", "BM_DeviceFill/4194304/manual_time"]
SUITE_LINE = "aborting_suite: BM_DeviceTerminates calls std::terminate()"
PROBLEMS = []


def check(condition, message):
    if not condition:
        PROBLEMS.append(message)
    return condition


def run(binary, path, args):
    if os.path.exists(path):
        os.remove(path)
    env = dict(os.environ)
    env.pop("ABORTING_SUITE_CPU_TERMINATE", None)
    env["ABORTING_SUITE_GPU_TERMINATE"] = "1"
    result = subprocess.run([binary, "--benchmark_out=" + path,
                             "--benchmark_out_format=json"] + args,
                            capture_output=True, text=True, timeout=600, env=env)
    print(result.stdout[-4000:])
    print(result.stderr[-4000:], file=sys.stderr)
    try:
        with open(path) as handle:
            return result, json.load(handle)
    except (OSError, ValueError) as error:
        check(False, "%s: the JSON file is not valid: %s" % (args, error))
        return result, None


def check_before(rows, label):
    names = [row["name"] for row in rows]
    check(names[:len(BEFORE)] == BEFORE, "%s: the rows before the abort are %s, expected %s"
          % (label, names, BEFORE))
    for row in rows[:len(BEFORE)]:
        check(not row.get("error_occurred"), "%s: %s failed: %s"
              % (label, row["name"], row.get("error_message")))
        if row["name"].startswith("BM_Device"):
            check("sm_clock_mhz" in row, "%s: %s was not measured" % (label, row["name"]))


def main():
    binary, out_dir = sys.argv[1], sys.argv[2]
    os.makedirs(out_dir, exist_ok=True)

    # 1. No profiling child: the abort ends this process.
    result, report = run(binary, os.path.join(out_dir, "direct.json"),
                         ["--gpubench_profile_iterations=0"])
    if report is not None and report["context"].get("gpu_status") != "ok":
        print("SKIP: no usable CUDA device: " + report["context"].get("gpu_status", "?"))
        return 77
    check(result.returncode == -signal.SIGABRT, "direct: exit %d, expected SIGABRT"
          % result.returncode)
    check(SUITE_LINE in result.stdout, "direct: the suite's line was lost from stdout")
    check("gpubench: the process aborted (SIGABRT) in the benchmark " + NAME in result.stderr,
          "direct: gpubench did not name the benchmark on stderr")
    if report is not None:
        rows = report["benchmarks"]
        check_before(rows, "direct")
        names = [row["name"] for row in rows]
        check(names == BEFORE + [NAME], "direct: rows %s, expected %s" % (names, BEFORE + [NAME]))
        if names and names[-1] == NAME:
            last = rows[-1]
            message = last.get("error_message", "")
            check(last.get("error_occurred") is True and "SIGABRT" in message and NAME in message,
                  "direct: the last row is not an error naming SIGABRT and the benchmark: %s" % last)
        print("direct: exit %d, rows %s" % (result.returncode, names))

    # 2. The default: a profiling child runs every benchmark first.
    result, report = run(binary, os.path.join(out_dir, "child.json"), [])
    if report is not None:
        rows = report["benchmarks"]
        names = [row["name"] for row in rows]
        child = report["context"].get("gpubench_profile_process") == "child" and \
            report["context"].get("gpubench_profiler", "").startswith("on")
        if not child:
            print("the profiler is off here (%s): no profiling child, the direct case again"
                  % report["context"].get("gpubench_profiler"))
            check(result.returncode == -signal.SIGABRT, "default: exit %d" % result.returncode)
            check(names == BEFORE + [NAME], "default: rows %s" % names)
        else:
            check(result.returncode == 1, "child: exit %d, expected 1" % result.returncode)
            check_before(rows, "child")
            check(names == BEFORE + [NAME, "BM_HostLast"],
                  "child: rows %s, expected %s" % (names, BEFORE + [NAME, "BM_HostLast"]))
            by_name = {row["name"]: row for row in rows}
            message = by_name.get(NAME, {}).get("error_message", "")
            check(by_name.get(NAME, {}).get("error_occurred") is True
                  and "the profiling child" in message and "SIGABRT" in message,
                  "child: %s is not an error saying the child aborted in it: %r" % (NAME, message))
            check("the child aborted (SIGABRT) in BM_DeviceTerminates" in result.stderr,
                  "child: the profiling pass did not say that the child aborted")
        print("default: exit %d, rows %s" % (result.returncode, names))

    for problem in PROBLEMS:
        print("FAIL: " + problem)
    return 1 if PROBLEMS else 0


if __name__ == "__main__":
    sys.exit(main())
