#include "tools/compare/report_csv.hpp"

#include <ostream>
#include <string>
#include <vector>

#include "tools/base/csv.hpp"
#include "tools/base/text.hpp"

namespace gpubench::tools {
namespace {

constexpr std::size_t kFlushBytes = 1 << 20;

void Field(std::string& out, std::string_view text) {
  AppendCsvField(out, text);
  out += ',';
}
void Number(std::string& out, double value) {
  AppendCsvNumber(out, value);
  out += ',';
}
void Count(std::string& out, std::size_t value) {
  out += std::to_string(value);
  out += ',';
}
void Bool(std::string& out, bool value) {
  AppendCsvBool(out, value);
  out += ',';
}
// A list in one field: numbers separated by ';'.
void Values(std::string& out, const std::vector<double>& values) {
  std::string list;
  for (double value : values) {
    if (!list.empty()) list += ';';
    AppendCsvNumber(list, value);
  }
  Field(out, list);
}
// Notes in one field, one per line.
void Notes(std::string& out, const std::vector<std::string>& notes) {
  Field(out, Join(notes, "\n"));
}

// The benchmark's columns, the same on each of its rows.
std::string BenchmarkColumns(const BenchmarkComparison& benchmark) {
  std::string out;
  Field(out, benchmark.name);
  Field(out, StatusName(benchmark.status));
  Field(out, benchmark.status == BenchmarkStatus::kCompared ? VerdictName(benchmark.verdict) : "");
  Bool(out, benchmark.worse);
  Bool(out, benchmark.fails_gate);
  Count(out, benchmark.baseline_repetitions);
  Count(out, benchmark.contender_repetitions);
  Count(out, benchmark.baseline_reused);
  Count(out, benchmark.contender_reused);
  Bool(out, benchmark.throttled_baseline);
  Bool(out, benchmark.throttled_contender);
  Bool(out, benchmark.shared_baseline);
  Bool(out, benchmark.shared_contender);
  Field(out, benchmark.failure_message);
  Notes(out, benchmark.notes);
  return out;
}

void AppendMetric(std::string& out, const MetricComparison& metric) {
  Field(out, metric.name);
  Field(out, metric.is_time ? std::string_view("ns") : std::string_view(metric.policy.unit));
  Field(out, DirectionName(metric.policy.direction));
  Bool(out, metric.policy.threshold_percent.has_value());
  if (metric.applied_threshold_percent) {
    Number(out, *metric.applied_threshold_percent);
  } else {
    out += ',';
  }
  Field(out, metric.threshold_source);
  Number(out, metric.applied_floor);
  Number(out, metric.noise_percent);
  Count(out, metric.history_runs);
  Number(out, metric.between_run_sd_percent);
  Bool(out, metric.policy.statistical);
  Field(out, metric.policy.rule);
  Number(out, metric.baseline_median);
  Values(out, metric.baseline_values);
  Number(out, metric.contender_median);
  Values(out, metric.contender_values);
  Number(out, metric.change_percent);
  Field(out, FormatChangePercent(metric.change_percent));
  if (metric.p_value) {
    Number(out, *metric.p_value);
  } else {
    out += ',';
  }
  Field(out, TestName(metric));
  Field(out, VerdictName(metric.verdict));
  Bool(out, metric.worse);
  Bool(out, metric.fails_gate);
  AppendCsvField(out, Join(metric.notes, "\n"));
  out += '\n';
}

}  // namespace

const char* TestName(const MetricComparison& metric) {
  if (metric.history_runs > 0) return "history_prediction";
  if (!metric.test_method) return "none";
  return *metric.test_method == MannWhitneyMethod::kExact ? "mann_whitney_exact"
                                                          : "mann_whitney_asymptotic";
}

void WriteComparisonCsv(const ComparisonReport& report, std::ostream& out) {
  std::string text;
  for (std::size_t i = 0; i < kComparisonTableColumns.size(); ++i) {
    text += i == 0 ? "" : ",";
    text += kComparisonTableColumns[i];
  }
  text += '\n';
  // A benchmark without metrics: the metric's text and numbers empty, its flags false and its
  // history_runs 0, so that pandas keeps those columns bool and int.
  constexpr std::string_view kNoMetric = ",,,false,,,,,0,,false,,,,,,,,,,,false,false,\n";
  for (const BenchmarkComparison& benchmark : report.benchmarks) {
    const std::string columns = BenchmarkColumns(benchmark);
    if (benchmark.metrics.empty()) text.append(columns).append(kNoMetric);
    for (const MetricComparison& metric : benchmark.metrics) {
      text += columns;
      AppendMetric(text, metric);
    }
    if (text.size() >= kFlushBytes) {
      out << text;
      text.clear();
    }
  }
  out << text;
}

}  // namespace gpubench::tools
