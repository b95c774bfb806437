#!/usr/bin/env python3
"""Metrics on times like metrics off, within LIMIT (issue #25): runs of gpubench_short with
hardware metrics off and on, alternating, default settings otherwise. With metrics on the run starts with the
profiling pass, so its rows must carry the metric counters (not profiled_inline), and the held
1-warp kernel and the 2^20- and 2^26-float copies must time within LIMIT of the runs with metrics off
(median of the runs' medians). Before the profiling pass the tiny kernel was 8-10% slower with
metrics on; runs with metrics off vary by up to ~3% between processes. Until 2026-12-06 the
timed process made its context while the child ran, which put its buffers elsewhere, and the
tiny kernel timed 4-6% apart (either way by card), so this check failed at times; the context
is now made after the child (docs/accuracy.md "Metrics on and off"). Exits 77 (skip) without a
GPU.

usage: check_metrics_pass.py GPUBENCH_SHORT WORK_DIR [RUNS]
"""
import json
import os
import statistics
import subprocess
import sys

FILTER = "^BM_Short(Tiny|Copy/1048576|Copy/67108864)/"
ARGS = ["--benchmark_filter=" + FILTER, "--benchmark_min_time=0.1", "--benchmark_repetitions=5",
        "--benchmark_out_format=json"]
LIMIT = 0.04
FAILURES = []


def check(condition, message):
    print(("ok   " if condition else "FAIL ") + message)
    if not condition:
        FAILURES.append(message)


def run(binary, out_dir, tag, extra):
    out = os.path.join(out_dir, tag + ".json")
    with open(os.path.join(out_dir, tag + ".log"), "w") as log:
        code = subprocess.call([binary] + ARGS + ["--benchmark_out=" + out] + extra, stdout=log,
                               stderr=subprocess.STDOUT, timeout=600)
    document = json.load(open(out)) if os.path.exists(out) else None
    return code, document, open(os.path.join(out_dir, tag + ".log")).read()


def main():
    binary, out_dir = sys.argv[1], sys.argv[2]
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    os.makedirs(out_dir, exist_ok=True)
    medians = {}  # (benchmark, mode) -> the runs' medians
    cvs = {}  # (benchmark, mode) -> the runs' cv of their repetitions, %
    for i in range(runs):
        for mode, extra in (("off", ["--gpubench_profile_iterations=0"]), ("on", [])):
            code, document, log = run(binary, out_dir, "%s%d" % (mode, i), extra)
            if document is None or document["context"].get("gpu_status") != "ok":
                print("SKIP: no usable CUDA device: %s" %
                      (document or {}).get("context", {}).get("gpu_status"))
                sys.exit(77)
            check(code == 0, "%s %d: exit code %s" % (mode, i, code))
            times = {}
            for row in document["benchmarks"]:
                if row.get("run_type") != "iteration":
                    continue
                name = row["run_name"].split("/manual_time")[0]
                times.setdefault(name, []).append(row["real_time"])
                if mode == "on" and i == 0:
                    check("dram_read_bytes" in row and "gpu_duration" in row,
                          "%s: metric counters present with metrics on" % name)
                    check("profiled_inline" not in row, "%s: not profiled inline" % name)
            if mode == "on":
                check("profiling pass done" in log, "on %d: the run said it profiled first" % i)
            for name, values in times.items():
                medians.setdefault((name, mode), []).append(statistics.median(values))
                cvs.setdefault((name, mode), []).append(
                    100 * statistics.pstdev(values) / statistics.mean(values))
    for name in sorted({name for name, _ in medians}):
        off = statistics.median(medians[(name, "off")])
        on = statistics.median(medians[(name, "on")])
        check(abs(on / off - 1) <= LIMIT,
              "%s: metrics on %.4f vs off %.4f (%+.2f%%; runs off %s, on %s)" %
              (name, on, off, 100 * (on / off - 1),
               " ".join("%.4f" % m for m in medians[(name, "off")]),
               " ".join("%.4f" % m for m in medians[(name, "on")])))
        print("     %s: cv off %s %%, on %s %%" %
              (name, " ".join("%.3f" % c for c in cvs[(name, "off")]),
               " ".join("%.3f" % c for c in cvs[(name, "on")])))
    if FAILURES:
        print("%d check(s) failed" % len(FAILURES))
        sys.exit(1)


if __name__ == "__main__":
    main()
