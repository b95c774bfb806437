// gpubench-export --to csv: a run as one tidy long table, one row per (benchmark, repetition or
// aggregate, counter), with each counter's unit, direction and gating from gpubench's vocabulary
// and the run's settings fingerprint and method version on every row (docs/export.md "A table
// for pandas"). pandas.read_csv reads it without options. Counters whose values are codes
// (stop_reason, clock_event_reasons) are written in words in value_text, never as numbers.
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
inline constexpr std::array<std::string_view, 17> kRunTableColumns = {
    "benchmark",      "family",
    "arguments",      "gpu",
    "run_type",       "repetition_index",
    "aggregate_name", "counter",
    "value",          "value_text",
    "unit",           "direction",
    "gated",          "settings_fingerprint",
    "method_version", "recovered",
    "reuse",
};

/// A benchmark's GB name in parts: "BM_Copy/1048576/gpu:1/manual_time" is family "BM_Copy",
/// arguments "1048576", gpu 1. GB's attributes (manual_time, iterations:N, repeats:N, ...) belong
/// to neither; the family ends at the first part that is a number or name:number (an argument).
struct BenchmarkNameParts {
  std::string family;
  std::string arguments;   ///< the argument parts, '/' between them; "" when none
  std::optional<int> gpu;  ///< the device of a --gpubench_devices row (its /gpu:N tag)
};
BenchmarkNameParts SplitBenchmarkName(std::string_view name);

/// The kind of code a counter's values are, by its unit: "reason" is a code of kStopReasons
/// (stop_reason), "reasons" a bit set of kClockEventReasons (clock_event_reasons), "reuse" a
/// code of kReuseStatuses (reuse_status), "signature" a work signature (work_signature), "unix
/// s" a time of measurement (measured_at). A code names something; a mean or median of codes
/// names nothing.
enum class CodeKind { kNone, kStopReason, kClockEventReasons, kReuse, kSignature, kUnixTime };
CodeKind CodeKindOfUnit(std::string_view unit);

/// A code in words: a stop_reason's name ("precision"), a clock_event_reasons bit set as its
/// names joined by '|' ("sw_power_cap|hw_slowdown", "none" for 0, "0x200" for a bit without a
/// name), a reuse_status's name ("reused"), a work_signature as 12 lower-case hex digits
/// ("00c0ffee1234"), a measured_at as an ISO date and time, UTC ("2026-12-06T23:32:15Z"); a
/// value the vocabulary does not name as its number ("7").
std::string CodeText(CodeKind kind, double value);

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
