#!/usr/bin/env python3
"""An activity trace of bench/examples/synchronising.cu grouped into loop iterations, independently of
gpubench: bench/validation/activity_trace.cpp (a CUDA injection library) writes every kernel, memcpy
and memset with CUPTI's start and end; an iteration is found by the body's own sequence of GPU work
on one stream, and its busy time is the union of those records. Also Nsight Compute's kernel
durations inside one of gpubench's NVTX ranges, the other reference. Used by
bench/validation/sync_crosscheck.py, tests/gpu/check_busy.py and tests/gpu/check_sync_ncu.py.
`activity_groups.py --self-test` checks the grouping and the ncu parsing on made-up input (no GPU).
"""
import csv
import io
import os
import statistics
import subprocess
import sys


def read_trace(path):
    records = []
    with open(path) as trace:
        for row in csv.DictReader(trace):
            records.append({"kind": row["kind"], "name": row["name"], "bytes": int(row["bytes"]),
                            "start": int(row["start_ns"]), "end": int(row["end_ns"]),
                            "stream": row["stream"]})
    return records


def union_length(spans):
    total, reach = 0, None
    for start, end in sorted(spans):
        reach = start if reach is None else reach
        total += max(0, end - max(start, reach))
        reach = max(reach, end)
    return total


def traced_iterations(records, starts_with, then):
    """Per iteration, (union in ns, [(kind, duration in ns)]): a record matching starts_with,
    followed on its stream by records matching the predicates in `then`, in order."""
    by_stream = {}
    for record in records:
        by_stream.setdefault(record["stream"], []).append(record)
    found = []
    for stream_records in by_stream.values():
        stream_records.sort(key=lambda r: r["start"])
        for i, record in enumerate(stream_records):
            if not starts_with(record) or i + len(then) >= len(stream_records):
                continue
            group = [record] + stream_records[i + 1:i + 1 + len(then)]
            if all(match(r) for match, r in zip(then, group[1:])):
                found.append((union_length([(r["start"], r["end"]) for r in group]),
                              [(r["kind"], r["end"] - r["start"]) for r in group]))
    return found


def is_copy(kind, size=None):
    return lambda r: (r["kind"] == "memcpy" and r["name"] == kind and
                      (size is None or r["bytes"] == size))


def is_memset(size):
    return lambda r: r["kind"] == "memset" and r["bytes"] == size


def is_kernel(name):
    return lambda r: r["kind"] == "kernel" and name in r["name"]


# bench/examples/synchronising.cu: instance -> (first record, the records that follow it per
# iteration).
SYNC_LOOP_KERNELS = 3  # AffineKernel twice, SumKernel
SYNC_LOOP_BODY = [is_memset(4), is_kernel("AffineKernel"), is_kernel("AffineKernel"),
                  is_kernel("SumKernel"), is_copy("DtoH", 4)]
SYNC_EXAMPLE = {
    "BM_SyncLoop/1048576": (is_copy("DtoD", 4 << 20), SYNC_LOOP_BODY),
    "BM_SyncLoop/16777216": (is_copy("DtoD", 4 << 24), SYNC_LOOP_BODY),
    "BM_RestoreThenKernel/untimed:0": (is_copy("DtoD", 4 << 29), [is_kernel("AffineKernel")]),
}
SYNC_FILTER = "BM_SyncLoop/|BM_RestoreThenKernel/untimed:0"


def run_traced(binary, tracer, out, min_time="0.05"):
    """Runs the sync example's instances under the tracer with metrics off (CUPTI takes one set
    of activity callbacks per process). Returns (exit code, records, log path)."""
    trace_path = os.path.join(out, "activity_trace.csv")
    environment = dict(os.environ, CUDA_INJECTION64_PATH=os.path.abspath(tracer),
                       ACTIVITY_TRACE_OUT=trace_path)
    result = subprocess.run(
        [binary, "--benchmark_filter=" + SYNC_FILTER, "--gpubench_profile_iterations=0",
         "--benchmark_min_time=" + min_time,
         "--benchmark_out=" + os.path.join(out, "sync_traced.json"),
         "--benchmark_out_format=json"],
        capture_output=True, text=True, timeout=300, env=environment)
    log = os.path.join(out, "traced.log")
    with open(log, "w") as handle:
        handle.write(result.stdout + "\n--- stderr\n" + result.stderr)
    records = read_trace(trace_path) if os.path.exists(trace_path) else []
    return result.returncode, records, log


NCU_UNITS_NS = {"nsecond": 1.0, "ns": 1.0, "usecond": 1e3, "us": 1e3, "msecond": 1e6, "ms": 1e6,
                "second": 1e9, "s": 1e9}


def ncu_durations_from_csv(text):
    """[(kernel name, gpu__time_duration in ns)] from ncu --csv output, in launch order; gpubench's
    own kernels (flush, hold, clock probe) are left out."""
    durations = []
    for row in csv.DictReader(io.StringIO(text[text.find('"ID"'):])):
        if (row.get("Metric Name") == "gpu__time_duration.sum" and
                not row["Kernel Name"].startswith("gpubench::")):
            value = float(row["Metric Value"].replace(",", ""))
            durations.append((row["Kernel Name"], value * NCU_UNITS_NS[row["Metric Unit"]]))
    return durations


def sums_per_iteration(durations, per_iteration):
    """Kernel durations in launch order, summed per iteration of `per_iteration` kernels; an
    incomplete last iteration is dropped."""
    values = [d for _, d in durations]
    return [sum(values[i:i + per_iteration])
            for i in range(0, len(values) - per_iteration + 1, per_iteration)]


def median_copy_time(iterations):
    """The median memcpy and memset time per traced iteration (ns): what ncu does not time."""
    return statistics.median(sum(ns for kind, ns in parts if kind != "kernel")
                             for _, parts in iterations)


def ncu_kernel_durations(ncu, binary, instance, filter_regex, count, min_time, cache_control,
                         log_path):
    """ncu's gpu__time_duration of the first `count` kernels inside gpubench's NVTX range of
    `instance`, clocks not locked. Under ncu an iteration takes 0.1-1 s (ncu's own work is inside
    the events), so GB needs a long min_time to run more than one; the profiling child brings
    nothing there and is skipped."""
    command = [ncu, "--nvtx", "--nvtx-include", "gpubench@%s/" % instance, "--metrics",
               "gpu__time_duration.sum", "--clock-control", "none", "--cache-control",
               cache_control, "--csv", "--print-units", "base", "-c", str(count), binary,
               "--benchmark_filter=" + filter_regex, "--benchmark_min_time=%g" % min_time,
               "--gpubench_profile_iterations=0"]
    result = subprocess.run(command, capture_output=True, text=True, timeout=400)
    with open(log_path, "w") as log:
        log.write(" ".join(command) + "\n" + result.stdout + "\n--- stderr\n" + result.stderr)
    return ncu_durations_from_csv(result.stdout)


def self_test():
    def record(kind, name, size, start, end):
        return {"kind": kind, "name": name, "bytes": size, "start": start, "end": end,
                "stream": "7"}
    records = [record("memcpy", "DtoD", 16, 0, 10), record("kernel", "AffineKernel(float*)", 0, 12, 20),
               record("kernel", "gpubench::FlushL2Kernel", 0, 30, 40),
               record("memcpy", "DtoD", 16, 50, 60), record("kernel", "AffineKernel(float*)", 0, 55, 70),
               record("memcpy", "DtoD", 16, 80, 90), record("memset", "memset", 4, 91, 92)]
    found = traced_iterations(records, is_copy("DtoD", 16), [is_kernel("AffineKernel")])
    # The overlap in the second iteration counts once; the third has no kernel after the copy.
    expected = [(18, [("memcpy", 10), ("kernel", 8)]), (20, [("memcpy", 10), ("kernel", 15)])]
    if found != expected:
        print("self-test failed: %r != %r" % (found, expected))
        return 1
    if union_length([(0, 5), (3, 4), (10, 12)]) != 7:
        print("self-test failed: union_length")
        return 1
    ncu_csv = ('==PROF== Connected\n"ID","Kernel Name","Metric Name","Metric Unit","Metric Value"\n'
               '"0","AffineKernel","gpu__time_duration.sum","nsecond","2,880"\n'
               '"1","gpubench::FlushL2Kernel","gpu__time_duration.sum","nsecond","30000"\n'
               '"2","SumKernel","gpu__time_duration.sum","usecond","3.94"\n')
    if ncu_durations_from_csv(ncu_csv) != [("AffineKernel", 2880.0), ("SumKernel", 3940.0)]:
        print("self-test failed: ncu_durations_from_csv gave %r" % ncu_durations_from_csv(ncu_csv))
        return 1
    if sums_per_iteration([("a", 1), ("b", 2), ("c", 3), ("a", 4), ("b", 5)], 2) != [3, 7]:
        print("self-test failed: sums_per_iteration")
        return 1
    if median_copy_time(expected + [(5, [("memset", 5), ("kernel", 1)])]) != 10:
        print("self-test failed: median_copy_time")
        return 1
    print("activity_groups self-test passed")
    return 0


if __name__ == "__main__" and "--self-test" in sys.argv:
    sys.exit(self_test())
