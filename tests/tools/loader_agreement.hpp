// Checks that gpubench-compare's fast loader (RapidJSON) and its reference
// loader (nlohmann-json) read a document the same way: the same
// BenchmarkFile, values compared bit for bit, or the same error message.
#pragma once

#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tools/load/loader.hpp"

namespace gpubench::tools::testing {

struct LoadOutcome {
  std::optional<BenchmarkFile> file;
  std::string error;  // the failed Status's message when file is empty
};

template <typename Load>
LoadOutcome Outcome(Load load) {
  LoadOutcome outcome;
  auto loaded = load();
  if (loaded.ok()) {
    outcome.file = std::move(loaded).value();
  } else {
    outcome.error = loaded.status().message();
  }
  return outcome;
}

inline bool SameBits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

// "" when equal, else what differs first.
inline std::string FileDifference(const BenchmarkFile& a, const BenchmarkFile& b) {
  if (a.path != b.path) return "path";
  if (a.context != b.context) return "context";
  if (a.warnings != b.warnings) return "warnings";
  if (a.cut_off != b.cut_off) return "cut_off";
  if (a.index_by_name != b.index_by_name) return "index_by_name";
  if (a.benchmarks.size() != b.benchmarks.size()) return "number of benchmarks";
  for (std::size_t i = 0; i < a.benchmarks.size(); ++i) {
    const BenchmarkRecord& x = a.benchmarks[i];
    const BenchmarkRecord& y = b.benchmarks[i];
    const std::string where = "benchmark " + std::to_string(i) + " (" + x.name + "): ";
    if (x.name != y.name) return where + "name";
    if (x.first_row != y.first_row) return where + "first_row";
    if (x.declared_repetitions != y.declared_repetitions) return where + "declared_repetitions";
    if (x.seen_repetition_indices != y.seen_repetition_indices) return where + "repetition indices";
    if (x.failed_repetition_indices != y.failed_repetition_indices) {
      return where + "failed repetition indices";
    }
    if (x.failed != y.failed || x.skipped != y.skipped) return where + "failed/skipped";
    if (x.failure_message != y.failure_message) return where + "failure_message";
    if (x.aggregates_only != y.aggregates_only) return where + "aggregates_only";
    if (x.label != y.label) return where + "label";
    if (x.metrics.size() != y.metrics.size()) return where + "number of metrics";
    for (std::size_t m = 0; m < x.metrics.size(); ++m) {
      if (x.metrics[m].name != y.metrics[m].name) return where + "metric name " + x.metrics[m].name;
      if (!SameBits(x.metrics[m].values, y.metrics[m].values)) {
        return where + "values of " + x.metrics[m].name;
      }
    }
    if (x.recovered != y.recovered) return where + "recovered";
    if (x.aggregates.size() != y.aggregates.size()) return where + "number of aggregates";
    for (std::size_t g = 0; g < x.aggregates.size(); ++g) {
      const AggregateRow& p = x.aggregates[g];
      const AggregateRow& q = y.aggregates[g];
      if (p.name != q.name || p.ratio != q.ratio) return where + "aggregate " + p.name;
      if (p.values.size() != q.values.size()) return where + "values of aggregate " + p.name;
      for (std::size_t m = 0; m < p.values.size(); ++m) {
        if (a.aggregate_metrics.at(p.values[m].first) !=
                b.aggregate_metrics.at(q.values[m].first) ||
            !SameBits({p.values[m].second}, {q.values[m].second})) {
          return where + "aggregate " + p.name + " " + a.aggregate_metrics.at(p.values[m].first);
        }
      }
    }
  }
  return "";
}

// "" when both loaders agree on `bytes`, else how they differ.
inline std::string LoadersDisagree(std::string_view bytes) {
  const std::string name = "input.json";
  const LoadOutcome fast = Outcome([&] { return ParseBenchmarkJson(bytes, name); });
  const LoadOutcome reference =
      Outcome([&] { return ParseBenchmarkJsonWithNlohmann(bytes, name); });
  if (fast.file.has_value() != reference.file.has_value()) {
    return fast.file ? "only the fast loader accepts it (reference: " + reference.error + ")"
                     : "only the reference loader accepts it (fast: " + fast.error + ")";
  }
  if (!fast.file) {
    return fast.error == reference.error ? ""
                                         : "different errors: fast \"" + fast.error +
                                               "\", reference \"" + reference.error + "\"";
  }
  const std::string difference = FileDifference(*fast.file, *reference.file);
  return difference.empty() ? "" : "different results: " + difference;
}

}  // namespace gpubench::tools::testing
