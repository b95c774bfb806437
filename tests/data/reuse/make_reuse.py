#!/usr/bin/env python3
"""Writes this folder's runs with reused rows (--gpubench_reuse) from committed H200 runs.

Run from this folder: python3 make_reuse.py. The files are committed as it writes them; README.md
says what each one is. A reused row is what gpubench writes for an instance whose work signature
matches its row in the reuse source: that row's real_time and counters, except the cost counters
(wall_time, wall_warmup, wall_timed, wall_profiling, samples) and cpu_time, which are this run's;
work_signature, reuse_status 1 (reused), reused_runs (the source's + 1) and measured_at (the
source row's). A measured row of a run with --gpubench_reuse has reuse_status 3 (changed) when
its signature differs from the source's, reused_runs 0 and measured_at its run's date.
"""

import copy
import datetime
import hashlib
import json
import statistics
from pathlib import Path

HERE = Path(__file__).resolve().parent
H200 = HERE.parent / "h200"
COST = ("wall_time", "wall_warmup", "wall_timed", "wall_profiling", "samples", "cpu_time")
COVERS = ("each kernel's machine code, launch geometry and argument bytes, each copy and set, the "
          "settings fingerprint, the GPU, the driver and the method version; not: memory the host "
          "writes and the GPU reads without a copy, data made on the host and never copied, "
          "other processes")


def load(path):
    return json.loads(Path(path).read_text())


def unix(date):
    return datetime.datetime.fromisoformat(date).timestamp()


def signature(name, variant=""):
    return int(hashlib.sha256((name + "|" + variant).encode()).hexdigest()[:12], 16)


def iterations(run):
    return {(b["run_name"], b.get("repetition_index", 0)): b for b in run["benchmarks"]
            if b.get("run_type") == "iteration"}


def recompute_aggregates(run):
    """GB's mean, median, stddev and cv of every numeric field, over the iteration rows."""
    groups = {}
    for row in run["benchmarks"]:
        if row.get("run_type") == "iteration":
            groups.setdefault(row["run_name"], []).append(row)
    for row in run["benchmarks"]:
        if row.get("run_type") != "aggregate":
            continue
        rows = groups[row["run_name"]]
        for key, value in list(row.items()):
            if key in ("repetitions", "threads", "iterations", "family_index",
                       "per_family_instance_index", "repetition_index") or \
                    not isinstance(value, (int, float)) or isinstance(value, bool):
                continue
            values = [r[key] for r in rows if key in r]
            if not values:
                continue
            mean = statistics.fmean(values)
            sd = statistics.stdev(values) if len(values) > 1 else 0.0
            row[key] = {"mean": mean, "median": statistics.median(values), "stddev": sd,
                        "cv": sd / mean if mean else 0.0}.get(row["aggregate_name"], value)


def measured(run, path, variant=""):
    """`run` as written without --gpubench_reuse: a work_signature and measured_at per row."""
    out = copy.deepcopy(run)
    when = unix(out["context"]["date"])
    out["context"]["gpubench_signature_covers"] = COVERS
    for row in out["benchmarks"]:
        if row.get("run_type") == "iteration":
            row["work_signature"] = signature(row["run_name"], variant)
            row["measured_at"] = when
    out["context"]["commit"] = Path(path).stem
    return out


def reusing(this_run, source, source_name, changed=(), variant=""):
    """`this_run` as written with --gpubench_reuse=SOURCE: rows of `changed` benchmarks measured
    (their signature differs), every other row reused from `source` (a measured() run)."""
    out = measured(this_run, "x", variant)
    out["context"]["commit"] = "reuse"
    source_rows = iterations(source)
    out["context"]["gpubench_reuse_source"] = (
        f"{source_name} ({source['context']['date']}, commit {source['context']['commit']})")
    for i, row in enumerate(out["benchmarks"]):
        if row.get("run_type") != "iteration":
            continue
        if row["run_name"] in changed:
            row["work_signature"] = signature(row["run_name"], "changed")
            row["reuse_status"] = 3
            row["reused_runs"] = 0
            continue
        src = source_rows[(row["run_name"], row.get("repetition_index", 0))]
        new = copy.deepcopy(src)
        for key in COST:
            if key in row:
                new[key] = row[key]
        new["reuse_status"] = 1
        new["reused_runs"] = int(src.get("reused_runs", 0)) + 1
        new["measured_at"] = src["measured_at"]
        new["work_signature"] = src["work_signature"]
        out["benchmarks"][i] = new
    recompute_aggregates(out)
    return out


def write(name, run):
    (HERE / name).write_text(json.dumps(run, indent=2) + "\n")


def main():
    v4 = H200 / "history_gate_v4"
    run_01 = measured(load(v4 / "run_01.json"), "run_01")
    write("measured.json", run_01)
    # Every row reused: run_02's process, run_01's values.
    write("all_reused.json", reusing(load(v4 / "run_02.json"), run_01, "measured.json"))
    # Gate_FmaLong changed (inject_fma1: 1.04% more FMA steps) and measured; the rest reused.
    write("partly_reused.json",
          reusing(load(v4 / "inject_fma1.json"), run_01, "measured.json",
                  changed=("Gate_FmaLong/2112/manual_time",)))
    # A history whose last two runs reused run_05's rows (run_06's and run_07's processes).
    run_05 = measured(load(v4 / "run_05.json"), "run_05")
    (HERE / "history").mkdir(exist_ok=True)
    for n in ("06", "07"):
        write(f"history/reused_{n}.json",
              reusing(load(v4 / f"run_{n}.json"), run_05, "history_gate_v4/run_05.json"))
    # A series: after series_gpu_8f0dca1c's 12 reruns and fma1_1 (Gate_FmaLong +1.06%), three
    # runs that reused fma1_1's rows (the processes of fma1_2..4).
    series = H200 / "series_gpu_8f0dca1c"
    fma1_1 = measured(load(series / "fma1_1.json"), "fma1_1")
    (HERE / "series").mkdir(exist_ok=True)
    for n in ("2", "3", "4"):
        run = reusing(load(series / f"fma1_{n}.json"), fma1_1,
                      "series_gpu_8f0dca1c/fma1_1.json")
        run["context"]["commit"] = f"reused_{n}"
        write(f"series/reused_fma1_{n}.json", run)


if __name__ == "__main__":
    main()
