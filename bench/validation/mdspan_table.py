#!/usr/bin/env python3
"""The whole-run cost and the rows of bench/validation/mdspan_cost.sh's runs of kokkos/mdspan's CUDA
benchmarks: wall seconds per binary and variant (before: plain GB; after and literal: gpubench),
the after/before ratio (issue #35's target: at most 1.5), and each instance's time per iteration
in the three variants with literal's refusal and after's cost counters.
usage: mdspan_table.py [--check] OUT_DIR   (walls.txt and VARIANT_BINARY.json there; with
--check, exit 1 unless after/before <= 1.5, every binary exited 0, every after row (and those of
OUT_DIR/rerun/*.json) is measured and every literal row refused for its SetIterationTime)
"""
import json
import sys
from pathlib import Path

UNIT = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}
VARIANTS = ("before", "after", "literal")
STOP = {1: "precision", 2: "max_seconds", 3: "minimum", 4: "min_time", 5: "iterations",
        6: "repetition"}
TARGET = 1.5  # issue #35: the converted suite's whole run at most 1.5x the plain-GB suite's


def rows(path):
    try:
        document = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    # A gpubench form adds /manual_time to names the suite registered without it.
    return {r["name"].replace("/manual_time", ""): r for r in document["benchmarks"]
            if r.get("run_type", "iteration") == "iteration"}


def main():
    check = "--check" in sys.argv[1:]
    out = Path([a for a in sys.argv[1:] if a != "--check"][0])
    problems = []
    walls = {}
    for line in (out / "walls.txt").read_text().splitlines():
        variant, binary, rc, seconds = line.split()
        walls[(variant, binary)] = (int(rc), float(seconds))
    binaries = sorted({b for _, b in walls})
    print("| binary | before (plain GB) | after | literal | after / before |")
    print("|---|---|---|---|---|")
    totals = {v: 0.0 for v in VARIANTS}
    for binary in binaries:
        cells = []
        for variant in VARIANTS:
            rc, seconds = walls.get((variant, binary), (-1, float("nan")))
            totals[variant] += seconds
            if rc != 0:
                problems.append("%s %s: exit %d" % (variant, binary, rc))
            cells.append("%.1f s%s" % (seconds, "" if rc == 0 else " (exit %d)" % rc))
        ratio = walls[("after", binary)][1] / walls[("before", binary)][1]
        print("| %s | %s | %.2f |" % (binary, " | ".join(cells), ratio))
    print("| whole suite | %s | **%.2f** |" % (
        " | ".join("%.1f s" % totals[v] for v in VARIANTS), totals["after"] / totals["before"]))
    print()
    print("| benchmark | before us | after us | after samples | after stop | after wall s |"
          " after busy % | literal |")
    print("|---|---|---|---|---|---|---|---|")
    for binary in binaries:
        found = {v: rows(out / ("%s_%s.json" % (v, binary))) for v in VARIANTS}
        for name in found["before"] or found["after"]:
            b, a, l = (found[v].get(name, {}) for v in VARIANTS)

            def time_of(row):
                if not row:
                    return "-"
                if row.get("error_occurred"):
                    return "error"
                return "%.1f" % (row["real_time"] * UNIT[row["time_unit"]])

            literal = "refused" if "SetIterationTime" in (l.get("error_message") or "") else \
                (l.get("error_message") or time_of(l))[:60]
            print("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
                name, time_of(b), time_of(a) if not a.get("error_occurred") else
                (a.get("error_message") or "")[:80], a.get("samples", "-"),
                STOP.get(int(a["stop_reason"]), "?") if "stop_reason" in a else "-", "%.2f" % a["wall_time"] if "wall_time" in a else "-",
                "%.1f" % a["gpu_busy_pct"] if "gpu_busy_pct" in a else "-", literal))
            if not a or a.get("error_occurred"):
                problems.append("after %s: not measured" % name)
            if literal != "refused":
                problems.append("literal %s: not refused (%s)" % (name, literal))
    ratio = totals["after"] / totals["before"]
    if ratio > TARGET:
        problems.append("the whole run took %.2fx the plain-GB suite's (target %.1fx)" %
                        (ratio, TARGET))
    reruns = sorted((out / "rerun").glob("*.json"))
    for path in reruns:
        for name, row in rows(path).items():
            if row.get("error_occurred"):
                problems.append("%s %s: %s" % (path.name, name, row.get("error_message")))
    if reruns:
        print()
        print("reruns of after: %d files, %d rows, %d errors" % (
            len(reruns), sum(len(rows(p)) for p in reruns),
            sum(1 for p in reruns for r in rows(p).values() if r.get("error_occurred"))))
    for problem in problems:
        print("FAIL: " + problem)
    return 1 if check and problems else 0


if __name__ == "__main__":
    sys.exit(main())
