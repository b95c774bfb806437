// Two-sided Mann-Whitney U test (Wilcoxon rank-sum), written to agree with
// scipy.stats.mannwhitneyu(x, y, use_continuity=True, alternative="two-sided").
#pragma once

#include <cstddef>
#include <vector>

#include "common/status.hpp"

namespace gpubench::tools {

enum class MannWhitneyMethod {
  kAuto,        ///< exact unless both samples have more than 8 values or there are ties
  kExact,       ///< exact null distribution of U (ties make it approximate)
  kAsymptotic,  ///< normal approximation with tie and continuity correction
};

struct MannWhitneyResult {
  double u_statistic = 0;  ///< U of the first sample, as scipy reports it
  double p_value = 1;
  MannWhitneyMethod method_used = MannWhitneyMethod::kAsymptotic;
};

/// Both samples need at least one value (else kInvalidInput); values must be finite.
detail::Result<MannWhitneyResult> MannWhitneyU(const std::vector<double>& x,
                                               const std::vector<double>& y,
                                               MannWhitneyMethod method = MannWhitneyMethod::kAuto);

/// The smallest p-value the auto-method test can produce for these sample
/// sizes (complete separation, no ties). If it is not below alpha, no data
/// can make the difference significant.
double SmallestPossiblePValue(std::size_t n1, std::size_t n2);

/// Smallest n such that n repetitions in each file can reach p < alpha.
std::size_t RepetitionsNeededForSignificance(double alpha);

}  // namespace gpubench::tools
