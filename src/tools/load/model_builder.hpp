// The model builder: turns the rows of a Google Benchmark JSON file, as the SAX layer
// (sax_handler.hpp) collects them, into a BenchmarkFile, validating each row.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/status.hpp"
#include "tools/load/gb_rows.hpp"
#include "tools/load/model.hpp"

namespace gpubench::tools {

/// Builds the BenchmarkFile of one input, one row at a time.
class ModelBuilder {
 public:
  /// `source` (usually the path) starts every message; `keys` names the counters of the rows.
  ModelBuilder(const std::string& source, const rows::RowKeys& keys)
      : source_(source), keys_(keys) {
    file_.path = source;
  }

  /// The file's context entries, filled by the SAX layer.
  std::map<std::string, std::string>& context() { return file_.context; }

  /// Adds one finished row of the "benchmarks" array; fails (kInvalidInput) with a message that
  /// names the row when it is not a valid GB row.
  detail::Status AddRow(rows::RowState& row);

  /// A field of a row that GB does not write and that holds no number (a string, true/false,
  /// null, an object or an array; `kind` says which): it is no counter. The file's warnings say
  /// so once per field, so that a dashboard column does not go missing without a word.
  void NoteNonNumericField(std::uint32_t key_id, const char* kind);

  /// The file, once every row is added: benchmarks that only have aggregate rows get their
  /// median, incomplete repetitions a warning. Fails when the input had no "benchmarks" array.
  detail::Result<BenchmarkFile> Finish(bool saw_benchmarks);

 private:
  using RowState = rows::RowState;

  /// A mean/median aggregate kept in case the file has no iteration rows for its benchmark
  /// (--benchmark_report_aggregates_only=true).
  struct AggregateFallback {
    std::size_t row_index = 0;
    bool is_median = false;
    int repetitions = 0;
    std::string label;
    std::vector<MetricSeries> metrics;
  };

  static std::string RowLabel(const RowState& row);
  detail::Status RowError(const RowState& row, const std::string& problem) const;
  /// `ratio`: an aggregate GB reports as a ratio (cv), whose times are checked but not scaled.
  detail::Status NormalisedTimes(const RowState& row, double* real_ns, double* cpu_ns,
                                 bool ratio = false) const;
  detail::Status AddIterationRow(const RowState& row);
  detail::Status AddAggregateRow(const RowState& row);
  void AppendValues(const RowState& row, std::vector<MetricSeries>& metrics, double real_ns,
                    double cpu_ns) const;
  static MetricSeries& FindOrAddSeries(const RowState& row, std::vector<MetricSeries>& metrics,
                                       std::string_view name);
  std::size_t FindRecord(const RowState& row);
  void WarnOfNonNumericFields();

  const std::string& source_;
  const rows::RowKeys& keys_;
  BenchmarkFile file_;
  std::size_t last_record_ = std::string::npos;
  /// Per record: empty while its repetition indices came as 0, 1, ... (a duplicate is then one
  /// comparison), else which indices were seen. Either way a benchmark with 100,000 repetitions
  /// loads in a fraction of a second, not minutes of searching.
  std::vector<std::vector<bool>> seen_out_of_order_;
  std::vector<AggregateFallback> fallbacks_;
  /// The aggregate rows of benchmarks without iteration rows (yet), by run_name; moved to their
  /// record when the file is finished.
  std::unordered_map<std::string, std::vector<AggregateRow>> aggregates_;
  /// BenchmarkFile::aggregate_metrics's index of each row key id (kNoIndex: none yet).
  std::vector<std::uint32_t> aggregate_index_;
  AggregateRow MakeAggregateRow(const RowState& row, double real, double cpu);
  struct NonNumericField {
    std::uint32_t key_id;
    const char* kind;  ///< of its first row
    std::size_t rows;
  };
  std::vector<NonNumericField> non_numeric_fields_;
  static constexpr std::uint32_t kNoSlot = 0xFFFFFFFF;
  std::vector<std::uint32_t> non_numeric_slot_;  ///< by key id: its index in non_numeric_fields_
  std::vector<std::string> fallback_names_;
  std::unordered_map<std::string, std::size_t> fallback_index_;
};

}  // namespace gpubench::tools
