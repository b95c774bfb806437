#!/usr/bin/env python3
"""The synchronising example (bench/examples/synchronising.cu) against Nsight Compute on the H200.

1. gpubench_sync with default settings: GPU time, gpu_busy_time, gpu_busy_pct, launch_held and
   the busy message, per benchmark (JSON and stderr kept in OUT_DIR).
2. ncu --nvtx inside gpubench's range of BM_SyncLoop: the kernels' gpu__time_duration per
   iteration (ncu does not time memcpy or memset; nsys, where present, adds them).
3. ncu inside BM_RestoreThenKernel/untimed:1 and BM_KernelWithoutRestore: the ~100 us kernel's
   duration, against the GPU time gpubench reports with the restore in an UntimedScope and for
   the kernel alone (the same timer without any scope).
4. An activity trace that shares no code with gpubench (bench/validation/activity_trace.cpp,
   injected with CUDA_INJECTION64_PATH, metrics off): every kernel, memcpy and memset of BM_SyncLoop
   and BM_RestoreThenKernel/untimed:0, grouped into iterations by the body's own sequence of GPU
   work; the median union per iteration against gpubench's gpu_busy_time (ncu times kernels only).
Usage: sync_crosscheck.py GPUBENCH_SYNC OUT_DIR [ACTIVITY_TRACE_LIBRARY]
"""
import json
import os
import shutil
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import activity_groups  # noqa: E402

binary, out = sys.argv[1], sys.argv[2]
tracer = os.path.abspath(sys.argv[3]) if len(sys.argv) > 3 else ""
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
    if ("GPU busy" in line or "launch_held" in line or "UntimedScope" in line or
            "profiling pass done" in line):
        print("  stderr:", line[:400])
rows = {}
try:
    for row in json.load(open(json_path))["benchmarks"]:
        if row.get("aggregate_name") == "median":
            rows[row["run_name"].replace("/manual_time", "")] = row
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


def ncu_kernels(instance, filter_regex, count, min_time, cache_control="all"):
    log = os.path.join(out, "ncu_%s_cache_%s.log" % (
        instance.replace("/", "_").replace(":", "_"), cache_control))
    return activity_groups.ncu_kernel_durations("ncu", binary, instance, filter_regex, count,
                                                min_time, cache_control, log)


# 2. BM_SyncLoop: three kernels per iteration. Inside an iteration they run back to back after the
# body's own restore, on whatever it left in L2; ncu's default (--cache-control all) flushes L2
# before each of them, a different experiment. Both are printed; the busy comparison in 4 uses
# "none", the body's own cache state.
ncu_sync = {}
for size in ("1048576", "16777216"):
    name = "BM_SyncLoop/" + size
    for cache_control in ("none", "all"):
        kernels = ncu_kernels(name, name, 30, 3, cache_control)
        per_iteration = activity_groups.sums_per_iteration(kernels,
                                                            activity_groups.SYNC_LOOP_KERNELS)
        if not per_iteration:
            print("ncu %s --cache-control %s: no kernels (see ncu log)" % (name, cache_control))
            continue
        ncu_sync[(name, cache_control)] = statistics.median(per_iteration)
        print("ncu %s --cache-control %s: %d kernels; kernel time per iteration median %.2f us "
              "(min %.2f, max %.2f)" % (name, cache_control, len(kernels),
                                        statistics.median(per_iteration) / 1e3,
                                        min(per_iteration) / 1e3, max(per_iteration) / 1e3))

# 3. the kernel after an untimed restore, and alone
# gpubench flushes L2 (clean lines only) before each iteration and after an UntimedScope, so the
# kernel starts on a clean, cold L2: ncu's default flush matches.
control = next((name for name in rows if name.startswith("BM_KernelWithoutRestore/")),
               "BM_KernelWithoutRestore/39845888")
for instance, filter_regex, name in (
        ("BM_RestoreThenKernel/1", "BM_RestoreThenKernel/untimed:1",
         "BM_RestoreThenKernel/untimed:1"),
        (control, "BM_KernelWithoutRestore/", control)):
    kernels = ncu_kernels(instance, filter_regex, 40, 3)
    if not kernels:
        print("ncu %s: no kernels (see ncu log)" % filter_regex)
        continue
    values = [d for _, d in kernels]
    kernel_us = statistics.median(values) / 1e3
    print("ncu %s kernel: median %.2f us over %d (min %.2f, max %.2f)" %
          (name, kernel_us, len(values), min(values) / 1e3, max(values) / 1e3))
    if name in rows:
        gpu_us = rows[name]["real_time"] / 1e3
        print("  gpubench GPU time %.2f us: %+.2f%% of ncu's kernel" %
              (gpu_us, 100 * (gpu_us / kernel_us - 1)))
if "BM_RestoreThenKernel/untimed:1" in rows and control in rows:
    scoped = rows["BM_RestoreThenKernel/untimed:1"]["real_time"]
    alone = rows[control]["real_time"]
    print("gpubench: restore in the scope %.2f us, kernel alone %.2f us: the scope adds %+.2f%%" %
          (scoped / 1e3, alone / 1e3, 100 * (scoped / alone - 1)))


# 4. memcpy and memset: an independent activity trace, grouped by the body's sequence
if tracer and os.path.exists(tracer):
    code, records, _ = activity_groups.run_traced(binary, tracer, out)
    print("activity trace (bench/validation/activity_trace.cpp, metrics off): exit %d, %d records" %
          (code, len(records)))
    for name, (first, then) in activity_groups.SYNC_EXAMPLE.items():
        iterations = activity_groups.traced_iterations(records, first, then)
        if not iterations:
            print("  %s: no iteration found in the trace" % name)
            continue
        union_us = statistics.median(u for u, _ in iterations) / 1e3
        middle = sorted(iterations, key=lambda it: it[0])[len(iterations) // 2]
        parts = ", ".join("%s %.2f" % (kind, ns / 1e3) for kind, ns in middle[1])
        line = "  %s: %d iterations traced; busy (union) per iteration median %.2f us [%s]" % (
            name, len(iterations), union_us, parts)
        if name in rows and "gpu_busy_time" in rows[name]:
            busy_us = rows[name]["gpu_busy_time"] * 1e6
            line += "; gpubench gpu_busy_time %.2f us (%+.2f%%)" % (busy_us,
                                                                  100 * (busy_us / union_us - 1))
        print(line)
        # ncu times kernels only: its kernels plus the traced memcpy and memset of each
        # iteration. The body is serial (synchronous copies, one stream), so the sum is the union.
        if (name, "none") in ncu_sync and name in rows and "gpu_busy_time" in rows[name]:
            copies_us = activity_groups.median_copy_time(iterations) / 1e3
            reference_us = ncu_sync[(name, "none")] / 1e3 + copies_us
            busy_us = rows[name]["gpu_busy_time"] * 1e6
            print("  %s: ncu's kernels (--cache-control none) %.2f us + traced memcpy/memset "
                  "%.2f us = %.2f us; gpubench gpu_busy_time %.2f us (%+.2f%%)" %
                  (name, ncu_sync[(name, "none")] / 1e3, copies_us, reference_us, busy_us,
                   100 * (busy_us / reference_us - 1)))
else:
    print("activity trace: no tracer library given")

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
