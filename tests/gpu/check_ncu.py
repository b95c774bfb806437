#!/usr/bin/env python3
"""gpubench against Nsight Compute on the same binary (needs a GPU and ncu; exits 77 without).

0. Under ncu, gpubench's own CUPTI profiler steps aside and the context block says so.
1. ncu --nvtx --nvtx-include "gpubench@Ncu_Copy/268435456/" selects exactly the 5 timed
   iterations: 5 CopyKernel launches, no warm-up, flush or clock-probe kernel.
2. gpubench's GPU time (events) for that 2 GiB copy is within 5% of ncu's gpu__time_duration.sum.
3. timer=cupti: within 2% of ncu for the ~100 us kernel and within 1 us for the ~5 us kernel.
"""
import csv
import io
import json
import os
import shutil
import subprocess
import sys

UNITS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0, "nsecond": 1e-9, "usecond": 1e-6,
         "msecond": 1e-3, "second": 1.0}


def run(command, timeout=600, env=None):
    print("$ " + " ".join(command), flush=True)
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env)


def gpubench_times(binary, out_dir, tag, extra):
    path = os.path.join(out_dir, tag + ".json")
    result = run([binary, "--benchmark_filter=^Ncu_", "--benchmark_out=" + path,
                  "--benchmark_out_format=json", "--gpubench_profile_iterations=0"] + extra)
    if result.returncode != 0:
        print(result.stdout, result.stderr)
        sys.exit(1)
    with open(path) as handle:
        report = json.load(handle)
    if report["context"]["gpu_status"] != "ok":
        print("SKIP: no usable CUDA device: " + report["context"]["gpu_status"])
        sys.exit(77)
    scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
    return {b["name"].split("/iterations")[0]: b["real_time"] * scale[b["time_unit"]]
            for b in report["benchmarks"] if not b.get("error_occurred")}


def ncu_kernels(ncu, binary, nvtx_range, out_dir, gpubench_flags=("--gpubench_profile_iterations=0",)):
    result = run([ncu, "--nvtx", "--nvtx-include", "gpubench@" + nvtx_range + "/",
                  "--clock-control", "none", "--cache-control", "all",
                  "--metrics", "gpu__time_duration.sum", "--csv",
                  binary, "--benchmark_filter=^" + nvtx_range + "/"] + list(gpubench_flags))
    with open(os.path.join(out_dir, "ncu_%s.txt" % nvtx_range.replace("/", "_")), "w") as handle:
        handle.write(result.stdout + "\n" + result.stderr)
    if result.returncode != 0:
        print(result.stdout[-3000:], result.stderr[-3000:])
        sys.exit(1)
    text = result.stdout[result.stdout.find('"ID"'):]
    kernels = []
    for row in csv.DictReader(io.StringIO(text)):
        if row.get("Metric Name") == "gpu__time_duration.sum":
            value = float(row["Metric Value"].replace(",", ""))
            kernels.append((row["Kernel Name"], value * UNITS[row["Metric Unit"]]))
    return kernels, result.stdout


def main():
    binary, out_dir = sys.argv[1], sys.argv[2]
    os.makedirs(out_dir, exist_ok=True)
    ncu = shutil.which("ncu") or "/usr/local/cuda/bin/ncu"
    events = gpubench_times(binary, out_dir, "events", [])
    if not os.path.exists(ncu):
        print("SKIP: ncu not found")
        sys.exit(77)
    cupti = gpubench_times(binary, out_dir, "cupti", ["--gpubench_timer=cupti"])
    failures = 0

    # With its profiler on (the default), gpubench must step aside under ncu and say so.
    copy, stdout = ncu_kernels(ncu, binary, "Ncu_Copy/268435456", out_dir, gpubench_flags=())
    if "profiler=unavailable: " not in stdout or "another" not in stdout:
        print("FAIL: under ncu gpubench did not say that it stepped aside from CUPTI; its "
              "banner: %s" % [l for l in stdout.splitlines() if "profiler=" in l][:2])
        failures += 1
    names = sorted(set(name for name, _ in copy))
    print("ncu profiled %d kernels in the copy's ranges: %s" % (len(copy), names))
    if len(copy) != 5 or any("CopyKernel" not in name for name, _ in copy):
        print("FAIL: expected exactly the 5 timed CopyKernel launches")
        failures += 1
    if copy:
        ncu_time = sum(t for _, t in copy) / len(copy)
        ours = events["Ncu_Copy/268435456"]
        print("copy 2 GiB: gpubench events %.2f us, ncu %.2f us, ratio %.4f" %
              (ours * 1e6, ncu_time * 1e6, ours / ncu_time))
        if abs(ours / ncu_time - 1) > 0.05:
            print("FAIL: gpubench's time is not within 5% of ncu's")
            failures += 1

    for arg, tolerance in (("200000", ("relative", 0.02)), ("10000", ("absolute", 1e-6))):
        name = "Ncu_Spin/" + arg
        spins, _ = ncu_kernels(ncu, binary, name, out_dir)
        if not spins:
            print("FAIL: ncu profiled nothing in %s" % name)
            failures += 1
            continue
        ncu_time = sum(t for _, t in spins) / len(spins)
        ours = cupti[name]
        print("%s: timer=cupti %.3f us, timer=events %.3f us, ncu %.3f us" %
              (name, ours * 1e6, events[name] * 1e6, ncu_time * 1e6))
        kind, limit = tolerance
        error = abs(ours / ncu_time - 1) if kind == "relative" else abs(ours - ncu_time)
        if error > limit:
            print("FAIL: timer=cupti differs from ncu by %g (%s limit %g)" % (error, kind, limit))
            failures += 1
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
