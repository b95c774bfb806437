"""gpubench results as tables: rows (the standard library) or pandas DataFrames.

Runs (Google Benchmark JSON written by a gpubench binary, shards and cut-off files included) are
read through ``gpubench-export --to csv``, so that the counter vocabulary, the units and the
recovery of a killed run's file are gpubench's own; a table that tool already wrote (``.csv``) is
read directly. Comparisons are gpubench-compare's reports, ``--format json`` or ``--format csv``;
change points are the reports of ``gpubench-compare --changes``, in the same two formats.

    import gpubench_results as gr
    rows = gr.read_run("run.json")          # list of dicts, one per (benchmark, row, counter)
    frame = gr.run_frame("run.json")        # the same as a pandas DataFrame
    verdicts = gr.comparison_frame("compare.json")
    changes = gr.changes_frame("changes.json")   # gpubench-compare --changes ... --format json
    changes[changes.practical]              # the changes beyond the practical threshold

Every run row has the columns of RUN_COLUMNS, every comparison row those of
COMPARISON_COLUMNS, every change row those of CHANGES_COLUMNS (docs/export.md "A table for
pandas", docs/compare.md "Output formats").

read_changes / changes_frame: one row per change (kind "step", "drift" or "gpu") and then one per
settings change (kind and direction "settings", benchmark and metric None, the numbers NaN,
practical False, end_run_index its first_run_index), as the CSV has them; first_run_index and
end_run_index are ints, median_before, median_after, change_percent, p_value and t_statistic
floats (NaN where the report has none), practical a bool, empty text None. The report-level
parts (runs, fingerprints, GPU spreads, notes, counts) are the JSON report's.
"""

import csv
import io
import json
import math
import os
import shutil
import subprocess
import warnings
from pathlib import Path

__all__ = [
    "RUN_COLUMNS",
    "COMPARISON_COLUMNS",
    "GpubenchResultsError",
    "read_run",
    "run_frame",
    "read_comparison",
    "comparison_frame",
    "CHANGES_COLUMNS",
    "read_changes",
    "changes_frame",
    "find_export_tool",
]

RUN_COLUMNS = (
    "benchmark", "family", "arguments", "gpu", "run_type", "repetition_index", "aggregate_name",
    "counter", "value", "value_text", "unit", "direction", "gated", "settings_fingerprint",
    "method_version", "recovered", "reuse",
)

COMPARISON_COLUMNS = (
    "benchmark", "status", "benchmark_verdict", "benchmark_worse", "benchmark_fails_gate",
    "baseline_repetitions", "contender_repetitions", "baseline_reused_repetitions",
    "contender_reused_repetitions", "throttled_baseline", "throttled_contender",
    "gpu_shared_baseline", "gpu_shared_contender", "failure_message", "benchmark_notes",
    "metric", "unit", "direction", "gated", "threshold_percent", "threshold_source", "floor",
    "noise_percent", "history_runs", "between_run_sd_percent", "statistical", "rule",
    "baseline_median", "baseline_values", "contender_median", "contender_values",
    "change_percent", "change", "p_value", "test", "verdict", "worse", "fails_gate", "notes",
)

# gpubench-compare --changes --format csv (kChangesCsvColumns,
# src/tools/compare/changes_report.cpp).
CHANGES_COLUMNS = (
    "benchmark", "metric", "kind", "first_run", "first_run_index", "commit", "end_run_index",
    "median_before", "median_after", "change_percent", "direction", "p_value", "t_statistic",
    "practical", "gpu_before", "gpu_after",
)

# How each column is typed; the rest are text ("" is None).
_RUN_INTEGERS = ("gpu", "repetition_index", "method_version")
_RUN_FLOATS = ("value",)
_RUN_BOOLS = ("gated", "recovered")
_COMPARISON_INTEGERS = ("baseline_repetitions", "contender_repetitions",
                        "baseline_reused_repetitions", "contender_reused_repetitions",
                        "history_runs")
_COMPARISON_FLOATS = ("threshold_percent", "floor", "noise_percent", "between_run_sd_percent",
                      "baseline_median", "contender_median", "change_percent", "p_value")
_COMPARISON_BOOLS = ("benchmark_worse", "benchmark_fails_gate", "throttled_baseline",
                     "throttled_contender", "gpu_shared_baseline", "gpu_shared_contender",
                     "gated", "statistical", "worse", "fails_gate")
_COMPARISON_LISTS = ("baseline_values", "contender_values")
_CHANGES_INTEGERS = ("first_run_index", "end_run_index")
_CHANGES_FLOATS = ("median_before", "median_after", "change_percent", "p_value", "t_statistic")
_CHANGES_BOOLS = ("practical",)
_COMPARISON_NOTES = ("benchmark_notes", "notes")


# The metric's columns of a benchmark without metrics (missing, new, failed): flags false and
# history_runs 0, as the CSV has them (pandas then keeps those columns bool and int), the rest
# None, the lists empty.
def _no_metric():
    columns = {key: None for key in COMPARISON_COLUMNS[COMPARISON_COLUMNS.index("metric"):]}
    columns.update({key: False for key in ("gated", "statistical", "worse", "fails_gate")})
    columns.update({"history_runs": 0, "baseline_values": [], "contender_values": [],
                    "notes": []})
    return columns


class GpubenchResultsError(Exception):
    """A file that cannot be read as what was asked for; the message says what was wrong."""


def find_export_tool(export_tool=None):
    """The gpubench-export to run: the argument, $GPUBENCH_EXPORT, the one installed beside this
    module (PREFIX/bin when the module is in PREFIX/lib/pythonX.Y/...), or the one on PATH."""
    candidates = [export_tool, os.environ.get("GPUBENCH_EXPORT")]
    here = Path(__file__).resolve()
    candidates += [str(parent / "bin" / "gpubench-export") for parent in here.parents[:4]]
    for candidate in candidates:
        if candidate and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    on_path = shutil.which("gpubench-export")
    if on_path:
        return on_path
    raise GpubenchResultsError(
        "gpubench-export was not found (not given, not in $GPUBENCH_EXPORT, not installed beside "
        f"{here}, not on PATH); pass export_tool=, or read a table that "
        "'gpubench-export RUN.json --to csv -o RUN.csv' wrote")


def _read_text(path):
    # newline="": a quoted field may hold a line break, which csv must see as it is.
    with open(path, encoding="utf-8", newline="") as file:
        return file.read()


def _typed(row, integers, floats, bools):
    for key, text in row.items():
        if key in integers:
            row[key] = int(text) if text != "" else None
        elif key in floats:
            row[key] = float(text) if text != "" else None
        elif key in bools:
            if text not in ("true", "false", ""):
                raise GpubenchResultsError(f"column {key} holds {text!r}; expected true or false")
            row[key] = None if text == "" else text == "true"
        elif text == "":
            row[key] = None
    return row


def _read_table(text, source, columns):
    reader = csv.DictReader(io.StringIO(text, newline=""))
    header = tuple(reader.fieldnames or ())
    if header != columns:
        raise GpubenchResultsError(
            f"{source}: the header is {', '.join(header) or 'missing'}; expected the columns "
            f"{', '.join(columns)} (a table of this gpubench version's tools)")
    return list(reader)


# gpubench-export's exit code for a run without a value (every benchmark an error or skipped).
_EXIT_NOTHING_EXPORTED = 4


def _run_csv_text(path, export_tool):
    if str(path).endswith(".csv"):
        return _read_text(path)
    paths = [str(p) for p in path] if isinstance(path, (list, tuple)) else [str(path)]
    tool = find_export_tool(export_tool)
    done = subprocess.run([tool, *paths, "--to", "csv"], capture_output=True, check=False)
    stderr = done.stderr.decode("utf-8", "replace")
    if done.returncode == _EXIT_NOTHING_EXPORTED:
        raise GpubenchResultsError(
            f"{', '.join(paths)} holds no result (gpubench-export exit 4): " + stderr.strip())
    if done.returncode != 0:
        raise GpubenchResultsError(
            f"gpubench-export could not read {', '.join(paths)} (exit {done.returncode}): "
            + stderr.strip())
    for line in stderr.splitlines():
        if line.strip():
            warnings.warn(line, stacklevel=3)
    return done.stdout.decode("utf-8")


def read_run(path, export_tool=None):
    """The run's table as a list of dicts, one per (benchmark, repetition or aggregate, counter).

    `path`: a gpubench / GB JSON file, a list of the shards of one run, or a .csv written by
    gpubench-export --to csv. value is a float (ns for real_time and cpu_time, NaN where GB
    wrote NaN), or None for a counter whose values are codes (unit "reason", "reasons", "reuse",
    "signature" or "unix s": stop_reason, clock_event_reasons, reuse_status, work_signature,
    measured_at), which value_text holds in words ("precision", "sw_power_cap|hw_slowdown",
    "none", "reused"), in hex ("00c0ffee1234") or as a UTC date ("2026-12-06T23:32:15Z"); such
    counters have no aggregate rows. reuse is the row's repetition's reuse_status by name
    ("reused": the values are an earlier run's, not measured in this run), None without it. gpu,
    repetition_index and method_version are ints or None, gated and recovered bools, empty text
    None. gpubench-export's warnings (a cut-off file, benchmarks that failed)
    become Python warnings; rows of a cut-off file have recovered=True. A run without any result
    (every benchmark an error or skipped, e.g. on a machine without a working GPU) raises
    GpubenchResultsError with gpubench-export's reason.
    """
    text = _run_csv_text(path, export_tool)
    rows = _read_table(text, path, RUN_COLUMNS)
    return [_typed(row, _RUN_INTEGERS, _RUN_FLOATS, _RUN_BOOLS) for row in rows]


def _values(text):
    return [float(v) for v in text.split(";")] if text else []


def _number(value):
    # The JSON report writes null for what is not finite; the table's NaN says the same.
    return math.nan if value is None else float(value)


def _comparison_rows_from_json(report, source):
    if _changes_report_keys(report):
        raise GpubenchResultsError(
            f"{source} is a gpubench-compare --changes report, not a comparison (read it with "
            "read_changes)")
    if report.get("tool") != "gpubench-compare" or "benchmarks" not in report:
        raise GpubenchResultsError(
            f"{source} is not a gpubench-compare report (gpubench-compare ... --format json)")
    rows = []
    for benchmark in report["benchmarks"]:
        head = {
            "benchmark": benchmark["name"],
            "status": benchmark["status"],
            "benchmark_verdict": benchmark.get("verdict"),
            "benchmark_worse": benchmark["worse"],
            "benchmark_fails_gate": benchmark["fails_gate"],
            "baseline_repetitions": benchmark["repetitions"]["baseline"],
            "contender_repetitions": benchmark["repetitions"]["contender"],
            # Reports of a gpubench-compare from before reuse have no such counts: none reused.
            "baseline_reused_repetitions":
                benchmark.get("reused_repetitions", {}).get("baseline", 0),
            "contender_reused_repetitions":
                benchmark.get("reused_repetitions", {}).get("contender", 0),
            "throttled_baseline": benchmark["throttled"]["baseline"],
            "throttled_contender": benchmark["throttled"]["contender"],
            "gpu_shared_baseline": benchmark["gpu_shared"]["baseline"],
            "gpu_shared_contender": benchmark["gpu_shared"]["contender"],
            "failure_message": benchmark.get("failure_message") or None,
            "benchmark_notes": list(benchmark.get("notes", [])),
        }
        metrics = benchmark.get("metrics", [])
        if not metrics:
            rows.append({**head, **_no_metric()})
        for metric in metrics:
            row = dict(head)
            row.update({
                "metric": metric["name"],
                "unit": metric["unit"] or None,
                "direction": metric["direction"],
                "gated": metric["gated"],
                "threshold_percent": metric["threshold_percent"],
                "threshold_source": metric["threshold_source"] or None,
                "floor": _number(metric["floor"]),
                "noise_percent": _number(metric["noise_percent"]),
                "history_runs": metric["history_runs"],
                "between_run_sd_percent": _number(metric["between_run_sd_percent"]),
                "statistical": metric["statistical"],
                "rule": metric["rule"] or None,
                "baseline_median": _number(metric["baseline"]["median"]),
                "baseline_values": [_number(v) for v in metric["baseline"]["values"]],
                "contender_median": _number(metric["contender"]["median"]),
                "contender_values": [_number(v) for v in metric["contender"]["values"]],
                "change_percent": _number(metric["change_percent"]),
                "change": metric["change"],
                "p_value": metric["p_value"],
                "test": metric["test"],
                "verdict": metric["verdict"],
                "worse": metric["worse"],
                "fails_gate": metric["fails_gate"],
                "notes": list(metric.get("notes", [])),
            })
            rows.append(row)
    return rows


def read_comparison(path):
    """gpubench-compare's report as a list of dicts, one per (benchmark, metric); a benchmark
    without metrics (missing, new, failed) is one row with the metric's columns None.

    `path`: the report of --format json or --format csv. The lists (baseline_values,
    contender_values, notes, benchmark_notes) are Python lists; numbers are floats (NaN where the
    JSON report has null for a value that is not finite, or the CSV NaN or inf), counts ints.
    """
    text = _read_text(path)
    if text.split("\n", 1)[0].rstrip("\r") == ",".join(CHANGES_COLUMNS):
        raise GpubenchResultsError(
            f"{path} is gpubench-compare --changes's table, not a comparison (read it with "
            "read_changes)")
    if str(path).endswith(".csv"):
        rows = _read_table(text, path, COMPARISON_COLUMNS)
        for row in rows:
            for key in _COMPARISON_LISTS:
                row[key] = _values(row[key])
            for key in _COMPARISON_NOTES:
                row[key] = row[key].split("\n") if row[key] else []
            _typed(row, _COMPARISON_INTEGERS, _COMPARISON_FLOATS, _COMPARISON_BOOLS)
            if row["metric"] is None:  # a benchmark without metrics
                row.update(_no_metric())
        return rows
    try:
        report = json.loads(text)
    except ValueError as error:
        raise GpubenchResultsError(f"{path} is neither a .csv table nor JSON: {error}") from None
    return _comparison_rows_from_json(report, path)


def _changes_report_keys(report):
    return isinstance(report, dict) and isinstance(report.get("changes"), list) and isinstance(
        report.get("runs"), list) and "series_tested" in report


def _what_json_is(report):
    """A hint for JSON that is not a --changes report: what it looks like instead."""
    if isinstance(report, dict) and report.get("tool") == "gpubench-compare":
        return "; it is a comparison report (read it with read_comparison)"
    if isinstance(report, dict) and isinstance(report.get("benchmarks"), list):
        return "; it looks like a benchmark run (read it with read_run)"
    return ""


def _index(text, key, source):
    # The CSV writes the run indices as numbers ("12"); a float's shortest form may be "1e+05".
    try:
        return int(text)
    except ValueError:
        pass
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not value.is_integer():
        raise GpubenchResultsError(f"{source}: column {key} holds {text!r}; expected a run index")
    return int(value)


def _changes_rows_from_csv(text, source):
    rows = _read_table(text, source, CHANGES_COLUMNS)
    for row in rows:
        for key in _CHANGES_INTEGERS:
            row[key] = _index(row[key], key, source)
        for key in _CHANGES_FLOATS:
            try:
                row[key] = float(row[key]) if row[key] != "" else math.nan
            except ValueError:
                raise GpubenchResultsError(
                    f"{source}: column {key} holds {row[key]!r}; expected a number") from None
        _typed(row, (), (), _CHANGES_BOOLS)
    return rows


def _text(value):
    return value if value not in (None, "") else None


def _changes_rows_from_json(report, source):
    rows = []
    try:
        for change in report["changes"]:
            rows.append({
                "benchmark": change["benchmark"],
                "metric": change["metric"],
                "kind": change["kind"],
                "first_run": change["first_run"],
                "first_run_index": int(change["first_run_index"]),
                "commit": _text(change.get("commit")),
                "end_run_index": int(change["end_run_index"]),
                "median_before": _number(change["median_before"]),
                "median_after": _number(change["median_after"]),
                "change_percent": _number(change["change_percent"]),
                "direction": change["direction"],
                "p_value": _number(change["p_value"]),
                "t_statistic": _number(change["t_statistic"]),
                "practical": bool(change["practical"]),
                "gpu_before": _text(change.get("gpu_before")),
                "gpu_after": _text(change.get("gpu_after")),
            })
        for change in report.get("settings_changes", []):
            index = int(change["first_run_index"])
            rows.append({
                "benchmark": None, "metric": None, "kind": "settings",
                "first_run": change["first_run"], "first_run_index": index,
                "commit": _text(change.get("commit")), "end_run_index": index,
                "median_before": math.nan, "median_after": math.nan, "change_percent": math.nan,
                "direction": "settings", "p_value": math.nan, "t_statistic": math.nan,
                "practical": False, "gpu_before": None, "gpu_after": None,
            })
    except (KeyError, TypeError, ValueError) as error:
        raise GpubenchResultsError(
            f"{source}: a change of the --changes report lacks or mistypes {error} (a report of "
            "this gpubench version's gpubench-compare --changes)") from None
    return rows


def read_changes(path):
    """gpubench-compare --changes's report as a list of dicts, one per change and then one per
    settings change, with the columns of CHANGES_COLUMNS (the module's docstring says how each is
    typed).

    `path`: the report of ``--changes ... --format json`` or ``--format csv`` (a file whose first
    line is the CSV's header is read as CSV whatever its name). Anything else raises
    GpubenchResultsError saying what the file is instead, where it can tell (a comparison report,
    a benchmark run, console or markdown text).
    """
    text = _read_text(path)
    first_line = text.split("\n", 1)[0].rstrip("\r")
    if first_line == ",".join(CHANGES_COLUMNS) or str(path).endswith(".csv"):
        if first_line == ",".join(COMPARISON_COLUMNS):
            raise GpubenchResultsError(
                f"{path} is gpubench-compare's comparison table, not a --changes report (read it "
                "with read_comparison)")
        return _changes_rows_from_csv(text, path)
    try:
        report = json.loads(text)
    except ValueError as error:
        header = ",".join(CHANGES_COLUMNS[:3])
        raise GpubenchResultsError(
            f"{path} is neither a --changes report's CSV table (header {header},...) nor JSON "
            f"({error}); write one with gpubench-compare --changes ... --format json or "
            "--format csv") from None
    if not _changes_report_keys(report):
        raise GpubenchResultsError(
            f"{path} is not a gpubench-compare --changes report (no changes, runs and "
            f"series_tested){_what_json_is(report)}")
    return _changes_rows_from_json(report, path)


def _pandas():
    try:
        import pandas
    except ImportError:
        raise GpubenchResultsError(
            "this needs pandas (Debian: apt-get install python3-pandas; pip install pandas); "
            "read_run, read_comparison and read_changes give the same rows without it") from None
    return pandas


def run_frame(path, export_tool=None):
    """read_run's rows as a pandas DataFrame: gpu, repetition_index and method_version are
    nullable integers (Int64), value float64 (NaN on the rows of codes), gated and recovered bool,
    the text columns strings (value_text the codes' names, None elsewhere)."""
    pandas = _pandas()
    frame = pandas.DataFrame(read_run(path, export_tool), columns=list(RUN_COLUMNS))
    for key in _RUN_INTEGERS:
        frame[key] = frame[key].astype("Int64")
    frame["value"] = frame["value"].astype("float64")
    for key in _RUN_BOOLS:
        frame[key] = frame[key].astype(bool)
    return frame


def comparison_frame(path):
    """read_comparison's rows as a pandas DataFrame (the lists stay Python lists)."""
    pandas = _pandas()
    frame = pandas.DataFrame(read_comparison(path), columns=list(COMPARISON_COLUMNS))
    for key in _COMPARISON_INTEGERS:
        frame[key] = frame[key].astype("Int64")
    for key in _COMPARISON_FLOATS:
        frame[key] = frame[key].astype("float64")
    return frame


def changes_frame(path):
    """read_changes's rows as a pandas DataFrame: first_run_index and end_run_index int64,
    median_before, median_after, change_percent, p_value and t_statistic float64 (NaN where the
    report has none), practical bool, the rest strings or None."""
    pandas = _pandas()
    frame = pandas.DataFrame(read_changes(path), columns=list(CHANGES_COLUMNS))
    for key in _CHANGES_INTEGERS:
        frame[key] = frame[key].astype("int64")
    for key in _CHANGES_FLOATS:
        frame[key] = frame[key].astype("float64")
    for key in _CHANGES_BOOLS:
        frame[key] = frame[key].astype(bool)
    return frame
