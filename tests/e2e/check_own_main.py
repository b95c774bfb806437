#!/usr/bin/env python3
"""A suite with a main of its own that follows the user guide's recipe, "A main of your own"
(tests/e2e/own_main_suite.cpp).

- A bad gpubench flag, or a bad GB flag, exits 2 with the reason on stderr and runs nothing.
- GB >= 1.8: a plain run has gpubench's stopping rule (gpubench_stopping_rule=precision), with
  GB's reporters and GB's names (no count in any name, on the console or in the JSON), and says
  nothing about the rule on stderr; so does a run whose display reporter is
  gpubench::CounterReporter. A CPU benchmark registered with GB's own API beside it keeps GB's
  rule for the run, said once on stderr with its name, and GB's own count for that benchmark.
- GB 1.7: GB's rule is kept and said once on stderr, with the reason and how to get gpubench's;
  the context block says the same (gpubench_stopping_rule=gb and gpubench_stopping_note).
- With --benchmark_min_time the user asked GB for its rule: nothing is said on the console.

- GB >= 1.8: the run's settings fingerprint is that of the same suite under GPUBENCH_MAIN() (TWIN).

Usage: check_own_main.py BINARY OUT_DIR GB_VERSION TWIN
"""
import json
import os
import subprocess
import sys

NOTE = "gpubench: GB's rule: a main of your own"


def run(binary, args, json_path, env=None):
    if os.path.exists(json_path):
        os.remove(json_path)
    full_env = dict(os.environ)
    full_env.pop("OWN_MAIN_PLAIN_GB_BENCHMARK", None)
    full_env.pop("OWN_MAIN_COUNTER_REPORTER", None)
    full_env.update(env or {})
    return subprocess.run([binary] + args + ["--benchmark_out=" + json_path,
                                             "--benchmark_out_format=json"],
                          capture_output=True, text=True, timeout=300, env=full_env)


def version_at_least(version, wanted):
    def parts(text):
        return [int(p) for p in text.split(".")[:2] if p.isdigit()]
    return parts(version) >= parts(wanted)


def read_report(path, label, problems):
    try:
        with open(path) as handle:
            return json.load(handle)
    except (OSError, ValueError) as error:
        problems.append("%s: no readable JSON (%s)" % (label, error))
        return None


def check_names(report, result, label, problems):
    names = [row["name"] for row in report["benchmarks"]]
    if not names:
        problems.append("%s: no rows" % label)
    for name in names:
        if "iterations:" in name:
            problems.append("%s: a count in GB's name: %s" % (label, name))
    if "iterations:" in result.stdout:
        problems.append("%s: a count in a name on the console:\n%s" % (label, result.stdout))
    if "BM_OwnMainMemset/1048576" not in result.stdout:
        problems.append("%s: the console lacks GB's name BM_OwnMainMemset/1048576:\n%s" %
                        (label, result.stdout))


def check_gpubench_rule(binary, twin, out_dir, problems):
    fingerprints = {}
    for label, env in [("plain run", {}),
                       ("CounterReporter run", {"OWN_MAIN_COUNTER_REPORTER": "1"})]:
        path = os.path.join(out_dir, "rule.json")
        result = run(binary, [], path, env)
        if result.returncode != 0:
            problems.append("%s: exit code %d, expected 0:\n%s" % (label, result.returncode,
                                                                  result.stderr))
        if NOTE in result.stderr:
            problems.append("%s: GB's rule was said on stderr:\n%s" % (label, result.stderr))
        report = read_report(path, label, problems)
        if report is None:
            continue
        context = report["context"]
        if not str(context.get("gpubench_stopping_rule")).startswith("precision"):
            problems.append("%s: gpubench_stopping_rule=%r, expected 'precision' (%r)" % (
                label, context.get("gpubench_stopping_rule"),
                context.get("gpubench_stopping_note")))
        check_names(report, result, label, problems)
        fingerprints[label] = context.get("gpubench_settings_fingerprint")

    path = os.path.join(out_dir, "twin.json")
    result = run(twin, [], path)
    report = read_report(path, "GPUBENCH_MAIN twin", problems)
    if report is not None:
        twin_print = report["context"].get("gpubench_settings_fingerprint")
        for label, fingerprint in fingerprints.items():
            if fingerprint != twin_print or not twin_print:
                problems.append("%s: settings fingerprint %r, GPUBENCH_MAIN's %r" % (
                    label, fingerprint, twin_print))

    label = "run with a GB benchmark"
    path = os.path.join(out_dir, "mixed.json")
    result = run(binary, [], path, {"OWN_MAIN_PLAIN_GB_BENCHMARK": "1"})
    if result.returncode != 0:
        problems.append("%s: exit code %d:\n%s" % (label, result.returncode, result.stderr))
    if result.stderr.count(NOTE) != 1 or "BM_PlainCpu" not in result.stderr:
        problems.append("%s: stderr should say GB's rule once, naming BM_PlainCpu:\n%s" %
                        (label, result.stderr))
    report = read_report(path, label, problems)
    if report is not None:
        if report["context"].get("gpubench_stopping_rule") != "gb":
            problems.append("%s: gpubench_stopping_rule=%r, expected 'gb'" % (
                label, report["context"].get("gpubench_stopping_rule")))
        cpu = [row for row in report["benchmarks"] if row["name"] == "BM_PlainCpu"]
        # GB's own rule: a trivial loop runs far more than gpubench's count of 2 in 0.5 s.
        if not cpu or cpu[0].get("iterations", 0) <= 1000:
            problems.append("%s: BM_PlainCpu did not get GB's own count: %r" % (label, cpu))


def check_gb_rule(binary, out_dir, problems):
    path = os.path.join(out_dir, "plain.json")
    result = run(binary, [], path)
    if result.returncode != 0:
        problems.append("plain run: exit code %d, expected 0:\n%s" % (result.returncode,
                                                                        result.stderr))
    if result.stderr.count(NOTE) != 1:
        problems.append("plain run: stderr says %r %d times, expected once:\n%s" % (
            NOTE, result.stderr.count(NOTE), result.stderr))
    for text in ("gpubench::Main(argc, argv)", "before 1.8"):
        if text not in result.stderr:
            problems.append("plain run: stderr lacks %r:\n%s" % (text, result.stderr))
    report = read_report(path, "plain run", problems)
    if report is not None:
        context = report["context"]
        if context.get("gpubench_stopping_rule") != "gb":
            problems.append("plain run: gpubench_stopping_rule=%r, expected 'gb'" %
                            context.get("gpubench_stopping_rule"))
        if "a main of your own" not in context.get("gpubench_stopping_note", ""):
            problems.append("plain run: gpubench_stopping_note lacks the reason: %r" %
                            context.get("gpubench_stopping_note"))
        check_names(report, result, "plain run", problems)


def main():
    binary, out_dir, gb_version, twin = sys.argv[1:5]
    os.makedirs(out_dir, exist_ok=True)
    problems = []

    for name, args, expected in [
        ("bad gpubench flag", ["--gpubench_cache=cold"], ["cold", "flush", "keep"]),
        ("bad GB flag", ["--benchmark_filtr=Memset"], ["--benchmark_filtr"]),
    ]:
        path = os.path.join(out_dir, "bad.json")
        result = run(binary, args, path)
        if result.returncode != 2:
            problems.append("%s: exit code %d, expected 2" % (name, result.returncode))
        for text in expected:
            if text not in result.stderr:
                problems.append("%s: stderr lacks %r:\n%s" % (name, text, result.stderr))
        if os.path.exists(path):
            problems.append("%s: benchmarks ran (JSON written)" % name)

    global_counts = version_at_least(gb_version, "1.8")
    if global_counts:
        check_gpubench_rule(binary, twin, out_dir, problems)
    else:
        check_gb_rule(binary, out_dir, problems)

    result = run(binary, ["--benchmark_min_time=0.01"], os.path.join(out_dir, "min_time.json"))
    if result.returncode != 0:
        problems.append("min_time run: exit code %d" % result.returncode)
    if NOTE in result.stderr:
        problems.append("min_time run: the own-main note was printed, but GB's rule was asked for")

    for problem in problems:
        print("FAIL: " + problem)
    if problems:
        return 1
    print("OK: own main with GB %s: bad flags exit 2, %s, names unchanged" % (
        gb_version, "gpubench's rule (GB's rule beside a GB benchmark, said once)"
        if global_counts else "GB's rule kept and said once"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
