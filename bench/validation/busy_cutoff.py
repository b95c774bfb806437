#!/usr/bin/env python3
"""The gpu_busy_pct of every committed gpubench row, by how its body was timed: the evidence for
--gpubench_reuse's busy cut-off (docs/accuracy.md "Reusing a row: the busy cut-off").

A row timed behind the launch hold (launch_held=1) had its whole body enqueued before its span
began, so the GPU cannot have waited for the host inside it: what idle time it shows is the
timer's floor around a short kernel and the gaps between its work items. A row timed without the
hold (launch_held=0: the body waits for the GPU, or another process used it; or cache=keep,
where no row has launch_held) may hold the host's pace in its GPU time. Among those, the bodies
that wait for the host by design (bench/validation/structures, bench/examples/synchronising.cu,
tests/gpu/streams.cu's synchronised streams) are told from the long kernels of a synchronising
suite (kokkos/mdspan) by their names.

Usage: busy_cutoff.py [REPO] [--cutoff PCT] [--check]
  prints the distribution per class, GPU and date; with --check, exits 1 when a row that waits
  for the host by design reads at or above the cut-off (it would be reused).
"""
import argparse
import glob
import json
import os
import sys

DEFAULT_CUTOFF = 99.0  # src/measure/reuse/reuse_decision.hpp ReuseRules::busy_cutoff_pct

# Benchmarks whose bodies wait for the host by design, by name prefix, and where they are.
HOST_WAITING = (
    ("bitset_", "bench/validation/structures"),
    ("deque_", "bench/validation/structures"),
    ("BM_SyncLoop/", "bench/examples/synchronising.cu"),
    ("Streams_", "tests/gpu/streams.cu"),
)
SYNCHRONISING_SUITE = ("BM_MDSpan", "BM_Raw_Cuda")  # kokkos/mdspan: a fence after each kernel


def runs(repo):
    """(path, context, rows) of every committed GB JSON run with gpu_busy_pct rows."""
    paths = sorted(glob.glob(os.path.join(repo, "tests/data/**/*.json"), recursive=True) +
                   glob.glob(os.path.join(repo, "bench/**/results/**/*.json"), recursive=True))
    for path in paths:
        if os.path.relpath(path, repo).startswith("tests/data/reuse/"):
            continue  # made-up fixtures of the reuse source's tests, not measurements
        try:
            with open(path) as f:
                run = json.load(f)
        except (OSError, ValueError):
            continue  # the tools' fixtures of broken files
        if not isinstance(run, dict) or not isinstance(run.get("benchmarks"), list):
            continue
        rows = [row for row in run["benchmarks"] if isinstance(row, dict) and
                row.get("run_type", "iteration") == "iteration" and
                isinstance(row.get("gpu_busy_pct"), (int, float))]
        if rows:
            yield os.path.relpath(path, repo), run.get("context", {}), rows


def row_class(row):
    """The class a row belongs to, for the table."""
    held = row.get("launch_held")
    if held == 1:
        return "held: launch hold (the GPU cannot wait for the host)"
    if held is None:
        return "unheld: cache=keep (back-to-back launches, no hold)"
    if row.get("gpu_shared") == 1:
        return "unheld: another process on the GPU (gpu_shared=1)"
    name = row.get("name", "")
    for prefix, where in HOST_WAITING:
        if name.startswith(prefix):
            return "unheld: waits for the host by design (" + where + ")"
    if name.startswith(SYNCHRONISING_SUITE):
        return "unheld: kokkos/mdspan, a fence after each long kernel"
    return "unheld: other"


def quantile(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(q * (len(values) - 1) + 0.5))]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("repo", nargs="?", default=os.path.join(os.path.dirname(__file__), "../.."))
    parser.add_argument("--cutoff", type=float, default=DEFAULT_CUTOFF)
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()

    groups = {}  # (class, gpu) -> {"busy": [...], "files": set, "dates": set}
    for path, context, rows in runs(args.repo):
        gpu = context.get("gpu_name", "?")
        date = str(context.get("date", ""))[:10]
        for row in rows:
            group = groups.setdefault((row_class(row), gpu), {"busy": [], "files": set(),
                                                              "dates": set(), "names": set()})
            group["busy"].append(float(row["gpu_busy_pct"]))
            group["files"].add(path)
            group["dates"].add(date)
            group["names"].add(row.get("name", ""))

    cutoff = args.cutoff
    print("| rows timed | GPU | dates | runs | rows | min | 5% | median | max | "
          f"reused at {cutoff:g}% |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    failures = []
    for (cls, gpu), group in sorted(groups.items()):
        busy = group["busy"]
        dates = sorted(group["dates"])
        span = dates[0] if dates[0] == dates[-1] else dates[0] + " to " + dates[-1]
        # Held rows are never measured for their busy share (reuse_decision.hpp).
        reused = len(busy) if cls.startswith("held") else sum(b >= cutoff for b in busy)
        print(f"| {cls} | {gpu} | {span} | {len(group['files'])} | {len(busy)} | "
              f"{min(busy):.1f} | {quantile(busy, 0.05):.1f} | {quantile(busy, 0.5):.1f} | "
              f"{max(busy):.1f} | {reused} ({100.0 * reused / len(busy):.0f}%) |")
        if "by design" in cls and reused:
            failures.append(f"{cls} on {gpu}: {reused} row(s) at or above {cutoff:g}% "
                            f"(highest {max(busy):.1f}%)")

    waiting = [b for (cls, _), g in groups.items() if "by design" in cls for b in g["busy"]]
    if waiting:
        print(f"\nhighest gpu_busy_pct of a body that waits for the host by design: "
              f"{max(waiting):.1f}%")
    for cls_word in ("kokkos/mdspan",):
        suite = [b for (cls, _), g in groups.items() if cls_word in cls for b in g["busy"]]
        if suite:
            shares = ", ".join(f"{c}%: {100.0 * sum(b >= c for b in suite) / len(suite):.0f}%"
                               for c in (95, 97, 98, 99, 99.5))
            print(f"{cls_word} rows at or above a cut-off of {shares}")
    if args.check and failures:
        print("\n" + "\n".join(failures), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
