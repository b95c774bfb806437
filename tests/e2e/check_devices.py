#!/usr/bin/env python3
"""--gpubench_devices on the mixed CPU/GPU suite: the suite runs once per listed device, one
device after another, in that order (or all at once, with the same rows and each device's console
output whole); every row is named .../gpu:N/...; the JSON file is one
document with the rows of every device and the facts of every device in its context; a run for
one device names its rows exactly as the same device's rows of a run for several; a device that
cannot be used fails only its own GPU rows, with the reason. With a GPU, its rows must run;
without one (CI), every GPU row carries the no-device reason.

usage: check_devices.py GPUBENCH_MIXED_SUITE WORK_DIR
"""
import json
import os
import re
import subprocess
import sys

FAILURES = []


def check(condition, message):
    if not condition:
        FAILURES.append(message)
    return condition


def run(binary, args, out):
    if os.path.exists(out):
        os.remove(out)
    result = subprocess.run([binary, "--benchmark_min_time=0.01", "--benchmark_out=" + out] + args,
                            capture_output=True, text=True, timeout=600)
    document = None
    if os.path.exists(out):
        with open(out) as handle:
            text = handle.read()
        # GB writes bare NaN/inf; json.loads accepts them.
        document = json.loads(text)
    return result, document


def main():
    binary, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    # Device 7 does not exist on a one- or two-GPU machine (nor anywhere in CI).
    several, merged = run(binary, ["--gpubench_devices=0,7"], os.path.join(work, "several.json"))
    output = several.stdout + several.stderr
    check(several.returncode == 0, "exit code %d: %s" % (several.returncode, output[-2000:]))
    if not check(merged is not None, "no merged JSON: " + output[-2000:]):
        return finish()
    names = [row["name"] for row in merged["benchmarks"]]
    check(all(re.search(r"/gpu:(0|7)(/|_|$)", name) for name in names), "untagged rows: %s" % names)
    first7 = next((i for i, name in enumerate(names) if "/gpu:7" in name), len(names))
    check(first7 > 0 and all("/gpu:0" in name for name in names[:first7]) and
          all("/gpu:7" in name for name in names[first7:]),
          "rows not device by device in the listed order: %s" % names)
    per_device = {d: sorted(n.replace("/gpu:%d" % d, "") for n in names if "/gpu:%d" % d in n)
                  for d in (0, 7)}
    check(per_device[0] == per_device[7] and per_device[0],
          "the devices ran different benchmarks: %s" % per_device)
    context = merged["context"]
    check(context.get("gpubench_devices") == "0,7", "gpubench_devices=%r" %
          context.get("gpubench_devices"))
    for device in (0, 7):
        check("gpu_%d_status" % device in context and "gpu_%d_name" % device in context,
              "no facts of device %d in the context" % device)
    expected = ("unavailable: device 7 does not exist" if context.get("gpu_0_status") == "ok"
                else "unavailable: ")
    check(context["gpu_7_status"].startswith(expected), "device 7: %r" %
          context.get("gpu_7_status"))
    check(context.get("gpubench_settings_fingerprint"), "no fingerprint")
    for row in merged["benchmarks"]:
        gpu_row = "manual_time" in row["name"]
        failed = row.get("error_occurred") or row.get("skipped")
        if "/gpu:7" in row["name"]:
            check(not gpu_row or failed, "%s ran on a device that does not exist" % row["name"])
        if not gpu_row:
            check(not failed, "CPU row %s failed: %s" % (row["name"], row.get("error_message")))
    gpu_available = context.get("gpu_0_status") == "ok"
    for row in merged["benchmarks"]:
        if "/gpu:0" in row["name"] and "manual_time" in row["name"]:
            failed = row.get("error_occurred") or row.get("skipped")
            check(bool(failed) != gpu_available, "%s: error %r with gpu_0_status %r" % (
                row["name"], row.get("error_message"), context.get("gpu_0_status")))
    # The console names the rows too.
    check("BM_HostParse/gpu:0" in several.stdout and "BM_HostParse/gpu:7" in several.stdout,
          "console rows are not named per device")

    single, alone = run(binary, ["--gpubench_devices=7"], os.path.join(work, "single.json"))
    check(single.returncode == 0 and alone is not None, "single device: exit %d" %
          single.returncode)
    if alone is not None:
        check([row["name"] for row in alone["benchmarks"]] == names[first7:],
              "a run for device 7 alone names its rows differently: %s vs %s" % (
                  [row["name"] for row in alone["benchmarks"]], names[first7:]))
        check(alone["context"].get("gpubench_settings_fingerprint") ==
              context.get("gpubench_settings_fingerprint"),
              "the fingerprint depends on the devices")

    # All at once: the same rows and names, device by device; each device's console output whole
    # (no gpu:7 line before the last gpu:0 line); the order recorded and fingerprinted.
    at_once, parallel = run(binary, ["--gpubench_devices=0,7", "--gpubench_device_order=all_at_once"],
                            os.path.join(work, "at_once.json"))
    check(at_once.returncode == 0 and parallel is not None, "all_at_once: exit %d %s" % (
        at_once.returncode, at_once.stderr[-1000:]))
    if parallel is not None:
        check([row["name"] for row in parallel["benchmarks"]] == names,
              "all_at_once names or orders its rows differently: %s vs %s" % (
                  [row["name"] for row in parallel["benchmarks"]], names))
        check(parallel["context"].get("gpubench_device_order") == "all_at_once",
              "all_at_once: gpubench_device_order=%r" % parallel["context"].get(
                  "gpubench_device_order"))
        check(parallel["context"].get("gpubench_settings_fingerprint") !=
              context.get("gpubench_settings_fingerprint"),
              "all_at_once has the fingerprint of one_at_a_time")
        check(context.get("gpubench_device_order") == "one_at_a_time",
              "the default run records gpubench_device_order=%r" % context.get(
                  "gpubench_device_order"))
    lines = at_once.stdout.splitlines()
    zero = [i for i, line in enumerate(lines) if "/gpu:0" in line]
    seven = [i for i, line in enumerate(lines) if "/gpu:7" in line]
    check(zero and seven and max(zero) < min(seven),
          "all_at_once console: device 0's and device 7's lines interleave: %s" % lines[:60])
    check("2 devices at once" in at_once.stdout, "all_at_once does not say so: %s" %
          at_once.stdout[:500])
    # One device has nothing beside it: all_at_once changes nothing there.
    lone, lone_doc = run(binary, ["--gpubench_devices=7", "--gpubench_device_order=all_at_once"],
                         os.path.join(work, "lone.json"))
    if check(lone.returncode == 0 and lone_doc is not None, "one device at once: exit %d" %
             lone.returncode) and alone is not None:
        check(lone_doc["context"].get("gpubench_device_order") == "one_at_a_time" and
              lone_doc["context"].get("gpubench_settings_fingerprint") ==
              alone["context"].get("gpubench_settings_fingerprint") and
              [row["name"] for row in lone_doc["benchmarks"]] ==
              [row["name"] for row in alone["benchmarks"]],
              "a run of one device with all_at_once differs from one without")

    # Every device of the machine, hardware metrics off: each device's GPU row runs on memory the
    # benchmark allocated before its loop, so that memory must be on that device (gpubench makes
    # the benchmarked device current before any benchmark runs, also when no profiler does).
    if gpu_available:
        every, run_all = run(binary, ["--gpubench_devices=all", "--gpubench_profile_iterations=0",
                                      "--benchmark_filter=BM_DeviceMemset"],
                             os.path.join(work, "all.json"))
        check(every.returncode == 0 and run_all is not None, "all devices: exit %d %s" % (
            every.returncode, every.stderr[-1000:]))
        if run_all is not None:
            listed = run_all["context"].get("gpubench_devices", "").split(",")
            rows = run_all["benchmarks"]
            check(len(rows) == len(listed) and not any(
                row.get("error_occurred") or row.get("skipped") for row in rows),
                "all devices (%s): %s" % (listed, [(row["name"], row.get("error_message"))
                                                   for row in rows]))
            print("OK: %d device(s) each ran the GPU benchmark" % len(listed))

    bad = subprocess.run([binary, "--gpubench_devices=0,0"], capture_output=True, text=True,
                         timeout=60)
    check(bad.returncode == 2 and "listed twice" in bad.stderr, "0,0: %d %s" % (bad.returncode,
                                                                                bad.stderr))
    both = subprocess.run([binary, "--gpubench_devices=0", "--gpubench_device=1"],
                          capture_output=True, text=True, timeout=60)
    check(both.returncode == 2 and "not both" in both.stderr, "device and devices: %d %s" % (
        both.returncode, both.stderr))
    json_stdout = subprocess.run([binary, "--gpubench_devices=0,7", "--benchmark_format=json"],
                                 capture_output=True, text=True, timeout=60)
    check(json_stdout.returncode == 2 and "--benchmark_out=FILE" in json_stdout.stderr,
          "JSON on stdout with several devices: %d %s" % (json_stdout.returncode,
                                                           json_stdout.stderr))
    return finish()


def finish():
    for failure in FAILURES:
        print("FAIL: " + failure)
    if not FAILURES:
        print("OK: --gpubench_devices")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
