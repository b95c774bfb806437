#!/usr/bin/env python3
"""Judges the runs check_mdspan.sh made of kokkos/mdspan's converted CUDA benchmarks.

Every binary exits 0 and writes valid JSON; the two variants hold the suite's 51 instances.
Without a GPU every row is an error that names the missing device (the CUDA error of the device
query), and says that the benchmark's set-up, whose CUDA_SAFE_CALL would throw, did not run. On a GPU, 'literal' (the body still calls
state.SetIterationTime) has every row refused for it, and 'after' has every row measured.

usage: check_mdspan.py WORK_DIR
"""
import json
import sys
from pathlib import Path

BINARIES = {"sum_3d_cuda": 36, "matvec_cuda": 4, "stencil_3d_cuda": 11}
FAILURES = []


def check(condition, message):
    if not condition:
        FAILURES.append(message)
    return condition


def error_of(row):
    return row.get("error_message") or row.get("skip_message") or ""


def main():
    work = Path(sys.argv[1])
    for variant in ("literal", "after"):
        rows_of_variant = 0
        for binary, instances in BINARIES.items():
            stem = work / f"{variant}_{binary}"
            rc = int((stem.with_suffix(".rc")).read_text())
            stderr = Path(f"{stem}.stderr").read_text(errors="replace")
            check(rc == 0, f"{variant} {binary}: exit {rc}; stderr: {stderr[-2000:]}")
            try:
                document = json.loads(Path(f"{stem}.json").read_text())
            except (OSError, ValueError) as error:
                check(False, f"{variant} {binary}: no valid JSON: {error}")
                continue
            gpu = document["context"].get("gpu_name", "none") != "none"
            rows = [r for r in document["benchmarks"] if r.get("run_type", "iteration") == "iteration"]
            check(len(rows) == instances, f"{variant} {binary}: {len(rows)} rows, expected {instances}")
            rows_of_variant += len(rows)
            for row in rows:
                name, error = row["name"], error_of(row)
                if not gpu:
                    check(row.get("error_occurred") or row.get("skipped"),
                          f"{variant} {name}: not an error without a GPU")
                    check(error.startswith("gpubench: no usable CUDA device (cuda")
                          and error.endswith("): the benchmark's set-up and body were not run"),
                          f"{variant} {name}: the error does not name the missing device and "
                          f"that the set-up did not run: {error!r}")
                elif variant == "literal":
                    check("calls state.SetIterationTime() itself" in error,
                          f"literal {name}: a self-timing body's row was not refused: {error!r}")
                else:
                    check(error == "" and "sm_clock_mhz" in row,
                          f"after {name}: not measured: {error!r}")
            print(f"{variant} {binary}: exit {rc}, {len(rows)} rows, "
                  f"{'GPU' if gpu else 'no GPU'}; first: {error_of(rows[0])[:160] if rows else '-'}")
        check(rows_of_variant == sum(BINARIES.values()),
              f"{variant}: {rows_of_variant} rows, expected {sum(BINARIES.values())}")
    for failure in FAILURES:
        print("FAIL:", failure)
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
