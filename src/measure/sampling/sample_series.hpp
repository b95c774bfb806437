// How precise a repetition's mean GPU time is, from samples that are not independent.
//
// Consecutive GPU samples are correlated (the SM clock holds a level for tens of milliseconds,
// the GPU warms over seconds), and a repetition's samples share conditions that another call of
// the same benchmark does not (its allocations' placement: docs/accuracy.md "The precision of a
// repetition" measured calls of one process whose halves agree within 0.1% and whose means
// differ by 0.3-1.6%). So the variance of a repetition's mean is taken in two parts:
//   - within the call, from its own samples: the larger of the independent-sample variance and
//     that of 10 batch means (non-overlapping, consecutive), which sees correlation up to a
//     tenth of the repetition;
//   - between calls: the spread of the instance's repetition means so far beyond what their own
//     samples explain (method of moments), which no single call can see.
// The half-width is Student's t at the combined degrees of freedom (Welch-Satterthwaite).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace gpubench::detail {

/// The variance of a mean and the degrees of freedom of its estimate.
struct MeanVariance {
  double variance = 0;
  double degrees = 0;
};

/// Batch means need at least this many batches of at least two samples each.
inline constexpr int64_t kBatches = 10;

/// A repetition's timed samples in the order they were taken, each with the host time it was
/// collected at (for --gpubench_samples_out).
class SampleSeries {
 public:
  void Add(double value, double host_seconds);
  int64_t count() const { return static_cast<int64_t>(values_.size()); }
  double mean() const { return mean_; }
  const std::vector<double>& values() const { return values_; }
  const std::vector<double>& host_seconds() const { return host_seconds_; }
  /// The sample standard deviation (0 below two samples).
  double StandardDeviation() const;
  /// The variance of the mean within this call: the larger (by half-width) of independent
  /// samples' and kBatches batch means' (from 2 * kBatches samples on); nullopt below two.
  std::optional<MeanVariance> VarianceOfMean() const;
  /// The half-width of the 95% confidence interval of the mean from this call's samples alone,
  /// as a fraction of the mean (what the stopping rule judges); nullopt below two samples or for
  /// a mean <= 0.
  std::optional<double> RelativeHalfWidth() const;

 private:
  std::vector<double> values_;
  std::vector<double> host_seconds_;
  std::vector<double> prefix_sums_{0.0};  ///< batch means in O(kBatches) per decision
  double mean_ = 0;                       ///< Welford's running mean and
  double squares_ = 0;                    ///< sum of squared deviations
};

/// One repetition's mean and the variance of it from its own samples.
struct RepetitionMean {
  int64_t samples = 0;
  double mean = 0;
  MeanVariance own;
};

/// The half-width of the 95% confidence interval of `current`'s mean, as a fraction of it: its
/// own variance plus the spread between `so_far` (the instance's repetitions in this process up
/// to and including `current`, the same sample count). Nullopt for a mean <= 0.
std::optional<double> RelativeHalfWidthBetweenCalls(const RepetitionMean& current,
                                                    const std::vector<RepetitionMean>& so_far);

/// The variance between calls beyond their own samples' (0 below two repetitions), as a
/// fraction of the mean squared's root: the call_spread_pct counter / 100.
double RelativeSpreadBetweenCalls(const std::vector<RepetitionMean>& so_far);

/// The two-sided 95% quantile of Student's t with `degrees` degrees of freedom (>= 1; a
/// fractional count is rounded down, which widens the interval).
double StudentT975(double degrees);

}  // namespace gpubench::detail
