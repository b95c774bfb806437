// The stages of one call before anything is timed: the checks that admit the call, the warm-up
// body and, with cache=flush, the hold-check body that decides whether the timed bodies can run
// behind launch holds. Apart from IterationController (loop.cpp) so that the controller only
// sequences the stages and runs the bodies they ask for.
#pragma once

#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>

#include <chrono>

#include <string>

#include "common/status.hpp"
#include "measure/call/call_result.hpp"
#include "measure/checks/admission.hpp"
#include "measure/process/harness.hpp"
#include "measure/profiling/counter_route.hpp"
#include "measure/stages/phases.hpp"

namespace gpubench::detail {

/// What the warm-up stages use of the process (filled by loop.cpp from the process state).
struct WarmupServices {
  Harness& harness;           ///< the cache strategy, GPU operations, timer and sharing monitor
  const CounterRoute& route;  ///< whether calls are timed here, and which are already profiled
  AdmissionServices admission;
  const ReuseState& reuse;  ///< the work signature's run lines and --gpubench_reuse's source
};

class WarmupStages {
 public:
  /// What follows a body of these stages.
  enum class Next {
    kHoldCheck,  ///< the hold-check body
    kTimed,      ///< GB's timed iterations (call->launch_hold says whether they are held)
    kCounters,   ///< the profiling child times nothing: the counter stages (counter_stages.hpp)
    kReused,     ///< --gpubench_reuse: the source row's values (call->reuse), nothing measured
  };

  WarmupStages(benchmark::State& state, const WarmupServices& services, cudaStream_t stream)
      : state_(state), services_(services), stream_(stream), warmup_(services.harness, stream) {}

  /// Admits the call (sets call->instance and call->sharing) and prepares the warm-up body,
  /// which runs next.
  Status Begin(CallResult* call);
  /// After the warm-up body (sets call->streams) or the hold-check body (call->launch_hold).
  Result<Next> AfterBody(CallResult* call);

  /// Begin found the call reused on the profiling child's signature: no body runs, the loop
  /// goes straight to the reused row.
  bool reused_before_body() const { return reused_before_body_; }
  /// "warm-up" or "hold-check": the body that runs.
  const char* body_phase() const { return in_hold_check_ ? "hold-check" : "warm-up"; }
  bool in_hold_check() const { return in_hold_check_; }
  /// gpubench::UntimedScope inside the hold-check body (the warm-up body runs whole).
  Status PauseHoldCheck() { return warmup_.PauseHoldCheck(); }
  Status ResumeHoldCheck(const std::string& instance) { return warmup_.ResumeHoldCheck(instance); }
  /// Stops the warm-up's tracing that an error or an exception of the body left on.
  void Abort();

 private:
  Result<Next> AfterWarmup(CallResult* call);
  Status AfterHoldCheck(CallResult* call);
  /// The profiling child traces its warm-up body as a busy iteration (call->warmup_busy): for a
  /// long body it saves the busy measurement's own body. Only after a set-up longer than the
  /// profiling bodies' aim: a body long enough to use the reading usually comes with a set-up
  /// that long (data to allocate and fill), and tracing costs a short body about 1.5 ms. A
  /// long body with a short set-up keeps its own busy iteration. A tracer that fails only leaves
  /// the reading out.
  bool LongSetUp() const;
  /// The call's wall time so far: from the function's call where it is known, else the loop's.
  double CallSeconds(const CallResult& call) const;
  void BeginTrace();
  void EndTraceWindow();
  Status EndTrace(CallResult* call);
  /// False in the profiling child (its calls profile and are skipped, untimed).
  bool times_calls() const { return services_.route.TimesCalls(); }

  benchmark::State& state_;
  WarmupServices services_;
  cudaStream_t stream_;
  WarmupPhase warmup_;
  bool in_hold_check_ = false;
  bool reused_before_body_ = false;
  bool tracing_ = false;      ///< the warm-up body is traced (BeginTrace)
  bool window_open_ = false;  ///< between the traced body's BeginIteration and EndIteration
  std::chrono::steady_clock::time_point warmup_start_;  ///< as the warm-up body began
};

}  // namespace gpubench::detail
