// Change points of one benchmark's one metric over a series of CI runs (issue #50): where the
// series stepped, by how much, and how sure that is.
//
// The method, and why (docs/change_points.md has the longer version):
//
// * Binary segmentation with a two-sample statistic. For a stretch of n runs, every split into
//   a left part of n1 and a right part of n2 runs (each at least minimum_segment_runs) is scored
//   by the between-parts sum of squares n1 n2 / n (mean2 - mean1)^2, read from prefix sums in
//   O(1) per split, so one stretch costs O(n). The best split is the least-squares location of a
//   single step. If it is significant, both parts are searched again; otherwise the stretch is
//   one level. With k changes a series costs about O(n (k + 1)): 1,000 benchmarks x 200 runs x
//   4 metrics take 0.02 s on one core (bench/validation/tools_perf/time_change_points.cpp).
// * Significance: t = |mean2 - mean1| / (sigma sqrt(1/n1 + 1/n2)), two-sided against Student's
//   t, times the number of candidate splits (Bonferroni over the splits; their statistics are
//   strongly correlated, so this is conservative: on normal noise at a level of 0.001 a series
//   reports 0.02-0.04%). sigma comes from the differences between neighbouring runs (von
//   Neumann's mean square successive difference), leaving out the one across the split, with
//   the degrees of freedom of that estimate (about 2/3 of n). Not from the parts' own variances:
//   those shrink exactly when the split separates the two modes of a bimodal counter (H200 byte
//   counters flip between modes from run to run). On the resampled suites of the false-alarm
//   test, the parts' variances gave 7 of 200 suites a practical change, this 2 of 200; a
//   cluster of 4 runs of one mode (one run in 5 in that mode) still reads as a step: no test at
//   1e-5 can tell it from one. A stretch is split when the p-value is below the series' level,
//   family_alpha / series_tested: the gate's own rule (kGateHistoryAlpha = 1% shared by the m
//   tests of a comparison, gate/suite_statistics.hpp PerTestAlpha), with the m benchmark-metric
//   series of the suite. Under identical reruns a series reports something only if its first,
//   whole-series test rejects, so a suite of m series reports a change with probability at most
//   family_alpha, under the gate's model of runs' medians that vary normally around a level.
//   ChangePointsH200.IdenticalRerunsOfA250BenchmarkSuite... measures it on resampled real noise.
// * Why not a permutation test or E-divisive means (Apache Otava): at the suite's level (1% /
//   1,000 series = 1e-5 a series) a permutation p-value needs about a million permutations per
//   series to resolve, and E-divisive's energy statistic is O(n^2) per stretch. Why not ranks
//   (Mann-Whitney, in tools/base): with 12 runs before and 4 after a step, the smallest
//   two-sided p of a rank test is 2 / C(16, 4) = 0.0011, above any suite-wide level, so a rank
//   test could never find a step in a short CI history. No test can, without a model of the
//   noise: 16 exchangeable values put their top 4 last with probability 1/1820.
// * A minimum practical effect, like the gate's thresholds: a significant change smaller than
//   max(minimum_percent of the level before, absolute_floor) is kept (it still splits the series,
//   so that the levels either side are clean) but marked practical = false. Callers that count
//   changes count the practical ones, as the gate calls a significant change within its
//   threshold "same". For byte counters pass the gate's byte floor (2 MiB, or 0.25% of the
//   benchmark's traffic where that is more): their values are discrete (0 or 43 B, say), and two
//   constant parts with different values give an infinite t.
// * Drift: a slow drift is significant too, and binary segmentation cuts it into a staircase.
//   After segmentation, consecutive segments whose levels move one way are reported as one
//   ChangeKind::kDrift when a straight line through their runs leaves no larger a residual sum
//   of squares than their separate levels do (a line has fewer parameters). A real staircase of
//   sharp steps keeps its steps: a line through it leaves the saw-tooth in its residuals.
//
// Input: one value per run, oldest first: the run's median of the metric over its repetitions.
// Benchmarks added or dropped part-way: pass only the runs that have the benchmark, or pass NaN
// for a run without it; non-finite values are held out, and every index reported is a position
// in the series as passed.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace gpubench::tools {

/// The chance that identical reruns report a change anywhere in the suite: the gate's
/// kGateHistoryAlpha (tools/gate/gate_tuning.hpp; a test checks that they agree).
inline constexpr double kChangeFamilyAlpha = 0.01;

/// Smallest change, in percent of the level before it, that counts as practical: the gate's
/// history minimum, kGateHistoryMinimumPercent (identical H200 reruns moved long kernels by up
/// to 0.12% between processes; a 1% change must stay findable).
inline constexpr double kChangeMinimumPercent = 0.5;

/// Fewest runs on each side of a change. 3, as the gate needs 3 runs for a history: two runs
/// that happen to agree would make a level out of one outlier pair.
inline constexpr std::size_t kChangeMinimumSegmentRuns = 3;

struct ChangeOptions {
  double family_alpha = kChangeFamilyAlpha;
  /// How many series (benchmark x metric) the suite's analysis tests: they share family_alpha.
  std::size_t series_tested = 1;
  std::size_t minimum_segment_runs = kChangeMinimumSegmentRuns;
  /// Fewer finite values than this: no analysis. At least 2 x minimum_segment_runs.
  std::size_t minimum_runs = 2 * kChangeMinimumSegmentRuns;
  double minimum_percent = kChangeMinimumPercent;
  /// Smallest practical change in the metric's unit (0: none), e.g. the gate's byte floor.
  double absolute_floor = 0;
};

enum class ChangeKind {
  kStep,   ///< the level moved between two runs
  kDrift,  ///< the level moved over a stretch of runs, which a straight line fits as well
};

struct ChangePoint {
  ChangeKind kind = ChangeKind::kStep;
  /// A step: the first run after it. A drift: the first run of the stretch that drifts.
  std::size_t first_run = 0;
  /// A drift: one past its last run. A step: equal to first_run.
  std::size_t end_run = 0;
  /// A step: the medians of the runs between it and its neighbouring change points (or the
  /// series' ends). A drift: the fitted line at its first and its last run.
  double level_before = 0;
  double level_after = 0;
  /// (level_after - level_before) / |level_before| in percent; +-inf from a level of 0.
  double change_percent = 0;
  /// The t of the split (a drift: of its most significant split); infinite where the runs
  /// either side are each one value (a discrete counter).
  double t_statistic = 0;
  /// Bonferroni over the stretch's candidate splits; compared with ChangeAnalysis::level.
  double p_value = 1;
  /// Larger than max(minimum_percent of |level_before|, absolute_floor).
  bool practical = false;
};

struct ChangeAnalysis {
  std::vector<ChangePoint> changes;  ///< by first_run
  std::size_t runs_analysed = 0;     ///< the finite values
  std::size_t runs_held_out = 0;     ///< non-finite values (a run without the benchmark)
  double level = 0;                  ///< each stretch's test: family_alpha / series_tested
  /// Empty when analysed; else why not (too few runs, every value the same).
  std::string not_analysed;

  std::size_t PracticalChanges() const;
};

/// The change points of one series (one value per run, oldest first). Deterministic.
ChangeAnalysis FindChangePoints(const std::vector<double>& series, const ChangeOptions& options);

/// A step at a known place: the runs `before` against the runs `after` (each at least 2 finite
/// values), for a change whose place is not searched for (the runs moved to another GPU there).
/// The noise comes from the differences between neighbouring runs within each side, as in
/// FindChangePoints; one candidate, so no Bonferroni. first_run and end_run are 0.
ChangePoint TestStepBetween(const std::vector<double>& before, const std::vector<double>& after,
                            const ChangeOptions& options);

/// The level of one series' tests: family_alpha shared by series_tested series.
double SeriesLevel(const ChangeOptions& options);

}  // namespace gpubench::tools
