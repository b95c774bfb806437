// What the loop measures with: the run's plan (its settings), the device's facts and the
// backends.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "config/run_plan.hpp"
#include "gpu/backend.hpp"
#include "gpu/cuda/device_info.hpp"
#include "gpu/nvml/gpu_sharing.hpp"
#include "gpu/nvml/gpu_thermal.hpp"
#include "gpubench/settings.hpp"
#include "measure/timing/cache_strategy.hpp"

namespace gpubench::detail {

class Harness {
 public:
  /// Set by gpubench::Initialize before any benchmark runs. Under another CUDA tool (the plan's
  /// cuda_tool) CUPTI stays attached and the busy measurement is unavailable.
  void Configure(const RunPlan& plan, const DeviceFacts& facts);
  /// A plan of these settings alone (tests): no CUDA tool.
  void Configure(const Settings& settings, const DeviceFacts& facts);
  bool configured() const { return configured_; }
  const RunPlan& plan() const { return plan_; }
  const Settings& settings() const { return plan_.settings; }
  const DeviceFacts& facts() const { return facts_; }
  /// What the calls do to the L2 around their bodies: chosen once from the settings, by
  /// Configure (a harness never configured gets the default settings' strategy).
  const CacheStrategy& cache();

  /// Backends, created on first use unless installed by tests.
  GpuOps& ops();
  IterationTimer& timer();
  /// Null when hardware metrics are off or unavailable (see profiler_status()).
  Profiler* profiler() { return profiler_.get(); }
  /// "on: ...", "off: ..." or "unavailable: ..." for the context block.
  const std::string& profiler_status() const { return profiler_status_; }
  /// CUPTI's units of the configured metrics (empty without a profiler).
  const std::map<std::string, std::string>& metric_units() const { return metric_units_; }
  /// Sets up CUPTI's profiler for the plan's metrics, or none with the reason (off, no device,
  /// another CUDA tool, CUPTI's refusal): the profiler_status(). Returns that reason where the
  /// profiler was wanted on a usable device and could not be set up ("" otherwise).
  std::string StartProfiler();
  void SetProfiler(std::unique_ptr<Profiler> profiler, std::string status);
  /// The profiling child's profiler (profiling_pass.hpp): its status and units; none here.
  void SetProfilerFromChild(std::string status, std::map<std::string, std::string> metric_units);
  /// Other processes on the device (NVML), created on first use unless installed by tests.
  SharingMonitor& sharing();
  /// The GPU's temperature, power and clock events (NVML), created on first use unless installed
  /// by tests.
  ThermalMonitor& thermal();
  /// The streams a body uses (CUPTI callbacks), created on first use unless installed by tests.
  StreamWatch& streams();
  /// The busy measurement (CUPTI activity), created on first use unless installed by tests.
  BusyTracer& busy();
  /// The work recorder (CUPTI callbacks) behind the work signature, created on first use unless
  /// installed by tests.
  WorkRecorder& work();
  void SetWorkRecorderForTesting(std::unique_ptr<WorkRecorder> work) { work_ = std::move(work); }

  void SetBackendsForTesting(std::unique_ptr<GpuOps> ops, std::unique_ptr<IterationTimer> timer,
                             std::unique_ptr<Profiler> profiler);
  /// After Configure: a strategy other than the settings' (the loop must follow it).
  void SetCacheStrategyForTesting(std::unique_ptr<CacheStrategy> cache) {
    cache_ = std::move(cache);
  }
  void SetStreamWatchForTesting(std::unique_ptr<StreamWatch> watch) { streams_ = std::move(watch); }
  void SetBusyTracerForTesting(std::unique_ptr<BusyTracer> busy) { busy_ = std::move(busy); }
  void SetSharingMonitorForTesting(std::unique_ptr<SharingMonitor> monitor) {
    sharing_ = std::move(monitor);
  }
  void SetThermalMonitorForTesting(std::unique_ptr<ThermalMonitor> monitor) {
    thermal_ = std::move(monitor);
  }

  /// Makes every GPU resource of gpubench's own that a call would otherwise make the first time
  /// it needs it: the clock probe, the flush buffer and the stream hold (cache=flush), the
  /// timer's and the stream fork's events, gpubench's kernels (loaded), and CUPTI's first
  /// attachment for the stream watch. Called by Initialize, before any benchmark function runs:
  /// made lazily, they landed between one benchmark's allocations and the next's, so a
  /// benchmark's data lay elsewhere, and an atomic-bound kernel timed 10% apart, depending on
  /// which benchmark ran first (docs/accuracy.md "A number and what ran before it"). A failure
  /// is returned; the calls then make what is missing as before and report their own errors.
  Status PrepareBeforeBenchmarks();

  /// Releases the backends' GPU resources (before the CUDA runtime is torn down at exit).
  void ReleaseBackends();

 private:
  bool configured_ = false;
  RunPlan plan_;
  DeviceFacts facts_;
  std::unique_ptr<CacheStrategy> cache_;
  std::unique_ptr<GpuOps> ops_;
  std::unique_ptr<IterationTimer> timer_;
  std::unique_ptr<Profiler> profiler_;
  std::string profiler_status_ = "off: not initialized";
  std::map<std::string, std::string> metric_units_;
  std::unique_ptr<SharingMonitor> sharing_;
  std::unique_ptr<WorkRecorder> work_;
  std::unique_ptr<ThermalMonitor> thermal_;
  std::unique_ptr<StreamWatch> streams_;
  std::unique_ptr<BusyTracer> busy_;
};

}  // namespace gpubench::detail
