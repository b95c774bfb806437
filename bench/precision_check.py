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

  precision_check.py RUN.json... [--check] [--min-held 0.90] [--min-failed 0.01]
                                 [--max-width-ratio 2]

--check exits 1 unless, for every benchmark, at least --min-held of pairs hold, at least
--min-failed of all pairs (all benchmarks together) fail (an interval that never fails is wider
than it needs to be), and every benchmark's median stated half-width is at most
--max-width-ratio x 1.96 x the median within-process sd of its repetition means.
"""
import argparse
import collections
import json
import math
import statistics
import sys


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
            reasons.update(str(r[2]) for r in reps)
            samples += [r[3] for r in reps]
        table.append({
            "benchmark": name, "processes": len(processes), "held": held, "pairs": pairs,
            "median_half_width_pct": statistics.median(widths) if widths else float("nan"),
            "median_sd_pct": statistics.median(spreads) if spreads else float("nan"),
            "stop_reasons": dict(reasons),
            "samples": (min(samples), max(samples)) if samples else (0, 0),
        })
    return table


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("runs", nargs="+")
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--min-held", type=float, default=0.90)
    parser.add_argument("--min-failed", type=float, default=0.01)
    parser.add_argument("--max-width-ratio", type=float, default=2.0)
    args = parser.parse_args()
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
    for problem in problems:
        print("FAIL:", problem)
    return 1 if args.check and problems else 0


if __name__ == "__main__":
    sys.exit(main())
