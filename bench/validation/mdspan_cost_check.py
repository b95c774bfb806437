#!/usr/bin/env python3
"""Issue #49's committed H200 sessions of kokkos/mdspan's CUDA binaries (tests/data/h200/
mdspan_cost_49/DATE_GPU: walls.txt and VARIANT_BINARY.json, plain GB 'before' and gpubench
'after', each binary whole, one after the other): prints each binary's wall ratio after/before
and how far each instance's median is from the suite's own time, and with targets exits 1 where
one is not met.

  mdspan_cost_check.py SESSION_DIR [--ratio BINARY=MAX ...] [--suite MAX]
                       [--median BINARY=PERCENT ...] [--floor BINARY]

--ratio: after/before wall of BINARY (sum_3d_cuda, matvec_cuda, stencil_3d_cuda) at most MAX;
--suite: the binaries' summed walls, after/before, at most MAX; --median: every instance of
BINARY within PERCENT of the suite's own time. Every binary of walls.txt must have exited 0.
--floor: what BINARY's wall would be if each instance whose one body takes longer than the run's
max_seconds cost fewer bodies (the stencil target's arithmetic, docs/accuracy.md): without the
timing process's warm-up (its wall_warmup), with one timed sample (wall_timed less one sample's
share), without the profiling child's own profiled body (one body: the warm-up as the range),
alone and combined, against plain GB's wall; and the profiling pass per instance with and
without the child's own profiled body (from after_BINARY.cost.txt, gpubench's stderr).
"""
import argparse
import itertools
import json
import re
import sys
from pathlib import Path

UNIT = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}


def walls(session):
    """{(variant, binary): (exit code, seconds)} from walls.txt."""
    table = {}
    for line in (session / "walls.txt").read_text().splitlines():
        if line.strip():
            variant, binary, code, seconds = line.split()
            table[(variant, binary)] = (int(code), float(seconds))
    return table


def medians(path):
    """Each instance's time per iteration in us (a gpubench form adds /manual_time)."""
    rows = json.loads(path.read_text())["benchmarks"]
    return {r["name"].replace("/manual_time", ""): r["real_time"] * UNIT[r["time_unit"]]
            for r in rows if r.get("run_type", "iteration") == "iteration"
            and not r.get("error_occurred")}


def long_bodies(path):
    """The rows of a gpubench run whose one body (the median, real_time) takes longer than the
    run's max_seconds: the only rows where a repetition cannot take more than one sample inside
    the budget. [(name, body seconds, warm-up wall, timed wall, samples)]."""
    document = json.loads(path.read_text())
    max_seconds = float(document["context"]["gpubench_max_seconds"])
    out = []
    for r in document["benchmarks"]:
        if r.get("run_type", "iteration") != "iteration" or r.get("error_occurred"):
            continue
        body = r["real_time"] * UNIT[r["time_unit"]] * 1e-6
        if body > max_seconds:
            out.append((r["name"], body, r["wall_warmup"], r["wall_timed"], r["samples"]))
    return max_seconds, out


# The bodies an instance could do without, each changing what a number means (docs/accuracy.md).
FLOOR_CHANGES = (
    ("no timing warm-up", lambda body, warmup, timed, samples: warmup),
    ("one timed sample", lambda body, warmup, timed, samples: timed - timed / samples),
    ("child profiles its warm-up", lambda body, warmup, timed, samples: body),
)


def floor(session, binary, table):
    """Prints BINARY's wall with each combination of FLOOR_CHANGES on its long bodies."""
    before, after = table[("before", binary)][1], table[("after", binary)][1]
    max_seconds, rows = long_bodies(session / f"after_{binary}.json")
    print(f"{binary} floor: {len(rows)} instance(s) with a body over max_seconds={max_seconds:g}"
          + "".join(f"; {name} {body:.2f} s" for name, body, *_ in rows))
    for count in range(1, len(FLOOR_CHANGES) + 1):
        for combination in itertools.combinations(FLOOR_CHANGES, count):
            saved = sum(save(*row[1:]) for _, save in combination for row in rows)
            print(f"  {' + '.join(label for label, _ in combination)}: "
                  f"{after - saved:.1f} s, {(after - saved) / before:.2f}x")
    # The profiling pass's own line (gpubench's stderr), where the session kept it.
    cost = session / f"after_{binary}.cost.txt"
    done = re.search(r"profiling pass done: (\d+) benchmark instance\(s\) profiled in ([\d.]+) s",
                     cost.read_text()) if cost.exists() else None
    if done:
        instances, seconds = int(done.group(1)), float(done.group(2))
        spared = seconds - sum(body for _, body, *_ in rows)
        print(f"  profiling pass: {seconds:.1f} s, {seconds / instances:.3f} s per instance; "
              f"child profiles its warm-up: {spared:.1f} s, {spared / instances:.3f} s per instance")


def pairs(options):
    out = {}
    for option in options or []:
        name, _, value = option.partition("=")
        out[name] = float(value)
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("session", type=Path)
    parser.add_argument("--ratio", action="append")
    parser.add_argument("--suite", type=float)
    parser.add_argument("--median", action="append")
    parser.add_argument("--floor")
    args = parser.parse_args()
    table = walls(args.session)
    failures = []
    binaries = sorted({binary for _, binary in table})
    total = {"before": 0.0, "after": 0.0}
    for binary in binaries:
        before, after = table.get(("before", binary)), table.get(("after", binary))
        if before is None or after is None:
            failures.append(f"{binary}: walls.txt lacks a variant")
            continue
        for variant, (code, _) in (("before", before), ("after", after)):
            if code != 0:
                failures.append(f"{variant} {binary}: exit code {code}")
        total["before"] += before[1]
        total["after"] += after[1]
        ratio = after[1] / before[1]
        plain = medians(args.session / f"before_{binary}.json")
        converted = medians(args.session / f"after_{binary}.json")
        differences = [100 * (converted[name] / plain[name] - 1) for name in plain
                       if name in converted]
        if len(differences) != len(plain):
            failures.append(f"{binary}: {len(plain) - len(differences)} instance(s) without a "
                            "measured gpubench row")
        print(f"{binary}: plain GB {before[1]:.1f} s, gpubench {after[1]:.1f} s, {ratio:.2f}x; "
              f"medians {min(differences):+.2f}% to {max(differences):+.2f}% of the suite's own "
              f"({len(differences)} instances)")
        limit = pairs(args.ratio).get(binary)
        if limit is not None and ratio > limit:
            failures.append(f"{binary}: {ratio:.2f}x, more than {limit}x")
        spread = pairs(args.median).get(binary)
        if spread is not None and max(abs(d) for d in differences) > spread:
            failures.append(f"{binary}: a median {max(differences, key=abs):+.2f}% off the "
                            f"suite's own, more than {spread}%")
    if len(binaries) > 1:
        suite = total["after"] / total["before"]
        print(f"suite: plain GB {total['before']:.1f} s, gpubench {total['after']:.1f} s, "
              f"{suite:.2f}x")
        if args.suite is not None and suite > args.suite:
            failures.append(f"suite: {suite:.2f}x, more than {args.suite}x")
    if args.floor:
        if ("before", args.floor) in table and ("after", args.floor) in table:
            floor(args.session, args.floor, table)
        else:
            failures.append(f"--floor {args.floor}: walls.txt lacks it")
    for failure in failures:
        print("FAIL: " + failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
