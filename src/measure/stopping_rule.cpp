#include "measure/stopping_rule.hpp"

#include <cmath>

namespace gpubench::detail {

void SampleStats::Add(double value) {
  ++count_;
  const double delta = value - mean_;
  mean_ += delta / static_cast<double>(count_);
  squares_ += delta * (value - mean_);
}

double SampleStats::StandardDeviation() const {
  return count_ < 2 ? 0 : std::sqrt(squares_ / static_cast<double>(count_ - 1));
}

std::optional<double> SampleStats::RelativeHalfWidth() const {
  if (count_ < 2 || mean_ <= 0) return std::nullopt;
  return StudentT975(count_ - 1) * StandardDeviation() / std::sqrt(static_cast<double>(count_)) /
         mean_;
}

double StudentT975(int64_t degrees) {
  // Exact to the printed digits up to 30 degrees of freedom; beyond, the Cornish-Fisher
  // expansion, within 0.01% of the true quantile there.
  static constexpr double kTable[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306,
                                      2.262,  2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120,
                                      2.110,  2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
                                      2.060,  2.056, 2.052, 2.048, 2.045, 2.042};
  if (degrees < 1) degrees = 1;
  if (degrees <= 30) return kTable[degrees - 1];
  const double z = 1.959963984540054;
  const double n = static_cast<double>(degrees);
  return z + (z * z * z + z) / (4 * n) +
         (5 * std::pow(z, 5) + 16 * z * z * z + 3 * z) / (96 * n * n);
}

StoppingRule::StoppingRule(const Settings& settings)
    : precision_fraction_(settings.precision_percent / 100),
      min_samples_(settings.min_samples),
      min_seconds_(settings.min_seconds),
      max_seconds_(settings.max_seconds) {}

std::optional<StopReason> StoppingRule::Decide(const SampleStats& stats, int64_t samples,
                                               double call_seconds, double timed_seconds,
                                               bool per_sample) const {
  // GB's count is claimed through one remaining iteration: two samples at least.
  if (samples < 2) return std::nullopt;
  const bool minimums = samples >= min_samples_ && timed_seconds >= min_seconds_;
  if (minimums) {
    if (!per_sample) return StopReason::kMinimum;
    const std::optional<double> half_width = stats.RelativeHalfWidth();
    // Judged on the samples collected: all of them, or all but those still in flight.
    if (stats.count() >= min_samples_ && half_width && *half_width <= precision_fraction_) {
      return StopReason::kPrecision;
    }
  }
  // The next sample would end past the budget: stop now rather than after it.
  const double per_body = timed_seconds / static_cast<double>(samples);
  if (call_seconds + per_body > max_seconds_) return StopReason::kMaxSeconds;
  return std::nullopt;
}

}  // namespace gpubench::detail
