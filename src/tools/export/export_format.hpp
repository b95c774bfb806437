// gpubench-export: a gpubench run in the custom formats of the continuous-benchmarking
// dashboards, which drop gpubench's counters from Google Benchmark's JSON.
//
// * github-action-benchmark: its custom format, a JSON array of {name, unit, value, range,
//   extra}, one file per direction (the tool names customSmallerIsBetter and
//   customBiggerIsBetter choose it per file).
// * Bencher: Bencher Metric Format, {"<benchmark>": {"<measure slug>": {value, lower_value,
//   upper_value}}}.
//
// Values are medians over the repetitions (aggregate rows are never exported); units and
// directions come from gpubench's counter vocabulary (schema/counter_table.hpp).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.hpp"
#include "tools/gate/metric_policy.hpp"
#include "tools/load/model.hpp"

namespace gpubench::tools {

struct ExportOptions {
  /// Metric names to export (GB's real_time, counters; "time" means real_time; a name ending in
  /// '/' takes every counter with that prefix, e.g. kernel_time/). Empty: DefaultGatedMetrics(),
  /// each exported where a benchmark has it.
  std::vector<std::string> metrics;
  PolicyOverrides overrides;  ///< --direction for counters the vocabulary and the file do not know
};

/// The metrics to export: the requested ones (each must be in some benchmark; "time" is
/// real_time, a name ending in '/' a prefix), else every metric of the run
/// (`every_metric_by_default`) or the DefaultGatedMetrics() it has. Fails (kInvalidInput) naming
/// the metrics the run has when a requested one is in no benchmark.
detail::Result<std::vector<std::string>> SelectExportMetrics(const BenchmarkFile& run,
                                                             const ExportOptions& options,
                                                             bool every_metric_by_default);

/// One exported file's text and how many values it holds.
struct ExportedFile {
  std::string text;       ///< empty when there is nothing to write
  std::size_t count = 0;  ///< array entries (github-action-benchmark) or measures (Bencher)
};

struct ExportResult {
  ExportedFile smaller_is_better, bigger_is_better;  ///< github-action-benchmark
  ExportedFile bmf;                                  ///< Bencher
  std::size_t benchmarks = 0;                        ///< benchmarks with at least one value
  std::vector<std::string> notes;                    ///< what was left out, and why
};

/// Why an export holds no value, for its one line on stderr: "RUN.json has no benchmark",
/// "every benchmark of RUN.json is an error or skipped (first: NAME: error: MSG)", or that every
/// value of the benchmarks that ran was left out (with the first of `notes`, which say why).
std::string WhyNothingExported(const BenchmarkFile& run, const std::vector<std::string>& notes);

/// github-action-benchmark's tool names for the two files.
inline constexpr std::string_view kSmallerIsBetterTool = "customSmallerIsBetter";
inline constexpr std::string_view kBiggerIsBetterTool = "customBiggerIsBetter";

/// Fails (kInvalidInput, exit 2) when a requested metric has no direction or is in no benchmark.
detail::Result<ExportResult> ExportGithubActionBenchmark(const BenchmarkFile& run,
                                                         const ExportOptions& options);
/// Fails (kInvalidInput, exit 2) when a requested metric is in no benchmark, or a benchmark name
/// or measure slug breaks Bencher's limits (names 1..1024 bytes, slugs 1..64).
detail::Result<ExportResult> ExportBencher(const BenchmarkFile& run, const ExportOptions& options);

/// One Bencher measure: what --list-measures prints and docs/export.md tabulates.
struct BencherMeasure {
  std::string metric;     ///< gpubench's name
  std::string name;       ///< the measure's name in Bencher
  std::string slug;       ///< the key in the BMF file
  std::string units;      ///< for `bencher measure create --units`
  std::string better;     ///< lower, higher, neither, unknown
  bool built_in = false;  ///< Bencher knows it (latency): no need to create it
};

inline constexpr std::size_t kBencherMaxBenchmarkName = 1024;
inline constexpr std::size_t kBencherMaxSlug = 64;

/// real_time -> "latency"; other names as Bencher's slugify makes them (lower case, runs of
/// other characters -> '-'), cut to 64 characters.
std::string BencherSlug(std::string_view metric);
/// Bencher's units for a vocabulary unit: "ns" -> "nanoseconds (ns)", "bytes" -> "bytes (B)", ...
/// (Bencher scales ns, s and bytes itself).
std::string BencherUnits(std::string_view unit);
BencherMeasure DescribeBencherMeasure(std::string_view metric, const BenchmarkFile* file);
/// Every measure `ExportBencher` can write: the vocabulary's counters (without a file), or the
/// metrics the file's benchmarks have (with one).
std::vector<BencherMeasure> ListBencherMeasures(const BenchmarkFile* file);
std::string FormatMeasureTable(const std::vector<BencherMeasure>& measures);

}  // namespace gpubench::tools
