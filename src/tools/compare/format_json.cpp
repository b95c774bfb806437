// gpubench-compare --format json: the whole report for machines, streamed piece by piece.
#include "tools/compare/report_format.hpp"

#include <algorithm>
#include <cstddef>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "schema/counter_table.hpp"
#include "tools/base/halves.hpp"
#include "tools/base/json_writer.hpp"
#include "tools/base/text.hpp"
#include "tools/compare/report_csv.hpp"
#include "tools/gate/suite_summary.hpp"
#include "tools/load/cut_off.hpp"

namespace gpubench::tools {
namespace {

// Streamed with JsonWriter, which writes what nlohmann's dump(2) wrote for the DOM this report
// used to be built as (tests/tools/json_report_dom.hpp keeps that DOM builder, and
// json_report_test.cpp compares the two byte for byte).
// Each Write* function writes one object; its keys come out in the order of the Member() calls.
// A field is added with one more Member() call where it belongs; the C++ type of the value
// decides the JSON type as it did for the DOM (size_t and int -> integer, double -> number or
// null when not finite, std::optional -> null when empty, std::vector -> array).

// null for a complete file; what was recovered from one cut off mid-write (gpubench-compare
// loads one file per side, so there is at most one entry).
void WriteCutOff(JsonWriter& json, const std::vector<CutOffFile>& cut_off) {
  if (cut_off.empty()) return json.Null();
  const CutOffFile& cut = cut_off.front();
  json.BeginObject();
  json.Member("bytes", cut.bytes);
  json.Member("rows_recovered", cut.rows_recovered);
  json.Member("benchmarks_recovered", cut.benchmarks_recovered);
  json.Member("message", DescribeCutOff(cut));
  json.EndObject();
}

// `files`: the baseline's files (one, or the runs of a history); null for the contender.
void WriteSide(JsonWriter& json, const std::string& path, const std::vector<std::string>* files,
               std::size_t benchmarks, const std::optional<std::string>& fingerprint,
               const std::vector<CutOffFile>& cut_off) {
  json.BeginObject();
  json.Member("file", path);
  if (files) json.Member("files", *files);
  json.Member("benchmarks", benchmarks);
  json.Member("settings_fingerprint", fingerprint);
  WriteCutOff(json.Key("cut_off"), cut_off);
  json.EndObject();
}

void WriteOptions(JsonWriter& json, const CompareOptions& options) {
  json.BeginObject();
  json.Member("alpha", options.alpha);
  json.Member("unconfirmed", options.unconfirmed == UnconfirmedPolicy::kFail ? "fail" : "warn");
  json.Member("allow_settings_mismatch", options.allow_settings_mismatch);
  json.Member("fail_on_missing", options.fail_on_missing);
  json.Key("threshold_overrides").BeginObject();
  for (const auto& [name, percent] : options.overrides.thresholds) {
    if (percent) {
      json.Member(name, *percent);
    } else {
      json.Member(name, "off");
    }
  }
  json.EndObject();
  json.EndObject();
}

void WriteDifferences(JsonWriter& json, const std::vector<ValueDifference>& differences) {
  json.BeginArray();
  for (const ValueDifference& difference : differences) {
    json.BeginObject();
    json.Member("key", difference.key);
    json.Member("baseline", difference.baseline);
    json.Member("contender", difference.contender);
    json.Member("prominent", difference.prominent);
    json.EndObject();
  }
  json.EndArray();
}

void WriteSettings(JsonWriter& json, const ComparisonReport& report) {
  const SettingsCheck& settings = report.settings;
  json.BeginObject();
  json.Member("checked", settings.baseline_fingerprint.has_value() &&
                             settings.contender_fingerprint.has_value());
  json.Member("mismatch", settings.mismatch);
  json.Member("refused", report.refused_for_settings);
  json.Member("baseline_file", settings.baseline_path);  // the run checked, or the first differing
  WriteDifferences(json.Key("differences"), settings.differences);
  json.Member("notes", settings.notes);
  json.EndObject();
}

void WriteSummary(JsonWriter& json, const Summary& s) {
  json.BeginObject();
  json.Member("compared", s.compared);
  json.Member("regressions", s.regressions);
  json.Member("unconfirmed_regressions", s.unconfirmed_regressions);
  json.Member("improvements", s.improvements);
  json.Member("unconfirmed_improvements", s.unconfirmed_improvements);
  json.Member("same", s.same);
  json.Member("report_only", s.report_only);
  json.Member("missing", s.missing);
  json.Member("new", s.added);
  json.Member("failed_in_contender", s.failed_in_contender);
  json.Member("failed_in_baseline", s.failed_in_baseline);
  json.Member("failed_in_both", s.failed_in_both);
  json.Member("throttled", s.throttled);
  json.Member(counter::kGpuShared, s.shared);
  json.Member("failing", s.failing);
  json.Member("undecided", s.undecided);
  json.Member("reused", s.reused);
  json.EndObject();
}

void WriteReuse(JsonWriter& json, const ReuseCount& reuse) {
  json.BeginObject();
  json.Member("contender_rows", reuse.contender_rows);
  json.Member("contender_reused_rows", reuse.contender_reused_rows);
  json.Member("baseline_reused_rows", reuse.baseline_reused_rows);
  json.Member("all_reused", reuse.AllReused());
  if (reuse.source.empty()) {
    json.Member("source", nullptr);
  } else {
    json.Member("source", reuse.source);
  }
  json.EndObject();
}

void WriteTesting(JsonWriter& json, const ComparisonReport& report) {
  const Testing& t = report.testing;
  json.BeginObject();
  json.Member("gated_tests", t.gated_tests);
  json.Member("history_tests", t.history_tests);
  json.Member("family_alpha", t.family_alpha);
  json.Member("per_test_alpha", t.per_test_alpha);
  json.Member("text", TestingLine(report));
  json.EndObject();
}

void WriteSuite(JsonWriter& json, const SuiteRatio& suite) {
  json.BeginObject();
  json.Member("benchmarks", suite.benchmarks);
  json.Member("metric", counter::kRealTime);
  json.Member("geometric_mean_ratio", suite.geometric_mean);
  if (suite.low && suite.high) {
    json.Member("interval_95_low", *suite.low);
    json.Member("interval_95_high", *suite.high);
  }
  json.EndObject();
}

// {"median": ..., "values": [...]} of one side of a metric.
void WriteValues(JsonWriter& json, double median, const std::vector<double>& values) {
  json.BeginObject();
  json.Member("median", median);
  json.Member("values", values);
  json.EndObject();
}

void WriteMetric(JsonWriter& json, const MetricComparison& metric) {
  json.BeginObject();
  json.Member("name", metric.name);
  json.Member("unit", metric.is_time ? std::string_view("ns") : metric.policy.unit);
  json.Member("direction", DirectionName(metric.policy.direction));
  json.Member("gated", metric.policy.threshold_percent.has_value());
  json.Member("threshold_percent", metric.applied_threshold_percent);  // null when inf or unset
  json.Member("threshold_source", metric.threshold_source);
  json.Member("floor", metric.applied_floor);
  json.Member("noise_percent", metric.noise_percent);
  json.Member("history_runs", metric.history_runs);
  json.Member("between_run_sd_percent", metric.between_run_sd_percent);
  json.Member("statistical", metric.policy.statistical);
  json.Member("rule", metric.policy.rule);
  WriteValues(json.Key("baseline"), metric.baseline_median, metric.baseline_values);
  WriteValues(json.Key("contender"), metric.contender_median, metric.contender_values);
  json.Member("change_percent", metric.change_percent);
  json.Member("change", FormatChangePercent(metric.change_percent));
  json.Member("p_value", metric.p_value);
  json.Member("test", TestName(metric));
  json.Member("verdict", VerdictName(metric.verdict));
  json.Member("worse", metric.worse);
  json.Member("fails_gate", metric.fails_gate);
  json.Member("notes", metric.notes);
  json.EndObject();
}

// {"baseline": ..., "contender": ...} of a flag or count of each side.
template <typename T>
void WritePair(JsonWriter& json, const T& baseline, const T& contender) {
  json.BeginObject();
  json.Member("baseline", baseline);
  json.Member("contender", contender);
  json.EndObject();
}

void WriteBenchmark(JsonWriter& json, const BenchmarkComparison& benchmark) {
  json.BeginObject();
  json.Member("name", benchmark.name);
  json.Member("status", StatusName(benchmark.status));
  if (benchmark.status == BenchmarkStatus::kCompared) {
    json.Member("verdict", VerdictName(benchmark.verdict));
  } else {
    json.Member("verdict", nullptr);
  }
  json.Member("worse", benchmark.worse);
  json.Member("fails_gate", benchmark.fails_gate);
  WritePair(json.Key("repetitions"), benchmark.baseline_repetitions,
            benchmark.contender_repetitions);
  WritePair(json.Key("reused_repetitions"), benchmark.baseline_reused, benchmark.contender_reused);
  WritePair(json.Key("throttled"), benchmark.throttled_baseline, benchmark.throttled_contender);
  WritePair(json.Key(counter::kGpuShared), benchmark.shared_baseline, benchmark.shared_contender);
  if (benchmark.failure_message.empty()) {
    json.Member("failure_message", nullptr);
  } else {
    json.Member("failure_message", benchmark.failure_message);
  }
  json.Key("metrics").BeginArray();
  for (const MetricComparison& metric : benchmark.metrics) WriteMetric(json, metric);
  json.EndArray();
  json.Member("notes", benchmark.notes);
  json.EndObject();
}

// Receives the text of the JSON report piece by piece, in order.
using JsonSink = std::function<void(std::string_view)>;

// The "benchmarks" array, most of the report (200 MB for 10,000 benchmarks x 12 metrics x 10
// repetitions). Written in rounds of kBenchmarksPerJsonRound, after each of which the text goes
// to `sink` and the writers' buffers are reused: the whole text is never held, and only a few
// MB of buffer are ever touched (page faults are costly on the 2-core CI VMs: writing that report
// took 3,400 with these rounds, 26,700 with rounds of 2,000). In a report large enough to be
// worth a thread each round is written in two halves on two threads.
constexpr std::size_t kBenchmarksPerJsonRound = 256;

void WriteBenchmarks(JsonWriter& json, const std::vector<BenchmarkComparison>& benchmarks,
                     const JsonSink& sink) {
  json.BeginArray();
  JsonWriter second_half = json.Continuation();
  InRoundsOnTwoHalves(
      benchmarks.size(), kBenchmarksPerJsonRound,
      [&](int half, std::size_t i) {
        WriteBenchmark(half == 0 ? json : second_half, benchmarks[i]);
      },
      [&] {
        for (JsonWriter* writer : {&json, &second_half}) {
          sink(writer->text());
          writer->ClearText();
        }
      });
  json.EndArray();
}

void StreamJson(const ComparisonReport& report, const JsonSink& sink) {
  JsonWriter json;
  json.BeginObject();
  json.Member("tool", "gpubench-compare");
  json.Member("format_version", 1);
  json.Member("exit_code", report.exit_code);
  json.Member("gate", report.exit_code == kExitOk                 ? "pass"
                      : report.exit_code == kExitSettingsMismatch ? "settings_mismatch"
                      : report.exit_code == kExitNothingCompared  ? "nothing_compared"
                      : report.exit_code == kExitAllReused        ? "reused"
                                                                  : "fail");
  if (report.nothing_compared.empty()) {
    json.Member("nothing_compared", nullptr);
  } else {
    json.Member("nothing_compared", report.nothing_compared);
  }
  WriteSide(json.Key("baseline"), report.baseline_path, &report.baseline_paths,
            report.baseline_benchmark_count, report.settings.baseline_fingerprint,
            report.baseline_cut_off);
  WriteSide(json.Key("contender"), report.contender_path, nullptr, report.contender_benchmark_count,
            report.settings.contender_fingerprint, report.contender_cut_off);
  WriteOptions(json.Key("options"), report.options);
  WriteSettings(json.Key("settings"), report);
  WriteDifferences(json.Key("device_differences"), report.device_differences);
  json.Member("different_gpu_or_driver",
              std::any_of(report.device_differences.begin(), report.device_differences.end(),
                          [](const ValueDifference& difference) { return difference.prominent; }));
  // null: a side records no gpu_uuid, so whether the runs shared a GPU cannot be told.
  const PhysicalGpu physical = report.physical_gpu.physical_gpu;
  json.Member("different_physical_gpu",
              physical == PhysicalGpu::kDifferent ? std::optional<bool>(true)
              : physical == PhysicalGpu::kSame    ? std::optional<bool>(false)
                                                  : std::nullopt);
  json.Member("warnings", report.warnings);
  WriteSummary(json.Key("summary"), report.summary);
  WriteReuse(json.Key("reuse"), report.reuse);
  WriteTesting(json.Key("testing"), report);
  WriteSuite(json.Key("suite"), report.suite);
  WriteBenchmarks(json.Key("benchmarks"), report.benchmarks, sink);
  json.EndObject();
  sink(json.text());
  sink("\n");
}

}  // namespace

std::string FormatJson(const ComparisonReport& report) {
  std::string text;
  StreamJson(report, [&](std::string_view piece) { text += piece; });
  return text;
}

void WriteJson(const ComparisonReport& report, std::ostream& out) {
  StreamJson(report, [&](std::string_view piece) {
    out.write(piece.data(), static_cast<std::streamsize>(piece.size()));
  });
}

}  // namespace gpubench::tools
