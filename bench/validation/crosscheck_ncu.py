#!/usr/bin/env python3
"""gpubench against Nsight Compute on the example binary (H200 numbers in docs/accuracy.md).

For each streaming example: dram bytes read/written and duration per iteration from gpubench
(user ranges, default metrics, cache=flush) and from ncu (kernel replay, --cache-control all,
--clock-control none, the same metrics, the kernels inside gpubench's NVTX ranges), beside the
analytic bytes. Then the time to collect the metrics for the whole example suite with its own
defaults: gpubench with profiling on and off (twice each, alternating), against ncu --nvtx with
the same metrics on the same binary (twice); the profiling sessions gpubench ran are counted
from its --gpubench_profile_out file.
Usage: crosscheck_ncu.py EXAMPLES_BINARY OUT_DIR [--suite-only]
"""
import csv
import io
import json
import os
import shutil
import subprocess
import sys
import time

METRICS = "dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum"
FLOAT = 4
N = 1 << 29
# name: (analytic read bytes, analytic write bytes, kernels per iteration)
CASES = {
    "BM_Copy/536870912": (N * FLOAT, N * FLOAT, 1),
    "BM_Saxpy/536870912": (2 * N * FLOAT, N * FLOAT, 1),
    "BM_Unfused/536870912": (2 * N * FLOAT, 2 * N * FLOAT, 2),
    "BM_Fused/536870912": (N * FLOAT, N * FLOAT, 1),
}
SCALE = {"byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9, "B": 1, "KB": 1e3, "MB": 1e6,
         "GB": 1e9, "ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1, "nsecond": 1e-9,
         "usecond": 1e-6, "msecond": 1e-3, "second": 1}


def timed(command, log_path):
    start = time.time()
    result = subprocess.run(command, capture_output=True, text=True, timeout=1800)
    elapsed = time.time() - start
    with open(log_path, "w") as handle:
        handle.write("$ " + " ".join(command) + "\n" + result.stdout + "\n" + result.stderr)
    if result.returncode != 0:
        print(result.stdout[-2000:], result.stderr[-2000:])
        raise SystemExit("failed: " + " ".join(command))
    return elapsed, result.stdout


def ncu_per_iteration(ncu, binary, name, out_dir, kernels_per_iteration):
    _, stdout = timed([ncu, "--nvtx", "--nvtx-include", "gpubench@" + name + "/",
                       "--clock-control", "none", "--cache-control", "all", "--metrics", METRICS,
                       "--csv", binary, "--benchmark_filter=^" + name + "/",
                       "--benchmark_min_time=0.001", "--gpubench_profile_iterations=0"],
                      os.path.join(out_dir, "ncu_" + name.split("/")[0] + ".log"))
    text = stdout[stdout.find('"ID"'):]
    totals, ids = {}, set()
    for row in csv.DictReader(io.StringIO(text)):
        ids.add(row["ID"])
        value = float(row["Metric Value"].replace(",", "")) * SCALE[row["Metric Unit"]]
        totals[row["Metric Name"]] = totals.get(row["Metric Name"], 0.0) + value
    iterations = max(1, len(ids) // kernels_per_iteration)
    return {k: v / iterations for k, v in totals.items()}, len(ids)


def bytes_table(ncu, binary, out_dir):
    ours_path = os.path.join(out_dir, "crosscheck_gpubench.json")
    timed([binary, "--benchmark_filter=" + "|".join("^" + c + "/" for c in CASES),
           "--benchmark_min_time=0.05", "--benchmark_out=" + ours_path,
           "--benchmark_out_format=json"], os.path.join(out_dir, "crosscheck_gpubench.log"))
    with open(ours_path) as handle:
        ours = {b["name"].rsplit("/manual_time", 1)[0]: b for b in json.load(handle)["benchmarks"]}
    lines = ["| benchmark | read: analytic / gpubench / ncu | write: analytic / gpubench / ncu "
             "| duration us: gpubench range / ncu kernels / events |",
             "|---|---|---|---|"]
    for name, (read, write, kernels) in CASES.items():
        theirs, profiled = ncu_per_iteration(ncu, binary, name, out_dir, kernels)
        mine = ours[name]
        gb = lambda x: "%.4f GB" % (x / 1e9)
        lines.append("| %s | %s / %s (%.2f%%) / %s (%.2f%%) | %s / %s (%.2f%%) / %s (%.2f%%) "
                     "| %.1f / %.1f / %.1f |" % (
                         name, gb(read), gb(mine["dram_read_bytes"]),
                         100 * mine["dram_read_bytes"] / read,
                         gb(theirs.get("dram__bytes_read.sum", 0)),
                         100 * theirs.get("dram__bytes_read.sum", 0) / read,
                         gb(write), gb(mine["dram_write_bytes"]),
                         100 * mine["dram_write_bytes"] / write,
                         gb(theirs.get("dram__bytes_write.sum", 0)),
                         100 * theirs.get("dram__bytes_write.sum", 0) / write,
                         mine["gpu_duration"] * 1e6,
                         theirs.get("gpu__time_duration.sum", 0) * 1e6,
                         mine["real_time"] * {"ns": 1e-3, "us": 1, "ms": 1e3}[mine["time_unit"]]))
        print(lines[-1], "(ncu profiled %d kernels)" % profiled, flush=True)
    fused = ours["BM_Fused/536870912"]["bytes_moved"]
    unfused = ours["BM_Unfused/536870912"]["bytes_moved"]
    lines.append("\nFusion saving in bytes moved: unfused / fused = %.4f (analytic 2.0000)" %
                 (unfused / fused))
    print(lines[-1])
    return lines


def profile_sessions(path):
    """(count, host seconds inside them) from a --gpubench_profile_out file."""
    with open(path) as handle:
        records = [json.loads(line) for line in handle]
    return len(records), sum(record["seconds"] for record in records)


def fresh_path(path):
    if os.path.exists(path):
        os.remove(path)
    return path


def suite_cost(ncu, binary, out_dir):
    """The example suite with its own defaults: what collecting the metrics costs each way.

    gpubench's cost is measured in two parts: creating the profiler at start (one short
    benchmark with profiling on, less its sessions, against profiling off; five times each) and
    the profiling sessions (host seconds from --gpubench_profile_out). The suite's wall time with and without metrics is
    reported too, but it varies by about a second between runs on its own (GB's iteration counts
    follow the GPU time, which drifts by a few percent), so it is not the basis of the ratio."""
    listing = subprocess.run([binary, "--benchmark_list_tests"], capture_output=True, text=True)
    includes = []
    for test in listing.stdout.split():
        instance = test.rsplit("/manual_time", 1)[0]
        includes += ["--nvtx-include", "gpubench@" + instance + "/"]
    # Both runs create the CUDA context (the profiler does it at start, the loop otherwise);
    # the one benchmark's sessions are taken out of the profiled run's time.
    setup_on, setup_off = [], []
    one = [binary, "--benchmark_filter=^BM_TinyKernel", "--benchmark_min_time=0.01"]
    for round_index in range(5):
        path = fresh_path(os.path.join(out_dir, "setup_profile.jsonl"))
        elapsed = timed(one + ["--gpubench_profile_out=" + path],
                        os.path.join(out_dir, "setup_on.log"))[0]
        setup_on.append(elapsed - profile_sessions(path)[1])
        setup_off.append(timed(one + ["--gpubench_profile_iterations=0"],
                               os.path.join(out_dir, "setup_off.log"))[0])
    setup = sorted(setup_on)[2] - sorted(setup_off)[2]  # medians
    with_metrics, timing_only, under_ncu = [], [], []
    sessions, session_seconds, kernels = [], [], []
    for round_index in range(2):
        profile_path = fresh_path(os.path.join(out_dir, "suite_profile_%d.jsonl" % round_index))
        with_metrics.append(timed([binary, "--gpubench_profile_out=" + profile_path],
                                  os.path.join(out_dir, "suite_gpubench_%d.log" % round_index))[0])
        count, seconds = profile_sessions(profile_path)
        sessions.append(count)
        session_seconds.append(seconds)
        timing_only.append(timed([binary, "--gpubench_profile_iterations=0"],
                                 os.path.join(out_dir, "suite_timing_only_%d.log" % round_index))[0])
        elapsed, stdout = timed([ncu, "--nvtx"] + includes +
                                ["--clock-control", "none", "--cache-control", "all", "--metrics",
                                 METRICS + ",sm__cycles_elapsed.avg.per_second", binary],
                                os.path.join(out_dir, "suite_ncu_%d.log" % round_index))
        under_ncu.append(elapsed)
        kernels.append(stdout.count("==PROF== Profiling"))
    every_path = fresh_path(os.path.join(out_dir, "suite_profile_all.jsonl"))
    every_wall = timed([binary, "--gpubench_profile_runs=all", "--gpubench_profile_out=" +
                        every_path], os.path.join(out_dir, "suite_gpubench_all.log"))[0]
    every_count, every_seconds = profile_sessions(every_path)
    cost = setup + sum(session_seconds) / 2
    ncu_mean = sum(under_ncu) / 2
    instances = len(includes) // 2
    return ["",
            "Example suite (%d instances), default flags:" % instances,
            "- gpubench profiler setup: %.2f s (one short benchmark: median wall time with "
            "profiling on, less its sessions, %.2f s; off %.2f s)"
            % (setup, sorted(setup_on)[2], sorted(setup_off)[2]),
            "- gpubench profiling sessions: %s (%s s of host time inside them)"
            % (" / ".join(str(n) for n in sessions),
               " / ".join("%.2f" % t for t in session_seconds)),
            "- gpubench metrics cost: %.2f s (setup + sessions)" % cost,
            "- suite wall time with metrics %s s, timing only %s s (difference %.2f s, %.3fx)"
            % (" / ".join("%.1f" % t for t in with_metrics),
               " / ".join("%.1f" % t for t in timing_only),
               sum(with_metrics) / 2 - sum(timing_only) / 2, sum(with_metrics) / sum(timing_only)),
            "- with --gpubench_profile_runs=all: %d sessions, %.2f s inside them, suite %.1f s"
            % (every_count, every_seconds, every_wall),
            "- ncu --nvtx, same metrics, same binary: %s s (%s kernels profiled)"
            % (" / ".join("%.1f" % t for t in under_ncu), " / ".join(str(k) for k in kernels)),
            "- ncu / gpubench metrics cost = %.1fx" % (ncu_mean / max(cost, 1e-9))]


def main():
    binary, out_dir = sys.argv[1], sys.argv[2]
    os.makedirs(out_dir, exist_ok=True)
    ncu = shutil.which("ncu") or "/usr/local/cuda/bin/ncu"
    lines = [] if "--suite-only" in sys.argv[3:] else bytes_table(ncu, binary, out_dir)
    suite = suite_cost(ncu, binary, out_dir)
    print("\n".join(suite))
    with open(os.path.join(out_dir, "crosscheck.md"), "w") as handle:
        handle.write("\n".join(lines + suite) + "\n")


if __name__ == "__main__":
    main()
