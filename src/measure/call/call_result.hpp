// What one call of a benchmark function measured. The phases fill it in (phases.hpp,
// sharing_check.hpp); publish.cpp turns it into GB counters, the profile log and messages.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gpu/backend.hpp"
#include "gpu/plan/stream_plan.hpp"
#include "measure/checks/thermal_watch.hpp"
#include "measure/reuse/call_reuse.hpp"
#include "measure/sampling/stopping_rule.hpp"

namespace gpubench::detail {

/// Whether other work shared the GPU with the call, and who.
struct SharingVerdict {
  bool known = false;   ///< NVML, the profiler or the timing could tell; else nothing is claimed
  bool shared = false;  ///< another process used the GPU around the call
  std::string who;      ///< for the warning
  void Add(const std::string& what) {
    if (who.find(what) == std::string::npos) who += (who.empty() ? "" : "; ") + what;
  }
};

/// The hardware counters of the call.
struct ProfileOutcome {
  enum class Kind {
    kNone,      ///< metrics off, or no profiled iterations
    kProfiled,  ///< a session of its own
    kCopied,    ///< a trial: the counters of the instance's latest profiled call
    kFromPass,  ///< the instance's session in the profiling pass (profiling_pass.hpp)
    kFailed,    ///< the session failed; timing stays valid
  };
  Kind kind = Kind::kNone;
  std::map<std::string, double> counters;             ///< gpubench's counter names
  std::vector<std::map<std::string, double>> ranges;  ///< CUPTI's values per profiled range
  int passes = 0;
  double seconds = 0;                  ///< host time of the session
  int64_t copied_from_iterations = 0;  ///< kCopied: the source call's iteration count
  std::string error;                   ///< kFailed: why
  /// The profiled ranges paused where the body entered gpubench::UntimedScope (the warm-up
  /// entered one): the counters leave the scopes' work out, as the GPU time does.
  bool ranges_paused = false;
  /// What the row says about its counters: metrics left out because they cannot be put together
  /// from an iteration's parts (range_parts.hpp); "" when none.
  std::string note;
};

/// cache=flush: how the timed bodies were launched (GpuOps::HoldStream).
enum class LaunchHold {
  kNotApplicable,  ///< cache=keep: the iterations run back to back in one timed region
  kHeld,           ///< each body queued behind a hold, released once it was all enqueued
  kBodyWaits,      ///< a hold timed out: the body waits for the GPU, so launches were not held
  kShared,  ///< another process used the GPU: holding would wait for it at every iteration, so
            ///< the iterations (from the moment it was seen) ran without holds
};

struct CallResult {
  std::string instance;     ///< GB's name with the arguments ("BM_Copy/1048576")
  int64_t iterations = 0;   ///< GB's iteration count of the call
  double gpu_seconds = 0;   ///< GPU time of the timed iterations (what GB's manual time sums)
  double sm_clock_mhz = 0;  ///< the mean SM clock of the timed iterations (clock probe)
  std::map<std::string, double> kernel_seconds;  ///< timer=cupti: per kernel, all iterations
  LaunchHold launch_hold = LaunchHold::kNotApplicable;
  StreamPlan streams;  ///< the body's streams besides the timed one (from the warm-up)
  SharingVerdict sharing;
  ProfileOutcome profile;
  /// The thread's CPU time over GB's timed iterations (from the first KeepRunning to the last),
  /// for the reporters' check of state.PauseTiming() (paused_timing.hpp); < 0: not read.
  double timed_cpu_seconds = -1;
  int64_t untimed_scopes = 0;         ///< gpubench::UntimedScope pauses in the timed bodies
  int64_t warmup_scopes = 0;          ///< gpubench::UntimedScope entries in the warm-up body
  double scope_overhead_seconds = 0;  ///< taken out of the GPU time per scope (held, events)
  ThermalSummary thermal;             ///< NVML over the timed iterations (known false: no counters)
  std::optional<ThermalWait> thermal_wait;  ///< --gpubench_thermal=wait before them
  BusyMeasure busy;        ///< untimed iterations with activity records (iterations 0: none)
  std::string busy_error;  ///< why the busy measurement failed, if it did
  /// The profiling child's warm-up body, traced as a busy iteration is (iterations 0: not
  /// traced). It is the busy measurement of a body too long for one of its own
  /// (counter_stages.hpp, UsesWarmupBusy).
  BusyMeasure warmup_busy;
  /// The timed samples' GPU times one by one (cache=flush and timer=events: each sample's own).
  SampleSeries samples;
  /// Why the timed samples ended (unset when the call ended before them).
  std::optional<StopReason> stop_reason;
  /// What the call cost in wall time: from the loop's start to the first timed body (warm-up,
  /// hold check, thermal wait), the timed bodies, and the profiling that belongs to the row (its
  /// instance's call in the profiling child, on the instance's first row, or the counter stages
  /// of this call with profile_process=same).
  std::chrono::steady_clock::time_point loop_start;
  double warmup_body_seconds = 0;  ///< the warm-up body's wall time, its wait for the GPU included
  double wall_warmup_seconds = 0;
  double wall_timed_seconds = 0;
  double wall_profiling_seconds = 0;
  /// Counters a stage measured for the call's row, written as the stage measures them through
  /// CounterSink<Writer::kCallEnd>(&measured) (schema/counter_sink.hpp); Publish copies each one.
  /// A new measured counter needs no field here and no line in publish.cpp.
  std::map<std::string, double> measured;
  /// What the recorder saw of the call's set-up and warm-up body, and false where its set-up ran
  /// before the recorder began (GB's own macros).
  WorkRecord work;
  bool setup_watched = true;
  /// The call's work signature and, with --gpubench_reuse, whether it reuses its source row.
  CallReuse reuse;
};

}  // namespace gpubench::detail
