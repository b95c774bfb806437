#!/usr/bin/env python3
"""Writes a large Google Benchmark JSON file shaped like a gpubench run on an H200, for timing
gpubench-export and gpubench-report (not a test).

Families of benchmarks sweep a power-of-two argument; every instance has R repetitions with
all of gpubench's counters (values modelled on tests/data/h200/examples_a1.json) and
GB's four aggregate rows (mean, median, stddev, cv) when R > 1. The context is the H200 run's.

usage: generate_gpubench_run.py OUT.json --benchmarks N [--repetitions R] [--args-per-family A]
                                [--seed S] [--slowdown F]
"""
import argparse
import json
import os
import random
import statistics

HERE = os.path.dirname(os.path.abspath(__file__))
CONTEXT_SOURCE = os.path.join(HERE, "..", "..", "..", "tests", "compare", "data", "h200",
                              "examples_a1.json")
PEAK = 4814304000000.0


def row(name, family, instance, reps, index, values, run_type="iteration", aggregate=None):
    out = {"name": name if aggregate is None else name + "_" + aggregate,
           "family_index": family, "per_family_instance_index": instance, "run_name": name,
           "run_type": run_type, "repetitions": reps}
    if aggregate is None:
        out["repetition_index"] = index
    out["threads"] = 1
    if aggregate is not None:
        out["aggregate_name"] = aggregate
        out["aggregate_unit"] = "percentage" if aggregate == "cv" else "time"
    out["iterations"] = 1000 if aggregate is None else reps
    out.update(values)
    out["time_unit"] = "ns"
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--benchmarks", type=int, required=True)
    parser.add_argument("--repetitions", type=int, default=10)
    parser.add_argument("--args-per-family", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--slowdown", type=float, default=1.0)
    options = parser.parse_args()
    rng = random.Random(options.seed)
    with open(CONTEXT_SOURCE) as handle:
        context = json.load(handle)["context"]
    rows = []
    reps = options.repetitions
    for index in range(options.benchmarks):
        family, instance = divmod(index, options.args_per_family)
        argument = 1 << (10 + 2 * instance)
        name = "BM_Kernel%d/%d/manual_time" % (family, argument)
        moved = 8.0 * argument * (1 + family % 3)
        efficiency = min(0.92, 0.05 + 0.9 * instance / options.args_per_family)
        base_ns = max(3000.0, moved / (PEAK * efficiency) * 1e9) * options.slowdown
        series = []
        for _ in range(reps):
            ns = base_ns * (1 + rng.gauss(0, 0.004))
            read = moved / 2 * (1 + rng.gauss(0, 1e-5))
            write = moved / 2 * (1 + rng.gauss(0, 1e-5))
            duration = ns * 1e-9 * (1 + rng.gauss(0, 0.01))
            clock = 1979 + rng.gauss(0, 0.3)
            series.append({
                "real_time": ns, "cpu_time": ns + 35000,
                "bytes_moved": read + write, "bytes_per_second": (read + write) / (ns * 1e-9),
                "dram_bandwidth": (read + write) / duration,
                "dram_bandwidth_pct": (read + write) / duration / PEAK * 100,
                "dram_read_bytes": read, "dram_write_bytes": write, "gpu_duration": duration,
                "profile_passes": 1.0, "profiled_sm_clock_mhz": clock - 5,
                "sm_clock_mhz": clock, "sm_clock_rated_mhz": 1980.0, "sm_clock_throttled": 0.0})
        for i, values in enumerate(series):
            rows.append(row(name, family, instance, reps, i, values))
        if reps == 1:
            continue  # GB writes aggregates only with repetitions
        keys = list(series[0])
        columns = {key: [values[key] for values in series] for key in keys}
        mean = {key: statistics.fmean(columns[key]) for key in keys}
        stddev = {key: statistics.stdev(columns[key]) if reps > 1 else 0.0 for key in keys}
        rows.append(row(name, family, instance, reps, 0, mean, "aggregate", "mean"))
        rows.append(row(name, family, instance, reps, 0,
                        {key: statistics.median(columns[key]) for key in keys}, "aggregate",
                        "median"))
        rows.append(row(name, family, instance, reps, 0, stddev, "aggregate", "stddev"))
        rows.append(row(name, family, instance, reps, 0,
                        {key: stddev[key] / mean[key] if mean[key] else 0.0 for key in keys},
                        "aggregate", "cv"))
    with open(options.out, "w") as handle:
        json.dump({"context": context, "benchmarks": rows}, handle, indent=1)


if __name__ == "__main__":
    main()
