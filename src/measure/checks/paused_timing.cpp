#include "measure/checks/paused_timing.hpp"

#include <time.h>

#include <algorithm>

namespace gpubench::detail {

double ThreadCpuSeconds() {
  timespec now{};
  if (::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now) != 0) return 0;
  return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

PausedTiming ComparePausedTiming(double gpubench_cpu_seconds, double gb_cpu_seconds,
                                 bool process_time) {
  constexpr double kAbsoluteSeconds = 200e-6;
  constexpr double kRelative = 1e-3;
  const double tolerance =
      kAbsoluteSeconds + kRelative * std::max(gpubench_cpu_seconds, gb_cpu_seconds);
  const double difference = gb_cpu_seconds - gpubench_cpu_seconds;
  if (difference < -tolerance) return PausedTiming::kLower;
  if (difference > tolerance && !process_time) return PausedTiming::kHigher;
  return PausedTiming::kConsistent;
}

}  // namespace gpubench::detail
