#include "tools/export/run_table.hpp"

#include <algorithm>
#include <cctype>
#include <unordered_map>

#include "gpubench/counters.hpp"
#include "tools/base/csv.hpp"
#include "tools/gate/metric_policy.hpp"
#include "tools/gate/run_summary.hpp"

namespace gpubench::compare {
namespace {

using detail::Result;

// The parts of a GB name at '/', but not inside <...> or (...) (template arguments).
std::vector<std::string_view> NameParts(std::string_view name) {
  std::vector<std::string_view> parts;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (c == '<' || c == '(') ++depth;
    if ((c == '>' || c == ')') && depth > 0) --depth;
    if (c == '/' && depth == 0) {
      parts.push_back(name.substr(start, i - start));
      start = i + 1;
    }
  }
  parts.push_back(name.substr(start));
  return parts;
}

bool IsNumber(std::string_view text) {
  if (!text.empty() && (text.front() == '-' || text.front() == '+')) text.remove_prefix(1);
  if (text.empty()) return false;
  bool digit = false;
  for (char c : text) {
    if (std::isdigit(static_cast<unsigned char>(c))) {
      digit = true;
    } else if (c != '.' && c != 'e' && c != 'E' && c != '-' && c != '+') {
      return false;
    }
  }
  return digit;
}

bool StartsWith(std::string_view text, std::string_view prefix) {
  return text.size() >= prefix.size() && text.compare(0, prefix.size(), prefix) == 0;
}

// The attributes GB appends to an instance's name (benchmark_register.cc).
bool IsGbAttribute(std::string_view part) {
  static constexpr std::string_view kWhole[] = {"manual_time", "real_time", "process_time"};
  static constexpr std::string_view kKeyed[] = {
      "min_time:", "min_warmup_time:", "iterations:", "repeats:", "threads:", "complexity:"};
  for (std::string_view whole : kWhole) {
    if (part == whole) return true;
  }
  for (std::string_view keyed : kKeyed) {
    if (StartsWith(part, keyed)) return true;
  }
  return false;
}

// An argument part: "1048576", "-1" or a named argument "n:1024".
bool IsArgument(std::string_view part) {
  const std::size_t colon = part.find(':');
  return IsNumber(colon == std::string_view::npos ? part : part.substr(colon + 1));
}

std::optional<int> DeviceOfTag(std::string_view part) {
  constexpr std::string_view kTag = "gpu:";
  if (!StartsWith(part, kTag) || part.size() == kTag.size() || part.size() > kTag.size() + 6) {
    return std::nullopt;
  }
  int device = 0;
  for (char c : part.substr(kTag.size())) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    device = device * 10 + (c - '0');
  }
  return device;
}

std::string DirectionText(const MetricDescription& description) {
  if (description.direction != Direction::kUnknown) return DirectionName(description.direction);
  return description.known ? "neither" : "unknown";
}

// What every row of one counter ends with: its unit (or that of its cv), direction, gating and the
// run's settings, ready to append.
struct CounterColumns {
  std::string head;        // "counter,"
  std::string tail;        // ",unit,direction,gated,fingerprint,method_version,"
  std::string tail_of_cv;  // the same with unit "ratio"
};

constexpr std::size_t kFlushBytes = 1 << 20;

}  // namespace

BenchmarkNameParts SplitBenchmarkName(std::string_view name) {
  std::vector<std::string_view> parts = NameParts(name);
  while (parts.size() > 1 && IsGbAttribute(parts.back())) parts.pop_back();
  BenchmarkNameParts split;
  if (parts.size() > 1) {
    if (std::optional<int> device = DeviceOfTag(parts.back())) {
      split.gpu = device;
      parts.pop_back();
    }
  }
  std::size_t first_argument = 1;
  while (first_argument < parts.size() && !IsArgument(parts[first_argument])) ++first_argument;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    std::string& into = i < first_argument ? split.family : split.arguments;
    if (!into.empty()) into += '/';
    into.append(parts[i]);
  }
  return split;
}

Result<RunTableResult> WriteRunTable(const BenchmarkFile& run, const ExportOptions& options,
                                     const TextSink& sink) {
  const Result<std::vector<std::string>> selected =
      SelectExportMetrics(run, options, /*every_metric_by_default=*/true);
  if (!selected.ok()) return selected.status();
  const std::vector<std::string>& metrics = selected.value();

  std::string settings;
  AppendCsvField(settings, ContextOr(run, kSettingsFingerprintKey, ""));
  settings += ',';
  AppendCsvField(settings, ContextOr(run, "gpubench_method_version", ""));
  settings += ',';
  std::unordered_map<std::string, CounterColumns> columns;
  for (const std::string& metric : metrics) {
    const MetricDescription description = DescribeMetric(metric, run, options.overrides);
    CounterColumns& c = columns[metric];
    AppendCsvField(c.head, metric);
    c.head += ',';
    std::string after_unit = ",";
    AppendCsvField(after_unit, DirectionText(description));
    after_unit += ',';
    AppendCsvBool(after_unit, description.gated);
    after_unit += ',' + settings;
    c.tail = ",";
    AppendCsvField(c.tail, description.unit);
    c.tail += after_unit;
    c.tail_of_cv = ",ratio" + after_unit;
  }

  std::string out;
  for (std::size_t i = 0; i < kRunTableColumns.size(); ++i) {
    out += i == 0 ? "" : ",";
    out += kRunTableColumns[i];
  }
  out += '\n';
  RunTableResult result;
  std::string benchmark;  // "benchmark,family,arguments,gpu,"
  for (const BenchmarkRecord& record : run.benchmarks) {
    if (record.failed) {
      result.notes.push_back(
          "benchmark \"" + record.name + "\" " + (record.skipped ? "was skipped" : "failed") +
          (record.failure_message.empty() ? std::string() : " (" + record.failure_message + ")") +
          "; it has no values to export");
      continue;
    }
    const BenchmarkNameParts parts = SplitBenchmarkName(record.name);
    benchmark.clear();
    AppendCsvField(benchmark, record.name);
    benchmark += ',';
    AppendCsvField(benchmark, parts.family);
    benchmark += ',';
    AppendCsvField(benchmark, parts.arguments);
    benchmark += ',';
    if (parts.gpu) benchmark += std::to_string(*parts.gpu);
    benchmark += ',';
    const std::string_view recovered = record.recovered ? "true\n" : "false\n";
    const std::size_t rows_before = result.rows;
    const std::size_t repetitions = record.RepetitionCount();
    for (const std::string& metric : metrics) {
      const MetricSeries* series = record.aggregates_only ? nullptr : record.FindMetric(metric);
      if (!series) continue;
      const CounterColumns& c = columns.at(metric);
      // A counter missing from some repetitions cannot be matched to their indices.
      const bool indexed = series->values.size() == repetitions &&
                           record.seen_repetition_indices.size() == repetitions;
      if (!indexed) {
        result.notes.push_back("benchmark \"" + record.name + "\": " + metric + " is in " +
                               std::to_string(series->values.size()) + " of " +
                               std::to_string(repetitions) +
                               " repetitions; its rows have no repetition_index");
      }
      for (std::size_t r = 0; r < series->values.size(); ++r) {
        out += benchmark;
        out += "iteration,";
        if (indexed) out += std::to_string(record.seen_repetition_indices[r]);
        out += ",,";
        out += c.head;
        AppendCsvNumber(out, series->values[r]);
        out += c.tail;
        out += recovered;
        ++result.rows;
      }
    }
    for (const AggregateRow& aggregate : record.aggregates) {
      for (const std::string& metric : metrics) {
        const auto found =
            std::find_if(aggregate.metrics.begin(), aggregate.metrics.end(),
                         [&](const MetricSeries& series) { return series.name == metric; });
        if (found == aggregate.metrics.end() || found->values.empty()) continue;
        const CounterColumns& c = columns.at(metric);
        out += benchmark;
        out += "aggregate,,";
        AppendCsvField(out, aggregate.name);
        out += ',';
        out += c.head;
        AppendCsvNumber(out, found->values.front());
        out += aggregate.ratio ? c.tail_of_cv : c.tail;
        out += recovered;
        ++result.rows;
      }
    }
    if (result.rows > rows_before) ++result.benchmarks;
    if (out.size() >= kFlushBytes) {
      sink(out);
      out.clear();
    }
  }
  sink(out);
  return result;
}

}  // namespace gpubench::compare
