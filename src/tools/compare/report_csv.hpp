// gpubench-compare --format csv: the report's benchmarks as one table, one row per (benchmark,
// metric), with the fields of the JSON report's metrics and of their benchmark on every row
// (docs/compare.md "Output formats"). A benchmark without metrics (missing, new, failed) has one
// row with the metric's columns empty. The report's summary, settings check and warnings are the
// JSON report's; the table holds the judgments.
#pragma once

#include <array>
#include <iosfwd>
#include <string_view>

#include "tools/gate/comparison.hpp"

namespace gpubench::tools {

/// The table's columns, in order.
inline constexpr std::array<std::string_view, 39> kComparisonTableColumns = {
    "benchmark",
    "status",
    "benchmark_verdict",
    "benchmark_worse",
    "benchmark_fails_gate",
    "baseline_repetitions",
    "contender_repetitions",
    "baseline_reused_repetitions",
    "contender_reused_repetitions",
    "throttled_baseline",
    "throttled_contender",
    "gpu_shared_baseline",
    "gpu_shared_contender",
    "failure_message",
    "benchmark_notes",
    "metric",
    "unit",
    "direction",
    "gated",
    "threshold_percent",
    "threshold_source",
    "floor",
    "noise_percent",
    "history_runs",
    "between_run_sd_percent",
    "statistical",
    "rule",
    "baseline_median",
    "baseline_values",
    "contender_median",
    "contender_values",
    "change_percent",
    "change",
    "p_value",
    "test",
    "verdict",
    "worse",
    "fails_gate",
    "notes"};

/// Writes the table to `out`, a few hundred benchmarks at a time.
void WriteComparisonCsv(const ComparisonReport& report, std::ostream& out);

/// The name of the test that judged `metric`, as the JSON report's "test" has it.
const char* TestName(const MetricComparison& metric);

}  // namespace gpubench::tools
