#!/usr/bin/env python3
"""Runs gpubench_forms (bench/examples/reduce.cu + bench/examples/forms.cu) and checks each row of the user guide's
conversion table: the benchmarks carry GB's names for their form, with GPU time (manual_time).

Without a GPU: exit code 0, every benchmark skipped, none with the "not registered" message:
each with gpubench's no-device message, which names the CUDA error, and none of their set-up
ran (reduce.cu's allocations come before the loop). With a GPU: every benchmark ran and carries
sm_clock_mhz, and dram_read_bytes when the profiler is on; one line per row.

Usage: check_forms.py BINARY OUT_DIR [--min-time SECONDS]   (writes OUT_DIR/forms.json)
"""
import argparse
import json
import os
import re
import subprocess
import sys

N = "4194304"  # forms.cu's elements
BIG = "67108864"  # reduce.cu's large size
# The user guide's rows (GB's form) -> the names GB gives the benchmarks registered with gpubench's form.
ROWS = [
    ("BENCHMARK(fn)", ["BM_Axpb/" + N]),
    ("BENCHMARK(fn<T, U>)", ["BM_AxpbT<double, 4>/" + N]),
    ("BENCHMARK_TEMPLATE(fn, T...)",
     ["BM_AxpbT<float, 2>/" + N, "BM_Reduce<int>/1048576", "BM_Reduce<int>/" + BIG,
      "BM_Reduce<float>/1048576", "BM_Reduce<float>/" + BIG]),
    ("BENCHMARK_TEMPLATE1(fn, T)", ["BM_AxpbOf<double>/" + N]),
    ("BENCHMARK_TEMPLATE2(fn, T, U)", ["BM_AxpbT<double,2>/" + N]),
    ("BENCHMARK_CAPTURE(fn, case, args...)",
     ["BM_AxpbBy/quarter/" + N, "BM_ReduceLaunch/warp/" + BIG,
      "BM_ReduceLaunch/block256/" + BIG, "BM_ReduceLaunch/block1024/" + BIG]),
    ("BENCHMARK_NAMED(fn, case)", ["BM_Axpb/named/" + N]),
    ("BENCHMARK_TEMPLATE1_CAPTURE(fn, T, case, args...)", ["BM_AxpbByT<double>/half/" + N]),
    ("BENCHMARK_TEMPLATE2_CAPTURE(fn, T, U, case, args...)", ["BM_AxpbByT2<float,4>/half/" + N]),
    ("benchmark::RegisterBenchmark(name, lambda)", ["BM_AxpbLambda/captured/" + N]),
    ("benchmark::RegisterBenchmark(name, fn, args...)", ["BM_AxpbArgs/" + N]),
    ("BENCHMARK_F(Fixture, Method)", ["AxpbPlain/F"]),
    ("BENCHMARK_DEFINE_F + BENCHMARK_REGISTER_F", ["AxpbPlain/Defined/" + N]),
    ("BENCHMARK_TEMPLATE_F(Fixture, Method, T...)", ["AxpbFixture<float>/Float"]),
    ("BENCHMARK_TEMPLATE1_F(Fixture, Method, T)", ["AxpbFixture<double>/Double"]),
    ("BENCHMARK_TEMPLATE2_F(Fixture, Method, T, U)", ["AxpbFixture<float,4>/Unrolled"]),
    ("BENCHMARK_TEMPLATE_DEFINE_F + BENCHMARK_REGISTER_F",
     ["AxpbFixture<float>/FloatN/" + N, "Reduce<int>/Int/" + BIG, "Reduce<float>/Float/" + BIG]),
    ("BENCHMARK_TEMPLATE1_DEFINE_F + BENCHMARK_REGISTER_F", ["AxpbFixture<double>/DoubleN/" + N]),
    ("BENCHMARK_TEMPLATE2_DEFINE_F + BENCHMARK_REGISTER_F",
     ["AxpbFixture<double,2>/UnrolledN/" + N]),
    ("BENCHMARK_TEMPLATE_METHOD_F + BENCHMARK_TEMPLATE_INSTANTIATE_F",
     ["AxpbFixture<float>/Method/" + N, "AxpbFixture<double>/Method/" + N]),
]
SUFFIX = "/manual_time"


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("out_dir")
    parser.add_argument("--min-time", default="0.01")
    options = parser.parse_args()
    os.makedirs(options.out_dir, exist_ok=True)
    json_path = os.path.join(options.out_dir, "forms.json")
    if os.path.exists(json_path):
        os.remove(json_path)
    command = [options.binary, "--benchmark_min_time=" + options.min_time,
               "--benchmark_out=" + json_path, "--benchmark_out_format=json"]
    result = subprocess.run(command, capture_output=True, text=True, timeout=540)
    print(result.stdout[-6000:])
    print(result.stderr[-3000:], file=sys.stderr)
    if result.returncode != 0:
        fail("exit code %d, expected 0" % result.returncode)
    try:
        with open(json_path) as handle:
            report = json.load(handle)
    except (OSError, ValueError) as error:
        fail("JSON output unreadable: %s" % error)
    context = report["context"]
    runs = {}
    for bench in report["benchmarks"]:
        if bench.get("run_type", "iteration") != "iteration":
            continue
        name = bench["name"]
        if not name.endswith(SUFFIX):
            fail("%s: not reported with manual (GPU) time" % name)
        runs[name[: -len(SUFFIX)]] = bench
    expected = [name for _, names in ROWS for name in names]
    missing = sorted(set(expected) - set(runs))
    extra = sorted(set(runs) - set(expected))
    if missing or extra:
        fail("names differ from GB's for the forms: missing %s, unexpected %s" % (missing, extra))

    no_gpu = context["gpu_status"] != "ok"
    for name, bench in runs.items():
        message = bench.get("error_message", bench.get("skip_message", ""))
        if "not registered" in message:
            fail("%s: %s" % (name, message))
        if no_gpu:
            if not bench.get("error_occurred", False) and not bench.get("skipped", False):
                fail("%s ran without a GPU" % name)
            match = re.fullmatch(r"gpubench: no usable CUDA device \((.*)\): the benchmark's "
                                 r"set-up and body were not run", message)
            if not match or not re.search(r"cuda(Error)?[A-Z]\w+", match.group(1)):
                fail("%s: not gpubench's no-device message with the CUDA error: %r"
                     % (name, message))
    if no_gpu:
        print("OK: no GPU; %d benchmarks of %d forms skipped, none 'not registered'"
              % (len(runs), len(ROWS)))
        return

    profiler_on = context.get("gpubench_profiler", "").startswith("on")
    failed = []
    for form, names in ROWS:
        cells = []
        for name in names:
            bench = runs[name]
            message = bench.get("error_message", bench.get("skip_message", ""))
            wanted = ["sm_clock_mhz"] + (["dram_read_bytes"] if profiler_on else [])
            absent = [counter for counter in wanted if counter not in bench]
            if bench.get("error_occurred") or bench.get("skipped") or absent:
                failed.append(name)
                cells.append("%s: FAILED %s%s" % (name, message, " lacks " + ",".join(absent)
                                                  if absent else ""))
            else:
                cells.append("%s: %.1f us, dram_read_bytes %s, sm_clock_mhz %.0f" % (
                    name, bench["real_time"] * {"ns": 1e-3, "us": 1, "ms": 1e3, "s": 1e6}[
                        bench["time_unit"]],
                    "%.4g" % bench["dram_read_bytes"] if "dram_read_bytes" in bench else "-",
                    bench["sm_clock_mhz"]))
        print("%s %s\n    %s" % ("ok  " if not any(n in failed for n in names) else "FAIL",
                                 form, "\n    ".join(cells)))
    if failed:
        fail("%d benchmarks without their counters: %s" % (len(failed), failed))
    print("OK: GPU %s; counters present for all %d forms (%d benchmarks, profiler %s)"
          % (context["gpu_name"], len(ROWS), len(runs), "on" if profiler_on else "off"))


if __name__ == "__main__":
    main()
