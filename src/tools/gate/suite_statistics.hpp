// The gate at suite scale: the level of each test so that identical reruns of a whole suite pass
// with a stated probability, what would decide a benchmark whose threshold is too wide to mean
// anything, and the suite's geometric mean of time ratios (docs/compare.md "A suite").
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "tools/gate/gate_tuning.hpp"

namespace gpubench::tools {

/// With a history, the chance that identical reruns fail the gate anywhere in the comparison:
/// the m gated tests share it (Bonferroni), each at a one-sided level of kGateFamilyAlpha / m.
inline constexpr double kGateFamilyAlpha = kGateHistoryAlpha;

/// A time threshold above this many percent cannot tell a real change from the benchmark's noise
/// that a user would care about: its verdict is "undecided" instead of a silent "same", with
/// what would decide it. 5%: twice the 2% slowdown the gate must catch with one baseline.
inline constexpr double kGateUndecidedPercent = 5.0;

/// The level of each of `tests` gated tests for a family-wise level of `family_alpha`.
double PerTestAlpha(double family_alpha, std::size_t tests);

/// The factor t(1 - alpha, n - 1) x sqrt(1 + 1/n) of a history of n runs, whose product with the
/// runs' sd bounds a new run's median one-sidedly at level alpha (cached: it is asked for every
/// metric of every benchmark).
double HistoryFactor(double alpha, std::size_t runs);

/// The z with P(Z > z) = upper_tail for a standard normal Z (Acklam's rational approximation,
/// relative error below 1.2e-9): the limit of the t quantile for ever more runs.
double NormalQuantileUpper(double upper_tail);

/// HistoryAdvice looks for the number of runs up to about this many; beyond it, it says so.
inline constexpr std::size_t kHistoryAdviceMaxRuns = 100000;

/// What would decide a benchmark whose history threshold (its runs' sd in percent, `runs` runs,
/// at level `alpha`) is above kGateUndecidedPercent: the number of runs that would bring it
/// below, that no number can, or that it would take more than the search tried.
std::string HistoryAdvice(double sd_percent, std::size_t runs, double alpha);

/// The geometric mean of the contender's time over the baseline's, over the benchmarks compared,
/// with the 95% interval of Student's t on the logarithms of the ratios.
struct SuiteRatio {
  std::size_t benchmarks = 0;
  double geometric_mean = 1;
  std::optional<double> low, high;  ///< unset below two benchmarks
};
SuiteRatio GeometricMeanRatio(const std::vector<double>& ratios);

}  // namespace gpubench::tools
