#!/usr/bin/env python3
"""gpu_busy_time against an activity trace that shares no code with gpubench (issue #21).

gpubench_sync (bench/examples/synchronising.cu) runs with default settings; its busy time per
iteration (kernels, memcpy and memset, from the profiling child's traced iterations) must be within
3% of the median union per iteration that bench/validation/activity_trace.cpp records in a run with
metrics off, grouped by bench/validation/activity_groups.py; and no row's gpu_busy_pct may exceed 100.
Needs a GPU; exits 77 without one.
Usage: check_busy.py GPUBENCH_SYNC TRACER_LIBRARY BENCH_DIR OUT_DIR
"""
import json
import os
import statistics
import subprocess
import sys

binary, tracer, bench_dir, out = sys.argv[1:5]
sys.path.insert(0, bench_dir)
import activity_groups  # noqa: E402

TOLERANCE = 0.03
MIN_ITERATIONS = 10


def main():
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, "sync.json")
    result = subprocess.run([binary, "--benchmark_filter=" + activity_groups.SYNC_FILTER,
                             "--benchmark_min_time=0.1", "--benchmark_out=" + path,
                             "--benchmark_out_format=json"],
                            capture_output=True, text=True, timeout=600)
    with open(os.path.join(out, "sync.log"), "w") as log:
        log.write(result.stdout + "\n--- stderr\n" + result.stderr)
    if result.returncode != 0 or not os.path.exists(path):
        print("gpubench_sync failed (exit %d):\n%s" % (result.returncode, result.stderr[-3000:]))
        return 1
    with open(path) as handle:
        report = json.load(handle)
    if report["context"].get("gpu_status") != "ok":
        print("SKIP: no usable CUDA device: " + report["context"].get("gpu_status", "?"))
        return 77
    failures = 0
    busy = {}
    for row in report["benchmarks"]:
        name = row["name"].split("/manual_time")[0]
        if "gpu_busy_pct" not in row:
            print("FAIL %s: no gpu_busy_pct (context gpubench_gpu_busy: %s)" %
                  (name, report["context"].get("gpubench_gpu_busy", "")))
            failures += 1
            continue
        if not 0 < row["gpu_busy_pct"] <= 100:
            print("FAIL %s: gpu_busy_pct %.2f is outside (0, 100]" % (name, row["gpu_busy_pct"]))
            failures += 1
        busy[name] = row["gpu_busy_time"]
    code, records, log = activity_groups.run_traced(binary, tracer, out)
    if code != 0 or not records:
        print("FAIL: the traced run (exit %d) wrote %d records; see %s" % (code, len(records), log))
        return 1
    for name, (first, then) in activity_groups.SYNC_EXAMPLE.items():
        iterations = activity_groups.traced_iterations(records, first, then)
        if len(iterations) < MIN_ITERATIONS or name not in busy:
            print("FAIL %s: %d iterations traced, gpubench busy %s" %
                  (name, len(iterations), busy.get(name)))
            failures += 1
            continue
        union = statistics.median(u for u, _ in iterations) * 1e-9
        ratio = busy[name] / union
        verdict = "ok" if abs(ratio - 1) <= TOLERANCE else "FAIL"
        failures += verdict == "FAIL"
        print("%s %s: gpu_busy_time %.2f us, traced union %.2f us over %d iterations (%+.2f%%)" %
              (verdict, name, busy[name] * 1e6, union * 1e6, len(iterations),
               100 * (ratio - 1)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
