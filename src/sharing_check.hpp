// Other work on the GPU around a call: other processes (NVML) before and after the timed
// iterations, a profiler held by another process, and the measurement's own sign, a repetition
// far slower than the fastest earlier one of the same instance.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include "call_result.hpp"
#include "gpu_sharing.hpp"
#include "gpubench/settings.hpp"
#include "status.hpp"

namespace gpubench::detail {

/// The fastest earlier call of each instance, across GB's repetitions.
class SharingHistory {
 public:
  /// The fastest GPU seconds per iteration of earlier calls of `instance` with the same
  /// iteration count (GB's repetitions), 0 if none; then records this call's.
  double ExchangeFastestCall(const std::string& instance, int64_t iterations, double seconds);

 private:
  std::map<std::string, std::pair<int64_t, double>> fastest_calls_;
};

/// Contended H200 runs were 2.4-2.8x slower; a launch-bound kernel's repetitions vary by ~1.15x.
inline constexpr double kSharedSlowdown = 1.5;

/// Before the timed iterations: what --gpubench_exclusive says to do when another process uses
/// the GPU (warn: note it; wait: wait for it to leave; fail: an error that skips the call).
Status CheckBeforeRun(SharingMonitor& monitor, const Settings& settings,
                      const std::string& profiler_status, const std::string& instance,
                      SharingVerdict* verdict);

/// After the timed iterations: other processes then, and a slow repetition.
void CheckAfterRun(SharingMonitor& monitor, SharingHistory& history, const CallResult& call,
                   SharingVerdict* verdict);

}  // namespace gpubench::detail
