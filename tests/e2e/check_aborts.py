#!/usr/bin/env python3
"""A suite whose CUDA check calls std::terminate() (tests/e2e/aborting_suite.cpp), end to end.

1. A plain run: exit 0 and valid JSON. Without a GPU the GPU benchmark's row is an error that
   names the missing device, and its set-up never ran (it would have terminated the run); the
   CPU benchmarks registered with GB's own macro ran. With a GPU every row ran.
2. A CPU benchmark that prints a line and calls std::terminate() after the first benchmarks
   (ABORTING_SUITE_CPU_TERMINATE=1, read by the suite): the process ends with SIGABRT, the JSON
   file keeps the rows before it and is valid, the benchmarks after it did not run, the suite's
   line reached stdout (a pipe) although it was still in stdout's buffer, and gpubench says
   on stderr what happened. --benchmark_out_format=csv keeps the rows before it too.

Usage: check_aborts.py BINARY OUT_DIR
"""
import csv
import io
import json
import os
import signal
import subprocess
import sys

NO_DEVICE = "gpubench: no usable CUDA device ("
NOT_RUN = "): the benchmark's set-up and body were not run"
SET_UP_LINE = "aborting_suite: the set-up of BM_DeviceFill/"
DEVICE_ROWS = ["BM_DeviceFill/1048576/manual_time", "BM_DeviceFill/4194304/manual_time"]
PROBLEMS = []


def check(condition, message):
    if not condition:
        PROBLEMS.append(message)
    return condition


def run(binary, out, fmt, env_extra=None):
    if os.path.exists(out):
        os.remove(out)
    env = dict(os.environ)
    env.pop("ABORTING_SUITE_CPU_TERMINATE", None)
    env.pop("ABORTING_SUITE_GPU_TERMINATE", None)
    env.update(env_extra or {})
    return subprocess.run([binary, "--benchmark_min_time=0.01", "--benchmark_out=" + out,
                           "--benchmark_out_format=" + fmt],
                          capture_output=True, text=True, timeout=300, env=env)


def load(path, label):
    try:
        with open(path) as handle:
            return json.load(handle)
    except (OSError, ValueError) as error:
        check(False, "%s: the JSON file is not valid: %s" % (label, error))
        return None


def check_device_rows(report, result, label):
    rows = {row["name"]: row for row in report["benchmarks"]}
    gpu = report["context"].get("gpu_status") == "ok"
    for name in DEVICE_ROWS:
        if not check(name in rows, "%s: no row for %s: %s" % (label, name, sorted(rows))):
            continue
        message = rows[name].get("error_message", "")
        if gpu:
            check(not rows[name].get("error_occurred"), "%s: %s failed: %s" % (label, name, message))
        else:
            check(rows[name].get("error_occurred") is True, "%s: %s ran without a GPU" % (label, name))
            check(message.startswith(NO_DEVICE) and message.endswith(NOT_RUN)
                  and "cuda" in message[len(NO_DEVICE):-len(NOT_RUN)],
                  "%s: %s: not gpubench's no-device message with the CUDA error: %r"
                  % (label, name, message))
    if gpu:
        check(SET_UP_LINE in result.stdout, "%s: the GPU benchmarks' set-up did not run" % label)
    else:
        check(SET_UP_LINE not in result.stdout,
              "%s: the set-up of a GPU benchmark ran without a GPU:\n%s" % (label, result.stdout))
    return rows, gpu


def main():
    binary, out_dir = sys.argv[1], sys.argv[2]
    os.makedirs(out_dir, exist_ok=True)

    # 1. No abort.
    path = os.path.join(out_dir, "plain.json")
    result = run(binary, path, "json")
    check(result.returncode == 0, "plain run: exit code %d, expected 0; stderr: %s"
          % (result.returncode, result.stderr[-2000:]))
    report = load(path, "plain run")
    if report is not None:
        rows, gpu = check_device_rows(report, result, "plain run")
        for name in ("BM_HostFirst", "BM_HostLast"):
            check(name in rows and not rows[name].get("error_occurred"),
                  "plain run: the CPU benchmark %s did not run: %s" % (name, rows.get(name)))
        print("plain run: exit %d, %s, rows %s" % (result.returncode, "GPU" if gpu else "no GPU",
                                                    sorted(rows)))

    # 2. A CPU benchmark aborts.
    path = os.path.join(out_dir, "aborted.json")
    result = run(binary, path, "json", {"ABORTING_SUITE_CPU_TERMINATE": "1"})
    check(result.returncode == -signal.SIGABRT,
          "aborted run: exit %d, expected SIGABRT (-%d); stderr: %s"
          % (result.returncode, signal.SIGABRT, result.stderr[-2000:]))
    check("aborting_suite: BM_HostTerminates calls std::terminate()" in result.stdout,
          "aborted run: the suite's own line was lost from stdout:\n%s" % result.stdout)
    check("gpubench: the process aborted (SIGABRT) outside the function of a benchmark "
          "registered through gpubench" in result.stderr,
          "aborted run: gpubench did not say what happened on stderr:\n%s" % result.stderr[-3000:])
    report = load(path, "aborted run")
    if report is not None:
        rows, _ = check_device_rows(report, result, "aborted run")
        check("BM_HostFirst" in rows, "aborted run: the row before the abort was lost")
        check("BM_HostTerminates" not in rows and "BM_HostLast" not in rows,
              "aborted run: rows after the abort: %s" % sorted(rows))
        print("aborted run: exit %d, rows %s" % (result.returncode, sorted(rows)))

    # 2b. The same with a CSV file: the rows before the abort are kept (CSV has no end to close).
    path = os.path.join(out_dir, "aborted.csv")
    result = run(binary, path, "csv", {"ABORTING_SUITE_CPU_TERMINATE": "1"})
    check(result.returncode == -signal.SIGABRT, "aborted CSV run: exit %d" % result.returncode)
    try:
        with open(path) as handle:
            text = handle.read()
    except OSError as error:
        text = ""
        check(False, "aborted CSV run: no file: %s" % error)
    lines = text.splitlines()
    header = next((i for i, line in enumerate(lines) if line.startswith("name,")), None)
    names = ([row["name"] for row in csv.DictReader(io.StringIO("\n".join(lines[header:])))]
             if header is not None else [])
    check(names[:1] == ["BM_HostFirst"] and all(name in names for name in DEVICE_ROWS)
          and "BM_HostLast" not in names,
          "aborted CSV run: rows %s, expected BM_HostFirst and %s" % (names, DEVICE_ROWS))
    print("aborted CSV run: exit %d, rows %s" % (result.returncode, names))

    for problem in PROBLEMS:
        print("FAIL: " + problem)
    return 1 if PROBLEMS else 0


if __name__ == "__main__":
    sys.exit(main())
