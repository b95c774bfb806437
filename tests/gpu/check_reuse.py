#!/usr/bin/env python3
"""--gpubench_reuse on a GPU: tests/gpu/reuse_suite.cu built as it is (BASE) and once per edit
(each EDIT_<CASE> changes one thing of one benchmark). A run of an edited build that reuses the
base build's results measures exactly the edited benchmark again and reuses all the others; a
rerun of the base build reuses everything but the host-bound benchmark, also on a run made
without the flag (every row signed by default); a source run of another
GPU, driver, settings or method version makes every row measured, with one line saying why;
bad reuse files make every row measured with a message naming the file, and the JSON stays
valid. Exits 77 (skip) without a GPU.

usage: check_reuse.py WORK_DIR BASE EDIT_BINARY...   (edit binaries named reuse_suite_<case>)
"""
import json
import math
import os
import subprocess
import sys

# Which benchmark each edit must make measured again.
EDITED = {"code": "BM_Code", "geometry": "BM_Geometry", "scalar": "BM_Scalar",
          "host_data": "BM_HostData", "setup": "BM_SetupKernel", "cublas": "BM_Cublas",
          "graph": "BM_Graph"}
ALWAYS_MEASURED = {"BM_HostBound"}
FAILURES = []


def run(binary, out_dir, tag, *flags):
    out = os.path.join(out_dir, tag + ".json")
    log_path = os.path.join(out_dir, tag + ".log")
    with open(log_path, "w") as log:
        code = subprocess.call([binary, "--benchmark_out=" + out, "--benchmark_out_format=json",
                                "--gpubench_max_seconds=0.5"] + list(flags),
                               stdout=log, stderr=log, timeout=600)
    document = json.load(open(out))  # a bad reuse file must never cost the JSON
    if document["context"].get("gpu_status") != "ok":
        print("SKIP: no usable CUDA device: %s" % document["context"].get("gpu_status"))
        sys.exit(77)
    if code != 0:
        FAILURES.append("%s: exit %d (see %s)" % (tag, code, log_path))
    rows = {b["name"]: b for b in document["benchmarks"] if b.get("run_type") == "iteration"}
    return document, rows, open(log_path).read()


def status_names(rows):
    names = {1: "reused", 2: "new", 3: "changed", 4: "streak", 5: "aged", 6: "host_bound",
             7: "unsigned", 8: "run_differs", 9: "no_source"}
    return {name: names.get(int(row.get("reuse_status", 0)), "absent") for name, row in
            rows.items()}


def expect(tag, statuses, wanted):
    for name, status in sorted(statuses.items()):
        want = wanted(name.split("/")[0])  # the function's name, without GB's /manual_time
        if status != want:
            FAILURES.append("%s: %s is %s, expected %s" % (tag, name, status, want))
    print("%s: %s" % (tag, ", ".join("%s=%s" % item for item in sorted(statuses.items()))))


def edited_json(source, out_dir, tag, change):
    document = json.load(open(source))
    change(document)
    path = os.path.join(out_dir, tag + "_source.json")
    json.dump(document, open(path, "w"))
    return path


def main():
    out_dir, base = sys.argv[1], sys.argv[2]
    edits = sys.argv[3:]
    os.makedirs(out_dir, exist_ok=True)
    source = os.path.join(out_dir, "full.json")
    # Without the flag (--gpubench_signature=on, the default) every row carries its signature
    # and no other reuse counter; with signature=off none.
    _, plain_rows, _ = run(base, out_dir, "plain")
    for name, row in plain_rows.items():
        if "work_signature" not in row or "reuse_status" in row or "measured_at" in row:
            FAILURES.append("plain run: %s has work_signature %s, reuse_status %s, measured_at %s"
                            % (name, row.get("work_signature"), row.get("reuse_status"),
                               row.get("measured_at")))
    _, off_rows, _ = run(base, out_dir, "signature_off", "--gpubench_signature=off")
    for name, row in off_rows.items():
        if "work_signature" in row or "reuse_status" in row:
            FAILURES.append("signature=off: %s has reuse counters" % name)
    # A run without the flag is a source as good as any: a rerun on it reuses everything but the
    # host-bound benchmark.
    _, rows, _ = run(base, out_dir, "rerun_on_plain",
                     "--gpubench_reuse=" + os.path.join(out_dir, "plain.json"))
    expect("rerun on the plain run", status_names(rows),
           lambda name: "host_bound" if name in ALWAYS_MEASURED else "reused")
    # The first run of a CI job: a folder that holds no run yet; every row measured and signed.
    empty = os.path.join(out_dir, "empty_history")
    os.makedirs(empty, exist_ok=True)
    _, full_rows, _ = run(base, out_dir, "full", "--gpubench_reuse=" + empty)
    for name, row in full_rows.items():
        if "work_signature" not in row or row.get("reuse_status") != 9:
            FAILURES.append("full run: %s has work_signature %s, reuse_status %s" %
                            (name, row.get("work_signature"), row.get("reuse_status")))
    # Nothing changed: every row reused but the host-bound one, with the source's values.
    _, rows, _ = run(base, out_dir, "rerun", "--gpubench_reuse=" + source)
    expect("rerun", status_names(rows),
           lambda name: "host_bound" if name in ALWAYS_MEASURED else "reused")
    for name, row in rows.items():
        # GB divides the reused total by the iterations again: equal to double rounding.
        if row.get("reuse_status") == 1 and not math.isclose(
                row["real_time"], full_rows[name]["real_time"], rel_tol=1e-12):
            FAILURES.append("rerun: %s reused real_time %s, source %s" %
                            (name, row["real_time"], full_rows[name]["real_time"]))
    # One edit each: exactly the edited benchmark measured again.
    for binary in edits:
        case = os.path.basename(binary)[len("reuse_suite_"):]
        _, rows, _ = run(binary, out_dir, "edit_" + case, "--gpubench_reuse=" + source)
        expect("edit " + case, status_names(rows),
               lambda name: ("changed" if name == EDITED[case] else
                             "host_bound" if name in ALWAYS_MEASURED else "reused"))
    # The whole run differs: every row measured, one line on stderr saying why.
    for key, tag in (("gpu_uuid", "another_gpu"), ("gpu_driver_version", "another_driver"),
                     ("gpubench_settings_fingerprint", "other_settings"),
                     ("gpubench_method_version", "another_method")):
        changed = edited_json(source, out_dir, tag,
                              lambda d, key=key: d["context"].__setitem__(key, "other"))
        _, rows, log = run(base, out_dir, tag, "--gpubench_reuse=" + changed)
        expect(tag, status_names(rows), lambda name: "run_differs")
        if log.count("every benchmark is measured") != 1:
            FAILURES.append("%s: the reason is not said once on stderr" % tag)
    # Streak and age.
    _, rows, _ = run(base, out_dir, "streak", "--gpubench_reuse=" + source,
                     "--gpubench_reuse_max_runs=0")
    # The streak is checked before the host (docs/user-guide.md's order): every row.
    expect("streak", status_names(rows), lambda name: "streak")
    # Bad input: measured, a message naming the file, valid JSON (run() parses it).
    cut = os.path.join(out_dir, "cut.json")
    open(cut, "w").write(open(source).read()[:2000])
    not_run = os.path.join(out_dir, "not_a_run.json")
    json.dump({"hello": 1}, open(not_run, "w"))
    for tag, path in (("cut_off", cut), ("not_a_run", not_run)):
        _, rows, log = run(base, out_dir, tag, "--gpubench_reuse=" + path)
        expect(tag, status_names(rows), lambda name: "no_source")
        if path not in log:
            FAILURES.append("%s: stderr does not name %s" % (tag, path))
    if FAILURES:
        print("FAIL:\n  " + "\n  ".join(FAILURES))
        sys.exit(1)
    print("PASS")


if __name__ == "__main__":
    main()
