// A profiled iteration whose body enters gpubench::UntimedScope is several CUPTI ranges, its parts:
// the range closes where a scope begins and opens again after it, so that the counters cover what
// the GPU time covers. This file puts each iteration's parts back together (CPU logic only).
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "common/status.hpp"
#include "gpu/backend.hpp"

namespace gpubench::detail {

/// How a metric's values over the parts of one iteration make the iteration's value, by the
/// last part of its name:
///   kSum    .sum and .avg (an .avg is a sum over time divided by a fixed count of units)
///   kRate   .per_second, weighted by each part's gpu__time_duration.sum (a part with no GPU
///           work lasts ~0 and may read 0/0: it weighs nothing)
///   kSame   .peak_sustained, a constant of the chip, the same in every part (a part that reads
///           no number for it is passed over)
///   kNone   anything else (.pct, .ratio, .max, .min, .pct_of_peak_sustained_*, ...): a share or
///           an extreme of each part says nothing of the whole
enum class PartsRule { kSum, kRate, kSame, kNone };
PartsRule PartsRuleOf(const std::string& metric);

/// The metric whose per-part values weight the parts' rates.
inline constexpr char kPartsDurationMetric[] = "gpu__time_duration.sum";

/// One range the profiling phase pushed: its name and the profiled iteration it belongs to.
struct PushedRange {
  std::string name;
  int iteration = 0;
};

/// A session's profiled iterations, each put together from its parts.
struct IterationValues {
  /// Per profiled iteration, in order; an iteration of which the profiler returned no range is
  /// absent (as a range it left out was before ranges had parts).
  std::vector<std::map<std::string, double>> iterations;
  /// Metrics left out of every iteration because some iteration had several parts and their
  /// rule is kNone (or kRate without durations).
  std::set<std::string> left_out;
};

/// Places each returned range in the iteration it was pushed for (by its name where every
/// returned name is one pushed, else by its position) and puts each iteration's parts together
/// by PartsRuleOf. An error when the ranges cannot be placed: not named as pushed, and fewer or
/// more than were pushed while iterations have several parts.
Result<IterationValues> CombineRangeParts(const std::vector<ProfiledRange>& ranges,
                                          const std::vector<PushedRange>& pushed);

/// What the row says about metrics left out ("" when none): which, and why.
std::string LeftOutNote(const std::set<std::string>& left_out);

}  // namespace gpubench::detail
