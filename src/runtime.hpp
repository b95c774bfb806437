// Process-wide state: the settings, the device facts and the backends the loop uses.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <utility>

#include "backend.hpp"
#include "device_info.hpp"
#include "gpu_sharing.hpp"
#include "gpubench/settings.hpp"
#include "trial_runs.hpp"

namespace gpubench::detail {

class Runtime {
 public:
  static Runtime& Get();

  /// Set by gpubench::Initialize (or tests) before any benchmark runs.
  void Configure(const Settings& settings, const DeviceFacts& facts);
  bool configured() const { return configured_; }
  const Settings& settings() const { return settings_; }
  const DeviceFacts& facts() const { return facts_; }

  /// Backends, created on first use unless installed by tests.
  GpuOps& ops();
  IterationTimer& timer();
  /// Null when hardware metrics are off or unavailable (see profiler_status()).
  Profiler* profiler();
  /// "on: ...", "off: ..." or "unavailable: ..." for the context block.
  const std::string& profiler_status() const { return profiler_status_; }
  /// CUPTI's units of the configured metrics (empty without a profiler).
  const std::map<std::string, std::string>& metric_units() const { return metric_units_; }
  void SetProfiler(std::unique_ptr<Profiler> profiler, std::string status);

  void SetBackendsForTesting(std::unique_ptr<GpuOps> ops, std::unique_ptr<IterationTimer> timer,
                             std::unique_ptr<Profiler> profiler);

  /// Other processes on the device (NVML), created on first use unless installed by tests.
  SharingMonitor& sharing();
  void SetSharingMonitorForTesting(std::unique_ptr<SharingMonitor> monitor) {
    sharing_ = std::move(monitor);
  }
  /// The fastest GPU seconds per iteration of earlier calls of `instance` with the same
  /// iteration count (GB's repetitions), 0 if none; then records this call's.
  double ExchangeFastestCall(const std::string& instance, int64_t iterations, double seconds) {
    auto& [count, fastest] = fastest_calls_[instance];
    const double earlier = count == iterations ? fastest : 0;
    if (count != iterations || seconds < fastest) {
      count = iterations;
      fastest = seconds;
    }
    return earlier;
  }
  /// True once the user has been told that the GPU is shared (the warning is printed once).
  bool TakeSharedWarning() { return !std::exchange(shared_warned_, true); }

  /// Tells GB's iteration-count trials from calls it may report (see trial_runs.hpp).
  TrialRunDetector& trials() { return trials_; }
  void SetTrialRunDetector(TrialRunDetector detector) { trials_ = std::move(detector); }

  /// The counters of the latest successful profiling session, for trials of the same instance.
  struct ProfiledCall {
    std::string instance;
    int64_t iterations = 0;
    std::map<std::string, double> counters;
  };
  void RememberProfiledCall(ProfiledCall call) { latest_profiled_ = std::move(call); }
  void ForgetProfiledCall() { latest_profiled_.reset(); }
  /// Null unless the latest successful session was of `instance`.
  const ProfiledCall* LatestProfiledCall(const std::string& instance) const {
    return latest_profiled_ && latest_profiled_->instance == instance ? &*latest_profiled_
                                                                      : nullptr;
  }

  /// After a sticky CUDA error nothing more can run on the GPU in this process.
  void MarkContextLost(const std::string& reason) {
    if (context_lost_reason_.empty()) context_lost_reason_ = reason;
  }
  const std::string& context_lost_reason() const { return context_lost_reason_; }
  void ResetForTesting();

  /// Releases GPU resources before the CUDA runtime is torn down at exit.
  void Shutdown();

 private:
  Runtime() = default;
  bool configured_ = false;
  Settings settings_;
  DeviceFacts facts_;
  std::unique_ptr<GpuOps> ops_;
  std::unique_ptr<IterationTimer> timer_;
  std::unique_ptr<Profiler> profiler_;
  std::unique_ptr<SharingMonitor> sharing_;
  bool shared_warned_ = false;
  std::map<std::string, std::pair<int64_t, double>> fastest_calls_;
  std::string profiler_status_ = "off: not initialized";
  std::map<std::string, std::string> metric_units_;
  std::string context_lost_reason_;
  TrialRunDetector trials_;
  std::optional<ProfiledCall> latest_profiled_;
};

/// The real CUDA backends (cuda_backend.cu).
std::unique_ptr<GpuOps> MakeCudaOps(const DeviceFacts& facts);
std::unique_ptr<IterationTimer> MakeEventTimer();

}  // namespace gpubench::detail

namespace gpubench::detail {

/// The CUPTI Range Profiler for `settings.metrics` on the device, or null with the reason
/// ("unavailable: ..." / "off: ..."); the string becomes the gpubench_profiler context value.
std::unique_ptr<Profiler> MakeCuptiProfiler(const Settings& settings, const DeviceFacts& facts,
                                            std::string* status);

/// Prints the metrics of `chip` (or of the device when chip is empty) whose names contain
/// `filter`: name, unit, description. Returns an error message, or "" on success.
std::string ListMetrics(const std::string& chip, const DeviceFacts& facts,
                        const std::string& filter, std::ostream& out);

/// The CUPTI activity timer (timer=cupti).
std::unique_ptr<IterationTimer> MakeCuptiTimer();

}  // namespace gpubench::detail
