#include "measure/sampling/stopping_rule.hpp"

#include <cmath>

namespace gpubench::detail {

StoppingRule::StoppingRule(const Settings& settings)
    : precision_fraction_(settings.precision_percent / 100),
      min_samples_(settings.min_samples),
      min_seconds_(settings.min_seconds),
      max_seconds_(settings.max_seconds) {}

std::optional<StopReason> StoppingRule::Decide(const SampleSeries& stats, int64_t samples,
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
