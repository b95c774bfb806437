// Judging one benchmark: its status (missing, new, failed), the verdict of each metric it shares
// with its namesake, and what makes those verdicts no evidence (a shared GPU, launch_held).
#pragma once

#include <string>
#include <unordered_map>

#include "common/status.hpp"
#include "tools/gate/comparison.hpp"
#include "tools/gate/history/history.hpp"
#include "tools/gate/metric_judge.hpp"
#include "tools/load/model.hpp"

namespace gpubench::tools::gate {

/// A baseline history's runs by benchmark name (PooledBaseline::history).
using HistoryIndex = std::unordered_map<std::string, BenchmarkHistory>;

/// One benchmark of the baseline against its namesake in the contender, if any, into `out`.
/// `history_index`: the baseline's history, or null for one baseline file. Fails where `judge`
/// cannot judge a gated metric.
detail::Status CompareBenchmark(const BenchmarkRecord& base, const BenchmarkFile& contender,
                                const CompareOptions& options, const MetricJudge& judge,
                                const HistoryIndex* history_index, BenchmarkComparison& out);

/// A benchmark in the contender only: new, and failing the gate when it failed.
BenchmarkComparison CompareNewBenchmark(const BenchmarkRecord& cont, const BenchmarkFile& baseline);

/// Adds one benchmark's status and verdict to the counts of `summary`.
void CountInSummary(const BenchmarkComparison& benchmark, Summary& summary);

}  // namespace gpubench::tools::gate
