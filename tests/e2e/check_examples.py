#!/usr/bin/env python3
"""Runs the example benchmarks with JSON output and checks what a user or CI relies on.

Without a GPU: exit code 0, valid JSON whose context says there is no device, and every
benchmark skipped, before its set-up ran, with gpubench's message that names the CUDA error of
the device query. With a GPU: every benchmark ran and carries the clock counters (and the byte
counters when the profiler is on).
"""
import json
import os
import re
import subprocess
import sys


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def main():
    binary, out_dir = sys.argv[1], sys.argv[2]
    os.makedirs(out_dir, exist_ok=True)
    json_path = os.path.join(out_dir, "examples.json")
    if os.path.exists(json_path):
        os.remove(json_path)
    command = [binary, "--benchmark_min_time=0.01", "--benchmark_out=" + json_path,
               "--benchmark_out_format=json"]
    result = subprocess.run(command, capture_output=True, text=True, timeout=540)
    print(result.stdout)
    print(result.stderr, file=sys.stderr)
    if result.returncode != 0:
        fail("exit code %d, expected 0" % result.returncode)
    try:
        with open(json_path) as handle:
            report = json.load(handle)
    except (OSError, ValueError) as error:
        fail("JSON output unreadable: %s" % error)
    context = report["context"]
    benchmarks = report["benchmarks"]
    for key in ("gpubench_version", "gpubench_settings_fingerprint", "gpubench_timer",
                "gpubench_cache", "gpubench_clock_control", "gpu_status", "gpu_name",
                "cuda_runtime_version", "cuda_driver_version"):
        if key not in context:
            fail("context lacks %s" % key)
    if len(benchmarks) < 7:
        fail("expected at least 7 example benchmarks, got %d" % len(benchmarks))
    names = [b["name"] for b in benchmarks]
    if context["gpu_status"] != "ok":
        if context["gpu_name"] != "none":
            fail("no device, but gpu_name is %r" % context["gpu_name"])
        for bench in benchmarks:
            message = bench.get("error_message", bench.get("skip_message", ""))
            if not bench.get("error_occurred", False) and not bench.get("skipped", False):
                fail("%s ran without a GPU" % bench["name"])
            match = re.fullmatch(r"gpubench: no usable CUDA device \((.*)\): the benchmark's "
                                 r"set-up and body were not run", message)
            if not match or not re.search(r"cuda(Error)?[A-Z]\w+", match.group(1)):
                fail("%s: not gpubench's no-device message with the CUDA error: %r"
                     % (bench["name"], message))
        print("OK: no GPU; %d benchmarks skipped with the CUDA error: %s" % (len(names), names))
        return
    for bench in benchmarks:
        if bench.get("error_occurred") or bench.get("skipped"):
            fail("%s failed: %s" % (bench["name"], bench.get("error_message")))
        for counter in ("sm_clock_mhz", "sm_clock_rated_mhz", "sm_clock_throttled"):
            if counter not in bench:
                fail("%s lacks counter %s" % (bench["name"], counter))
        if context["gpubench_profiler"].startswith("on") and "dram_read_bytes" not in bench:
            fail("%s lacks dram_read_bytes although the profiler is on" % bench["name"])
    print("OK: GPU %s; %d benchmarks with counters" % (context["gpu_name"], len(names)))


if __name__ == "__main__":
    main()
