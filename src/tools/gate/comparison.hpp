// Matches the benchmarks of two files and decides a verdict for each metric.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "common/status.hpp"
#include "tools/base/mann_whitney.hpp"
#include "tools/gate/history/history.hpp"
#include "tools/gate/metric_policy.hpp"
#include "tools/gate/settings_check.hpp"  // part of this header's API: callers use CheckSettings
#include "tools/gate/suite_statistics.hpp"
#include "tools/load/model.hpp"

namespace gpubench::tools {

/// Exit codes of gpubench-compare.
inline constexpr int kExitOk = 0;
inline constexpr int kExitRegression = 1;
inline constexpr int kExitBadInput = 2;
inline constexpr int kExitSettingsMismatch = 3;
/// No benchmark was compared (every row an error in one file or both, no common names, an empty
/// file): nothing was tested, so this must not read as a pass, nor as a regression of the code.
inline constexpr int kExitNothingCompared = 4;
/// Every row of the contender carries values reused from an earlier run (--gpubench_reuse):
/// nothing was measured, so nothing was judged. Not a pass (no new evidence), not a failure (the
/// work is unchanged: its signatures matched).
inline constexpr int kExitAllReused = 5;

/// Whether a change beyond the threshold that statistics could not confirm
/// (too few repetitions) fails the gate.
enum class UnconfirmedPolicy { kFail, kWarn };

struct CompareOptions {
  double alpha = 0.05;
  /// With a history: the chance that identical reruns fail anywhere (kGateFamilyAlpha).
  double family_alpha = kGateFamilyAlpha;
  PolicyOverrides overrides;
  UnconfirmedPolicy unconfirmed = UnconfirmedPolicy::kFail;
  bool allow_settings_mismatch = false;
  bool fail_on_missing = false;
  /// A history: judge each benchmark against all its runs, not only those since the history's
  /// last change point (--whole-history).
  bool whole_history = false;
};

/// kUndecided: within its threshold, but the threshold (above kGateUndecidedPercent) is too
/// wide for "same" to mean anything; a note says what would decide it. Never fails the gate.
enum class Verdict { kRegression, kImprovement, kSame, kUnconfirmed, kReportOnly, kUndecided };

enum class BenchmarkStatus {
  kCompared,
  kMissing,            ///< in the baseline only
  kNew,                ///< in the contender only
  kFailedInContender,  ///< errored or skipped in the contender only: fails the gate
  kFailedInBaseline,   ///< nothing to compare against
  kFailedInBoth,
  /// Every repetition of the contender was reused from an earlier run (reuse_status "reused"):
  /// its values are that run's, not a new measurement, so it is not judged.
  kReused,
};

struct MetricComparison {
  std::string name;
  bool is_time = false;  ///< values are nanoseconds
  MetricPolicy policy;
  std::vector<double> baseline_values, contender_values;
  double baseline_median = 0, contender_median = 0;
  /// (contender - baseline) / |baseline| in percent; +-inf when the baseline
  /// is 0, NaN when undefined.
  double change_percent = 0;
  /// The threshold actually applied to a gated metric: the relative one (the larger of the
  /// vocabulary's minimum and the noise, or --threshold) and the absolute floor (floor in the
  /// metric's unit, or a share of the traffic for byte counters). Both must be exceeded.
  std::optional<double> applied_threshold_percent;
  double applied_floor = 0;
  /// max(cv of baseline, cv of contender) in percent over the repetitions; NaN with < 2 values.
  double noise_percent = 0;
  /// Where the threshold came from, e.g. "minimum; noise 0.07%" or "floor 500 ns; noise 6.9%".
  std::string threshold_source;
  /// The absolute floor set the threshold: applied_threshold_percent is only its share of the
  /// baseline (49152% for 2 MiB of a 4 KB counter, inf for a zero baseline); say it in its unit.
  bool floor_decides = false;
  std::optional<double> p_value;
  std::optional<MannWhitneyMethod> test_method;
  /// Baseline runs whose medians set the threshold (a history of kGateHistoryMinRuns or more);
  /// 0 when the threshold came from the vocabulary's rules. Then baseline_median is the mean of
  /// those runs' medians, p_value the one-sided tail of the prediction model (no Mann-Whitney).
  std::size_t history_runs = 0;
  /// Sample standard deviation of those runs' medians, in percent of their mean.
  double between_run_sd_percent = 0;
  Verdict verdict = Verdict::kReportOnly;
  bool worse = false;  ///< beyond the threshold in the bad direction
  bool fails_gate = false;
  std::vector<std::string> notes;
};

struct BenchmarkComparison {
  std::string name;
  BenchmarkStatus status = BenchmarkStatus::kCompared;
  Verdict verdict = Verdict::kReportOnly;  ///< the worst verdict of its gated metrics
  bool worse = false;
  bool fails_gate = false;
  std::size_t baseline_repetitions = 0, contender_repetitions = 0;
  /// Of those, the repetitions whose values were reused from an earlier run (reuse_status
  /// "reused"): the contender's are never judged; one baseline file's are that run's values.
  std::size_t baseline_reused = 0, contender_reused = 0;
  bool throttled_baseline = false, throttled_contender = false;
  /// gpu_shared = 1 in a repetition: another process used the GPU; changes are not judged.
  bool shared_baseline = false, shared_contender = false;
  std::string failure_message;
  std::vector<MetricComparison> metrics;
  std::vector<std::string> notes;
};

struct Summary {
  std::size_t compared = 0, regressions = 0, unconfirmed_regressions = 0,
              unconfirmed_improvements = 0, improvements = 0, same = 0, report_only = 0,
              missing = 0, added = 0, failed_in_contender = 0, failed_in_baseline = 0,
              failed_in_both = 0, throttled = 0, shared = 0, failing = 0, undecided = 0;
  std::size_t reused = 0;  ///< benchmarks of status kReused
};

/// The contender's rows reused from an earlier run (--gpubench_reuse), and the baseline's.
struct ReuseCount {
  std::size_t contender_rows = 0, contender_reused_rows = 0;  ///< rows with values
  std::size_t baseline_reused_rows = 0;  ///< one baseline file's (0 with a history: left out)
  /// The contender's gpubench_reuse_source: "FILE (DATE, commit C)", or why none was used; ""
  /// when the run did not reuse.
  std::string source;
  /// Whether every row of the contender with values was reused (exit kExitAllReused).
  bool AllReused() const { return contender_rows > 0 && contender_reused_rows == contender_rows; }
};

/// How many tests the comparison made, and at what level (docs/compare.md "A suite").
struct Testing {
  std::size_t gated_tests = 0;    ///< metrics with a threshold applied
  std::size_t history_tests = 0;  ///< of them, those with a history's prediction bound
  double family_alpha = 0;        ///< with a history: the chance that identical reruns fail
  double per_test_alpha = 0;      ///< each history test's one-sided level: family_alpha / tests
};

struct ComparisonReport {
  /// baseline_path names the one baseline file, or with a history the runs ("5 runs: a.json, …")
  std::string baseline_path, contender_path;
  std::vector<std::string> baseline_paths;  ///< every baseline file, as given
  std::size_t baseline_benchmark_count = 0, contender_benchmark_count = 0;
  /// The files' BenchmarkFile::cut_off: a contender cut off mid-write fails the gate whatever its
  /// rows' verdicts (its benchmarks after the cut were never measured); a cut-off baseline is
  /// compared as far as it goes, the contender's benchmarks after its cut being new.
  std::vector<CutOffFile> baseline_cut_off, contender_cut_off;
  CompareOptions options;
  SettingsCheck settings;
  bool refused_for_settings = false;  ///< exit 3: nothing was compared
  std::vector<ValueDifference> device_differences;
  /// Same physical GPU or not (gpu_uuid). With a history: kDifferent when any run's GPU differs
  /// from the contender's, else kUnknown when any run's cannot be told; without_uuid then names
  /// the side ("contender", or "baseline run PATH").
  PhysicalGpuCheck physical_gpu;
  std::vector<BenchmarkComparison> benchmarks;
  Summary summary;
  Testing testing;
  /// The contender's real_time over the baseline's, over the benchmarks compared and judged.
  SuiteRatio suite;
  ReuseCount reuse;
  std::vector<std::string> warnings;
  /// Why no benchmark was compared (exit kExitNothingCompared); empty when one was.
  std::string nothing_compared;
  int exit_code = kExitOk;
};

/// Compares every benchmark of the two files. Fails (kInvalidInput) when the inputs cannot be
/// judged (e.g. a gated counter is NaN or a gated time is 0 in the baseline).
detail::Result<ComparisonReport> CompareFiles(const BenchmarkFile& baseline,
                                              const BenchmarkFile& contender,
                                              const CompareOptions& options);

/// The contender against several baseline runs of the same suite and settings (a history). A
/// benchmark with kGateHistoryMinRuns or more runs gets thresholds from the spread of its runs'
/// medians (see docs/compare.md, "A baseline history"); with fewer, the vocabulary's rules apply
/// to the runs' pooled repetitions. One baseline: exactly CompareFiles. The settings of every run
/// are checked against the contender's; the first run that differs is the one reported.
detail::Result<ComparisonReport> CompareWithHistory(
    const std::vector<const BenchmarkFile*>& baselines, const BenchmarkFile& contender,
    const CompareOptions& options);
/// The same with the runs already pooled (PoolBaselineRuns(baselines, contender)), for a caller
/// that shows the pooled baseline too; `baselines` must hold two runs or more.
detail::Result<ComparisonReport> CompareWithHistory(
    const std::vector<const BenchmarkFile*>& baselines, const PooledBaseline& pooled,
    const BenchmarkFile& contender, const CompareOptions& options);

const char* VerdictName(Verdict verdict);        ///< "regression", ...
const char* StatusName(BenchmarkStatus status);  ///< "compared", "missing", ...
/// The median; NaN for no values (comparison_statistics.cpp).
double Median(const std::vector<double>& values);

}  // namespace gpubench::tools
