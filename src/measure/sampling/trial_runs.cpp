#include "measure/sampling/trial_runs.hpp"

#include "gb/gb_internals.hpp"

#include <cmath>
#include <cstdlib>
#include <sstream>

namespace gpubench::detail {
namespace {

// GB sums the same per-iteration times in its own order; a relative margin keeps a call whose
// time equals min_time up to rounding on the "reported" side.
constexpr double kRoundingMargin = 1e-9;

}  // namespace

std::string TrialRunDetector::BeginCall(const std::string& instance, int64_t iterations,
                                        double own_min_time_seconds) {
  std::string warning;
  // A trial is always followed by a longer call of the same instance; anything else means
  // GB reported the call.
  if (copied_ && !(instance == copied_->call.instance && iterations > copied_->call.iterations)) {
    warning = Misjudged(*copied_);
  }
  copied_.reset();
  auto [last, first_call] = last_iterations_.try_emplace(instance, iterations);
  current_ = {instance, iterations, !first_call && iterations > last->second, own_min_time_seconds,
              first_call};
  last->second = iterations;
  return warning;
}

std::optional<double> TrialRunDetector::CallMinTimeSeconds() const {
  // No global min_time (an explicit --benchmark_min_time=<n>x makes GB report every call, its
  // own ->MinTime() notwithstanding): nothing is judged a trial.
  if (!min_time_seconds_) return std::nullopt;
  return current_.own_min_time_seconds > 0 ? current_.own_min_time_seconds : *min_time_seconds_;
}

bool TrialRunDetector::IsTrial(double gpu_seconds) const {
  const std::optional<double> min_time = CallMinTimeSeconds();
  return min_time.has_value() && current_.follows_shorter_call &&
         current_.iterations < kGbMaxIterations && gpu_seconds < *min_time * (1 - kRoundingMargin);
}

bool TrialRunDetector::IsDiscarded(double gpu_seconds) const {
  const std::optional<double> min_time = CallMinTimeSeconds();
  return min_time.has_value() && (current_.first_call || current_.follows_shorter_call) &&
         current_.iterations < kGbMaxIterations && gpu_seconds < *min_time * (1 - kRoundingMargin);
}

void TrialRunDetector::NoteCopiedCounters(double gpu_seconds, int64_t source_iterations) {
  copied_ = CopiedCall{current_, gpu_seconds, source_iterations};
}

std::string TrialRunDetector::Finish() {
  std::string warning = copied_ ? Misjudged(*copied_) : std::string();
  copied_.reset();
  return warning;
}

std::string TrialRunDetector::Misjudged(const CopiedCall& copied) const {
  std::ostringstream out;
  out << "gpubench: " << copied.call.instance << ": GB reported the call with "
      << copied.call.iterations << " iterations (" << copied.gpu_seconds
      << " s of GPU time), which gpubench took for an iteration-count trial because it was "
         "shorter than the min_time it knew ("
      << (copied.call.own_min_time_seconds > 0 ? copied.call.own_min_time_seconds
                                               : min_time_seconds_.value_or(0))
      << " s); its hardware counters were copied from the same instance's profiled call with "
      << copied.source_iterations
      << " iterations (same body, metrics and settings, not this call's own session). A "
         "->MinTime() that gpubench cannot read (a benchmark registered with GB's own macro) "
         "below --benchmark_min_time causes this: register it through gpubench, give the same "
         "value to --benchmark_min_time, or pass --gpubench_profile_runs=all to profile every "
         "call\n";
  return out.str();
}

}  // namespace gpubench::detail
