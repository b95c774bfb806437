#include "tools/export/run_table.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iterator>

#include "common/format.hpp"
#include "gpubench/counters.hpp"
#include "schema/context_keys.hpp"
#include "schema/counter_table.hpp"
#include "tools/base/csv.hpp"
#include "tools/base/halves.hpp"
#include "tools/gate/metric_policy.hpp"
#include "tools/gate/run_summary.hpp"

namespace gpubench::tools {
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
  static constexpr std::string_view kWhole[] = {"manual_time", counter::kRealTime, "process_time"};
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
  CodeKind code = CodeKind::kNone;
};

// The shared, read-only parts of the table: the metrics, each one's columns and its index into
// the file's aggregate metrics.
struct TableColumns {
  const std::vector<std::string>& metrics;
  const std::vector<CounterColumns>& columns;
  const std::vector<std::uint32_t>& aggregate_index;
};

// What one thread wrote of a round.
struct TablePart {
  std::string out;
  std::vector<std::string> notes;
  std::size_t rows = 0, benchmarks = 0;
};

constexpr std::size_t kBenchmarksPerRound = 512;

// The repetition_index of each repetition that carries values: those seen, less the failed.
std::vector<int> ValuedRepetitionIndices(const BenchmarkRecord& record) {
  if (record.failed_repetition_indices.empty()) return record.seen_repetition_indices;
  std::vector<int> failed = record.failed_repetition_indices;
  std::sort(failed.begin(), failed.end());  // a search per repetition stays O(log n)
  std::vector<int> valued;
  valued.reserve(record.seen_repetition_indices.size());
  for (int index : record.seen_repetition_indices) {
    if (!std::binary_search(failed.begin(), failed.end(), index)) valued.push_back(index);
  }
  return valued;
}

// "3" or "3, 7 and 9".
std::string IndexList(const std::vector<int>& indices) {
  std::string list;
  for (std::size_t i = 0; i < indices.size(); ++i) {
    if (i > 0) list += i + 1 == indices.size() ? " and " : ", ";
    list += std::to_string(indices[i]);
  }
  return list;
}

void AppendRecordRows(const TableColumns& table, const BenchmarkRecord& record, TablePart& part) {
  const std::size_t repetitions = record.RepetitionCount();
  if (record.failed) {
    const std::string message =
        record.failure_message.empty() ? std::string() : " (" + record.failure_message + ")";
    if (repetitions == 0) {
      part.notes.push_back("benchmark \"" + record.name + "\" " +
                           (record.skipped ? "was skipped" : "failed") + message +
                           "; it has no values to export");
      return;
    }
    // The repetitions that ran are data of their own: a table of repetitions keeps them.
    const bool one = record.failed_repetition_indices.size() == 1;
    part.notes.push_back(
        "benchmark \"" + record.name + "\": repetition" + (one ? " " : "s ") +
        IndexList(record.failed_repetition_indices) + " " +
        (record.skipped ? (one ? "was skipped" : "were skipped") : "failed") + message +
        (repetitions == 1
             ? "; the other repetition is exported"
             : "; the other " + std::to_string(repetitions) + " repetitions are exported"));
  }
  const BenchmarkNameParts parts = SplitBenchmarkName(record.name);
  std::string benchmark;  // "benchmark,family,arguments,gpu,"
  AppendCsvField(benchmark, record.name);
  benchmark += ',';
  AppendCsvField(benchmark, parts.family);
  benchmark += ',';
  AppendCsvField(benchmark, parts.arguments);
  benchmark += ',';
  if (parts.gpu) benchmark += std::to_string(*parts.gpu);
  benchmark += ',';
  const std::string_view recovered = record.recovered ? "true," : "false,";
  const std::size_t rows_before = part.rows;
  const std::vector<int> indices = ValuedRepetitionIndices(record);
  // The reuse column: each repetition's reuse_status by name ("reused": the values are an
  // earlier run's), on every row of that repetition; empty without the counter.
  const MetricSeries* reuse_status =
      record.aggregates_only ? nullptr : record.FindMetric(counter::kReuseStatus);
  if (reuse_status != nullptr && reuse_status->values.size() != repetitions) reuse_status = nullptr;
  std::vector<std::string> reuse_cells(repetitions, "\n");
  for (std::size_t r = 0; reuse_status != nullptr && r < repetitions; ++r) {
    std::string cell;
    AppendCsvField(cell, CodeText(CodeKind::kReuse, reuse_status->values[r]));
    reuse_cells[r] = cell + '\n';
  }
  std::string& out = part.out;
  for (std::size_t m = 0; m < table.metrics.size(); ++m) {
    const std::string& metric = table.metrics[m];
    const MetricSeries* series = record.aggregates_only ? nullptr : record.FindMetric(metric);
    if (!series) continue;
    const CounterColumns& c = table.columns[m];
    // A counter missing from some repetitions cannot be matched to their indices.
    const bool indexed = series->values.size() == repetitions && indices.size() == repetitions;
    if (!indexed) {
      part.notes.push_back("benchmark \"" + record.name + "\": " + metric + " is in " +
                           std::to_string(series->values.size()) + " of " +
                           std::to_string(repetitions) +
                           " repetitions; its rows have no repetition_index");
    }
    for (std::size_t r = 0; r < series->values.size(); ++r) {
      out += benchmark;
      out += "iteration,";
      if (indexed) out += std::to_string(indices[r]);
      out += ",,";
      out += c.head;
      // A code's number is no quantity: value stays empty, so that no mean of the column counts it.
      if (c.code == CodeKind::kNone) {
        AppendCsvNumber(out, series->values[r]);
        out += ',';
      } else {
        out += ',';
        AppendCsvField(out, CodeText(c.code, series->values[r]));
      }
      out += c.tail;
      out += recovered;
      out += indexed ? reuse_cells[r] : std::string("\n");
      ++part.rows;
    }
  }
  // An aggregate of repetitions that were all reused is the earlier run's aggregate.
  const bool all_reused = reuse_status != nullptr && repetitions > 0 &&
                          std::all_of(reuse_status->values.begin(), reuse_status->values.end(),
                                      [](double v) { return v == kReuseStatusReused; });
  const std::string_view aggregate_reuse = all_reused ? "reused\n" : "\n";
  for (const AggregateRow& aggregate : record.aggregates) {
    for (std::size_t m = 0; m < table.metrics.size(); ++m) {
      // GB's mean, median, stddev and cv of codes (5.5 of 1 and 6 x 9) are no codes at all.
      if (table.columns[m].code != CodeKind::kNone) continue;
      const std::uint32_t index = table.aggregate_index[m];
      const auto found = std::find_if(aggregate.values.begin(), aggregate.values.end(),
                                      [&](const auto& value) { return value.first == index; });
      if (found == aggregate.values.end()) continue;
      const CounterColumns& c = table.columns[m];
      out += benchmark;
      out += "aggregate,,";
      AppendCsvField(out, aggregate.name);
      out += ',';
      out += c.head;
      AppendCsvNumber(out, found->second);
      out += ',';
      out += aggregate.ratio ? c.tail_of_cv : c.tail;
      out += recovered;
      out += aggregate_reuse;
      ++part.rows;
    }
  }
  if (part.rows > rows_before) ++part.benchmarks;
}

}  // namespace

CodeKind CodeKindOfUnit(std::string_view unit) {
  if (unit == "reason") return CodeKind::kStopReason;
  if (unit == "reasons") return CodeKind::kClockEventReasons;
  if (unit == "reuse") return CodeKind::kReuse;
  if (unit == "signature") return CodeKind::kSignature;
  if (unit == "unix s") return CodeKind::kUnixTime;
  return CodeKind::kNone;
}

std::string CodeText(CodeKind kind, double value) {
  const char* unit = kind == CodeKind::kStopReason          ? "reason"
                     : kind == CodeKind::kClockEventReasons ? "reasons"
                     : kind == CodeKind::kReuse             ? "reuse"
                     : kind == CodeKind::kSignature         ? "signature"
                     : kind == CodeKind::kUnixTime          ? "unix s"
                                                            : "";
  if (std::optional<std::string> words = gpubench::detail::CodeInWords(unit, value)) {
    return *words;
  }
  std::string number;  // not a code this version names: the number as it is
  AppendCsvNumber(number, value);
  return number;
}

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
  AppendCsvField(settings, ContextOr(run, context_key::kSettingsFingerprint, ""));
  settings += ',';
  AppendCsvField(settings, ContextOr(run, context_key::kMethodVersion, ""));
  settings += ',';
  std::vector<CounterColumns> columns(metrics.size());
  for (std::size_t m = 0; m < metrics.size(); ++m) {
    const std::string& metric = metrics[m];
    const MetricDescription description = DescribeMetric(metric, run, options.overrides);
    CounterColumns& c = columns[m];
    c.code = CodeKindOfUnit(description.unit);
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

  // Each exported metric's index into the file's aggregate metrics (none: never matches).
  std::vector<std::uint32_t> aggregate_index;
  for (const std::string& metric : metrics) {
    const auto at = std::find(run.aggregate_metrics.begin(), run.aggregate_metrics.end(), metric);
    aggregate_index.push_back(at == run.aggregate_metrics.end()
                                  ? 0xFFFFFFFF
                                  : static_cast<std::uint32_t>(at - run.aggregate_metrics.begin()));
  }

  std::string out;
  for (std::size_t i = 0; i < kRunTableColumns.size(); ++i) {
    out += i == 0 ? "" : ",";
    out += kRunTableColumns[i];
  }
  out += '\n';
  // Rounds of benchmarks, each written in two halves on two threads (halves.hpp), then sent in
  // order: 10,000 benchmarks x 14 rows x 16 metrics are 2 million rows.
  RunTableResult result;
  const TableColumns table{metrics, columns, aggregate_index};
  TablePart parts[2];
  sink(out);  // the header
  InRoundsOnTwoHalves(
      run.benchmarks.size(), kBenchmarksPerRound,
      [&](int half, std::size_t i) { AppendRecordRows(table, run.benchmarks[i], parts[half]); },
      [&] {
        for (TablePart& part : parts) {
          sink(part.out);
          result.rows += part.rows;
          result.benchmarks += part.benchmarks;
          result.notes.insert(result.notes.end(), std::make_move_iterator(part.notes.begin()),
                              std::make_move_iterator(part.notes.end()));
          part = TablePart{};
        }
      });
  return result;
}

}  // namespace gpubench::tools
