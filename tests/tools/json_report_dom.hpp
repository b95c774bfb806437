// The JSON report as FormatJson built it before it was streamed: a nlohmann DOM, dumped with
// dump(2, ' ', false, error_handler_t::replace). Kept (unchanged but for the names
// FormatJsonWithDom and the namespace) only as the reference that json_report_test.cpp compares the
// streamed text with byte for byte. A field added to the report's JsonWriter code is added here
// too, in the same place, or those tests fail.
#pragma once

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "schema/counter_table.hpp"
#include "tools/compare/report_format.hpp"
#include "tools/gate/comparison.hpp"
#include "tools/gate/suite_summary.hpp"
#include "tools/load/cut_off.hpp"

namespace gpubench::tools::dom_reference {

using OrderedJson = nlohmann::ordered_json;

inline OrderedJson Number(double value) {
  return std::isfinite(value) ? OrderedJson(value) : OrderedJson(nullptr);
}

inline OrderedJson OptionalString(const std::optional<std::string>& value) {
  return value ? OrderedJson(*value) : OrderedJson(nullptr);
}

// null for a complete file; what was recovered from one cut off mid-write (gpubench-compare
// loads one file per side, so there is at most one entry).
inline OrderedJson CutOffJson(const std::vector<CutOffFile>& cut_off) {
  if (cut_off.empty()) return nullptr;
  const CutOffFile& cut = cut_off.front();
  return {{"bytes", cut.bytes},
          {"rows_recovered", cut.rows_recovered},
          {"benchmarks_recovered", cut.benchmarks_recovered},
          {"message", DescribeCutOff(cut)}};
}

inline OrderedJson DifferencesJson(const std::vector<ValueDifference>& differences) {
  OrderedJson list = OrderedJson::array();
  for (const ValueDifference& difference : differences) {
    list.push_back({{"key", difference.key},
                    {"baseline", OptionalString(difference.baseline)},
                    {"contender", OptionalString(difference.contender)},
                    {"prominent", difference.prominent}});
  }
  return list;
}

inline OrderedJson MetricJson(const MetricComparison& metric) {
  OrderedJson values_b = OrderedJson::array(), values_c = OrderedJson::array();
  for (double v : metric.baseline_values) values_b.push_back(Number(v));
  for (double v : metric.contender_values) values_c.push_back(Number(v));
  OrderedJson json;
  json["name"] = metric.name;
  json["unit"] = metric.is_time ? "ns" : metric.policy.unit;
  json["direction"] = DirectionName(metric.policy.direction);
  json["gated"] = metric.policy.threshold_percent.has_value();
  json["threshold_percent"] =
      metric.applied_threshold_percent && std::isfinite(*metric.applied_threshold_percent)
          ? OrderedJson(*metric.applied_threshold_percent)
          : OrderedJson(nullptr);
  json["threshold_source"] = metric.threshold_source;
  json["floor"] = metric.applied_floor;
  json["noise_percent"] = Number(metric.noise_percent);
  json["history_runs"] = metric.history_runs;
  json["between_run_sd_percent"] = Number(metric.between_run_sd_percent);
  json["statistical"] = metric.policy.statistical;
  json["rule"] = metric.policy.rule;
  json["baseline"] = {{"median", Number(metric.baseline_median)}, {"values", values_b}};
  json["contender"] = {{"median", Number(metric.contender_median)}, {"values", values_c}};
  json["change_percent"] = Number(metric.change_percent);
  json["change"] = FormatChangePercent(metric.change_percent);
  json["p_value"] = metric.p_value ? OrderedJson(*metric.p_value) : OrderedJson(nullptr);
  json["test"] = metric.history_runs > 0                            ? "history_prediction"
                 : !metric.test_method                              ? "none"
                 : *metric.test_method == MannWhitneyMethod::kExact ? "mann_whitney_exact"
                                                                    : "mann_whitney_asymptotic";
  json["verdict"] = VerdictName(metric.verdict);
  json["worse"] = metric.worse;
  json["fails_gate"] = metric.fails_gate;
  json["notes"] = metric.notes;
  return json;
}

inline OrderedJson BenchmarksJson(const ComparisonReport& report) {
  OrderedJson benchmarks = OrderedJson::array();
  for (const BenchmarkComparison& benchmark : report.benchmarks) {
    OrderedJson entry;
    entry["name"] = benchmark.name;
    entry["status"] = StatusName(benchmark.status);
    entry["verdict"] = benchmark.status == BenchmarkStatus::kCompared
                           ? OrderedJson(VerdictName(benchmark.verdict))
                           : OrderedJson(nullptr);
    entry["worse"] = benchmark.worse;
    entry["fails_gate"] = benchmark.fails_gate;
    entry["repetitions"] = {{"baseline", benchmark.baseline_repetitions},
                            {"contender", benchmark.contender_repetitions}};
    entry["reused_repetitions"] = {{"baseline", benchmark.baseline_reused},
                                   {"contender", benchmark.contender_reused}};
    entry["throttled"] = {{"baseline", benchmark.throttled_baseline},
                          {"contender", benchmark.throttled_contender}};
    entry[counter::kGpuShared] = {{"baseline", benchmark.shared_baseline},
                                  {"contender", benchmark.shared_contender}};
    entry["failure_message"] = benchmark.failure_message.empty()
                                   ? OrderedJson(nullptr)
                                   : OrderedJson(benchmark.failure_message);
    OrderedJson metrics = OrderedJson::array();
    for (const MetricComparison& metric : benchmark.metrics) metrics.push_back(MetricJson(metric));
    entry["metrics"] = std::move(metrics);
    entry["notes"] = benchmark.notes;
    benchmarks.push_back(std::move(entry));
  }
  return benchmarks;
}

inline std::string FormatJsonWithDom(const ComparisonReport& report) {
  OrderedJson json;
  json["tool"] = "gpubench-compare";
  json["format_version"] = 1;
  json["exit_code"] = report.exit_code;
  json["gate"] = report.exit_code == kExitOk                 ? "pass"
                 : report.exit_code == kExitSettingsMismatch ? "settings_mismatch"
                 : report.exit_code == kExitNothingCompared  ? "nothing_compared"
                 : report.exit_code == kExitAllReused        ? "reused"
                                                             : "fail";
  json["nothing_compared"] =
      report.nothing_compared.empty() ? OrderedJson(nullptr) : OrderedJson(report.nothing_compared);
  json["baseline"] = {
      {"file", report.baseline_path},
      {"files", report.baseline_paths},
      {"benchmarks", report.baseline_benchmark_count},
      {"settings_fingerprint", OptionalString(report.settings.baseline_fingerprint)},
      {"cut_off", CutOffJson(report.baseline_cut_off)}};
  json["contender"] = {
      {"file", report.contender_path},
      {"benchmarks", report.contender_benchmark_count},
      {"settings_fingerprint", OptionalString(report.settings.contender_fingerprint)},
      {"cut_off", CutOffJson(report.contender_cut_off)}};
  OrderedJson thresholds = OrderedJson::object();
  for (const auto& [name, percent] : report.options.overrides.thresholds) {
    thresholds[name] = percent ? OrderedJson(*percent) : OrderedJson("off");
  }
  json["options"] = {
      {"alpha", report.options.alpha},
      {"unconfirmed", report.options.unconfirmed == UnconfirmedPolicy::kFail ? "fail" : "warn"},
      {"allow_settings_mismatch", report.options.allow_settings_mismatch},
      {"fail_on_missing", report.options.fail_on_missing},
      {"threshold_overrides", thresholds}};
  json["settings"] = {{"checked", report.settings.baseline_fingerprint.has_value() &&
                                      report.settings.contender_fingerprint.has_value()},
                      {"mismatch", report.settings.mismatch},
                      {"refused", report.refused_for_settings},
                      {"baseline_file", report.settings.baseline_path},
                      {"differences", DifferencesJson(report.settings.differences)},
                      {"notes", report.settings.notes}};
  OrderedJson prominent = OrderedJson::array();
  for (const ValueDifference& difference : report.device_differences) {
    if (difference.prominent) prominent.push_back(difference.key);
  }
  json["device_differences"] = DifferencesJson(report.device_differences);
  json["different_gpu_or_driver"] = !prominent.empty();
  const PhysicalGpu physical = report.physical_gpu.physical_gpu;
  json["different_physical_gpu"] = physical == PhysicalGpu::kDifferent ? OrderedJson(true)
                                   : physical == PhysicalGpu::kSame    ? OrderedJson(false)
                                                                       : OrderedJson(nullptr);
  json["warnings"] = report.warnings;
  const Summary& s = report.summary;
  json["summary"] = {{"compared", s.compared},
                     {"regressions", s.regressions},
                     {"unconfirmed_regressions", s.unconfirmed_regressions},
                     {"improvements", s.improvements},
                     {"unconfirmed_improvements", s.unconfirmed_improvements},
                     {"same", s.same},
                     {"report_only", s.report_only},
                     {"missing", s.missing},
                     {"new", s.added},
                     {"failed_in_contender", s.failed_in_contender},
                     {"failed_in_baseline", s.failed_in_baseline},
                     {"failed_in_both", s.failed_in_both},
                     {"throttled", s.throttled},
                     {counter::kGpuShared, s.shared},
                     {"failing", s.failing},
                     {"undecided", s.undecided},
                     {"reused", s.reused}};
  json["reuse"] = {{"contender_rows", report.reuse.contender_rows},
                   {"contender_reused_rows", report.reuse.contender_reused_rows},
                   {"baseline_reused_rows", report.reuse.baseline_reused_rows},
                   {"all_reused", report.reuse.AllReused()},
                   {"source", report.reuse.source.empty() ? OrderedJson(nullptr)
                                                          : OrderedJson(report.reuse.source)}};
  const Testing& t = report.testing;
  json["testing"] = {{"gated_tests", t.gated_tests},
                     {"history_tests", t.history_tests},
                     {"family_alpha", t.family_alpha},
                     {"per_test_alpha", t.per_test_alpha},
                     {"text", TestingLine(report)}};
  OrderedJson suite = {{"benchmarks", report.suite.benchmarks},
                       {"metric", counter::kRealTime},
                       {"geometric_mean_ratio", report.suite.geometric_mean}};
  if (report.suite.low && report.suite.high) {
    suite["interval_95_low"] = *report.suite.low;
    suite["interval_95_high"] = *report.suite.high;
  }
  json["suite"] = suite;
  json["benchmarks"] = BenchmarksJson(report);
  // Replace invalid UTF-8 in names rather than throwing while writing.
  return json.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

}  // namespace gpubench::tools::dom_reference
