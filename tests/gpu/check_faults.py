#!/usr/bin/env python3
"""CUDA errors inside benchmark bodies, on a GPU: each failing benchmark names its CUDA error
(or the exception the suite's own check threw, without passing CUDA's last error on),
a non-sticky error spares later benchmarks, a sticky one makes them skip with the reason, the
process exits 0 and the JSON stays valid. Exits 77 (skip) without a GPU."""
import json
import os
import subprocess
import sys


def main():
    binary, out_dir = sys.argv[1], sys.argv[2]
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, "faults.json")
    result = subprocess.run([binary, "--benchmark_filter=^Fault_", "--benchmark_out=" + path,
                             "--benchmark_out_format=json", "--gpubench_profile_iterations=0"],
                            capture_output=True, text=True, timeout=300)
    print(result.stdout)
    print(result.stderr, file=sys.stderr)
    with open(path) as handle:
        report = json.load(handle)
    if report["context"]["gpu_status"] != "ok":
        print("SKIP: no usable CUDA device: " + report["context"]["gpu_status"])
        sys.exit(77)
    if result.returncode != 0:
        print("FAIL: exit code %d" % result.returncode)
        sys.exit(1)
    runs = {b["name"].split("/")[0]: b for b in report["benchmarks"]}
    expectations = {
        "Fault_1_Good": None,
        "Fault_1b_ThrowsInLoop": "threw std::runtime_error (\"CUDA_SAFE_CALL: "
                                 "cudaErrorMemoryAllocation\")",
        "Fault_1c_GoodAfterThrow": None,
        "Fault_2_BadLaunch": "cudaErrorInvalid",  # Value (CUDA 13) or Configuration
        "Fault_3_GoodAfterBadLaunch": None,
        "Fault_4_IllegalAddress": "cudaErrorIllegalAddress",
        "Fault_5_AfterContextLost": "context was lost",
    }
    failures = 0
    for name, expected in expectations.items():
        run = runs.get(name)
        message = (run or {}).get("error_message", "")
        errored = bool(run and run.get("error_occurred"))
        ok = run is not None and (errored == (expected is not None)) and (
            expected is None or expected in message)
        print("%s %s: %s" % ("ok" if ok else "FAIL", name, message or "ran"))
        failures += not ok
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
