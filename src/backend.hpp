// The narrow interfaces between the benchmark loop and the GPU. cuda_backend.cu implements them
// on a real device; tests implement them with fakes that record what the loop asked for.
#pragma once

#include <cuda_runtime_api.h>

#include <map>
#include <string>
#include <vector>

#include "gpubench/settings.hpp"
#include "status.hpp"

namespace gpubench::detail {

/// GPU work around the user's body: cache policy, error checks, clock probe, NVTX ranges.
class GpuOps {
 public:
  virtual ~GpuOps() = default;
  /// Before a run's first iteration: selects the device, allocates what `cache` needs.
  virtual Status Prepare(cudaStream_t stream, CachePolicy cache) = 0;
  /// Evicts L2 by streaming a read-only buffer on `stream` (writes nothing).
  virtual Status FlushCache(cudaStream_t stream) = 0;
  /// After each body: reports launch errors (configuration, resources) the body left.
  virtual Status CheckLaunch() = 0;
  virtual Status Synchronize(cudaStream_t stream) = 0;
  /// Starts measuring the SM clock: a probe kernel records each SM's clock and global time.
  virtual Status BeginClockProbe(cudaStream_t stream) = 0;
  /// Ends it and waits: the mean SM clock (MHz) between the two probes, over all SMs seen.
  virtual Status EndClockProbe(cudaStream_t stream, double* sm_clock_mhz) = 0;
  /// NVTX push/pop in domain "gpubench": one nested range per '/'-separated part of the name
  /// (NvtxRangePath), popped together.
  virtual void PushRange(const std::string& name) = 0;
  virtual void PopRange() = 0;
};

/// "BM_Copy/1048576" -> {"BM_Copy", "1048576"}: ncu and nsys read '/' in a push/pop filter as
/// nesting, so each part is its own nested NVTX range. Empty parts are dropped.
std::vector<std::string> NvtxRangePath(const std::string& name);

/// GPU time of regions of stream work.
class IterationTimer {
 public:
  virtual ~IterationTimer() = default;
  /// Forgets everything from earlier runs.
  virtual void BeginRun() {}
  virtual Status Begin(cudaStream_t stream) = 0;
  virtual Status End(cudaStream_t stream) = 0;
  /// Appends the seconds of each region finished since the last call, in order. With
  /// wait_all it waits for every open region; otherwise it returns what it already has.
  virtual Status Collect(bool wait_all, std::vector<double>* seconds) = 0;
  /// Kernel time per kernel name in this run's collected regions (timer=cupti only).
  virtual std::map<std::string, double> KernelSeconds() const { return {}; }
};

/// Hardware metrics of profiled iterations (the CUPTI Range Profiler in cupti_profiler.cpp).
/// One session per run: for each pass, each profiled iteration is one named range.
class Profiler {
 public:
  virtual ~Profiler() = default;
  virtual Status BeginSession(cudaStream_t stream, int ranges) = 0;
  virtual Status BeginPass() = 0;
  virtual Status PushRange(const std::string& name) = 0;
  virtual Status PopRange() = 0;
  /// Ends a pass; *done once CUPTI has every pass it needs.
  virtual Status EndPass(bool* done) = 0;
  /// Metric values per range (metric name -> value in CUPTI's unit), in range order.
  virtual Status EndSession(std::vector<std::map<std::string, double>>* ranges) = 0;
  /// Ends a session early after an error, releasing what it holds.
  virtual void AbortSession() = 0;
  /// Replay passes a session needs for the configured metrics (0 before it is known).
  virtual int PassCount() const = 0;
  /// CUPTI's unit of each configured metric ("byte", "%", ...), where CUPTI names one.
  virtual std::map<std::string, std::string> MetricUnits() const { return {}; }
};

}  // namespace gpubench::detail
