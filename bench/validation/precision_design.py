#!/usr/bin/env python3
"""How the precision of a repetition was chosen (issue #47, docs/accuracy.md "The precision of a
repetition"): replays gpubench's stopping rule and its precision_pct on the committed design runs.

The design runs (tests/data/h200/precision/design/) are six processes of
bench/validation/precision_suite.cu, ten repetitions of six kernels, with an unreachable precision
target, so every repetition sampled for the whole --gpubench_max_seconds (0.5 s) and
--gpubench_samples_out kept every sample. Because the samples do not depend on when the rule stops,
the rule can be replayed on each repetition's prefix: the first repetition's stop gives the count,
the later ones take the same count (as gpubench does), and the pair check of
bench/validation/precision_check.py is applied to what each candidate would have stated.

It prints:
  1. what the samples are like: per-sample cv, the variance-time ratio b*Var(mean of b)/Var(x)
     (1 for independent samples, growing with correlation), and how far apart a process's
     repetition means are against what their own samples explain;
  2. for each candidate (the within-call estimate, with or without the spread between calls, and
     the precision target): the pairs held per kernel, the median half-width against 1.96 sd of
     the repetition means, the samples' seconds, and how often the first repetition ran out of
     --gpubench_max_seconds.

  precision_design.py [DESIGN_DIR]

Pure Python (the same t table and rounding as src/measure/sampling/sample_series.cpp); about a
minute.
"""
import collections
import glob
import json
import lzma
import math
import os
import statistics
import sys

T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179,
        2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060,
        2.056, 2.052, 2.048, 2.045, 2.042]
BATCHES = 10


def t975(degrees):
    whole = max(1.0, math.floor(degrees))
    if whole <= 30:
        return T975[int(whole) - 1]
    z = 1.959963984540054
    return z + (z ** 3 + z) / (4 * whole) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * whole ** 2)


def load(directory):
    """{benchmark: [process: [repetition: (gpu seconds list, host seconds list)]]}"""
    data = collections.defaultdict(list)
    for path in sorted(glob.glob(os.path.join(directory, "samples_*.jsonl.xz"))):
        per = collections.defaultdict(list)
        with lzma.open(path, "rt") as f:
            for line in f:
                r = json.loads(line)
                per[r["benchmark"]].append(([x * 1e-9 for x in r["gpu_ns"]],
                                            [x * 1e-6 for x in r["host_us"]]))
        for name, reps in per.items():
            data[name].append(reps)
    return data


class Prefix:
    """A repetition's samples with prefix sums: mean and variances of any prefix in O(batches)."""

    def __init__(self, x):
        self.x = x
        self.sums = [0.0]
        self.squares = [0.0]
        for v in x:
            self.sums.append(self.sums[-1] + v)
            self.squares.append(self.squares[-1] + v * v)

    def mean(self, n):
        return self.sums[n] / n

    def independent(self, n):
        m = self.mean(n)
        var = max(0.0, (self.squares[n] - n * m * m) / (n - 1))
        return var / n, n - 1

    def batch_means(self, n, batches):
        size = n // batches
        whole = self.sums[batches * size] / (batches * size)
        means = [(self.sums[(b + 1) * size] - self.sums[b * size]) / size for b in range(batches)]
        return sum((m - whole) ** 2 for m in means) / (batches - 1) / batches, batches - 1


def within(prefix, n, how):
    """The variance of the mean of the first n samples and its degrees: how = 'independent',
    'batches' (10 batch means) or 'wider' (gpubench: the wider of the two by half-width)."""
    independent = prefix.independent(n)
    if how == "independent" or n < 2 * BATCHES:
        return independent
    batches = prefix.batch_means(n, BATCHES)
    if how == "batches":
        return batches
    half = lambda v: t975(v[1]) * math.sqrt(v[0])
    return batches if half(batches) > half(independent) else independent


def rule(prefix, host, how, target, min_samples=10, min_seconds=0.1, max_seconds=0.5):
    """The count the first repetition stops at, and why (as StoppingRule::Decide)."""
    start = host[0] - (host[1] - host[0])  # the first body's start, one sample before its end
    for n in range(2, len(prefix.x) + 1):
        timed = host[n - 1] - start
        if n >= min_samples and timed >= min_seconds:
            variance, degrees = within(prefix, n, how)
            if t975(degrees) * math.sqrt(variance) / prefix.mean(n) <= target:
                return n, "precision"
        if host[n - 1] + timed / n > max_seconds:
            return n, "max_seconds"
    return len(prefix.x), "max_seconds"


def half_width(own, so_far, between_calls):
    """gpubench's precision_pct / 100 for one repetition: its own variance plus the spread
    between the repetitions so far (method of moments), at Welch-Satterthwaite's degrees."""
    variance, degrees = own["variance"], own["degrees"]
    between = 0.0
    if between_calls and len(so_far) > 1:
        means = [r["mean"] for r in so_far]
        between = max(0.0, statistics.variance(means) -
                      statistics.mean(r["variance"] for r in so_far))
    total = variance + between
    spread = variance * variance / degrees + (between * between / (len(so_far) - 1) if between else 0)
    return t975(total * total / spread if spread > 0 else degrees) * math.sqrt(total) / own["mean"]


def describe(data):
    print("1. The samples (each repetition 0.5 s; six processes of ten repetitions)")
    print(f"{'kernel':26s} {'cv/sample':>9s} {'n/rep':>6s}  variance-time ratio at b = 1, 4, 16, 64, "
          f"256    between-call / own variance of a repetition mean (per process)")
    for name, processes in data.items():
        x = processes[0][0][0]
        cv = statistics.stdev(x) / statistics.mean(x) * 100
        ratios = []
        for b in (1, 4, 16, 64, 256):
            values = []
            for reps in processes:
                for gpu, _ in reps:
                    k = len(gpu) // b
                    if k < 4:
                        continue
                    means = [statistics.fmean(gpu[i * b:(i + 1) * b]) for i in range(k)]
                    values.append(b * statistics.variance(means) / statistics.variance(gpu))
            ratios.append(f"{statistics.median(values):6.1f}" if values else "     -")
        between = []
        for reps in processes:
            means = [statistics.fmean(g) for g, _ in reps]
            own = statistics.fmean(statistics.variance(g) / len(g) for g, _ in reps)
            between.append(statistics.variance(means) / own)
        print(f"{name:26s} {cv:8.3f}% {len(x):6d}  {' '.join(ratios)}    "
              + " ".join(f"{r:.0f}" for r in between))


def candidates(data):
    print("\n2. Candidates: pairs held (>= 0.90 every kernel), width = median half-width / "
          "(1.96 sd of repetition means) (<= 2), seconds of samples, first repetitions that ran "
          "out of max_seconds")
    rows = [("independent", False, 0.001), ("independent", True, 0.001), ("batches", True, 0.001),
            ("wider", True, 0.001), ("wider", True, 0.002)]
    prefixes = {name: [[Prefix(g) for g, _ in reps] for reps in processes]
                for name, processes in data.items()}
    for how, between_calls, target in rows:
        label = f"{how}{' + between calls' if between_calls else ''}, target {target * 100:.1f}%"
        print(f"  {label}")
        failed = total = 0
        for name, processes in data.items():
            held = pairs = ran_out = 0
            widths, sds, seconds = [], [], []
            for reps, pre in zip(processes, prefixes[name]):
                n, why = rule(pre[0], reps[0][1], how, target)
                ran_out += why == "max_seconds"
                seconds.append(reps[0][1][n - 1])
                so_far, halves = [], []
                for p in pre:
                    variance, degrees = within(p, n, how)
                    own = {"mean": p.mean(n), "variance": variance, "degrees": degrees}
                    so_far.append(own)
                    halves.append(half_width(own, so_far, between_calls) * own["mean"])
                means = [r["mean"] for r in so_far]
                for i in range(len(means)):
                    for j in range(i + 1, len(means)):
                        pairs += 1
                        held += abs(means[i] - means[j]) <= math.hypot(halves[i], halves[j])
                widths += [h / m for h, m in zip(halves, means)]
                sds.append(statistics.stdev(means) / statistics.mean(means))
            failed += pairs - held
            total += pairs
            width = statistics.median(widths) / (1.96 * statistics.median(sds))
            print(f"    {name:26s} held {held:3d}/{pairs} {held / pairs:.3f}  width {width:5.2f}  "
                  f"samples {statistics.median(seconds):.2f} s  out of time {ran_out}/{len(processes)}")
        print(f"    all kernels: {100 * failed / total:.2f}% of pairs failed (>= 1%)")


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    directory = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        here, "..", "..", "tests", "compare", "data", "h200", "precision", "design")
    data = load(directory)
    if not data:
        print("no samples_*.jsonl.xz in", directory)
        return 1
    describe(data)
    candidates(data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
