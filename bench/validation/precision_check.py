#!/usr/bin/env python3
"""Does a repetition's stated precision hold on real reruns? (issue #47, docs/accuracy.md
"The precision of a repetition")

Reads gpubench JSON files, each one process of several repetitions, and for each benchmark and
each pair of repetitions i, j of one process counts whether

    |m_i - m_j| <= sqrt(h_i^2 + h_j^2)

where m is the repetition's mean GPU time and h its stated 95% half-width (precision_pct of m).
If every h is an honest 95% half-width and the repetitions are independent, about 95% of pairs
hold. It prints per benchmark: pairs held, the median stated half-width, the spread (sd) of the
repetition means within a process, and the stop reasons.

  precision_check.py RUN.json|DIR... [--check] [--min-held 0.90] [--min-failed 0.01]
                                      [--max-width-ratio 2] [--min-processes 8] [--min-kernels 4]
                                      [--samples]

A DIR stands for its run_*.json files.

--check exits 1 unless, for every benchmark, at least --min-held of pairs hold, at least
--min-failed of all pairs (all benchmarks together) fail (an interval that never fails is wider
than it needs to be), and every benchmark's median stated half-width is at most
--max-width-ratio x 1.96 x the median within-process sd of its repetition means.
"""
import argparse
import collections
import glob
import json
import lzma
import math
import os
import statistics
import sys


# stop_reason's codes (include/gpubench/counters.hpp kStopReasons), spelled out here.
STOP_REASONS = {1: "precision", 2: "max_seconds", 3: "minimum", 4: "min_time", 5: "iterations",
                6: "repetition"}


def repetitions(paths):
    """{benchmark: [[(mean, half_width, stop_reason, samples), ...] per process]}"""
    runs = collections.defaultdict(list)
    for path in paths:
        with open(path) as f:
            data = json.load(f)
        per_process = collections.defaultdict(list)
        for row in data.get("benchmarks", []):
            if row.get("run_type") != "iteration" or row.get("error_occurred"):
                continue
            if "precision_pct" not in row:
                continue
            mean = row["real_time"]
            per_process[row["run_name"]].append(
                (mean, row["precision_pct"] / 100 * mean, row.get("stop_reason"),
                 int(row.get("samples", row.get("iterations")))))
        for name, reps in per_process.items():
            runs[name].append(reps)
    return runs


def judge(runs):
    table = []
    for name, processes in sorted(runs.items()):
        held = pairs = 0
        widths, spreads, reasons, samples = [], [], collections.Counter(), []
        for reps in processes:
            for i in range(len(reps)):
                for j in range(i + 1, len(reps)):
                    pairs += 1
                    held += abs(reps[i][0] - reps[j][0]) <= math.hypot(reps[i][1], reps[j][1])
            means = [r[0] for r in reps]
            if len(means) > 1:
                spreads.append(statistics.stdev(means) / statistics.mean(means) * 100)
            widths += [r[1] / r[0] * 100 for r in reps]
            reasons.update(STOP_REASONS.get(r[2], str(r[2])) for r in reps)
            samples += [r[3] for r in reps]
        table.append({
            "benchmark": name, "processes": len(processes), "held": held, "pairs": pairs,
            "median_half_width_pct": statistics.median(widths) if widths else float("nan"),
            "median_sd_pct": statistics.median(spreads) if spreads else float("nan"),
            "stop_reasons": dict(reasons),
            "samples": (min(samples), max(samples)) if samples else (0, 0),
        })
    return table


def expand(paths):
    files = []
    for path in paths:
        files += sorted(glob.glob(os.path.join(path, "run_*.json"))) if os.path.isdir(path) else [path]
    return files


def restate(path):
    """Each repetition's precision_pct recomputed from its samples, against the stated one:
    [(benchmark, repetition, stated, recomputed)]."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import precision_design as mirror
    samples = path.replace("run_", "samples_").replace(".json", ".jsonl.xz")
    if not os.path.exists(samples):
        return None
    calls = collections.defaultdict(list)
    with lzma.open(samples, "rt") as f:
        for line in f:
            r = json.loads(line)
            calls[r["benchmark"]].append([x * 1e-9 for x in r["gpu_ns"]])
    with open(path) as f:
        rows = [r for r in json.load(f)["benchmarks"] if r.get("run_type") == "iteration"
                and not r.get("error_occurred") and "precision_pct" in r]
    out = []
    so_far = collections.defaultdict(list)
    seen = collections.Counter()
    for row in rows:
        name = row["run_name"].split("/manual_time")[0]
        index = seen[name]
        seen[name] += 1
        gpu = calls[name][index]
        prefix = mirror.Prefix(gpu)
        variance, degrees = mirror.within(prefix, len(gpu), "wider")
        own = {"mean": prefix.mean(len(gpu)), "variance": variance, "degrees": degrees}
        so_far[name].append(own)
        out.append((name, index, row["precision_pct"],
                    100 * mirror.half_width(own, so_far[name], True)))
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("runs", nargs="+")
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--min-held", type=float, default=0.90)
    parser.add_argument("--min-failed", type=float, default=0.01)
    parser.add_argument("--max-width-ratio", type=float, default=2.0)
    parser.add_argument("--min-processes", type=int, default=0)
    parser.add_argument("--min-kernels", type=int, default=0)
    parser.add_argument("--samples", action="store_true")
    args = parser.parse_args()
    args.runs = expand(args.runs)
    table = judge(repetitions(args.runs))
    if not table:
        print("no repetitions with precision_pct in", " ".join(args.runs))
        return 1
    print(f"{'benchmark':40s} {'runs':>4s} {'held':>9s} {'share':>6s} {'half-width':>10s} "
          f"{'sd':>8s} {'ratio':>6s}  samples      stop reasons")
    problems = []
    all_held = all_pairs = 0
    for row in table:
        share = row["held"] / row["pairs"] if row["pairs"] else float("nan")
        width, sd = row["median_half_width_pct"], row["median_sd_pct"]
        ratio = width / (1.96 * sd) if sd > 0 else float("inf")
        all_held += row["held"]
        all_pairs += row["pairs"]
        print(f"{row['benchmark']:40s} {row['processes']:4d} {row['held']:4d}/{row['pairs']:<4d} "
              f"{share:6.3f} {width:9.4f}% {sd:7.4f}% {ratio:6.2f}  "
              f"{row['samples'][0]}-{row['samples'][1]:<8d} {row['stop_reasons']}")
        if not share >= args.min_held:
            problems.append(f"{row['benchmark']}: {share:.3f} of pairs held, "
                            f"below {args.min_held:.2f}")
        if not ratio <= args.max_width_ratio:
            problems.append(f"{row['benchmark']}: median half-width {width:.4f}% is {ratio:.2f} x "
                            f"1.96 sd ({sd:.4f}%), above {args.max_width_ratio}")
    failed = 1 - all_held / all_pairs
    print(f"all benchmarks: {all_held}/{all_pairs} pairs held, {100 * failed:.2f}% failed")
    if failed < args.min_failed:
        problems.append(f"only {100 * failed:.2f}% of all pairs failed, below "
                        f"{100 * args.min_failed:.0f}%: the intervals are wider than they need be")
    if len(table) < args.min_kernels:
        problems.append(f"{len(table)} benchmarks, fewer than {args.min_kernels}")
    for row in table:
        if row["processes"] < args.min_processes:
            problems.append(f"{row['benchmark']}: {row['processes']} processes, fewer than "
                            f"{args.min_processes}")
    if args.samples:
        compared = 0
        for path in args.runs:
            restated = restate(path)
            if restated is None:
                problems.append(f"{path}: no samples file beside it")
                continue
            for name, index, stated, recomputed in restated:
                compared += 1
                if abs(stated - recomputed) > 0.01 * stated:
                    problems.append(f"{path}: {name} repetition {index}: precision_pct "
                                    f"{stated:.5f} stated, {recomputed:.5f} from its samples")
        print(f"precision_pct recomputed from the samples for {compared} repetitions")
    for problem in problems:
        print("FAIL:", problem)
    return 1 if args.check and problems else 0


if __name__ == "__main__":
    sys.exit(main())
