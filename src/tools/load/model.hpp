// In-memory model of one Google Benchmark JSON file, reduced to what the
// comparison needs: per-benchmark, per-repetition values of every metric.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace gpubench::tools {

/// Values of one metric, one per repetition. Times are normalised to ns.
struct MetricSeries {
  std::string name;
  std::vector<double> values;
};

/// One aggregate row of a benchmark as the file has it: GB's mean, median, stddev, cv, or a
/// statistic of the user's. Times are in ns except in a statistic GB reports as a ratio
/// (aggregate_unit "percentage": cv), whose values stay ratios. Kept compact (the gate never
/// reads them; a 10,000-benchmark file has 40,000): each value names its metric by index into
/// BenchmarkFile::aggregate_metrics.
struct AggregateRow {
  std::string name;    ///< aggregate_name
  bool ratio = false;  ///< aggregate_unit "percentage"
  /// (index into BenchmarkFile::aggregate_metrics, value): real_time, cpu_time, then counters.
  std::vector<std::pair<std::uint32_t, double>> values;
};

/// One benchmark (one GB "run_name"), gathering its per-repetition rows.
struct BenchmarkRecord {
  std::string name;
  std::size_t first_row = 0;  ///< index into the file's "benchmarks" array
  /// Declared by GB in every row; 0 when the file does not say.
  int declared_repetitions = 0;
  std::vector<int> seen_repetition_indices;
  /// The repetition_index of each row that errored or was skipped (in seen_repetition_indices
  /// too; such rows carry no values).
  std::vector<int> failed_repetition_indices;
  bool failed = false;   ///< error_occurred or skipped in at least one repetition
  bool skipped = false;  ///< failure came from SkipWithMessage, not an error
  std::string failure_message;
  /// True when the file holds only aggregate rows for this benchmark
  /// (--benchmark_report_aggregates_only); values then hold one median.
  bool aggregates_only = false;
  std::string label;
  /// real_time and cpu_time first (when present), then counters in file order.
  std::vector<MetricSeries> metrics;
  /// The benchmark's aggregate rows that did not error, in file order.
  std::vector<AggregateRow> aggregates;
  /// From a file cut off mid-write: its rows are those complete before the cut.
  bool recovered = false;

  const MetricSeries* FindMetric(std::string_view metric_name) const {
    for (const MetricSeries& series : metrics) {
      if (series.name == metric_name) return &series;
    }
    return nullptr;
  }
  /// Number of repetitions that carry values (errored rows carry none).
  std::size_t RepetitionCount() const {
    return metrics.empty() ? 0 : metrics.front().values.size();
  }
};

/// An input file that ends before Google Benchmark finished writing it: the run was killed (e.g.
/// by a CI timeout) or is still running. The loader keeps the complete rows before the cut and
/// drops a partial last row.
struct CutOffFile {
  std::string path;
  std::size_t bytes = 0;                 ///< the file's size: where it was cut
  std::size_t rows_recovered = 0;        ///< complete rows of "benchmarks" before the cut
  std::size_t benchmarks_recovered = 0;  ///< the benchmarks those rows belong to

  bool operator==(const CutOffFile& other) const {
    return path == other.path && bytes == other.bytes && rows_recovered == other.rows_recovered &&
           benchmarks_recovered == other.benchmarks_recovered;
  }
};

struct BenchmarkFile {
  std::string path;  ///< as given by the user, used in every message
  /// Context entries; non-string values are kept as their JSON text.
  std::map<std::string, std::string> context;
  std::vector<BenchmarkRecord> benchmarks;  ///< in first-appearance order
  /// The metric names AggregateRow::values index: real_time, cpu_time, then the counters of
  /// aggregate rows in order of first appearance.
  std::vector<std::string> aggregate_metrics;
  std::unordered_map<std::string, std::size_t> index_by_name;
  std::vector<std::string> warnings;
  /// Empty for a complete file; an entry per input file that was cut off mid-write (LoadRun
  /// merges the shards of a run, so there may be several).
  std::vector<CutOffFile> cut_off;

  const BenchmarkRecord* Find(std::string_view name) const {
    auto it = index_by_name.find(std::string(name));
    return it == index_by_name.end() ? nullptr : &benchmarks[it->second];
  }
  const std::string* ContextValue(std::string_view key) const {
    auto it = context.find(std::string(key));
    return it == context.end() ? nullptr : &it->second;
  }
};

}  // namespace gpubench::tools
