#!/usr/bin/env python3
"""gpubench-export on the committed H200 JSON: the shape of both dashboard formats.

github-action-benchmark's custom format: a JSON array of {name, unit, value, range, extra} as its
zod schema reads it (name and unit strings, value a number, range and extra optional strings; the
range in the "± N" form its extractRangeInfo parses), one file per direction, values the
medians of the repetitions, never an aggregate row. Bencher Metric Format: benchmark names of 1 to
1024 bytes, measure keys that are valid Bencher slugs (what Bencher's slugify leaves unchanged,
at most 64 characters), {value, lower_value, upper_value} with lower <= value <= upper. Also: the
default counters, --counters, --list-measures, codes refused, the exit codes of bad input (2,
with gpubench-compare's message) and mixed settings fingerprints (3), and a file cut off
mid-write (its complete rows exported, exit 0, a warning).

usage: check_export.py GPUBENCH_EXPORT GPUBENCH_COMPARE DATA_DIR WORK_DIR
"""
import json
import math
import os
import re
import statistics
import shutil
import subprocess
import sys

FAILURES = []


def check(condition, message):
    if not condition:
        FAILURES.append(message)
    return condition


def run(command, **kwargs):
    return subprocess.run(command, capture_output=True, text=True, timeout=120, **kwargs)


def iteration_values(gb_json):
    """{benchmark: {metric: [per-repetition values]}} from GB's iteration rows, in ns for times."""
    scale = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}
    result = {}
    for row in gb_json["benchmarks"]:
        if row.get("run_type") != "iteration" or row.get("error_occurred") or row.get("skipped"):
            continue
        metrics = result.setdefault(row["run_name"], {})
        for key, value in row.items():
            if key in ("family_index", "per_family_instance_index", "repetitions",
                       "repetition_index", "threads", "iterations"):
                continue
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                if key in ("real_time", "cpu_time"):
                    value = value * scale[row["time_unit"]]
                metrics.setdefault(key, []).append(float(value))
    return result


def close(a, b):
    return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-9)


def is_bencher_slug(text):
    # Bencher: is_valid_len(slug) && slug == slugify(slug); slugify keeps [a-z0-9] and turns each
    # run of anything else into one '-', trimming '-' at both ends.
    return 0 < len(text) <= 64 and re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", text) is not None


DEFAULTS = ["real_time", "dram_read_bytes", "dram_write_bytes", "bytes_moved", "dram_bandwidth"]
HIGHER = {"dram_bandwidth", "dram_bandwidth_pct", "sm_clock_mhz", "profiled_sm_clock_mhz",
          "bytes_per_second", "items_per_second"}


def check_github_action_benchmark(exe, data_dir, work_dir, name):
    source = os.path.join(data_dir, name + ".json")
    with open(source) as handle:
        gb_json = json.load(handle)
    values = iteration_values(gb_json)
    prefix = os.path.join(work_dir, name)
    result = run([exe, source, "--to", "github-action-benchmark", "-o", prefix])
    if not check(result.returncode == 0, "%s: exit %d: %s" % (name, result.returncode,
                                                              result.stderr)):
        return
    seen = set()
    for tool, higher in (("customSmallerIsBetter", False), ("customBiggerIsBetter", True)):
        path = prefix + "." + tool + ".json"
        with open(path) as handle:
            entries = json.load(handle)
        check(isinstance(entries, list) and entries, "%s: not a non-empty array" % path)
        for entry in entries:
            check(set(entry) <= {"name", "unit", "value", "range", "extra"} and
                  {"name", "unit", "value"} <= set(entry), "%s: keys %s" % (path, sorted(entry)))
            check(isinstance(entry["name"], str) and isinstance(entry["unit"], str),
                  "%s: name/unit not strings" % path)
            check(isinstance(entry["value"], (int, float)), "%s: value not a number" % path)
            benchmark, _, metric = entry["name"].rpartition(" - ")
            check(entry["name"] not in seen, "duplicate series %s" % entry["name"])
            seen.add(entry["name"])
            check(not re.search(r"_(mean|median|stddev|cv)$", benchmark),
                  "aggregate row exported: %s" % entry["name"])
            check(metric in DEFAULTS, "%s: not a default counter" % entry["name"])
            check((metric in HIGHER) == higher, "%s in the wrong direction file" % entry["name"])
            reps = values.get(benchmark, {}).get(metric)
            if not check(reps, "%s: no such benchmark/metric in %s" % (entry["name"], source)):
                continue
            check(close(entry["value"], statistics.median(reps)),
                  "%s: value %r is not the median %r" % (entry["name"], entry["value"],
                                                        statistics.median(reps)))
            check(entry["unit"] == ("ns" if metric == "real_time" else
                                    "bytes/s" if metric == "dram_bandwidth" else "bytes"),
                  "%s: unit %s" % (entry["name"], entry["unit"]))
            match = re.match(r"(\+-|±)\s*(\d.*)", entry.get("range", ""))
            if check(match, "%s: range %r not in extractRangeInfo's form" %
                     (entry["name"], entry.get("range"))):
                check(math.isclose(float(match.group(2)), statistics.stdev(reps), rel_tol=1e-5,
                                   abs_tol=1e-6), "%s: range is not the stddev" % entry["name"])
            extra = entry.get("extra", "")
            for needle in ("gpu: NVIDIA H200", "sm_clock: ", "rated 1980 MHz", "repetitions: ",
                           "settings_fingerprint: " +
                           gb_json["context"]["gpubench_settings_fingerprint"]):
                check(needle in extra, "%s: extra lacks %r" % (entry["name"], needle))
    expected = {b + " - " + m for b, metrics in values.items() for m in DEFAULTS if m in metrics}
    check(seen == expected, "%s: series %s missing, %s unexpected" %
          (name, sorted(expected - seen), sorted(seen - expected)))
    print("OK: github-action-benchmark export of %s: %d series" % (name, len(seen)))


def check_bencher(exe, data_dir, work_dir, name):
    source = os.path.join(data_dir, name + ".json")
    with open(source) as handle:
        values = iteration_values(json.load(handle))
    path = os.path.join(work_dir, name + ".bmf.json")
    result = run([exe, source, "--to", "bencher", "-o", path])
    if not check(result.returncode == 0, "%s: exit %d: %s" % (name, result.returncode,
                                                              result.stderr)):
        return
    with open(path) as handle:
        bmf = json.load(handle)
    stdout = run([exe, source, "--to", "bencher"]).stdout
    check(json.loads(stdout) == bmf, "bencher: stdout differs from -o")
    slugs = {"real_time": "latency"}
    for metric in DEFAULTS[1:]:
        slugs[metric] = metric.replace("_", "-")
    check(set(bmf) == set(values), "bencher: benchmarks %s vs %s" % (sorted(bmf), sorted(values)))
    for benchmark, measures in bmf.items():
        check(0 < len(benchmark.encode()) <= 1024, "bencher: name length %s" % benchmark)
        expected = {slugs[m] for m in DEFAULTS if m in values.get(benchmark, {})}
        check(set(measures) == expected, "bencher: %s measures %s, expected %s" %
              (benchmark, sorted(measures), sorted(expected)))
        for metric in DEFAULTS:
            if slugs[metric] not in measures:
                continue
            slug, entry = slugs[metric], measures[slugs[metric]]
            check(is_bencher_slug(slug), "bencher: %s is not a slug" % slug)
            check(set(entry) == {"value", "lower_value", "upper_value"},
                  "bencher: %s/%s keys %s" % (benchmark, slug, sorted(entry)))
            reps = values[benchmark][metric]
            check(close(entry["value"], statistics.median(reps)) and
                  close(entry["lower_value"], min(reps)) and close(entry["upper_value"], max(reps)),
                  "bencher: %s/%s is not median/min/max" % (benchmark, slug))
            check(entry["lower_value"] <= entry["value"] <= entry["upper_value"],
                  "bencher: %s/%s bounds out of order" % (benchmark, slug))
    print("OK: Bencher export of %s: %d benchmarks" % (name, len(bmf)))


def check_shared_flag(exe, data_dir, work_dir):
    """A run marked gpu_shared carries the flag into the dashboard's extra text."""
    with open(os.path.join(data_dir, "gate_a1.json")) as handle:
        gb_json = json.load(handle)
    for row in gb_json["benchmarks"]:
        if row["run_name"].startswith("Gate_Fma") and row.get("run_type") == "iteration":
            row["gpu_shared"] = 1.0 if row.get("repetition_index") in (0, 1) else 0.0
    source = os.path.join(work_dir, "shared.json")
    with open(source, "w") as handle:
        json.dump(gb_json, handle)
    prefix = os.path.join(work_dir, "shared")
    result = run([exe, source, "--to", "github-action-benchmark", "-o", prefix])
    if not check(result.returncode == 0, "shared: exit %d: %s" % (result.returncode,
                                                                  result.stderr)):
        return
    with open(prefix + ".customSmallerIsBetter.json") as handle:
        entries = json.load(handle)
    fma = [e for e in entries if e["name"].startswith("Gate_Fma/")]
    other = [e for e in entries if not e["name"].startswith("Gate_Fma/")]
    check(fma and all("gpu_shared: another process used the GPU in 2 of 10 repetitions"
                      in e.get("extra", "") for e in fma), "shared: Gate_Fma extra lacks the flag")
    check(all("gpu_shared" not in e.get("extra", "") for e in other),
          "shared: the flag leaked into other benchmarks")


def check_options_and_errors(exe, compare, data_dir, work_dir):
    source = os.path.join(data_dir, "examples_a1.json")
    # --counters picks others (and takes "time" for real_time).
    path = os.path.join(work_dir, "picked.bmf.json")
    result = run([exe, source, "--to", "bencher", "--counters", "time,sm_clock_mhz,cpu_time",
                  "-o", path])
    if check(result.returncode == 0, "--counters: exit %d %s" % (result.returncode, result.stderr)):
        with open(path) as handle:
            for benchmark, measures in json.load(handle).items():
                check(set(measures) == {"latency", "sm-clock-mhz", "cpu-time"},
                      "--counters: %s has %s" % (benchmark, sorted(measures)))
    prefix = os.path.join(work_dir, "picked")
    result = run([exe, source, "--to", "github-action-benchmark", "--counters", "sm_clock_mhz",
                  "-o", prefix])
    check(result.returncode == 0 and os.path.exists(prefix + ".customBiggerIsBetter.json") and
          not os.path.exists(prefix + ".customSmallerIsBetter.json"),
          "--counters sm_clock_mhz: only the bigger-is-better file: %s" % result.stdout)
    # A counter without a direction cannot go to github-action-benchmark.
    result = run([exe, source, "--to", "github-action-benchmark", "--counters",
                  "sm_clock_rated_mhz", "-o", prefix])
    check(result.returncode == 2 and "--direction" in result.stderr,
          "no direction: exit %d %s" % (result.returncode, result.stderr))
    result = run([exe, source, "--to", "bencher", "--counters", "no_such_counter"])
    check(result.returncode == 2 and "no_such_counter" in result.stderr,
          "unknown counter: exit %d %s" % (result.returncode, result.stderr))
    # --list-measures: name, slug and units of every measure.
    result = run([exe, "--list-measures"])
    check(result.returncode == 0 and re.search(r"dram_bandwidth\s+dram_bandwidth\s+dram-bandwidth"
                                               r"\s+bytes / second \(B/s\)", result.stdout) and
          re.search(r"real_time\s+Latency \(built in\)\s+latency\s+nanoseconds \(ns\)",
                    result.stdout), "--list-measures:\n" + result.stdout)
    # Codes (stop_reason, clock_event_reasons) name something; their median names nothing: no
    # dashboard gets them, and no list offers them.
    coded = os.path.join(data_dir, "history_gate_v4", "run_01.json")
    check("reason" not in result.stdout + run([exe, "--list-measures", coded]).stdout,
          "--list-measures offers a code")
    # -o takes the table as it takes any export, and an input is no output.
    listed = os.path.join(work_dir, "measures.txt")
    to_file = run([exe, "--list-measures", "-o", listed])
    check(to_file.returncode == 0 and to_file.stdout == "" and os.path.exists(listed) and
          open(listed).read() == result.stdout,
          "--list-measures -o: exit %d, stdout %r" % (to_file.returncode, to_file.stdout[:80]))
    copied = os.path.join(work_dir, "coded_copy.json")
    shutil.copyfile(coded, copied)
    over_input = run([exe, "--list-measures", copied, "-o", copied])
    check(over_input.returncode == 2 and "--output" in over_input.stderr,
          "--list-measures -o INPUT: exit %d %s" % (over_input.returncode, over_input.stderr))
    for form in ("bencher", "github-action-benchmark"):
        result = run([exe, coded, "--to", form, "--counters", "time,stop_reason", "-o",
                      os.path.join(work_dir, "codes")])
        check(result.returncode == 2 and "stop_reason (unit reason) is a code" in result.stderr,
              "%s with stop_reason: exit %d %s" % (form, result.returncode, result.stderr))
    # Bad input: exit 2 with the loader's message, as gpubench-compare prints it.
    bad_inputs = {
        "missing.json": None,
        "not_json.json": "BM_Copy/1   1.2 ns   1.2 ns   100\n",
        "not_gb.json": '{"context": {}, "rows": []}',
        "malformed.json": '{"benchmarks": [ {"name": "a", "real_time": 1,',
    }
    for file_name, text in bad_inputs.items():
        bad = os.path.join(work_dir, file_name)
        if text is not None:
            with open(bad, "w") as handle:
                handle.write(text)
        exported = run([exe, bad, "--to", "bencher"])
        compared = run([compare, bad, source])
        message = compared.stderr.replace("gpubench-compare: ", "").strip()
        check(exported.returncode == 2 and compared.returncode == 2 and message and
              exported.stderr.replace("gpubench-export: ", "").strip() == message,
              "%s: export exit %d %r, compare %r" % (file_name, exported.returncode,
                                                    exported.stderr, compared.stderr))
    # Files of one run given together must share their settings fingerprint.
    with open(source) as handle:
        other = json.load(handle)
    other["context"]["gpubench_cache"] = "keep"
    other["context"]["gpubench_settings_fingerprint"] = "0123456789abcdef"
    for row in other["benchmarks"]:
        row["name"] = "Other" + row["name"]
        row["run_name"] = "Other" + row["run_name"]
    mixed = os.path.join(work_dir, "other_settings.json")
    with open(mixed, "w") as handle:
        json.dump(other, handle)
    result = run([exe, source, mixed, "--to", "bencher"])
    check(result.returncode == 3 and "gpubench_cache" in result.stderr and
          '"flush"' in result.stderr and '"keep"' in result.stderr,
          "mixed fingerprints: exit %d %s" % (result.returncode, result.stderr))
    # Shards with the same settings merge.
    other["context"]["gpubench_cache"] = "flush"
    other["context"]["gpubench_settings_fingerprint"] = "b4318ba04f6a40f1"
    with open(mixed, "w") as handle:
        json.dump(other, handle)
    result = run([exe, source, mixed, "--to", "bencher"])
    if check(result.returncode == 0, "shards: exit %d %s" % (result.returncode, result.stderr)):
        check(len(json.loads(result.stdout)) == 16, "shards: not 16 benchmarks")
    result = run([exe, source, source, "--to", "bencher"])
    check(result.returncode == 2 and "also in an earlier input file" in result.stderr,
          "same file twice: exit %d %s" % (result.returncode, result.stderr))
    print("OK: options, bad input and settings checks")


def check_cut_off(exe, data_dir, work_dir):
    """A file cut off mid-write (a killed run) exports the benchmarks of its complete rows, exit 0,
    with a warning; the values are the medians of those rows of the uncut file."""
    cut = os.path.join(data_dir, "cutoff", "gate_a1_cut_35000.json")  # gate_a1.json's first 32 rows
    with open(os.path.join(data_dir, "gate_a1.json")) as handle:
        uncut = json.load(handle)
    values = iteration_values({"benchmarks": uncut["benchmarks"][:32]})
    result = run([exe, cut, "--to", "bencher"])
    if not check(result.returncode == 0, "cut off: exit %d %s" % (result.returncode,
                                                                  result.stderr)):
        return
    check("gpubench-export: warning: " + cut + " was cut off mid-write" in result.stderr and
          "32 complete benchmark row(s) of 3 benchmark(s)" in result.stderr,
          "cut off: no warning: %s" % result.stderr)
    bmf = json.loads(result.stdout)
    check(set(bmf) == set(values), "cut off: benchmarks %s, expected %s" % (sorted(bmf),
                                                                           sorted(values)))
    for benchmark, measures in bmf.items():
        reps = values[benchmark]["real_time"]
        check(close(measures["latency"]["value"], statistics.median(reps)),
              "cut off: %s latency is not the median of its complete rows" % benchmark)
    result = run([exe, os.path.join(data_dir, "cutoff", "gate_a1_cut_1200.json"), "--to",
                  "bencher"])
    check(result.returncode == 2 and "before any benchmark finished" in result.stderr,
          "cut in the context: exit %d %s" % (result.returncode, result.stderr))
    print("OK: a cut-off file exports its complete rows")


def main():
    exe, compare, data_dir, work_dir = sys.argv[1:5]
    os.makedirs(work_dir, exist_ok=True)
    for name in ("examples_a1", "gate_a1", "gate_inject_bytes"):
        check_github_action_benchmark(exe, data_dir, work_dir, name)
        check_bencher(exe, data_dir, work_dir, name)
    check_options_and_errors(exe, compare, data_dir, work_dir)
    check_shared_flag(exe, data_dir, work_dir)
    check_cut_off(exe, data_dir, work_dir)
    for failure in FAILURES:
        print("FAIL: " + failure)
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
