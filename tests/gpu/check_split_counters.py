#!/usr/bin/env python3
"""The hardware counters cover what the GPU time covers (issue #64): Split_ScopeThenRead/8192
(tests/gpu/targets.cu) writes 256 MiB in a gpubench::UntimedScope, then times a kernel that reads
64 MiB, writes nothing and runs about 4.5 ms. Default settings (cache=flush, the profiling child):

1. dram_read_bytes within 1% of 64 MiB: the kernel's reads, not the scope's;
2. dram_write_bytes below 2 MiB (the bytes counters' granularity), not the scope's 256 MiB;
3. gpu_duration within 2% of ncu's gpu__time_duration.sum of the kernel (median of the timed
   iterations, selected by gpubench's NVTX range and the kernel's name; --cache-control all, as
   gpubench flushes L2 before the kernel's range).
4. With +l2, whatever CUPTI returns for the empty part before the scope: l2_read_bytes is
   written, and l2_hit_rate is written exactly when gpubench did not say it left the hit rate
   out (a share cannot be put together from an iteration's parts).

Needs a GPU with CUPTI's profiler and ncu; exits 77 (skip) without them. About 30 s.
Usage: check_split_counters.py GPUBENCH_GPU_TARGETS OUT_DIR
"""
import csv
import io
import json
import os
import shutil
import statistics
import subprocess
import sys

INSTANCE = "Split_ScopeThenRead/8192"
READ_BYTES = 64 << 20
SCOPE_BYTES = 256 << 20
READ_TOLERANCE = 0.01
WRITE_LIMIT = 2 << 20
DURATION_TOLERANCE = 0.02
UNITS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0, "nsecond": 1e-9, "usecond": 1e-6,
         "msecond": 1e-3, "second": 1.0}
FAILURES = []


def check(condition, message):
    print(("ok   " if condition else "FAIL ") + message, flush=True)
    if not condition:
        FAILURES.append(message)


def run_gpubench(binary, out_dir, tag, extra):
    path = os.path.join(out_dir, tag + ".json")
    command = [binary, "--benchmark_filter=^" + INSTANCE + "/", "--benchmark_out=" + path,
               "--benchmark_out_format=json", "--gpubench_cache=flush"] + extra
    print("$ " + " ".join(command), flush=True)
    result = subprocess.run(command, capture_output=True, text=True, timeout=300)
    with open(os.path.join(out_dir, tag + ".log"), "w") as log:
        log.write(result.stdout + "\n--- stderr\n" + result.stderr)
    if result.returncode != 0 or not os.path.exists(path):
        print("gpubench failed (exit %d):\n%s" % (result.returncode, result.stderr[-3000:]))
        sys.exit(1)
    with open(path) as handle:
        report = json.load(handle)
    context = report["context"]
    if context.get("gpu_status") != "ok":
        print("SKIP: no usable CUDA device: " + context.get("gpu_status", "?"))
        sys.exit(77)
    if not context.get("gpubench_profiler", "").startswith("on"):
        print("SKIP: no hardware metrics here: gpubench_profiler=" +
              context.get("gpubench_profiler", "?"))
        sys.exit(77)
    rows = [row for row in report["benchmarks"] if row.get("run_type", "iteration") == "iteration"]
    if len(rows) != 1 or rows[0].get("error_occurred") or rows[0].get("error_message"):
        print("FAIL: expected one row without error; got %s" % rows)
        sys.exit(1)
    return rows[0], result.stderr


def ncu_kernel_seconds(ncu, binary, out_dir):
    command = [ncu, "--nvtx", "--nvtx-include", "gpubench@" + INSTANCE + "/", "-k",
               "regex:ReadChainKernel", "--clock-control", "none", "--cache-control", "all",
               "--metrics", "gpu__time_duration.sum", "--csv", binary,
               "--benchmark_filter=^" + INSTANCE + "/", "--gpubench_profile_iterations=0"]
    print("$ " + " ".join(command), flush=True)
    result = subprocess.run(command, capture_output=True, text=True, timeout=300)
    with open(os.path.join(out_dir, "ncu.log"), "w") as log:
        log.write(result.stdout + "\n--- stderr\n" + result.stderr)
    if result.returncode != 0:
        print("FAIL: ncu exited %d:\n%s" % (result.returncode, result.stderr[-3000:]))
        sys.exit(1)
    seconds = []
    for row in csv.DictReader(io.StringIO(result.stdout[result.stdout.find('"ID"'):])):
        if row.get("Metric Name") == "gpu__time_duration.sum":
            value = float(row["Metric Value"].replace(",", ""))
            seconds.append(value * UNITS[row["Metric Unit"]])
    return seconds


def main():
    binary, out_dir = sys.argv[1], sys.argv[2]
    os.makedirs(out_dir, exist_ok=True)
    row, stderr = run_gpubench(binary, out_dir, "default", [])
    read = row.get("dram_read_bytes")
    write = row.get("dram_write_bytes")
    duration = row.get("gpu_duration")
    if read is None or write is None or duration is None:
        print("FAIL: the row has no hardware counters; gpubench said:\n" + stderr[-3000:])
        return 1
    check(abs(read / READ_BYTES - 1) <= READ_TOLERANCE,
          "dram_read_bytes %.0f = %.4f x the kernel's %d (the scope wrote %d)" %
          (read, read / READ_BYTES, READ_BYTES, SCOPE_BYTES))
    check(write < WRITE_LIMIT, "dram_write_bytes %.0f < %d (the scope wrote %d)" %
          (write, WRITE_LIMIT, SCOPE_BYTES))

    ncu = shutil.which("ncu") or "/usr/local/cuda/bin/ncu"
    if not os.path.exists(ncu):
        print("SKIP: ncu not found (PATH or /usr/local/cuda/bin)")
        return 77
    kernels = ncu_kernel_seconds(ncu, binary, out_dir)
    check(len(kernels) == 5, "ncu profiled %d ReadChainKernel launches in the timed iterations "
                             "(5 expected)" % len(kernels))
    if kernels:
        reference = statistics.median(kernels)
        check(abs(duration / reference - 1) <= DURATION_TOLERANCE,
              "gpu_duration %.2f us against ncu's kernel %.2f us (%+.2f%%, allowed %.0f%%); GPU "
              "time %.2f %s" % (duration * 1e6, reference * 1e6, 100 * (duration / reference - 1),
                                100 * DURATION_TOLERANCE, row["real_time"], row["time_unit"]))

    l2_row, l2_stderr = run_gpubench(binary, out_dir, "l2", ["--gpubench_metrics=+l2"])
    said = "lts__t_sector_hit_rate.pct (l2_hit_rate)" in l2_stderr
    check("l2_read_bytes" in l2_row, "+l2: l2_read_bytes written (%s)" % l2_row.get("l2_read_bytes"))
    check(("l2_hit_rate" in l2_row) != said,
          "+l2: l2_hit_rate %s, and gpubench %s it left the hit rate out" %
          ("written" if "l2_hit_rate" in l2_row else "absent", "said" if said else "did not say"))
    print("info: the empty part before the scope %s" %
          ("came back from CUPTI (the iterations have two parts)" if said else
           "did not come back from CUPTI (one part per iteration)"))
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
