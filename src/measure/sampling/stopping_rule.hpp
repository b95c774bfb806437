// When a repetition has taken enough timed samples (stopping=precision), and why it stopped.
//
// GB hands a gpubench benchmark a count of two; the loop takes samples until the rule below says
// stop and then tells GB how many it took (State::KeepRunningBatch may claim more iterations than
// GB asked for, and GB reports the count that ran). So the rule acts through the count GB
// reports, sample by sample, without trial calls.
#pragma once

#include <cstdint>
#include <optional>

#include "gpubench/settings.hpp"
#include "measure/sampling/sample_series.hpp"

namespace gpubench::detail {

/// The count GB is asked for under gpubench's rule: the first KeepRunningBatch(1) starts GB's
/// timer and leaves one iteration, through which the loop later claims the samples it took.
inline constexpr int64_t kGpubenchIterations = 2;

/// Why a repetition's timed samples ended (counter stop_reason; the codes of
/// gpubench::kStopReasons in counters.hpp).
enum class StopReason {
  kPrecision = 1,   ///< the precision target, after the minimum samples and seconds
  kMaxSeconds = 2,  ///< the wall budget (max_seconds) came first
  kMinimum = 3,     ///< cache=keep: one timed region has no spread, so the minimums end it
  kMinTime = 4,     ///< GB's rule: its min_time of GPU time (--benchmark_min_time, ->MinTime())
  kIterations = 5,  ///< an explicit count (->Iterations(), --benchmark_min_time=<n>x)
  kRepetition = 6,  ///< the count of the instance's first repetition, which GB's statistics
                    ///< need every repetition to repeat (the first says why it stopped)
};

/// gpubench's rule, from the settings. Decide is asked after each timed sample.
class StoppingRule {
 public:
  explicit StoppingRule(const Settings& settings);

  /// `stats`: the per-sample GPU times collected so far (cache=flush; empty under cache=keep);
  /// `samples`: timed bodies run; `call_seconds`: wall seconds since the call's warm-up began;
  /// `timed_seconds`: wall seconds since its first timed sample; `per_sample`: whether the
  /// samples carry their own times (cache=flush). Nullopt: take another sample.
  std::optional<StopReason> Decide(const SampleSeries& stats, int64_t samples, double call_seconds,
                                   double timed_seconds, bool per_sample) const;

 private:
  double precision_fraction_;
  int64_t min_samples_;
  double min_seconds_;
  double max_seconds_;
};

}  // namespace gpubench::detail
