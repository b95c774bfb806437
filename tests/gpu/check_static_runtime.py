#!/usr/bin/env python3
"""A suite on the static CUDA runtime, with gpubench on the shared one (issue #64, part 5): the
validation suite bench/validation/structures (its CUDA backend links CUDA::cudart_static) is
measured whole: every row timed, with the profiling child's counters and the busy time; the
stream watch is on; two jobs with --gpubench_exclusive=wait take turns through the lock; the
suite's device print (gpubench::Main's before_benchmarks) comes once, from the timing process.
Then a main that makes a CUDA context before gpubench::Initialize (early_context.cpp,
EARLY_CONTEXT=1) is told so once on stderr, and the same main without it is not.
Exits 77 (skip) without a GPU.

usage: check_static_runtime.py GPUBENCH_STRUCTURES EARLY_CONTEXT_BINARY WORK_DIR
"""
import json
import os
import subprocess
import sys

FILTER = "^(deque_push_back/1000000|deque_clear/1000000|bitset_count_then_clear/100000000)/"
EARLY_NOTE = "existed before gpubench::Initialize"
FAILURES = []


def check(condition, message):
    print(("ok   " if condition else "FAIL ") + message)
    if not condition:
        FAILURES.append(message)


def run(command, out_dir, tag, env=None, wait=True):
    out = os.path.join(out_dir, tag + ".json")
    if os.path.exists(out):
        os.remove(out)
    log = open(os.path.join(out_dir, tag + ".log"), "w")
    process = subprocess.Popen(command + ["--benchmark_out=" + out, "--benchmark_out_format=json"],
                               stdout=subprocess.PIPE, stderr=log, text=True,
                               env=dict(os.environ, **(env or {})))
    if not wait:
        return process, out, log
    return finish(process, out, log)


def finish(process, out, log):
    stdout, _ = process.communicate(timeout=600)
    log.close()
    stderr = open(log.name).read()
    try:
        document = json.load(open(out))
    except (OSError, ValueError):
        document = None
    return process.returncode, stdout, stderr, document


def rows(document):
    return [b for b in document["benchmarks"] if b.get("run_type") == "iteration"]


def main():
    suite, early_binary, out_dir = sys.argv[1], sys.argv[2], sys.argv[3]
    os.makedirs(out_dir, exist_ok=True)
    code, stdout, stderr, document = run([suite, "--benchmark_filter=" + FILTER], out_dir, "suite")
    if document is None or document["context"].get("gpu_status") != "ok":
        print("SKIP: no usable CUDA device: %s" %
              (document or {}).get("context", {}).get("gpu_status"))
        sys.exit(77)
    check(code == 0, "the suite: exit code %s" % code)
    runs = rows(document)
    check(len(runs) == 3, "the suite: 3 rows (%d)" % len(runs))
    for row in runs:
        name = row["name"]
        check(not row.get("error_occurred"), "%s: measured (%s)" % (name, row.get("error_message")))
        check(row.get("real_time", 0) > 0, "%s: a GPU time" % name)
        check("gpu_duration" in row and "dram_read_bytes" in row,
              "%s: the profiling child's counters" % name)
        check("gpu_busy_pct" in row, "%s: the busy time" % name)
    watch = document["context"].get("gpubench_stream_watch", "")
    check(watch.startswith("on"), "the stream watch is on: %s" % watch)
    waiting = [r for r in runs if r["name"].startswith("bitset_count_then_clear")]
    if waiting:
        check(waiting[0].get("gpu_busy_pct", 100) < 95,
              "bitset_count_then_clear: the GPU waits for the host (gpu_busy_pct %s)" %
              waiting[0].get("gpu_busy_pct"))
    prints = stdout.count("structures: CUDA backend")
    check(prints == 1, "the suite's device print came once, from the timing process (%d)" % prints)
    check(EARLY_NOTE not in stderr, "no early-context note for gpubench::Main's callback")

    jobs = [run([suite, "--benchmark_filter=^deque_push_back/1000000/",
                 "--gpubench_exclusive=wait"], out_dir, "wait_%d" % i, wait=False)
            for i in range(2)]
    results = [finish(*job) for job in jobs]
    check(all(r[0] == 0 for r in results), "exclusive=wait pair: exit codes %s" %
          [r[0] for r in results])
    notes = [r[3]["context"].get("gpubench_gpu_sharing", "") for r in results if r[3]]
    check(sum("waited" in note for note in notes) == 1,
          "exclusive=wait: one job waited for the other through the lock: %s" % notes)

    for early in ("1", "0"):
        code, _, stderr, document = run([early_binary], out_dir, "early_" + early,
                                        env={"EARLY_CONTEXT": early})
        check(code == 0 and document is not None and len(rows(document)) == 1 and
              not rows(document)[0].get("error_occurred"),
              "EARLY_CONTEXT=%s: exit %s, the row measured" % (early, code))
        notes = stderr.count(EARLY_NOTE)
        check(notes == (1 if early == "1" else 0),
              "EARLY_CONTEXT=%s: the early-context note %d time(s)" % (early, notes))
    if FAILURES:
        print("%d check(s) failed" % len(FAILURES))
        sys.exit(1)
    print("OK")


if __name__ == "__main__":
    main()
