#!/usr/bin/env python3
"""The synchronising example (bench/synchronising.cu) against Nsight Compute on the H200.

1. gpubench_sync with default settings: GPU time, gpu_busy_time, gpu_busy_pct, launch_held and
   the busy message, per benchmark (JSON and stderr kept in OUT_DIR).
2. ncu --nvtx inside gpubench's range of BM_SyncLoop: the kernels' gpu__time_duration per
   iteration (ncu does not time memcpy or memset; nsys, where present, adds them).
3. ncu inside BM_RestoreThenKernel/untimed:1: the ~100 us kernel's duration, against the GPU
   time gpubench reports with the restore in an UntimedScope.
Usage: sync_crosscheck.py GPUBENCH_SYNC OUT_DIR
"""
import csv
import io
import json
import os
import shutil
import statistics
import subprocess
import sys

binary, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)


def run(command, name, timeout=300):
    result = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    with open(os.path.join(out, name + ".log"), "w") as log:
        log.write(" ".join(command) + "\n" + result.stdout + "\n--- stderr\n" + result.stderr)
    return result


# 1. gpubench, default settings
json_path = os.path.join(out, "sync.json")
result = run([binary, "--benchmark_repetitions=3", "--benchmark_min_time=0.2",
              "--benchmark_out=" + json_path, "--benchmark_out_format=json"], "sync")
print("gpubench exit", result.returncode)
for line in result.stderr.splitlines():
    if "GPU busy" in line or "launch_held" in line or "UntimedScope" in line:
        print("  stderr:", line[:400])
rows = {}
try:
    for row in json.load(open(json_path))["benchmarks"]:
        if row.get("aggregate_name") == "median":
            rows[row["run_name"]] = row
except (OSError, ValueError) as error:
    print("no JSON:", error)
for name, row in rows.items():
    print("  %-40s GPU time %9.2f us  busy %s us  busy_pct %s  launch_held %s" % (
        name, row["real_time"] / 1e3 if row.get("time_unit") == "ns" else row["real_time"],
        "%.2f" % (row["gpu_busy_time"] * 1e6) if "gpu_busy_time" in row else "-",
        "%.1f" % row["gpu_busy_pct"] if "gpu_busy_pct" in row else "-",
        row.get("launch_held", "-")))
context = json.load(open(json_path)).get("context", {}) if os.path.exists(json_path) else {}
print("  gpubench_gpu_busy:", context.get("gpubench_gpu_busy", "")[:200])
print("  gpubench_host_calls:", context.get("gpubench_host_calls", "")[:600])


def ncu_kernels(instance, filter_regex, count):
    command = ["ncu", "--nvtx", "--nvtx-include", "gpubench@%s/" % instance, "--metrics",
               "gpu__time_duration.sum", "--clock-control", "none", "--csv", "--print-units", "base", "-c", str(count),
               binary, "--benchmark_filter=" + filter_regex, "--benchmark_min_time=0.01"]
    result = run(command, "ncu_" + instance.replace("/", "_").replace(":", "_"), timeout=400)
    text = result.stdout[result.stdout.find('"ID"'):]
    durations = []
    for record in csv.DictReader(io.StringIO(text)):
        if record.get("Metric Name") == "gpu__time_duration.sum":
            durations.append((record["Kernel Name"], float(record["Metric Value"].replace(",", ""))))
    return durations


# 2. BM_SyncLoop: three kernels per iteration
kernels = ncu_kernels("BM_SyncLoop/1048576", "BM_SyncLoop/1048576", 30)
small = [sum(d for _, d in kernels[i:i + 3]) for i in range(0, len(kernels) - 2, 3)]
if small:
    print("ncu BM_SyncLoop/1048576: %d kernels; kernel time per iteration median %.2f us" %
          (len(kernels), statistics.median(small) / 1e3))
kernels = ncu_kernels("BM_SyncLoop/16777216", "BM_SyncLoop/16777216", 30)
per_iteration = [sum(d for _, d in kernels[i:i + 3]) for i in range(0, len(kernels) - 2, 3)]
if per_iteration:
    print("ncu BM_SyncLoop/16777216: %d kernels; kernel time per iteration median %.2f us "
          "(min %.2f, max %.2f)" % (len(kernels), statistics.median(per_iteration) / 1e3,
                                    min(per_iteration) / 1e3, max(per_iteration) / 1e3))
else:
    print("ncu BM_SyncLoop: no kernels (see ncu log)")

# 3. the kernel after an untimed restore
kernels = ncu_kernels("BM_RestoreThenKernel/1", "BM_RestoreThenKernel/untimed:1", 20)
if kernels:
    values = [d for _, d in kernels]
    print("ncu BM_RestoreThenKernel/untimed:1 kernel: median %.2f us over %d (min %.2f, max %.2f)" %
          (statistics.median(values) / 1e3, len(values), min(values) / 1e3, max(values) / 1e3))

# nsys, where present: memcpy and memset too
if shutil.which("nsys"):
    report = os.path.join(out, "sync_nsys")
    run(["nsys", "profile", "-o", report, "--force-overwrite=true", "--trace=cuda,nvtx", binary,
         "--benchmark_filter=BM_SyncLoop/", "--gpubench_metrics=off",
         "--benchmark_min_time=0.05"], "nsys_profile", timeout=300)
    stats = run(["nsys", "stats", "--report", "cuda_gpu_trace", "--format", "csv",
                 report + ".nsys-rep"], "nsys_stats", timeout=300)
    print("nsys: trace in nsys_stats.log (%d lines)" % len(stats.stdout.splitlines()))
else:
    print("nsys: not installed")
