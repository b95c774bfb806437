#!/usr/bin/env python3
"""What a result costs on the GPU machine, beside NVBench (issue #35, docs/accuracy.md "What a
result costs").

For each kernel of NVBench's peer binary (tiny, copy of 2^20 floats, FMA chain) it runs, one
process each, timing the whole process:
  - NVBench with its default stopping rule;
  - gpubench_short with default settings, one repetition and ten;
  - with --spread N: N more processes of ten repetitions of each kernel, for the spread of the
    medians between runs.
Writes OUT/cost.json (every number below, and the raw JSON files beside it) and prints a table.

  cost_check.py GPUBENCH_SHORT NVBENCH_COPY_BENCH OUT [--spread N] [--gpubench-args "..."]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

KERNELS = [
    # name, gpubench filter, NVBench benchmark and axis arguments
    ("tiny", "^BM_ShortTiny/", ["-b", "Tiny"]),
    ("copy_2^20", "^BM_ShortCopy/1048576/", ["-b", "Copy", "-a", "Elements=1048576"]),
    ("fma", "^BM_ShortFma/", ["-b", "Fma"]),
]


def timed(command, log, env=None):
    start = time.monotonic()
    with open(log, "w") as out:
        code = subprocess.call(command, stdout=out, stderr=subprocess.STDOUT, env=env)
    return code, time.monotonic() - start


def nvbench_summary(path):
    """NVBench's JSON: the cold GPU time's mean and relative noise, and the sample count."""
    with open(path) as f:
        data = json.load(f)
    state = data["benchmarks"][0]["states"][0]
    values = {}
    for summary in state.get("summaries", []):
        for item in summary.get("data", []):
            if item.get("name") == "value":
                try:
                    values[summary["tag"]] = float(item["value"])
                except (TypeError, ValueError):
                    pass
    return {
        "gpu_time_s": values.get("nv/cold/time/gpu/mean"),
        "noise": values.get("nv/cold/time/gpu/stdev/relative"),
        "samples": values.get("nv/cold/sample_size"),
    }


def gpubench_summary(path):
    """GB JSON of gpubench: per repetition and the medians and cv of the repetitions."""
    with open(path) as f:
        data = json.load(f)
    reps = [b for b in data["benchmarks"] if b.get("run_type") == "iteration"]
    to_s = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
    times = [b["real_time"] * to_s[b.get("time_unit", "ns")] for b in reps]
    mean = statistics.mean(times) if times else None
    return {
        "name": reps[0]["name"] if reps else None,
        "repetitions": len(reps),
        "gpu_time_s": [round(t, 12) for t in times],
        "median_s": statistics.median(times) if times else None,
        "cv_between_repetitions": (statistics.stdev(times) / mean) if len(times) > 1 else None,
        "iterations": [b["iterations"] for b in reps],
        "stop_reason": [b.get("stop_reason") for b in reps],
        "precision_pct": [b.get("precision_pct") for b in reps],
        "wall_time_s": sum(b.get("wall_time", 0) for b in reps),
        "wall_timed_s": sum(b.get("wall_timed", 0) for b in reps),
        "wall_warmup_s": sum(b.get("wall_warmup", 0) for b in reps),
        "wall_profiling_s": sum(b.get("wall_profiling", 0) for b in reps),
        "fingerprint": data["context"].get("gpubench_settings_fingerprint"),
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("gpubench")
    parser.add_argument("nvbench")
    parser.add_argument("out")
    parser.add_argument("--spread", type=int, default=0)
    parser.add_argument("--gpubench-args", default="")
    parser.add_argument("--skip-nvbench", action="store_true")
    parser.add_argument("--reps", default="1,10", help="repetition counts of the single runs")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    extra = args.gpubench_args.split()
    result = {"kernels": {}}
    for name, gb_filter, nvb_args in KERNELS:
        entry = result["kernels"].setdefault(name, {})
        if not args.skip_nvbench:
            path = os.path.join(args.out, f"nvbench_{name}.json")
            code, wall = timed([args.nvbench, "-d", "0", *nvb_args, "--json", path],
                               os.path.join(args.out, f"nvbench_{name}.log"))
            entry["nvbench"] = {"exit": code, "wall_s": round(wall, 3)}
            if code == 0:
                entry["nvbench"].update(nvbench_summary(path))
        for reps in [int(r) for r in args.reps.split(",")]:
            path = os.path.join(args.out, f"gpubench_{name}_{reps}.json")
            command = [args.gpubench, f"--benchmark_filter={gb_filter}",
                       f"--benchmark_repetitions={reps}", f"--benchmark_out={path}",
                       "--benchmark_out_format=json", *extra]
            code, wall = timed(command, os.path.join(args.out, f"gpubench_{name}_{reps}.log"))
            run = {"exit": code, "wall_s": round(wall, 3)}
            if code == 0:
                run.update(gpubench_summary(path))
            entry[f"gpubench_{reps}"] = run
    for i in range(args.spread):
        for name, gb_filter, _ in KERNELS:
            path = os.path.join(args.out, f"spread_{name}_{i}.json")
            command = [args.gpubench, f"--benchmark_filter={gb_filter}",
                       "--benchmark_repetitions=10", f"--benchmark_out={path}",
                       "--benchmark_out_format=json", *extra]
            code, wall = timed(command, os.path.join(args.out, f"spread_{name}_{i}.log"))
            runs = result["kernels"][name].setdefault("spread", [])
            runs.append({"exit": code, "wall_s": round(wall, 3),
                         **(gpubench_summary(path) if code == 0 else {})})
    for name, entry in result["kernels"].items():
        medians = [r["median_s"] for r in entry.get("spread", []) if r.get("median_s")]
        if len(medians) > 1:
            entry["between_run_sd"] = statistics.stdev(medians) / statistics.mean(medians)
            entry["within_run_cv_mean"] = statistics.mean(
                r["cv_between_repetitions"] for r in entry["spread"] if r.get("cv_between_repetitions"))
    with open(os.path.join(args.out, "cost.json"), "w") as f:
        json.dump(result, f, indent=1)
    print("| kernel | NVBench wall | NVBench time (noise) | gpubench 1 rep wall | 10 reps wall |"
          " gpubench median | cv (10 reps) | samples per rep | stop | between-run sd |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, entry in result["kernels"].items():
        nvb = entry.get("nvbench", {})
        one, ten = entry.get("gpubench_1", {}), entry.get("gpubench_10", entry.get("gpubench_1", {}))
        nvb_time = nvb.get("gpu_time_s")
        fmt = lambda v, f: (f % v) if v is not None else "-"
        print(f"| {name} | {fmt(nvb.get('wall_s'), '%.2f s')} | "
              f"{fmt(nvb_time and nvb_time * 1e6, '%.3f us')} ({fmt(nvb.get('noise') and nvb['noise'] * 100, '%.2f%%')}) | "
              f"{fmt(one.get('wall_s'), '%.2f s')} | {fmt(ten.get('wall_s'), '%.2f s')} | "
              f"{fmt(ten.get('median_s') and ten['median_s'] * 1e6, '%.3f us')} | "
              f"{fmt(ten.get('cv_between_repetitions') and ten['cv_between_repetitions'] * 100, '%.3f%%')} | "
              f"{ten.get('iterations', ['-'])[0]} | {ten.get('stop_reason', ['-'])[0]} | "
              f"{fmt(entry.get('between_run_sd') and entry['between_run_sd'] * 100, '%.2f%%')} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
