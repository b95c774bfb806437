#!/usr/bin/env python3
"""A benchmark's number does not depend on what ran before it in the process (issue #64): an
atomic-bound benchmark of the validation suite bench/validation/structures
(deque_push_front/10000000, whose every element moves an index in a 16-byte allocation of its
own) is run alone and after another benchmark (bitset_set/1000, which allocates, scopes untimed
work and frees before it), each in two processes of 3 repetitions. The median of each order must
agree within max(0.5%, 3 x the larger between-process spread of either order), the rule of
order_check.sh. Before gpubench made its own GPU resources in Initialize, the second order timed
10% slower on an H100 in a suite of this kind. Exits 77 (skip) without a GPU.

usage: check_order.py GPUBENCH_STRUCTURES WORK_DIR
"""
import json
import os
import statistics
import subprocess
import sys

TARGET = "deque_push_front/10000000"
ORDERS = {"alone": "^deque_push_front/10000000/",
          "after": "^(bitset_set/1000|deque_push_front/10000000)/"}


def median_of(binary, out_dir, tag, pattern):
    out = os.path.join(out_dir, tag + ".json")
    with open(os.path.join(out_dir, tag + ".log"), "w") as log:
        code = subprocess.call([binary, "--benchmark_filter=" + pattern,
                                "--benchmark_repetitions=3", "--benchmark_out=" + out,
                                "--benchmark_out_format=json"], stdout=log, stderr=log,
                               timeout=600)
    document = json.load(open(out))
    if document["context"].get("gpu_status") != "ok":
        return None, document["context"].get("gpu_status")
    times = [b["real_time"] for b in document["benchmarks"]
             if b.get("run_type") == "iteration" and b["run_name"].startswith(TARGET + "/") and
             not b.get("error_occurred")]
    if code != 0 or len(times) != 3:
        sys.exit("FAIL %s: exit %s, %d measured repetitions of %s" % (tag, code, len(times), TARGET))
    return statistics.median(times), None


def main():
    binary, out_dir = sys.argv[1], sys.argv[2]
    os.makedirs(out_dir, exist_ok=True)
    medians = {}
    for run in (1, 2):
        for order, pattern in ORDERS.items():
            value, no_gpu = median_of(binary, out_dir, "%s_%d" % (order, run), pattern)
            if value is None:
                print("SKIP: no usable CUDA device: %s" % no_gpu)
                sys.exit(77)
            medians.setdefault(order, []).append(value)
    means = {order: statistics.mean(values) for order, values in medians.items()}
    spread = max(abs(v[0] - v[1]) / statistics.mean(v) for v in medians.values()) * 100
    difference = (means["after"] / means["alone"] - 1) * 100
    allowed = max(0.5, 3 * spread)
    print("%s: alone %s, after bitset_set/1000 %s (ms): %+.2f%%, between-process spread %.2f%%, "
          "allowed %.2f%%" % (TARGET, medians["alone"], medians["after"], difference, spread,
                              allowed))
    if abs(difference) > allowed:
        print("FAIL: the number depends on what ran before it")
        sys.exit(1)
    print("OK")


if __name__ == "__main__":
    main()
