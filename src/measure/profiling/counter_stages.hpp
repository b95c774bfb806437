// The stages of one call after its timed iterations (in the profiling child, after its warm-up):
// where the call's hardware counters come from, and the busy measurement where they are
// profiled. The counters are the profiling child's (the parent after the child), the latest
// profiled call's (a trial of GB's iteration count), or a profiling session here; a session is
// followed by the busy measurement's bodies. Apart from IterationController (loop.cpp) so that
// the controller only sequences the stages and runs the bodies they ask for.
#pragma once

#include <cuda_runtime_api.h>

#include "common/status.hpp"
#include "measure/call/call_result.hpp"
#include "measure/process/harness.hpp"
#include "measure/profiling/busy_phase.hpp"
#include "measure/profiling/counter_route.hpp"
#include "measure/profiling/profiling_policy.hpp"
#include "measure/stages/phases.hpp"

namespace gpubench::detail {

/// The wall time a profiling session and busy measurement should stay within per instance,
/// the benchmark's own set-up aside (warm-up body included): beyond 1.5 times this the child
/// says so.
inline constexpr double kProfilingSecondsPerInstance = 1.0;

/// What the bodies of the profiling pass (warm-up, ranges, busy iterations) are aimed at per
/// instance. Averaging more than one range or busy iteration only helps bodies much shorter
/// than this (their counters and busy time vary from body to body); a longer body's counters
/// are those of one range, as ncu's are of one launch, and its profiling then costs 3 bodies.
inline constexpr double kProfilingBodiesSeconds = 0.25;

/// How many profiled ranges (per replay pass) and busy iterations an instance gets: at most
/// `most` (--gpubench_profile_iterations) each, fewer for a body of `body_seconds` so that the
/// warm-up, `passes` x ranges and the busy iterations fit in `budget_seconds`, one of each at
/// least.
struct ProfilingBodies {
  int ranges = 0;
  int busy = 0;
  /// The estimated wall time of warm-up, ranges and busy iterations.
  double Seconds(double body_seconds, int passes) const {
    return body_seconds * (1 + passes * ranges + busy);
  }
};
ProfilingBodies BoundProfilingBodies(double body_seconds, int passes, int most,
                                     double budget_seconds = kProfilingBodiesSeconds);

/// Whether the profiling child's traced warm-up body (call.warmup_busy) is the call's busy
/// measurement: for a body longer than the profiling bodies' aim (it would get one busy
/// iteration of its own), with no gpubench::UntimedScope in it (the warm-up runs whole).
bool UsesWarmupBusy(const CallResult& call);

/// What the counter stages use of the process (filled by loop.cpp from the process state).
struct CounterServices {
  Harness& harness;           ///< the profiler, the device's facts and the sharing monitor
  const CounterRoute& route;  ///< where the call's counters come from
  ProfilingPolicy& policy;    ///< notes printed once
};

class CounterStages {
 public:
  CounterStages(const CounterServices& services, cudaStream_t stream)
      : services_(services),
        profiling_(services.harness, stream),
        busy_(services.harness, stream) {}

  /// Takes or copies the call's counters, or starts a profiling session (or, when the session
  /// has no body to run, the busy measurement). Returns whether a body runs next.
  Result<bool> Begin(CallResult* call);
  /// After a profiled or a busy body: whether another one runs.
  Result<bool> AfterBody(CallResult* call);

  /// The call's end, by its counter route: the profiling child keeps the session for the timed
  /// pass and skips the call (the failed Status kProfilingPassSkip); Ok in any other process.
  Status EndCall(const CallResult& call);

  /// "profiled" or "busy-measurement": the body that runs.
  const char* body_phase() const { return in_busy_body_ ? "busy-measurement" : "profiled"; }
  /// gpubench::UntimedScope inside a profiled or busy body: its work is left out of the
  /// counters and of the busy time.
  Status PauseScope() { return in_busy_body_ ? busy_.Pause() : profiling_.PauseScope(); }
  Status ResumeScope() { return in_busy_body_ ? busy_.Resume() : profiling_.ResumeScope(); }

  /// Ends a session and stops tracing, where an error or an early exit left them open.
  void Abort() {
    profiling_.Abort();
    busy_.Abort();
  }

 private:
  Result<bool> AfterProfiledBody(CallResult* call);
  // The busy measurement runs where the metrics are profiled, after them.
  Result<bool> StartBusy(CallResult* call);
  const Settings& settings() const { return services_.harness.settings(); }

  CounterServices services_;
  ProfilingPhase profiling_;
  BusyPhase busy_;
  bool in_busy_body_ = false;
  ProfilingBodies bodies_;  ///< this call's share of profiled and busy bodies
};

}  // namespace gpubench::detail
