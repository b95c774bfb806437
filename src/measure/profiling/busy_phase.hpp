// The busy measurement of one call: untimed iterations after the profiled ones, with CUPTI
// activity records on (BusyTracer), so that the timed iterations are never traced. Where
// metrics are profiled (the profiling child, or inline with profile_process=same), each
// instance runs them once; the timed call publishes gpu_busy_time and gpu_busy_pct.
#pragma once

#include <cuda_runtime_api.h>

#include <chrono>

#include <string>

#include "common/status.hpp"
#include "measure/call/call_result.hpp"
#include "measure/process/harness.hpp"

namespace gpubench::detail {

class BusyPhase {
 public:
  BusyPhase(Harness& harness, cudaStream_t stream) : harness_(harness), stream_(stream) {}
  ~BusyPhase() { Abort(); }

  /// Starts tracing and the first iteration; *body: whether a body runs now. A tracer that is
  /// unavailable or fails is no error of the call: call->busy_error says why.
  Status Begin(const std::string& instance, int iterations, CallResult* call, bool* body);
  /// After each body; *body: whether another one runs.
  Status AfterBody(CallResult* call, bool* body);
  /// gpubench::UntimedScope inside a body.
  Status Pause() { return harness_.busy().Pause(); }
  Status Resume();
  /// Stops tracing an error or an early exit left on.
  void Abort();

 private:
  Status BeforeBody(CallResult* call, bool* body);
  Status Failed(const Status& status, CallResult* call, bool* body);

  Harness& harness_;
  cudaStream_t stream_;
  std::string instance_;
  int remaining_ = 0;
  std::chrono::steady_clock::time_point started_;  ///< Begin, for BusyMeasure::host_seconds
  bool open_ = false;
  bool in_body_ = false;
};

/// "GPU time 3.53 ms, GPU busy 0.47 ms (13%): per iteration the loop calls cudaMallocHost
/// (2.1 ms), cudaMalloc (0.3 ms), ..." for a call whose busy share is below
/// kBusyWarnBelowPercent; "" otherwise. `held`: the timed bodies ran behind a launch hold, so
/// the host's calls did not pace the GPU, and the gaps are between the GPU's own work items; ""
/// when they are no longer than the timer's floor around a launch (kBusyHeldIdleFloorSeconds).
std::string BusyMessage(const std::string& instance, double gpu_seconds_per_iteration,
                        const BusyMeasure& busy, bool held = false);

/// "cudaMallocHost:1:0.0021,cudaMalloc:1:0.0003": the context's form of the host calls.
std::string HostCallsText(const BusyMeasure& busy);

}  // namespace gpubench::detail
