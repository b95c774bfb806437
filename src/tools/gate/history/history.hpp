// A baseline history: several baseline runs of one suite, pooled per benchmark, with each run's
// median of every metric kept for the between-run spread the gate's thresholds come from.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "schema/counter_table.hpp"
#include "tools/load/model.hpp"

namespace gpubench::tools {

/// What the history holds for one benchmark: the runs its values came from and, per metric,
/// each of those runs' median.
struct BenchmarkHistory {
  std::size_t runs = 0;  ///< runs pooled (after those left out)
  std::unordered_map<std::string, std::vector<double>> run_medians;
  /// Per metric, the file each pooled value came from (for messages about a value).
  std::unordered_map<std::string, std::vector<const BenchmarkFile*>> value_files;
  std::vector<std::string> notes;  ///< runs left out, and why
};

struct PooledBaseline {
  /// Every baseline run's benchmarks, each with the repetitions of its pooled runs.
  BenchmarkFile file;
  std::unordered_map<std::string, BenchmarkHistory> history;  ///< by benchmark name
};

/// Pools `runs` (two or more baseline files of one suite, as given). Per benchmark, a run is left
/// out when the benchmark failed in it, ran on a shared GPU (gpu_shared), or had another
/// launch_held state than the contender's, as long as another run remains; each exclusion is a
/// note. `contender` decides which launch_held state the history keeps.
/// since_last_change: a benchmark whose history holds a practical change point (of any judged
/// metric, as gpubench-compare --changes finds them, with the runs in date order) pools only the
/// runs from its last one on, with a note; a step needs 3 runs after it to be found.
PooledBaseline PoolBaselineRuns(const std::vector<const BenchmarkFile*>& runs,
                                const BenchmarkFile& contender, bool since_last_change = true);

/// "run3.json, repetition 2" for the pooled value `index` of `metric`, or "" when unknown.
std::string DescribePooledValue(const BenchmarkHistory& history, const std::string& metric,
                                std::size_t index);

/// A 0/1 flag counter (gpu_shared, sm_clock_throttled, ...) set in any repetition.
bool AnyFlagSet(const BenchmarkRecord& record, std::string_view counter);

/// Which repetitions of `record` carry values reused from an earlier run (reuse_status
/// "reused", --gpubench_reuse): one entry per repetition with values; all false without the
/// counter. A reused row equals its source row: it is never a new sample.
std::vector<bool> ReusedRepetitions(const BenchmarkRecord& record);
/// How many repetitions of `record` were reused (ReusedRepetitions).
std::size_t CountReused(const BenchmarkRecord& record);
/// True when `record` has repetitions and every one of them was reused.
bool AllReused(const BenchmarkRecord& record);
/// `record` without its reused repetitions: each metric with one value per repetition loses the
/// values of the reused ones. `record` itself when none was reused.
BenchmarkRecord MeasuredRepetitions(const BenchmarkRecord& record);

/// launch_held of a benchmark: true when every repetition was held, false when any was not;
/// nullopt without the counter (cache=keep, other tools, older gpubench).
std::optional<bool> LaunchHeld(const BenchmarkRecord& record);

/// "3 runs: a.json, b.json, c.json" (the middle elided from 6 files on).
std::string DescribeRuns(const std::vector<const BenchmarkFile*>& runs);

}  // namespace gpubench::tools
