// gpubench-export --to csv: a run as one tidy long table, one row per (benchmark, repetition or
// aggregate, counter), with each counter's unit, direction and gating from gpubench's vocabulary
// and the run's settings fingerprint and method version on every row (docs/export.md "A table
// for pandas"). pandas.read_csv reads it without options.
#pragma once

#include <array>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.hpp"
#include "tools/export/export_format.hpp"
#include "tools/load/model.hpp"

namespace gpubench::tools {

/// The table's columns, in order.
inline constexpr std::array<std::string_view, 15> kRunTableColumns = {"benchmark",
                                                                      "family",
                                                                      "arguments",
                                                                      "gpu",
                                                                      "run_type",
                                                                      "repetition_index",
                                                                      "aggregate_name",
                                                                      "counter",
                                                                      "value",
                                                                      "unit",
                                                                      "direction",
                                                                      "gated",
                                                                      "settings_fingerprint",
                                                                      "method_version",
                                                                      "recovered"};

/// A benchmark's GB name in parts: "BM_Copy/1048576/gpu:1/manual_time" is family "BM_Copy",
/// arguments "1048576", gpu 1. GB's attributes (manual_time, iterations:N, repeats:N, ...) belong
/// to neither; the family ends at the first part that is a number or name:number (an argument).
struct BenchmarkNameParts {
  std::string family;
  std::string arguments;   ///< the argument parts, '/' between them; "" when none
  std::optional<int> gpu;  ///< the device of a --gpubench_devices row (its /gpu:N tag)
};
BenchmarkNameParts SplitBenchmarkName(std::string_view name);

/// Receives the table's text piece by piece, in order (a large table is never held whole).
using TextSink = std::function<void(std::string_view)>;

/// What was written.
struct RunTableResult {
  std::size_t rows = 0;            ///< data rows, without the header
  std::size_t benchmarks = 0;      ///< benchmarks with at least one row
  std::vector<std::string> notes;  ///< what was left out, and why
};

/// Writes the table of `run` (the counters of `options.metrics`, every counter when empty) to
/// `sink`. Fails (kInvalidInput) when a requested metric is in no benchmark.
detail::Result<RunTableResult> WriteRunTable(const BenchmarkFile& run, const ExportOptions& options,
                                             const TextSink& sink);

}  // namespace gpubench::tools
