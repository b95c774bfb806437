#!/usr/bin/env python3
"""Two gpubench jobs on one GPU, default settings (issue #25): started together, both finish
within 1.3 x 2 x the time one job takes alone, and their rows say what happened: the overlap is
flagged (gpu_shared=1 rows), and a row that is gpu_shared=0 was held (launch_held=1). With
--gpubench_exclusive=wait
the second job waits for the first (at start, before it creates a CUDA context), the pair takes
about as long as the two alone, and every row is clean and held. Exits 77 (skip) without a GPU.

usage: check_shared_jobs.py GPUBENCH_EXAMPLES WORK_DIR
"""
import json
import os
import subprocess
import sys
import time

FILTER = "^BM_(TinyKernel|Fma|Copy/1048576)/"
ARGS = ["--benchmark_filter=" + FILTER, "--benchmark_min_time=0.05",
        "--benchmark_repetitions=2", "--benchmark_out_format=json"]
SLACK_SECONDS = 5  # process start and CUDA context creation, which the ratio does not cover
FAILURES = []


def check(condition, message):
    print(("ok   " if condition else "FAIL ") + message)
    if not condition:
        FAILURES.append(message)


def start(binary, out_dir, tag, extra=()):
    out = os.path.join(out_dir, tag + ".json")
    if os.path.exists(out):
        os.remove(out)
    log = open(os.path.join(out_dir, tag + ".log"), "w")
    process = subprocess.Popen([binary] + ARGS + ["--benchmark_out=" + out] + list(extra),
                               stdout=log, stderr=subprocess.STDOUT)
    return process, out, log


def finish(jobs, limit):
    """Waits for every job; returns their exit codes (None: killed at the limit) and documents."""
    results = []
    deadline = time.time() + limit
    for process, out, log in jobs:
        try:
            code = process.wait(timeout=max(1, deadline - time.time()))
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            code = None
        log.close()
        document = json.load(open(out)) if code is not None and os.path.exists(out) else None
        results.append((code, document))
    return results


def rows(document):
    return [b for b in document["benchmarks"] if b.get("run_type") == "iteration"]


def main():
    binary, out_dir = sys.argv[1], sys.argv[2]
    os.makedirs(out_dir, exist_ok=True)
    t0 = time.time()
    [(code, alone)] = finish([start(binary, out_dir, "alone")], 600)
    alone_seconds = time.time() - t0
    if alone is None or alone["context"].get("gpu_status") != "ok":
        print("SKIP: no usable CUDA device: %s" % (alone or {}).get("context", {}).get("gpu_status"))
        sys.exit(77)
    check(code == 0, "alone: exit code %s" % code)
    bound = 1.3 * 2 * alone_seconds + SLACK_SECONDS
    print("alone: %.1f s; a pair may take %.1f s" % (alone_seconds, bound))

    t0 = time.time()
    pair = finish([start(binary, out_dir, "pair_%d" % i) for i in range(2)], 3 * bound)
    pair_seconds = time.time() - t0
    check(all(code == 0 for code, _ in pair), "pair: exit codes %s" % [c for c, _ in pair])
    check(pair_seconds <= bound, "pair: both finished in %.1f s (bound %.1f s)" %
          (pair_seconds, bound))
    shared_rows = 0
    for i, (code, document) in enumerate(pair):
        if document is None:
            continue
        runs = rows(document)
        check(len(runs) == len(rows(alone)), "pair_%d: %d rows (alone: %d)" %
              (i, len(runs), len(rows(alone))))
        # A job that outlives the other times its last benchmarks alone: those rows are clean,
        # and must then have been held. (Which rows overlapped is not visible from outside.)
        shared = [r for r in runs if r.get("gpu_shared") == 1]
        shared_rows += len(shared)
        clean = [r for r in runs if r.get("gpu_shared") == 0]
        check(len(shared) + len(clean) == len(runs), "pair_%d: every row has gpu_shared" % i)
        check(all(r.get("launch_held") == 1 for r in clean),
              "pair_%d: every gpu_shared=0 row is held (%d such rows)" % (i, len(clean)))
        # Sessions of the two jobs take turns (CUPTI's HARDWARE_BUSY is waited out for up to
        # 2 s); a session that still finds the counters busy drops only that call's metrics.
        print("     pair_%d: %d of %d rows shared, %d with hardware metrics" %
              (i, len(shared), len(runs), sum("dram_read_bytes" in r for r in runs)))
    check(shared_rows > 0, "pair: the jobs overlapped, and %d rows say so" % shared_rows)

    t0 = time.time()
    waiting = finish([start(binary, out_dir, "wait_%d" % i, ["--gpubench_exclusive=wait"])
                      for i in range(2)], 3 * bound)
    wait_seconds = time.time() - t0
    check(all(code == 0 for code, _ in waiting), "exclusive=wait pair: exit codes %s" %
          [c for c, _ in waiting])
    check(wait_seconds <= bound, "exclusive=wait pair: both finished in %.1f s (bound %.1f s)" %
          (wait_seconds, bound))
    notes = [d["context"].get("gpubench_gpu_sharing", "") for _, d in waiting if d]
    check(sum("waited" in note for note in notes) == 1,
          "exclusive=wait: one job waited for the other: %s" % notes)
    for i, (code, document) in enumerate(waiting):
        if document is None:
            continue
        runs = rows(document)
        check(len(runs) == len(rows(alone)) and
              all(r.get("gpu_shared") == 0 and r.get("launch_held") == 1 for r in runs),
              "exclusive=wait job %d: all %d rows clean and held" % (i, len(runs)))
    if FAILURES:
        print("%d check(s) failed" % len(FAILURES))
        sys.exit(1)
    print("OK: alone %.1f s, pair %.1f s (%.2fx), exclusive=wait pair %.1f s (%.2fx)" % (
        alone_seconds, pair_seconds, pair_seconds / alone_seconds, wait_seconds,
        wait_seconds / alone_seconds))


if __name__ == "__main__":
    main()
