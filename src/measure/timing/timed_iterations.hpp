// GB's timed iterations of one call: GB's KeepRunning around each timed body (TimedPhase's steps
// inside it), the watch for another process while the bodies are held, the thread CPU time over
// the iterations (paused_timing.hpp), the GPU's heat around them (thermal_watch.hpp, and the wait
// for a cool GPU before them), and the look for other processes after them. Apart from
// IterationController (loop.cpp) so that the controller only sequences the stages and runs the
// bodies they ask for.
#pragma once

#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "common/status.hpp"
#include "measure/call/call_result.hpp"
#include "measure/checks/sharing_check.hpp"
#include "measure/checks/thermal_watch.hpp"
#include "measure/process/harness.hpp"
#include "measure/publish/sample_log.hpp"
#include "measure/sampling/stopping_rule.hpp"
#include "measure/sampling/trial_runs.hpp"
#include "measure/timing/timed_phase.hpp"

namespace gpubench::detail {

/// What the timed iterations use of the process (filled by loop.cpp from the process state).
struct TimingServices {
  Harness& harness;  ///< the settings, the cache strategy, the thermal and sharing monitors
  const TrialRunDetector& trials;  ///< GB's min_time, for a call GB's rule stopped
  double& thermal_reference_c;     ///< --gpubench_thermal=wait: the coolest seen so far
  std::map<std::string, int64_t>& sample_counts;  ///< each instance's first repetition's count
  SharingHistory& sharing_history;                ///< who used the GPU around earlier calls
  SampleLog& sample_log;                          ///< --gpubench_sample_log
};

/// Under gpubench's rule (stopping=precision, a benchmark whose count gpubench set: GB asks for
/// kGpubenchIterations) the call takes samples until StoppingRule says stop, then claims them
/// from GB with KeepRunningBatch; under GB's rule GB's KeepRunning decides, as it always did.
class TimedIterations {
 public:
  TimedIterations(benchmark::State& state, const TimingServices& services, cudaStream_t stream)
      : state_(state),
        services_(services),
        timed_(services.harness.cache().MakeTimedPhase(services.harness, state, stream)) {}

  /// After the warm-up stages (call->launch_hold, call->streams): whether a timed body runs
  /// next. False once GB's iterations are over and the call's timing is complete.
  Result<bool> Begin(CallResult* call);
  /// After each timed body: whether another one runs, as in Begin.
  Result<bool> AfterBody(CallResult* call);
  /// --gpubench_reuse, instead of Begin: GB's iterations run without a body, each with the
  /// source row's time (call->reuse), as many as the source row's under gpubench's count.
  Status Reuse(CallResult* call);

  /// gpubench::UntimedScope inside a timed body.
  Status Pause() { return timed_->Pause(); }
  Status Resume(const std::string& instance) { return timed_->Resume(instance); }
  /// Releases a hold and pops an NVTX range an early exit left open.
  void CloseRange() { timed_->CloseRange(); }

 private:
  Result<bool> BeforeBody(CallResult* call);
  /// Whether another timed body runs: GB's KeepRunning, or gpubench's rule and its claim.
  Result<bool> NextBody(CallResult* call);
  std::optional<StopReason> Decide(const CallResult& call) const;
  Status End(CallResult* call);
  double SecondsSince(std::chrono::steady_clock::time_point start) const;

  benchmark::State& state_;
  TimingServices services_;
  std::unique_ptr<TimedPhase> timed_;
  std::optional<HeldIterationWatch> watch_;  ///< while the timed bodies are held
  std::optional<ThermalWatch> thermal_;      ///< NVML from before the first body to after the last
  double timed_cpu_start_ = -1;       ///< the thread's CPU time as GB's timed iterations began
  std::optional<StoppingRule> rule_;  ///< gpubench's rule ends this call's timed bodies
  std::optional<StopReason> stop_;    ///< the rule's verdict, once it has said stop
  int64_t repeat_count_ = 0;  ///< a later repetition: the first one's count (0: the rule decides)
  int64_t bodies_ = 0;        ///< timed bodies started
  std::chrono::steady_clock::time_point timed_start_;  ///< as the first timed body began
};

}  // namespace gpubench::detail
