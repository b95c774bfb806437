"""python/gpubench_results.py, gpubench-export --to csv and gpubench-compare --format csv on the
committed H200 files: every value of the JSON in the table, units and directions from the
vocabulary, codes (stop_reason, clock_event_reasons) in words and never aggregated, a cut-off
file, shards, hostile benchmark names, pandas.read_csv without options, the two comparison
formats agreeing, gpubench-compare --changes on a real H200 series read back from both formats
(read_changes, changes_frame), and the user guide's worked example rendered as a plot.

Environment: GPUBENCH_EXPORT and GPUBENCH_COMPARE (the tools), GPUBENCH_DATA (tests/data/
h200), GPUBENCH_WORK (a scratch folder, kept for the plot), PYTHONPATH with python/.
"""
import csv
import io
import json
import math
import os
import shutil
import subprocess
import sys
import unittest
import warnings
from pathlib import Path

import gpubench_results as gr

EXPORT = os.environ["GPUBENCH_EXPORT"]
COMPARE = os.environ["GPUBENCH_COMPARE"]
DATA = Path(os.environ["GPUBENCH_DATA"])
WORK = Path(os.environ["GPUBENCH_WORK"])

try:
    import pandas
except ImportError:  # Debian: python3-pandas (CI installs it)
    pandas = None


def skip_without(test, module, package):
    """Skips `test` for a missing optional module; under CI=true (.ci/run installs `package`) a
    missing one fails it instead: a test that CI skips is not a passing test."""
    message = f"{module} is not installed (Debian: {package})"
    if os.environ.get("CI") == "true":
        test.fail(message + "; .ci/run installs it, so CI must have it (is CMake's python3 "
                  "Debian's /usr/bin/python3?)")
    test.skipTest(message)

SCALE = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}
# The codes of stop_reason and the bits of clock_event_reasons, written out here from
# include/gpubench/counters.hpp (kStopReasons, kClockEventReasons) rather than taken from the tool.
STOP_REASONS = {1: "precision", 2: "max_seconds", 3: "minimum", 4: "min_time", 5: "iterations",
                6: "repetition"}
CLOCK_EVENT_BITS = {0x1: "gpu_idle", 0x2: "applications_clocks_setting", 0x4: "sw_power_cap",
                    0x8: "hw_slowdown", 0x10: "sync_boost", 0x20: "sw_thermal_slowdown",
                    0x40: "hw_thermal_slowdown", 0x80: "hw_power_brake_slowdown",
                    0x100: "display_clock_setting"}


def code_in_words(counter, value):
    if counter == "stop_reason":
        return STOP_REASONS[int(value)]
    names = [name for bit, name in sorted(CLOCK_EVENT_BITS.items()) if int(value) & bit]
    return "|".join(names) or "none"


CODE_COUNTERS = {"stop_reason", "clock_event_reasons"}
NOT_COUNTERS = {"name", "family_index", "per_family_instance_index", "run_name", "run_type",
                "repetitions", "repetition_index", "threads", "iterations", "time_unit",
                "aggregate_name", "aggregate_unit", "label", "error_occurred", "error_message",
                "skipped", "skip_message"}


def json_rows(path):
    """{(benchmark, run_type, repetition_index or aggregate_name, counter): value} of a GB file."""
    text = Path(path).read_text()
    document = json.loads(text)
    values = {}
    for row in document["benchmarks"]:
        if row.get("error_occurred") or row.get("skipped"):
            continue
        aggregate = row.get("run_type") == "aggregate"
        ratio = row.get("aggregate_unit") == "percentage"
        where = row.get("aggregate_name") if aggregate else row.get("repetition_index", 0)
        for key, value in row.items():
            if key in NOT_COUNTERS or not isinstance(value, (int, float)):
                continue
            if key in ("real_time", "cpu_time") and not ratio:
                value = value * SCALE[row["time_unit"]]
            values[(row["run_name"], row["run_type"], where, key)] = float(value)
    return document, values


def table_rows(rows):
    return {(r["benchmark"], r["run_type"],
             r["aggregate_name"] if r["run_type"] == "aggregate" else r["repetition_index"],
             r["counter"]): r for r in rows}


def same(a, b):
    if a is None or b is None:
        return a is b
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b or abs(a - b) <= 1e-12 * max(abs(a), abs(b))


class RunTable(unittest.TestCase):
    def test_every_value_of_a_real_run_is_in_the_table_once_with_its_unit(self):
        path = DATA / "cost" / "gpubench_copy_2^20_10.json"
        document, expected = json_rows(path)
        rows = gr.read_run(path, export_tool=EXPORT)
        # GB wrote mean, median, stddev and cv rows of the codes (stop_reason 5.5 of 1 and 6 x 9);
        # the table leaves them out and writes each repetition's code in words.
        code_aggregates = {key for key in expected
                           if key[3] in CODE_COUNTERS and key[1] == "aggregate"}
        self.assertEqual(sorted((key[3], key[2]) for key in code_aggregates),
                         sorted((counter, statistic) for counter in CODE_COUNTERS
                                for statistic in ("mean", "median", "stddev", "cv")))
        expected = {key: value for key, value in expected.items() if key not in code_aggregates}
        self.assertEqual(len(rows), len(expected))
        got = table_rows(rows)
        self.assertEqual(set(got), set(expected))
        for key, value in expected.items():
            if key[3] in CODE_COUNTERS:
                self.assertIsNone(got[key]["value"], key)
                self.assertEqual(got[key]["value_text"], code_in_words(key[3], value), key)
            else:
                self.assertTrue(same(got[key]["value"], value), (key, got[key]["value"], value))
                self.assertIsNone(got[key]["value_text"], key)
        context = document["context"]
        for row in rows:
            self.assertEqual(tuple(row), gr.RUN_COLUMNS)
            self.assertEqual(row["settings_fingerprint"], context["gpubench_settings_fingerprint"])
            self.assertEqual(row["method_version"], int(context["gpubench_method_version"]))
            self.assertFalse(row["recovered"])
            self.assertEqual(row["family"], "BM_ShortCopy")
            self.assertEqual(row["arguments"], "1048576")
            self.assertIsNone(row["gpu"])
        by = {(r["counter"], r["run_type"], r["aggregate_name"]): r for r in rows
              if r["repetition_index"] in (0, None)}
        self.assertEqual(by[("real_time", "iteration", None)]["unit"], "ns")
        self.assertEqual(by[("real_time", "iteration", None)]["direction"], "lower_is_better")
        self.assertTrue(by[("real_time", "iteration", None)]["gated"])
        self.assertEqual(by[("bytes_moved", "iteration", None)]["unit"], "bytes")
        self.assertTrue(by[("bytes_moved", "iteration", None)]["gated"])
        self.assertEqual(by[("dram_bandwidth", "iteration", None)]["direction"], "higher_is_better")
        self.assertFalse(by[("dram_bandwidth", "iteration", None)]["gated"])  # report-only
        self.assertEqual(by[("sm_clock_rated_mhz", "iteration", None)]["direction"], "neither")
        self.assertEqual(by[("real_time", "aggregate", "stddev")]["unit"], "ns")
        self.assertEqual(by[("real_time", "aggregate", "cv")]["unit"], "ratio")
        self.assertEqual(sorted({r["repetition_index"] for r in rows
                                 if r["run_type"] == "iteration"}), list(range(10)))

    def test_gpu_tagged_rows_and_shards(self):
        rows = gr.read_run(DATA / "x2" / "devices_all.json", export_tool=EXPORT)
        parts = {(r["family"], r["arguments"], r["gpu"]) for r in rows}
        self.assertIn(("BM_Copy", "1048576", 0), parts)
        self.assertIn(("BM_Copy", "1048576", 1), parts)
        self.assertIn(("BM_TinyKernel", None, 1), parts)
        # Two shards of one run: gate_a1 and a file with other benchmarks but the same settings
        # are refused by the loader unless they share settings, so take two shards made from one.
        document = json.loads((DATA / "gate_a1.json").read_text())
        names = sorted({row["run_name"] for row in document["benchmarks"]})
        shards = []
        for index, keep in enumerate((names[:2], names[2:])):
            shard = dict(document, benchmarks=[row for row in document["benchmarks"]
                                               if row["run_name"] in keep])
            shards.append(WORK / f"shard{index}.json")
            shards[-1].write_text(json.dumps(shard))
        whole = gr.read_run(DATA / "gate_a1.json", export_tool=EXPORT)
        sharded = gr.read_run(shards, export_tool=EXPORT)
        self.assertEqual(sorted(map(repr, whole)), sorted(map(repr, sharded)))

    def test_a_cut_off_file_gives_its_complete_rows_marked_recovered_with_a_warning(self):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            rows = gr.read_run(DATA / "cutoff" / "gate_a1_cut_30150.json", export_tool=EXPORT)
        self.assertTrue(rows)
        self.assertTrue(all(r["recovered"] for r in rows))
        self.assertTrue(any("cut off" in str(w.message) for w in caught),
                        [str(w.message) for w in caught])
        whole = table_rows(gr.read_run(DATA / "gate_a1.json", export_tool=EXPORT))
        for key, row in table_rows(rows).items():
            if row["run_type"] == "iteration":  # the rows before the cut are the whole file's
                self.assertTrue(same(row["value"], whole[key]["value"]), key)

    def test_hostile_names_survive_the_table_and_pandas(self):
        document = json.loads((DATA / "gate_a1.json").read_text())
        hostile = ['Gate_"Quoted", with comma/1048576', "Gate_New\nLine/2", "Gate_Semi;colon'/3",
                   " Gate_Space /4", "Gate_Unicode_\u00b5s/5"]
        names = sorted({row["run_name"] for row in document["benchmarks"]})
        renamed = dict(zip(names, hostile))
        for row in document["benchmarks"]:
            old = row["run_name"]
            row["run_name"] = renamed[old]
            row["name"] = renamed[old] + row["name"][len(old):]
        path = WORK / "hostile.json"
        path.write_text(json.dumps(document))
        rows = gr.read_run(path, export_tool=EXPORT)
        self.assertEqual({r["benchmark"] for r in rows}, set(hostile))
        csv_path = WORK / "hostile.csv"
        done = subprocess.run([EXPORT, str(path), "--to", "csv", "-o", str(csv_path)],
                              capture_output=True, text=True, check=False)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("wrote", done.stdout)
        self.assertEqual(list(map(repr, gr.read_run(csv_path))), list(map(repr, rows)))
        if pandas is not None:
            frame = pandas.read_csv(csv_path)
            self.assertEqual(set(frame["benchmark"]), set(hostile))
            self.assertEqual(len(frame), len(rows))

    def test_pandas_reads_the_csv_without_options(self):
        if pandas is None:
            skip_without(self, "pandas", "python3-pandas")
        path = WORK / "copy.csv"
        done = subprocess.run([EXPORT, str(DATA / "cost" / "gpubench_copy_2^20_10.json"), "--to",
                               "csv", "-o", str(path)], capture_output=True, text=True)
        self.assertEqual(done.returncode, 0, done.stderr)
        frame = pandas.read_csv(path)
        self.assertEqual(tuple(frame.columns), gr.RUN_COLUMNS)
        self.assertEqual(str(frame["value"].dtype), "float64")
        self.assertEqual(str(frame["gated"].dtype), "bool")
        self.assertEqual(str(frame["recovered"].dtype), "bool")
        self.assertEqual(str(frame["value_text"].dtype), "object")
        medians = frame[(frame.counter == "real_time") & (frame.aggregate_name == "median")]
        self.assertEqual(len(medians), 1)
        typed = gr.run_frame(path)
        self.assertEqual(str(typed["repetition_index"].dtype), "Int64")
        self.assertEqual(len(typed), len(frame))

    def test_codes_arrive_in_pandas_as_words_and_are_never_averaged(self):
        if pandas is None:
            skip_without(self, "pandas", "python3-pandas")
        # Runs with every stop reason the committed runs have, and clock-event reasons with and
        # without a reason.
        paths = [DATA / "history_gate_v4" / "run_01.json",
                 DATA / "mdspan" / "after_stencil_3d_cuda.json", DATA / "issue37" / "streams.json", DATA / "issue37" / "faults.json",
                 DATA / "thermal" / "run1_none.json", DATA / "thermal" / "short_kernels.json"]
        seen = set()
        for path in paths:
            document, expected = json_rows(path)
            codes = {key: value for key, value in expected.items()
                     if key[3] in CODE_COUNTERS and key[1] == "iteration"}
            self.assertTrue(codes, path)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # faults.json's failed benchmarks
                frames = (pandas.read_csv(self.export_csv(path)),
                          gr.run_frame(path, export_tool=EXPORT))
            for run_frame in frames:
                self.assertEqual(str(run_frame["value"].dtype), "float64", path)
                self.assertEqual(str(run_frame["value_text"].dtype), "object", path)
                rows = run_frame[run_frame.counter.isin(CODE_COUNTERS)]
                self.assertEqual(len(rows), len(codes), path)
                self.assertFalse((rows.run_type == "aggregate").any(), path)
                self.assertTrue(rows.value.isna().all(), path)  # no number to average
                self.assertTrue(all(isinstance(text, str) for text in rows.value_text), path)
                words = {(r.benchmark, r.repetition_index, r.counter): r.value_text
                         for r in rows.itertuples()}
                for (benchmark, _, index, counter), code in codes.items():
                    self.assertEqual(words[(benchmark, index, counter)],
                                     code_in_words(counter, code), (path, benchmark, index))
                # Only the codes' rows have words.
                self.assertTrue(run_frame[~run_frame.counter.isin(CODE_COUNTERS)]
                                .value_text.isna().all(), path)
                seen |= set(rows.value_text)
        self.assertTrue({"precision", "repetition", "max_seconds", "min_time", "iterations",
                         "sw_power_cap", "none"} <= seen, seen)

    def export_csv(self, path):
        out = WORK / (path.stem + ".codes.csv")
        done = subprocess.run([EXPORT, str(path), "--to", "csv", "-o", str(out)],
                              capture_output=True, text=True)
        self.assertEqual(done.returncode, 0, done.stderr)
        return out

    def test_counters_select_and_bad_input_says_what_is_wrong(self):
        done = subprocess.run([EXPORT, str(DATA / "gate_a1.json"), "--to", "csv", "--counters",
                               "time,bytes_moved"], capture_output=True, text=True)
        self.assertEqual(done.returncode, 0, done.stderr)
        rows = list(csv.DictReader(io.StringIO(done.stdout)))
        self.assertEqual({r["counter"] for r in rows}, {"real_time", "bytes_moved"})
        done = subprocess.run([EXPORT, str(DATA / "gate_a1.json"), "--to", "csv", "--counters",
                               "no_such_counter"], capture_output=True, text=True)
        self.assertEqual(done.returncode, 2)
        self.assertIn('no benchmark has the counter "no_such_counter"', done.stderr)
        bad = WORK / "bad.csv"
        bad.write_text("a,b\n1,2\n")
        with self.assertRaisesRegex(gr.GpubenchResultsError, "expected the columns benchmark"):
            gr.read_run(bad)
        with self.assertRaisesRegex(gr.GpubenchResultsError, "could not read"):
            gr.read_run(WORK / "does_not_exist.json", export_tool=EXPORT)
        missing = WORK / "no_such_tool"
        saved = os.environ.pop("GPUBENCH_EXPORT", None)
        saved_path = os.environ.get("PATH", "")
        os.environ["PATH"] = str(WORK)
        try:
            with self.assertRaisesRegex(gr.GpubenchResultsError, "gpubench-export was not found"):
                gr.read_run(DATA / "gate_a1.json", export_tool=str(missing))
        finally:
            os.environ["PATH"] = saved_path
            if saved is not None:
                os.environ["GPUBENCH_EXPORT"] = saved


def compare(*arguments):
    return subprocess.run([COMPARE, *map(str, arguments)], capture_output=True, text=True)


class ComparisonTable(unittest.TestCase):
    def check_formats_agree(self, inputs, name):
        json_path, csv_path = WORK / f"{name}.json", WORK / f"{name}.csv"
        for path, form in ((json_path, "json"), (csv_path, "csv")):
            done = compare(*inputs, "--format", form, "-o", path)
            self.assertIn(done.returncode, (0, 1), done.stderr)
        from_json = gr.read_comparison(json_path)
        from_csv = gr.read_comparison(csv_path)
        self.assertEqual(len(from_json), len(from_csv))
        for a, b in zip(from_json, from_csv):
            self.assertEqual(tuple(b), gr.COMPARISON_COLUMNS)
            for key in gr.COMPARISON_COLUMNS:
                x, y = a[key], b[key]
                if isinstance(x, list):
                    self.assertEqual(len(x), len(y), key)
                    for u, v in zip(x, y):
                        self.assertTrue(isinstance(u, str) and u == v or same(u, v), (key, x, y))
                elif isinstance(y, float) and not math.isfinite(y):
                    # JSON writes null for what is not finite; the table keeps inf.
                    self.assertTrue(x is None or not math.isfinite(x), (key, x, y))
                elif isinstance(x, float) or isinstance(y, float):
                    self.assertTrue(same(x, y), (a["benchmark"], a["metric"], key, x, y))
                else:
                    self.assertEqual(x, y, (a["benchmark"], a["metric"], key))
        return from_csv

    def test_a_run_without_a_result_raises_with_the_reason(self):
        # A real H200 run whose every row is an error: kokkos/mdspan's matvec converted literally
        # (its body still times itself, which gpubench refuses). gpubench-export writes
        # the table's header alone and exits 4; the module says why instead of giving no rows.
        run = DATA / "mdspan" / "literal_matvec_cuda.json"
        first = next(row for row in json.loads(run.read_text())["benchmarks"]
                     if row.get("error_occurred"))
        done = subprocess.run([EXPORT, str(run), "--to", "csv"], capture_output=True, text=True)
        self.assertEqual(done.returncode, 4, done.stderr)
        self.assertEqual(done.stdout, ",".join(gr.RUN_COLUMNS) + "\n")
        self.assertIn(f"nothing exported: every benchmark of {run} is an error or skipped "
                      f"(first: {first['run_name']}: error: ", done.stderr)
        with self.assertRaises(gr.GpubenchResultsError) as raised:
            gr.read_run(run, export_tool=EXPORT)
        self.assertIn(f"{run} holds no result (gpubench-export exit 4)", str(raised.exception))
        self.assertIn(first["error_message"], str(raised.exception))

    def test_reused_rows_carry_their_status_in_the_reuse_column(self):
        # tests/data/reuse/partly_reused.json: Gate_FmaLong measured (changed), the rest reused.
        reuse = DATA.parent / "reuse"
        rows = gr.read_run(reuse / "partly_reused.json", export_tool=EXPORT)
        times = [r for r in rows if r["counter"] == "real_time" and r["run_type"] == "iteration"]
        self.assertEqual(len(times), 60)
        for row in times:
            expected = "changed" if row["benchmark"].startswith("Gate_FmaLong") else "reused"
            self.assertEqual(row["reuse"], expected, row["benchmark"])
        signatures = [r for r in rows if r["counter"] == "work_signature"]
        self.assertTrue(signatures)
        for row in signatures:
            self.assertIsNone(row["value"])
            self.assertRegex(row["value_text"], r"^[0-9a-f]{12}$")
        runs = {r["value"] for r in rows if r["counter"] == "reused_runs"}
        self.assertEqual(runs, {0.0, 1.0})
        plain = gr.read_run(reuse / "measured.json", export_tool=EXPORT)
        self.assertEqual({r["reuse"] for r in plain}, {None})
        # The comparison's reused counts, in both formats.
        compared = self.check_formats_agree(
            [reuse / "measured.json", reuse / "partly_reused.json"], "partly_reused")
        status = {r["benchmark"]: (r["status"], r["contender_reused_repetitions"])
                  for r in compared}
        self.assertEqual(status.pop("Gate_FmaLong/2112/manual_time"), ("compared", 0))
        self.assertEqual(set(status.values()), {("reused", 10)})

    def test_a_failing_comparison_in_both_formats(self):
        rows = self.check_formats_agree([DATA / "gate_b1.json", DATA / "gate_inject_time.json"],
                                        "inject")
        failing = [r for r in rows if r["fails_gate"]]
        self.assertEqual({r["benchmark"] for r in failing}, {"Gate_Fma/2112/manual_time"})
        fma = [r for r in failing if r["metric"] == "real_time"][0]
        self.assertEqual(fma["verdict"], "regression")
        self.assertGreater(fma["change_percent"], 2)
        self.assertEqual(fma["unit"], "ns")
        self.assertEqual(len(fma["baseline_values"]), 10)
        self.assertTrue(fma["threshold_source"])
        self.assertIn(fma["test"], ("mann_whitney_exact", "mann_whitney_asymptotic"))

    def test_a_history_comparison_with_a_missing_benchmark(self):
        history = sorted((DATA / "history_gate_v4").glob("run_*.json"))
        self.assertGreaterEqual(len(history), 4)
        contender = json.loads(history[-1].read_text())
        dropped = contender["benchmarks"][0]["run_name"]
        contender["benchmarks"] = [row for row in contender["benchmarks"]
                                   if row["run_name"] != dropped]
        path = WORK / "contender_missing_one.json"
        path.write_text(json.dumps(contender))
        rows = self.check_formats_agree([*history[:-1], path], "history")
        self.assertTrue(any(r["test"] == "history_prediction" for r in rows))
        missing = [r for r in rows if r["benchmark"] == dropped]
        self.assertEqual(len(missing), 1)
        self.assertEqual(missing[0]["status"], "missing")
        self.assertIsNone(missing[0]["metric"])
        if pandas is not None:
            frame = pandas.read_csv(WORK / "history.csv")
            self.assertEqual(tuple(frame.columns), gr.COMPARISON_COLUMNS)
            self.assertEqual(str(frame["fails_gate"].dtype), "bool")
            self.assertEqual(len(gr.comparison_frame(WORK / "history.json")), len(frame))


# The H200 series of GPU-8f0dca1c: 12 plain reruns, then 4 runs whose Gate_Copy/268435456 copies
# 1% more bytes (bytes1), each run's commit in its context.
SERIES = DATA / "series_gpu_8f0dca1c"
SERIES_RUNS = ([SERIES / f"plain_{i:02d}.json" for i in range(1, 13)]
               + [SERIES / f"bytes1_{i}.json" for i in range(1, 5)])
SERIES_COMMITS = (["g1", "g2", "g3", "g4", "g5", "g6"] + [f"g{i:02d}" for i in range(7, 13)]
                  + ["y1", "y2", "y3", "y4"])
BYTES_METRICS = {"real_time", "bytes_moved", "dram_read_bytes", "dram_write_bytes"}


class ChangesTable(unittest.TestCase):
    """gpubench-compare --changes on a real series, read back in both formats."""

    @classmethod
    def setUpClass(cls):
        cls.paths = {}
        for form in ("json", "csv"):
            path = WORK / f"changes.{form}"
            done = compare("--changes", *SERIES_RUNS, "--format", form, "-o", path)
            if done.returncode != 0:
                raise AssertionError(f"gpubench-compare --changes --format {form} exited "
                                     f"{done.returncode}: {done.stderr}")
            cls.paths[form] = path

    def test_the_runs_and_their_commits(self):
        report = json.loads(self.paths["json"].read_text())
        self.assertEqual([Path(run["file"]).name for run in report["runs"]],
                         [path.name for path in SERIES_RUNS])
        self.assertEqual([run["commit"] for run in report["runs"]], SERIES_COMMITS)

    def test_the_practical_changes_are_the_copy_of_1_percent_more_bytes(self):
        for form, path in self.paths.items():
            rows = gr.read_changes(path)
            for row in rows:
                self.assertEqual(tuple(row), gr.CHANGES_COLUMNS)
            practical = [row for row in rows if row["practical"]]
            self.assertEqual({row["benchmark"] for row in practical},
                             {"Gate_Copy/268435456/manual_time"}, form)
            self.assertEqual(sorted(row["metric"] for row in practical), sorted(BYTES_METRICS),
                             form)
            for row in practical:
                self.assertEqual(Path(row["first_run"]).name, "bytes1_1.json", (form, row))
                self.assertEqual(row["first_run_index"], 12, (form, row))
                self.assertEqual(row["commit"], "y1", (form, row))
                self.assertEqual(row["kind"], "step", (form, row))
                self.assertEqual(row["end_run_index"], 12, (form, row))  # a step: first_run
            moved = next(row for row in practical if row["metric"] == "bytes_moved")
            self.assertAlmostEqual(moved["change_percent"], 1.0, delta=0.1)
            self.assertEqual(moved["direction"], "regression")  # more bytes moved
            self.assertGreater(moved["median_after"], moved["median_before"])
            # Nothing about settings in this series: every run has the same fingerprint.
            self.assertFalse([row for row in rows if row["kind"] == "settings"], form)
            report = json.loads(self.paths["json"].read_text())
            self.assertEqual(report["practical_changes"], len(practical))

    def test_json_and_csv_agree_row_for_row(self):
        self.assertGreater(len(self.check_formats_agree(self.paths["json"], self.paths["csv"])),
                           0)

    def check_formats_agree(self, json_path, csv_path):
        from_json = gr.read_changes(json_path)
        from_csv = gr.read_changes(csv_path)
        self.assertEqual(len(from_json), len(from_csv))
        for a, b in zip(from_json, from_csv):
            self.assertEqual(tuple(a), gr.CHANGES_COLUMNS)
            self.assertEqual(tuple(b), gr.CHANGES_COLUMNS)
            for key in gr.CHANGES_COLUMNS:
                x, y = a[key], b[key]
                self.assertEqual(type(x), type(y), (a["benchmark"], a["metric"], key, x, y))
                if isinstance(x, float):
                    self.assertTrue(same(x, y), (a["benchmark"], a["metric"], key, x, y))
                else:
                    self.assertEqual(x, y, (a["benchmark"], a["metric"], key))
        return from_csv

    def test_types_of_the_rows(self):
        for path in self.paths.values():
            for row in gr.read_changes(path):
                self.assertIsInstance(row["practical"], bool)
                self.assertIsInstance(row["first_run_index"], int)
                self.assertNotIsInstance(row["first_run_index"], bool)
                for key in ("median_before", "median_after", "change_percent", "p_value",
                            "t_statistic"):
                    self.assertIsInstance(row[key], float, key)

    def test_a_settings_change_is_a_row_in_both_formats(self):
        other = DATA / "series_gpu_84ba34e4"
        runs = ([other / f"plain_{i:02d}.json" for i in range(1, 13)]
                + [other / f"keep_{i}.json" for i in range(1, 4)])
        rows = {}
        for form in ("json", "csv"):
            path = WORK / f"changes_settings.{form}"
            done = compare("--changes", *runs, "--format", form, "-o", path)
            self.assertEqual(done.returncode, 0, done.stderr)
            rows[form] = [row for row in gr.read_changes(path) if row["kind"] == "settings"]
        self.check_formats_agree(WORK / "changes_settings.json", WORK / "changes_settings.csv")
        for form, settings in rows.items():
            self.assertEqual(len(settings), 1, form)
            row = settings[0]
            self.assertEqual(Path(row["first_run"]).name, "keep_1.json")
            self.assertEqual((row["first_run_index"], row["end_run_index"]), (12, 12))
            self.assertEqual(row["commit"], "k1")
            self.assertEqual(row["direction"], "settings")
            self.assertIsNone(row["benchmark"])
            self.assertIsNone(row["metric"])
            self.assertFalse(row["practical"])
            self.assertTrue(math.isnan(row["change_percent"]))

    def test_the_frame_types_its_columns(self):
        if pandas is None:
            skip_without(self, "pandas", "python3-pandas")
        for path in self.paths.values():
            frame = gr.changes_frame(path)
            self.assertEqual(tuple(frame.columns), gr.CHANGES_COLUMNS)
            self.assertEqual(str(frame["practical"].dtype), "bool")
            self.assertTrue(pandas.api.types.is_integer_dtype(frame["first_run_index"]))
            self.assertTrue(pandas.api.types.is_integer_dtype(frame["end_run_index"]))
            self.assertEqual(str(frame["change_percent"].dtype), "float64")
            self.assertEqual(str(frame["p_value"].dtype), "float64")
            practical = frame[frame.practical]
            self.assertEqual(set(practical.metric), BYTES_METRICS)
            self.assertEqual(set(practical.commit), {"y1"})
            self.assertEqual(len(frame), len(gr.read_changes(path)))
        # pandas.read_csv reads the CSV without options into the same types.
        plain = pandas.read_csv(self.paths["csv"])
        self.assertEqual(tuple(plain.columns), gr.CHANGES_COLUMNS)
        self.assertEqual(str(plain["practical"].dtype), "bool")
        self.assertEqual(str(plain["first_run_index"].dtype), "int64")

    def test_a_file_that_is_no_changes_report_says_what_it_is(self):
        cases = {
            "comparison.json": ([DATA / "gate_b1.json", DATA / "gate_inject_time.json",
                                 "--format", "json"], "comparison report"),
            "comparison.csv": ([DATA / "gate_b1.json", DATA / "gate_inject_time.json",
                                "--format", "csv"], "comparison table"),
            "changes_console.txt": (["--changes", *SERIES_RUNS[:3]], "neither"),
        }
        for name, (arguments, expected) in cases.items():
            path = WORK / name
            done = compare(*arguments, "-o", path)
            self.assertIn(done.returncode, (0, 1), done.stderr)
            with self.assertRaises(gr.GpubenchResultsError, msg=name) as raised:
                gr.read_changes(path)
            self.assertIn(str(path), str(raised.exception))
            self.assertIn(expected, str(raised.exception))
        with self.assertRaises(gr.GpubenchResultsError) as raised:
            gr.read_changes(SERIES_RUNS[0])
        self.assertIn("not a gpubench-compare --changes report", str(raised.exception))
        self.assertIn("read_run", str(raised.exception))
        for form in ("json", "csv"):  # and the other way round
            with self.assertRaises(gr.GpubenchResultsError) as raised:
                gr.read_comparison(self.paths[form])
            self.assertIn("read it with read_changes", str(raised.exception))
        bad = WORK / "changes_bad_header.csv"
        bad.write_text("benchmark,metric\n")
        with self.assertRaises(gr.GpubenchResultsError) as raised:
            gr.read_changes(bad)
        self.assertIn("expected the columns benchmark, metric, kind", str(raised.exception))


class WorkedExample(unittest.TestCase):
    """docs/user_guide.md "Results in pandas": two runs, GPU time against the argument."""

    def test_the_plot_of_two_runs(self):
        if pandas is None:
            skip_without(self, "pandas", "python3-pandas")
        try:
            import matplotlib
        except ImportError:
            skip_without(self, "matplotlib", "python3-matplotlib")
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        # --- as in the user guide ---
        runs = {"run 1": DATA / "placement" / "placement_1.json",
                "run 2": DATA / "placement" / "placement_2.json"}
        table = pandas.concat([gr.run_frame(path, export_tool=EXPORT).assign(run=label)
                               for label, path in runs.items()])
        medians = table[(table.family == "BM_TinyPage") & (table.counter == "real_time")
                        & (table.aggregate_name == "median")].copy()
        medians["page"] = medians.arguments.astype(int)
        figure, axes = plt.subplots(figsize=(7, 4))
        for label, run in medians.groupby("run"):
            run = run.sort_values("page")
            axes.plot(run.page, run.value / 1e3, marker="o", label=label)
        axes.set(xlabel="page of the kernel's data (argument)", ylabel="GPU time per iteration (us)",
                 title="BM_TinyPage: median of 3 repetitions, two runs")
        axes.legend()
        figure.tight_layout()
        figure.savefig(WORK / "tiny_page.png", dpi=100)
        # ---

        self.assertEqual(sorted(medians.run.unique()), ["run 1", "run 2"])
        lines = axes.get_lines()
        self.assertEqual(len(lines), 2)
        for line, (label, path) in zip(lines, runs.items()):
            self.assertEqual(line.get_label(), label)
            self.assertEqual(list(line.get_xdata()), list(range(32)))
            # The plotted medians are GB's median rows of the JSON, in us.
            document = json.loads(path.read_text())
            expected = {int(row["run_name"].split("/")[1]): row["real_time"] for row in
                        document["benchmarks"] if row["run_name"].startswith("BM_TinyPage/")
                        and row.get("aggregate_name") == "median"}
            scale = SCALE[document["benchmarks"][0]["time_unit"]] / 1e3
            for page, y in zip(line.get_xdata(), line.get_ydata()):
                self.assertTrue(same(y, expected[page] * scale), (label, page, y))
        png = (WORK / "tiny_page.png").read_bytes()
        self.assertEqual(png[:8], b"\x89PNG\r\n\x1a\n")
        self.assertGreater(len(png), 10000)


if __name__ == "__main__":
    WORK.mkdir(parents=True, exist_ok=True)
    unittest.main()
