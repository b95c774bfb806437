#!/usr/bin/env python3
"""Outputs and flags users rely on, end to end on the example binary (no GPU needed):
--gpubench_list_metrics with --gpubench_chip, --benchmark_format=json on stdout, and the refusal
of --gpubench_timer=cupti under another CUDA tool (CUDA_INJECTION64_PATH)."""
import json
import os
import re
import subprocess
import sys


def run(binary, args, env_extra=None):
    env = dict(os.environ)
    env.update(env_extra or {})
    return subprocess.run([binary] + args, capture_output=True, text=True, timeout=300, env=env)


def expect(condition, message, result=None):
    if not condition:
        detail = "" if result is None else "\nexit %d\nstdout: %s\nstderr: %s" % (
            result.returncode, result.stdout[-2000:], result.stderr[-2000:])
        print("FAIL: " + message + detail)
        sys.exit(1)


def main():
    binary = sys.argv[1]
    # The chip's metrics without a GPU: CUPTI's host API knows GH100.
    r = run(binary, ["--gpubench_list_metrics=dram__bytes", "--gpubench_chip=GH100"])
    expect(r.returncode == 0, "list_metrics with --gpubench_chip=GH100 exits 0", r)
    rows = [line.split("\t") for line in r.stdout.splitlines() if not line.startswith("#")]
    names = {row[0]: row for row in rows if len(row) >= 5}
    expect("dram__bytes_read" in names and names["dram__bytes_read"][1:3] == ["counter", "byte"],
           "dram__bytes_read is listed as a counter in bytes", r)
    expect(".sum" in names["dram__bytes_read"][4].split(), "its forms include .sum", r)
    expect(all("dram__bytes" in name for name in names), "only matching metrics are listed", r)
    r = run(binary, ["--gpubench_list_metrics=zzzz_nomatch", "--gpubench_chip=GH100"])
    expect(r.returncode == 2 and "no metric of chip GH100 contains 'zzzz_nomatch'" in r.stderr,
           "a filter that matches nothing exits 2 and says so", r)
    # The metric groups with their metrics and replay passes, computed by CUPTI without a GPU.
    r = run(binary, ["--gpubench_list_metrics=+", "--gpubench_chip=GH100"])
    expect(r.returncode == 0, "list_metrics=+ (the groups) exits 0", r)
    groups = {row[0]: row for row in (line.split("\t") for line in r.stdout.splitlines()
                                      if not line.startswith("#")) if len(row) >= 3}
    expect(set(groups) == {"defaults", "+flops", "+l2", "all of them"},
           "the groups, the defaults and all together are listed", r)
    passes = {name: row[1] for name, row in groups.items()}
    expect(passes["defaults"] == "1 pass", "the defaults need 1 pass on GH100", r)
    for name in ("+flops", "+l2", "all of them"):
        expect(re.fullmatch(r"[1-9][0-9]* pass(es)?", passes[name]) is not None,
               "%s has a pass count: %r" % (name, passes[name]), r)
    expect("sm__sass_thread_inst_executed_op_ffma_pred_on.sum" in groups["+flops"][2].split(","),
           "+flops lists its metrics", r)
    print("metric groups on GH100: " + ", ".join("%s %s" % item for item in sorted(passes.items())))
    r = run(binary, ["--gpubench_list_metrics=+nosuchgroup", "--gpubench_chip=GH100"])
    expect(r.returncode == 2 and "the groups are +flops, +l2" in r.stderr,
           "an unknown group filter exits 2 and names the groups", r)
    r = run(binary, ["--gpubench_metrics=+flop", "--benchmark_filter=none"])
    expect(r.returncode == 2 and "'+flop' is not a metric group; the groups are +flops, +l2"
           in r.stderr, "an unknown group in --gpubench_metrics exits 2 and names the groups", r)
    r = run(binary, ["--gpubench_list_metrics", "--gpubench_chip=XX100"])
    expect(r.returncode != 0 and "supported chips:" in r.stderr and "GH100" in r.stderr,
           "an unknown chip fails and names the supported chips", r)

    # GB's JSON on stdout stays valid and carries gpubench's context.
    r = run(binary, ["--benchmark_format=json", "--benchmark_filter=BM_TinyKernel",
                     "--benchmark_min_time=0.01"])
    expect(r.returncode == 0, "--benchmark_format=json exits 0", r)
    try:
        report = json.loads(r.stdout)
    except ValueError as error:
        expect(False, "stdout is not JSON: %s" % error, r)
    for key in ("gpubench_settings_fingerprint", "gpubench_counter_units", "gpu_status"):
        expect(key in report["context"], "JSON context has %s" % key, r)
    expect([b["name"] for b in report["benchmarks"]][:1] == ["BM_TinyKernel/manual_time"],
           "the benchmark row is there", r)

    # Only one CUPTI client can trace a process: refused up front, with what to do instead.
    r = run(binary, ["--gpubench_timer=cupti"], {"CUDA_INJECTION64_PATH": "/opt/tool/libinject.so"})
    expect(r.returncode == 2 and "CUDA_INJECTION64_PATH is set" in r.stderr and
           "use --gpubench_timer=events" in r.stderr,
           "timer=cupti under CUDA_INJECTION64_PATH exits 2 with the alternative", r)
    r = run(binary, ["--benchmark_filter=BM_TinyKernel", "--benchmark_min_time=0.01"],
            {"CUDA_INJECTION64_PATH": "/opt/tool/libinject.so"})
    expect(r.returncode == 0, "timer=events under CUDA_INJECTION64_PATH runs", r)
    print("OK: list_metrics/chip, JSON on stdout, refusal under CUDA_INJECTION64_PATH")


if __name__ == "__main__":
    main()
