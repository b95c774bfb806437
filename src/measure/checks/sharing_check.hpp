// Other work on the GPU around a call: other processes (NVML) before and after the timed
// iterations, a profiler held by another process, and the measurement's own sign, a repetition
// far slower than the fastest earlier one of the same instance.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "common/status.hpp"
#include "gpu/cuda/device_info.hpp"
#include "gpu/nvml/gpu_sharing.hpp"
#include "gpubench/settings.hpp"
#include "measure/call/call_result.hpp"

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

/// Looks once (NVML) for other processes; when there are any, marks `verdict` shared and
/// returns true.
bool NoteOtherProcesses(SharingMonitor& monitor, SharingVerdict* verdict);

/// gpubench's own processes on the GPU: this one and, in the profiling child, its parent.
std::vector<unsigned> OwnGpuProcesses();

/// After the timed iterations: other processes then, and a slow repetition.
void CheckAfterRun(SharingMonitor& monitor, SharingHistory& history, const CallResult& call,
                   SharingVerdict* verdict);

/// How often the held iterations look for other processes (NVML), in seconds of wall time.
inline constexpr double kSharingPollSeconds = 0.1;
/// The flush waits the watch looks at, and how many of them must be slow.
inline constexpr int kFlushWaitWindow = 16;
inline constexpr int kSlowFlushWaitsInWindow = 8;

/// Watches held iterations for another process on the GPU. A held iteration waits for the GPU
/// twice (for the flush, then for itself); when another context also runs work, each wait lasts
/// until that context's time slice ends, so holding turns every iteration into a wait for the
/// neighbour (two jobs on one H200 wrote no row in 200 s). Two signs end the holds: NVML lists
/// another process (looked at every kSharingPollSeconds), or most recent flushes took far longer
/// to finish than the flush needs (a neighbour that NVML cannot show, or no NVML at all).
class HeldIterationWatch {
 public:
  /// `expected_flush_seconds`: the flush's bytes over the theoretical DRAM bandwidth.
  HeldIterationWatch(SharingMonitor& monitor, double expected_flush_seconds, double now_seconds);

  /// After each held iteration: `flush_wait_seconds`, the host's wait for that iteration's flush
  /// (launch to finish); `now_seconds`, a steady clock. Returns why holding should stop (the
  /// other process, or the slow flushes), or "" to go on.
  std::string AfterHeldIteration(double flush_wait_seconds, double now_seconds);

  /// A flush wait longer than this counts as slow: 4x the expected time plus 0.5 ms of host and
  /// scheduling slack (on an idle H200 the wait is about 30 us for a 26 us flush).
  double slow_flush_seconds() const { return slow_flush_seconds_; }

 private:
  SharingMonitor& monitor_;
  double slow_flush_seconds_;
  double next_poll_seconds_;
  std::deque<double> waits_;
  int slow_in_window_ = 0;
};

/// A steady clock in seconds, for HeldIterationWatch.
double SteadySeconds();

/// The watch over a call's held iterations on `facts`' device (the flush's expected time from
/// its L2 size and DRAM bandwidth), starting now.
HeldIterationWatch WatchHeldIterations(SharingMonitor& monitor, const DeviceFacts& facts);

/// After a held iteration: true when another process was seen (the rest of the call runs without
/// holds), and then call->sharing says who.
bool NeighbourAfterHeldIteration(HeldIterationWatch& watch, double flush_wait_seconds,
                                 CallResult* call);

}  // namespace gpubench::detail
