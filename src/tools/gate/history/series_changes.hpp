// Change points over a series of runs of one suite (issue #50): which run, and which commit, moved
// each benchmark's gated metrics, with what a GPU result needs around the engine of
// change_points.hpp:
// - runs are comparable only within one settings fingerprint: a change of fingerprint is a
//   settings change (SettingsChange), and each fingerprint's runs are a series of their own;
// - the physical GPU (context gpu_uuid): where a fingerprint's runs come from several GPUs, each
//   GPU's runs are analysed on their own, and the offset where the series moves from one GPU to
//   another is a GPU change (kind kGpu), not a regression; GpuSpread says how much of a series'
//   spread the GPU explains;
// - a run's value of a benchmark is the median of its repetitions, without those marked
//   gpu_shared or sm_clock_throttled (held out, with a note); a run where none is left, or
//   where the benchmark failed or is missing, has no value (benchmarks added or dropped part-way);
// - the metrics are those the gate judges (real_time and the DRAM byte counters by default,
//   others with --threshold), with the gate's byte floor for byte counters.
// docs/change_points.md explains the method; docs/compare.md the command.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "common/status.hpp"
#include "tools/changes/change_points.hpp"
#include "tools/gate/metric_policy.hpp"
#include "tools/load/model.hpp"

namespace gpubench::tools {

/// Google Benchmark's own context key of a run's start ("2026-12-03T23:42:09+00:00"), by which
/// a folder of runs is ordered.
inline constexpr char kRunDateKey[] = "date";

struct SeriesOptions {
  /// The context key that holds a run's commit (GB's --benchmark_context=commit=SHA).
  std::string commit_key = "commit";
  /// --threshold / --direction: which metrics are judged, and which way is worse.
  PolicyOverrides overrides;
  /// The suite's false-alarm rate (shared by every test of the analysis).
  double family_alpha = kChangeFamilyAlpha;
};

/// One run of the series, as the analysis read it.
struct SeriesRun {
  const BenchmarkFile* file = nullptr;
  std::string commit;       ///< "" when the context has no commit_key
  std::string gpu;          ///< gpu_uuid, "" when not recorded
  std::string fingerprint;  ///< gpubench_settings_fingerprint, "" when not recorded
};

enum class SeriesChangeKind {
  kStep,   ///< the level moved between two runs on the same GPU
  kDrift,  ///< the level moved over a stretch of runs
  kGpu,    ///< the series moved to another physical GPU there: an offset, not a regression
};

/// regression / improvement from the metric's direction; kGpuOffset for a GPU change.
enum class ChangeDirection { kRegression, kImprovement, kUnknown, kGpuOffset };

struct SeriesChange {
  std::string benchmark, metric;
  SeriesChangeKind kind = SeriesChangeKind::kStep;
  std::size_t first_run = 0;  ///< index into SeriesReport::runs: the first run after the change
  std::size_t end_run = 0;    ///< a drift: one past its last run; else first_run
  double median_before = 0, median_after = 0;  ///< a drift: its fitted line's ends
  double change_percent = 0;
  ChangeDirection direction = ChangeDirection::kUnknown;
  double p_value = 1;
  double t_statistic = 0;
  /// Beyond the practical threshold (0.5%, or the byte floor); the others only split the series.
  bool practical = false;
  std::string gpu_before, gpu_after;  ///< a GPU change: the two GPUs
};

/// Where the settings fingerprint changes between two neighbouring runs: runs either side are
/// never compared.
struct SettingsChange {
  std::size_t first_run = 0;
  std::string fingerprint_before, fingerprint_after;
};

/// A series whose runs come from more than one GPU: each GPU's level, and the share of the
/// series' spread (its sum of squares about the mean) that the GPU explains.
struct GpuSpread {
  std::string benchmark, metric;
  struct Level {
    std::string gpu;
    std::size_t runs = 0;
    double median = 0;
  };
  std::vector<Level> levels;  ///< in order of first appearance
  double share_percent = 0;   ///< between-GPU sum of squares / total, in percent
  double offset_percent = 0;  ///< the largest GPU median against the first GPU's, in percent
};

struct SeriesReport {
  std::vector<SeriesRun> runs;        ///< oldest first
  std::vector<SeriesChange> changes;  ///< by benchmark (first appearance), metric, first_run
  std::vector<SettingsChange> settings_changes;
  std::vector<GpuSpread> gpu_spreads;  ///< series with a GPU offset beyond the practical
  std::vector<std::string> notes;      ///< held-out rows, series not analysed, ...
  std::size_t benchmarks = 0;          ///< distinct benchmark names across the runs
  std::size_t series_tested = 0;       ///< benchmark x metric x (fingerprint, GPU) series
  std::size_t tests = 0;               ///< every test that shares family_alpha
  double level = 0;                    ///< each test's level: family_alpha / tests
  std::size_t gpus = 0;                ///< distinct gpu_uuid values ("" counted as one)

  std::size_t PracticalChanges() const;
};

/// The change points of `runs` (oldest first; at least 2). Deterministic.
SeriesReport AnalyseSeries(const std::vector<const BenchmarkFile*>& runs,
                           const SeriesOptions& options);

/// "step", "drift", "gpu".
const char* SeriesChangeKindName(SeriesChangeKind kind);
/// "regression", "improvement", "unknown", "gpu_offset".
const char* ChangeDirectionName(ChangeDirection direction);

/// Sorts `runs` by the context key `key` (stable; numbers as numbers when every value is one,
/// ISO 8601 dates and times in UTC order when every value is one (GB's "date" holds the local
/// time and its offset), else as text). Fails (kInvalidInput) naming a run without the key.
detail::Status OrderRunsBy(std::vector<const BenchmarkFile*>& runs, const std::string& key);

}  // namespace gpubench::tools
