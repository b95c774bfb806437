#include "tools/load/model_builder.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "schema/counter_table.hpp"

namespace gpubench::tools {

using detail::Result;
using detail::Status;
using rows::FormatDouble;
using rows::kExpectedInput;
using rows::kMaxRepetitions;
using rows::NanosecondsPerUnit;
using rows::Quoted;

std::string ModelBuilder::RowLabel(const RowState& row) {
  std::string where = "entry " + std::to_string(row.index) + " of \"benchmarks\"";
  if (row.has_name) return "benchmark " + Quoted(row.name) + " (" + where + ")";
  return where;
}

Status ModelBuilder::RowError(const RowState& row, const std::string& problem) const {
  return Status::InvalidInput(source_ + ": " + RowLabel(row) + ": " + problem);
}

// Checks the time fields of a row with values and returns them in ns.
Status ModelBuilder::NormalisedTimes(const RowState& row, double* real_ns, double* cpu_ns,
                                     bool ratio) const {
  if (!row.has_time_unit) {
    return RowError(row,
                    "field \"time_unit\" is missing; every timed row needs one of \"ns\", \"us\", "
                    "\"ms\", \"s\"");
  }
  auto scale = NanosecondsPerUnit(row.time_unit);
  if (!scale) {
    return RowError(row, "field \"time_unit\" is " + Quoted(row.time_unit) +
                             "; expected one of \"ns\", \"us\", \"ms\", \"s\"");
  }
  if (!row.has_real_time) {
    return RowError(row,
                    "field \"real_time\" is missing; every row that did not error needs a numeric "
                    "real_time");
  }
  for (int i = 0; i < 2; ++i) {
    const bool is_real = i == 0;
    if (!is_real && !row.has_cpu_time) continue;
    const double value = is_real ? row.real_time : row.cpu_time;
    if (ratio && std::isnan(value)) continue;  // GB's cv of values that are all 0
    const char* field = is_real ? counter::kRealTime : counter::kCpuTime;
    if (!std::isfinite(value)) {
      return RowError(row, std::string("field \"") + field + "\" is " + FormatDouble(value) +
                               "; a time must be a finite number (mark failed runs with "
                               "state.SkipWithError instead)");
    }
    if (value < 0) {
      return RowError(row, std::string("field \"") + field + "\" is negative (" +
                               FormatDouble(value) + "); a time must be >= 0");
    }
  }
  const double factor = ratio ? 1.0 : *scale;
  *real_ns = row.real_time * factor;
  *cpu_ns = row.has_cpu_time ? row.cpu_time * factor : 0;
  // 1e300 s is finite, its nanoseconds are not: every tool would show "inf" for a number that
  // was never measured.
  if (!ratio && (!std::isfinite(*real_ns) || !std::isfinite(*cpu_ns))) {
    const bool real = !std::isfinite(*real_ns);
    return RowError(row, std::string("field \"") + (real ? counter::kRealTime : counter::kCpuTime) +
                             "\" is " + FormatDouble(real ? row.real_time : row.cpu_time) + " " +
                             row.time_unit +
                             ", more nanoseconds than a number holds; a time must be a finite "
                             "number of nanoseconds");
  }
  return Status::Ok();
}

Status ModelBuilder::AddRow(RowState& row) {
  if (!row.first_problem.empty()) return RowError(row, row.first_problem);
  if (!row.has_name) {
    return RowError(row, "has no \"name\" string; every Google Benchmark row has a name");
  }
  if (row.name.find('\0') != std::string::npos) {
    // pandas cuts such a name at the NUL and Python's csv refuses the line: two benchmarks could
    // become one in a dashboard.
    return RowError(row,
                    "has a NUL byte (\\u0000) in its name, which CSV readers cut or refuse; name "
                    "the benchmark without one");
  }
  const bool is_aggregate = row.has_run_type ? row.run_type == "aggregate" : row.has_aggregate_name;
  if (row.has_run_type && row.run_type != "aggregate" && row.run_type != "iteration") {
    return RowError(row, "field \"run_type\" is " + Quoted(row.run_type) +
                             "; expected \"iteration\" or \"aggregate\"");
  }
  if (!row.has_run_name) {
    row.run_name = row.name;
    // Old GB versions: the aggregate's name is run_name + "_" + aggregate_name.
    const std::string suffix = "_" + row.aggregate_name;
    if (is_aggregate && row.has_aggregate_name && row.name.size() > suffix.size() &&
        row.name.compare(row.name.size() - suffix.size(), suffix.size(), suffix) == 0) {
      row.run_name.resize(row.name.size() - suffix.size());
    }
  }
  if (row.has_repetitions && (row.repetitions < 1 || row.repetitions > kMaxRepetitions ||
                              row.repetitions != std::floor(row.repetitions))) {
    return RowError(row, "field \"repetitions\" is " + FormatDouble(row.repetitions) +
                             "; expected a whole number between 1 and " +
                             std::to_string(kMaxRepetitions));
  }
  return is_aggregate ? AddAggregateRow(row) : AddIterationRow(row);
}

void ModelBuilder::AppendValues(const RowState& row, std::vector<MetricSeries>& metrics,
                                double real_ns, double cpu_ns) const {
  if (metrics.empty()) {
    metrics.reserve(2 + row.counter_count);
    metrics.push_back({std::string(counter::kRealTime), {}});
    if (row.has_cpu_time) metrics.push_back({std::string(counter::kCpuTime), {}});
  }
  if (metrics.front().values.empty() && row.has_repetitions && row.repetitions <= 1000) {
    metrics.front().values.reserve(static_cast<std::size_t>(row.repetitions));
  }
  metrics.front().values.push_back(real_ns);
  if (row.has_cpu_time) FindOrAddSeries(row, metrics, counter::kCpuTime).values.push_back(cpu_ns);
  // Rows of a benchmark usually list the same counters in the same order,
  // right after real_time and cpu_time: try that place first.
  const std::size_t first_counter = row.has_cpu_time ? 2 : 1;
  for (std::size_t i = 0; i < row.counter_count; ++i) {
    const std::string& name = keys_.name(row.counters[i].first);
    const std::size_t guess = first_counter + i;
    MetricSeries& series = guess < metrics.size() && metrics[guess].name == name
                               ? metrics[guess]
                               : FindOrAddSeries(row, metrics, name);
    series.values.push_back(row.counters[i].second);
  }
}

MetricSeries& ModelBuilder::FindOrAddSeries(const RowState& row, std::vector<MetricSeries>& metrics,
                                            std::string_view name) {
  for (MetricSeries& series : metrics) {
    if (series.name == name) return series;
  }
  metrics.push_back({std::string(name), {}});
  // Avoid regrowing each series once per repetition.
  if (row.has_repetitions && row.repetitions <= 1000) {
    metrics.back().values.reserve(static_cast<std::size_t>(row.repetitions));
  }
  return metrics.back();
}

// Index of the record named row.run_name, or npos. Rows of a benchmark
// are usually adjacent, so the previous row's record is tried first.
std::size_t ModelBuilder::FindRecord(const RowState& row) {
  if (last_record_ < file_.benchmarks.size() &&
      file_.benchmarks[last_record_].name == row.run_name) {
    return last_record_;
  }
  auto it = file_.index_by_name.find(row.run_name);
  if (it == file_.index_by_name.end()) return std::string::npos;
  return last_record_ = it->second;
}

Status ModelBuilder::AddIterationRow(const RowState& row) {
  std::size_t record_index = FindRecord(row);
  const bool inserted = record_index == std::string::npos;
  if (inserted) {
    record_index = file_.benchmarks.size();
    file_.index_by_name.emplace(row.run_name, record_index);
    file_.benchmarks.emplace_back();
    file_.benchmarks.back().name = row.run_name;
    file_.benchmarks.back().first_row = row.index;
    last_record_ = record_index;
  }
  BenchmarkRecord& record = file_.benchmarks[record_index];
  const int repetitions = row.has_repetitions ? static_cast<int>(row.repetitions) : 0;
  constexpr const char* duplicate_hint =
      "; every benchmark name must be unique within a file (give each registration its own "
      "name or arguments, and do not concatenate outputs of several runs)";
  const std::size_t rows_so_far = record.seen_repetition_indices.size();
  if (!inserted && repetitions != record.declared_repetitions) {
    return RowError(row, "appears again with " + std::to_string(repetitions) +
                             " repetitions after entry " + std::to_string(record.first_row) +
                             " declared " + std::to_string(record.declared_repetitions) +
                             duplicate_hint);
  }
  record.declared_repetitions = repetitions;
  int index = static_cast<int>(rows_so_far);
  if (row.has_repetition_index) {
    if (row.repetition_index < 0 || row.repetition_index != std::floor(row.repetition_index) ||
        (repetitions > 0 && row.repetition_index >= repetitions)) {
      return RowError(row, "field \"repetition_index\" is " + FormatDouble(row.repetition_index) +
                               "; expected a whole number from 0 to repetitions - 1");
    }
    index = static_cast<int>(row.repetition_index);
  }
  if (seen_out_of_order_.size() <= record_index) seen_out_of_order_.resize(record_index + 1);
  std::vector<bool>& seen = seen_out_of_order_[record_index];
  const auto seen_before = [&] {
    if (seen.empty()) return static_cast<std::size_t>(index) < rows_so_far;  // 0 .. rows_so_far - 1
    return static_cast<bool>(seen[index]);
  };
  const bool duplicate = repetitions <= 1 ? rows_so_far > 0
                                          : (rows_so_far >= static_cast<std::size_t>(repetitions) ||
                                             (row.has_repetition_index && seen_before()));
  if (duplicate) {
    return RowError(
        row, "is a duplicate: the name already appeared at entry " +
                 std::to_string(record.first_row) +
                 (repetitions > 1 ? " with the same repetition_index " + std::to_string(index)
                                  : std::string(" and the file has no repetitions")) +
                 duplicate_hint);
  }
  if (repetitions > 1) {
    if (seen.empty() && static_cast<std::size_t>(index) != rows_so_far) {
      seen.assign(repetitions, false);  // index < repetitions, checked above
      for (std::size_t i = 0; i < rows_so_far; ++i) seen[i] = true;
    }
    if (!seen.empty()) seen[index] = true;
  }
  record.seen_repetition_indices.push_back(index);
  if (row.has_label && record.label.empty()) record.label = row.label;
  if (row.error_occurred || row.skipped) {
    record.failed_repetition_indices.push_back(index);
    if (!record.failed) {
      record.failed = true;
      record.skipped = !row.error_occurred;
      record.failure_message = row.message;
    }
    return Status::Ok();
  }
  double real_ns = 0, cpu_ns = 0;
  GPUBENCH_RETURN_IF_ERROR(NormalisedTimes(row, &real_ns, &cpu_ns));
  AppendValues(row, record.metrics, real_ns, cpu_ns);
  return Status::Ok();
}

AggregateRow ModelBuilder::MakeAggregateRow(const RowState& row, double real, double cpu) {
  constexpr std::uint32_t kNoIndex = 0xFFFFFFFF;
  if (file_.aggregate_metrics.empty()) {
    file_.aggregate_metrics = {std::string(counter::kRealTime), std::string(counter::kCpuTime)};
  }
  AggregateRow aggregate;
  aggregate.name = row.aggregate_name;
  aggregate.ratio = row.has_aggregate_unit && row.aggregate_unit == "percentage";
  aggregate.values.reserve(2 + row.counter_count);
  aggregate.values.emplace_back(0, real);
  if (row.has_cpu_time) aggregate.values.emplace_back(1, cpu);
  for (std::size_t i = 0; i < row.counter_count; ++i) {
    const std::uint32_t key = row.counters[i].first;
    if (key >= aggregate_index_.size()) aggregate_index_.resize(key + 1, kNoIndex);
    if (aggregate_index_[key] == kNoIndex) {
      aggregate_index_[key] = static_cast<std::uint32_t>(file_.aggregate_metrics.size());
      file_.aggregate_metrics.push_back(keys_.name(key));
    }
    aggregate.values.emplace_back(aggregate_index_[key], row.counters[i].second);
  }
  return aggregate;
}

Status ModelBuilder::AddAggregateRow(const RowState& row) {
  if (row.error_occurred || row.skipped) return Status::Ok();
  const bool ratio = row.has_aggregate_unit && row.aggregate_unit == "percentage";
  // Kept for the tables of gpubench-export; one whose times are not valid is left out of them
  // rather than failing the file (the comparison never reads aggregates beside repetitions).
  if (double real = 0, cpu = 0; NormalisedTimes(row, &real, &cpu, ratio).ok()) {
    // Aggregates follow their benchmark's repetitions: its record is usually the last one.
    const std::size_t record = FindRecord(row);
    AggregateRow aggregate = MakeAggregateRow(row, real, cpu);
    if (record != std::string::npos) {
      file_.benchmarks[record].aggregates.push_back(std::move(aggregate));
    } else {
      aggregates_[row.run_name].push_back(std::move(aggregate));
    }
  }
  const bool is_median = row.aggregate_name == "median";
  if (!is_median && row.aggregate_name != "mean") return Status::Ok();
  if (row.has_aggregate_unit && row.aggregate_unit != "time") return Status::Ok();
  if (FindRecord(row) != std::string::npos) return Status::Ok();  // have per-repetition rows
  auto [it, inserted] = fallback_index_.try_emplace(row.run_name, fallbacks_.size());
  if (inserted) {
    fallbacks_.emplace_back();
    fallback_names_.push_back(row.run_name);
  } else if (fallbacks_[it->second].is_median || !is_median) {
    return Status::Ok();  // keep the median when both are present
  }
  double real_ns = 0, cpu_ns = 0;
  GPUBENCH_RETURN_IF_ERROR(NormalisedTimes(row, &real_ns, &cpu_ns));
  AggregateFallback& fallback = fallbacks_[it->second];
  fallback.row_index = row.index;
  fallback.is_median = is_median;
  fallback.repetitions = row.has_repetitions ? static_cast<int>(row.repetitions) : 0;
  fallback.label = row.has_label ? row.label : std::string();
  fallback.metrics.clear();
  AppendValues(row, fallback.metrics, real_ns, cpu_ns);
  return Status::Ok();
}
Result<BenchmarkFile> ModelBuilder::Finish(bool saw_benchmarks) {
  if (!saw_benchmarks) {
    return Status::InvalidInput(source_ +
                                " is JSON but not Google Benchmark output: it has no top-level "
                                "\"benchmarks\" array; " +
                                kExpectedInput);
  }
  for (AggregateFallback& fallback : fallbacks_) {
    const std::string& name = fallback_names_[&fallback - fallbacks_.data()];
    if (file_.index_by_name.count(name) != 0) continue;  // iteration rows exist
    BenchmarkRecord record;
    record.name = name;
    record.first_row = fallback.row_index;
    record.declared_repetitions = fallback.repetitions;
    record.aggregates_only = true;
    record.label = std::move(fallback.label);
    record.metrics = std::move(fallback.metrics);
    file_.index_by_name.emplace(name, file_.benchmarks.size());
    file_.benchmarks.push_back(std::move(record));
  }
  for (auto& [name, aggregates] : aggregates_) {
    const auto it = file_.index_by_name.find(name);
    if (it == file_.index_by_name.end()) continue;
    std::vector<AggregateRow>& kept = file_.benchmarks[it->second].aggregates;
    // Rows before the benchmark's first repetition (unusual) come first, as in the file.
    aggregates.insert(aggregates.end(), std::make_move_iterator(kept.begin()),
                      std::make_move_iterator(kept.end()));
    kept = std::move(aggregates);
  }
  WarnOfNonNumericFields();
  for (const BenchmarkRecord& record : file_.benchmarks) {
    if (!record.failed && !record.aggregates_only && record.declared_repetitions > 1 &&
        record.seen_repetition_indices.size() <
            static_cast<std::size_t>(record.declared_repetitions)) {
      file_.warnings.push_back(
          source_ + ": benchmark " + Quoted(record.name) + " declares " +
          std::to_string(record.declared_repetitions) + " repetitions but the file has " +
          std::to_string(record.seen_repetition_indices.size()) + " (was the run interrupted?)");
    }
  }
  return std::move(file_);
}

void ModelBuilder::NoteNonNumericField(std::uint32_t key_id, const char* kind) {
  // Key ids are small and dense: a slot per id, not a search per row.
  if (non_numeric_slot_.size() <= key_id) non_numeric_slot_.resize(key_id + 1, kNoSlot);
  std::uint32_t& slot = non_numeric_slot_[key_id];
  if (slot == kNoSlot) {
    slot = static_cast<std::uint32_t>(non_numeric_fields_.size());
    non_numeric_fields_.push_back({key_id, kind, 0});
  }
  ++non_numeric_fields_[slot].rows;
}

void ModelBuilder::WarnOfNonNumericFields() {
  constexpr std::size_t kNamed = 5;  // a file of a thousand such keys gets one line, not 1,000
  const std::size_t count = non_numeric_fields_.size();
  if (count == 0) return;
  std::string text = source_ + ": ";
  for (std::size_t i = 0; i < count && i < kNamed; ++i) {
    const NonNumericField& field = non_numeric_fields_[i];
    if (i > 0) text += "; ";
    text += "field " + Quoted(keys_.name(field.key_id)) + " is " + field.kind + " (in " +
            std::to_string(field.rows) + (field.rows == 1 ? " row)" : " rows)");
  }
  if (count > kNamed) text += "; and " + std::to_string(count - kNamed) + " more fields";
  text += count == 1 ? ": a counter is a number, so it is no counter and is left out"
                     : ": a counter is a number, so they are no counters and are left out";
  file_.warnings.push_back(std::move(text));
}

}  // namespace gpubench::tools
