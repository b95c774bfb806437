#!/usr/bin/env python3
"""gpubench-compare --changes on the committed H200 series: the command line's edges.

Bad input exits 2 with a message that says what was wrong: one run only, a missing file, an
--order-by key that a run lacks (the message names the file and the key), a comparison's option
given to --changes (--alpha), --order-by without --changes. A --history folder (a copy of
series_gpu_84ba34e4's plain_*.json and fma1_*.json, whose names sort fma1 first) is ordered by
date and gives the one change, Gate_FmaLong/2112/manual_time real_time +1.05% at fma1_1.json
(commit f1), as valid JSON; -o FILE --format markdown writes the file and prints the console
table; plain_*, keep_1..3, fma1_1..4 given in that order give two settings changes (at keep_1
and at fma1_1, back to the plain runs' settings) and still only the FmaLong change.

usage: check_changes_cli.py GPUBENCH_COMPARE DATA_DIR
"""
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

FAILURES = []
FMA = "Gate_FmaLong/2112/manual_time"


def check(condition, message):
    if not condition:
        FAILURES.append(message)
    return condition


def run(command):
    return subprocess.run([str(part) for part in command], capture_output=True, text=True,
                          timeout=120)


def ok(failures_before, text):
    """Says OK only when the section added no failure."""
    if len(FAILURES) == failures_before:
        print("OK: " + text)


def parsed(name, result):
    try:
        return json.loads(result.stdout)
    except ValueError as error:
        check(False, "%s: stdout is not JSON (%s): %r" % (name, error, result.stdout[:500]))
        return None


def shown(result):
    return "exit %d, stdout %r, stderr %r" % (result.returncode, result.stdout[-2000:],
                                              result.stderr[-2000:])


def check_refused(name, result, *needles):
    """Exit 2, nothing on stdout, and a message on stderr holding each of `needles`."""
    before = len(FAILURES)
    check(result.returncode == 2, "%s: expected exit 2; %s" % (name, shown(result)))
    check(result.stdout == "", "%s: printed on stdout: %r" % (name, result.stdout))
    for needle in needles:
        check(needle in result.stderr, "%s: %r is not in the message; %s" % (name, needle,
                                                                             shown(result)))
    ok(before, "%s: %s" % (name, result.stderr.strip().splitlines()[0] if result.stderr else ""))


def check_bad_input(compare, series):
    one, two = os.path.join(series, "plain_01.json"), os.path.join(series, "plain_02.json")
    check_refused("one run only", run([compare, "--changes", one]),
                  "gpubench-compare: usage error: --changes needs a series of at least two runs",
                  "got 1")
    missing = os.path.join(series, "no_such_run.json")
    check_refused("a missing file", run([compare, "--changes", one, missing]),
                  "gpubench-compare: error: ", missing)
    check_refused("a bad --order-by key",
                  run([compare, "--changes", one, two, "--order-by", "no_such_key"]),
                  one + " has no context key 'no_such_key'", "--order-by")
    check_refused("--alpha with --changes",
                  run([compare, "--changes", one, two, "--alpha", "0.1"]),
                  "--alpha is an option of a comparison, not of --changes")
    check_refused("--order-by without --changes",
                  run([compare, one, two, "--order-by", "date"]),
                  "--order-by and --commit-key belong to --changes")


def changes_of(report):
    return [(c["benchmark"], c["metric"], os.path.basename(c["first_run"]), c["commit"])
            for c in report["changes"]]


def check_history_folder(compare, series, work):
    before = len(FAILURES)
    folder = os.path.join(work, "history")
    os.makedirs(folder)
    runs = sorted(glob.glob(os.path.join(series, "plain_*.json")))
    runs += sorted(glob.glob(os.path.join(series, "fma1_*.json")))
    check(len(runs) == 16, "history: %d runs in %s, expected 12 plain and 4 fma1" % (len(runs),
                                                                                    series))
    for path in runs:
        shutil.copy(path, folder)
    result = run([compare, "--changes", "--history", folder, "--format", "json"])
    if not check(result.returncode == 0, "history: " + shown(result)):
        return
    report = parsed("history", result)
    if report is None:
        return
    names = [os.path.basename(r["file"]) for r in report["runs"]]
    check(names == [os.path.basename(p) for p in runs],
          "history: the runs are not in date order (plain first, then fma1): %s" % names)
    check(changes_of(report) == [(FMA, "real_time", "fma1_1.json", "f1")],
          "history: changes %s, expected the FmaLong step at fma1_1.json" % changes_of(report))
    for change in report["changes"]:
        check(change["practical"] and abs(change["change_percent"] - 1.05) < 0.1,
              "history: the FmaLong change is %s, expected a practical +1.05%%" % change)
        check(change["first_run_index"] == 12 and change["kind"] == "step",
              "history: the FmaLong change is %s, expected a step at run 12" % change)
    check(report["settings_changes"] == [], "history: settings changes %s"
          % report["settings_changes"])
    check(report["practical_changes"] == 1 and report["gpus"] == 1,
          "history: practical_changes %s, gpus %s" % (report["practical_changes"],
                                                      report["gpus"]))
    ok(before, "--changes --history DIR orders by date and finds the FmaLong step at fma1_1.json")


def check_output_file(compare, series, work):
    before = len(FAILURES)
    runs = sorted(glob.glob(os.path.join(series, "plain_*.json")))
    runs += sorted(glob.glob(os.path.join(series, "fma1_*.json")))
    path = os.path.join(work, "changes.md")
    result = run([compare, "--changes", *runs, "--format", "markdown", "-o", path])
    if not check(result.returncode == 0, "-o markdown: " + shown(result)):
        return
    check(os.path.isfile(path), "-o markdown: %s was not written" % path)
    if os.path.isfile(path):
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
        check(text.startswith("## Change points\n"), "-o markdown: the file is %r" % text[:200])
        check("| `%s` | real_time | step |" % FMA in text and "`f1`" in text,
              "-o markdown: no FmaLong row with its commit in %r" % text)
    check(result.stdout.startswith("gpubench-compare --changes: 16 runs"),
          "-o markdown: stdout is not the console table: %r" % result.stdout[:300])
    check("Changes (1):" in result.stdout and FMA in result.stdout and "(commit f1)"
          in result.stdout, "-o markdown: the console table lacks the change: %r" % result.stdout)
    check("## " not in result.stdout and "|---" not in result.stdout,
          "-o markdown: markdown on stdout: %r" % result.stdout)
    ok(before, "-o FILE --format markdown writes the file and prints the console table")


def check_settings_change(compare, series):
    before = len(FAILURES)
    runs = sorted(glob.glob(os.path.join(series, "plain_*.json")))
    runs += [os.path.join(series, "keep_%d.json" % i) for i in (1, 2, 3)]
    runs += [os.path.join(series, "fma1_%d.json" % i) for i in (1, 2, 3, 4)]
    result = run([compare, "--changes", *runs, "--format", "json"])
    if not check(result.returncode == 0, "settings: " + shown(result)):
        return
    report = parsed("settings", result)
    if report is None:
        return
    settings = [(os.path.basename(s["first_run"]), s["first_run_index"], s["commit"])
                for s in report["settings_changes"]]
    check(settings == [("keep_1.json", 12, "k1"), ("fma1_1.json", 15, "f1")],
          "settings: settings changes %s, expected at keep_1.json and fma1_1.json" % settings)
    changes = report["settings_changes"]
    if len(changes) == 2:
        check(changes[0]["fingerprint_before"] == changes[1]["fingerprint_after"] and
              changes[0]["fingerprint_after"] == changes[1]["fingerprint_before"] and
              changes[0]["fingerprint_before"] != changes[0]["fingerprint_after"],
              "settings: the fingerprints do not go there and back: %s" % changes)
    check(changes_of(report) == [(FMA, "real_time", "fma1_1.json", "f1")],
          "settings: changes %s, expected the FmaLong step at fma1_1.json only"
          % changes_of(report))
    result = run([compare, "--changes", *runs, "--format", "csv"])
    rows = [line.split(",") for line in result.stdout.splitlines()[1:]]
    check(result.returncode == 0 and [row[2] for row in rows] == ["step", "settings", "settings"],
          "settings: the CSV's kinds are %s; %s" % ([row[2] for row in rows], shown(result)))
    ok(before, "a settings change there and back: two settings changes, one FmaLong step")


def main():
    compare, data_dir = sys.argv[1:3]
    check_bad_input(compare, os.path.join(data_dir, "series_gpu_8f0dca1c"))
    other = os.path.join(data_dir, "series_gpu_84ba34e4")
    with tempfile.TemporaryDirectory(prefix="changes_cli_") as work:
        check_history_folder(compare, other, work)
        check_output_file(compare, other, work)
    check_settings_change(compare, other)
    for failure in FAILURES:
        print("FAIL: " + failure)
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
