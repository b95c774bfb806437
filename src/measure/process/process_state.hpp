// All of gpubench's process-wide state, in one place that tests can reset: the harness, the
// profiling policy, the shared-GPU history, the profile log and the lost-context flag. (Two
// things stay outside by necessity: the thread-local instance marker of registration.cpp, which
// lives exactly as long as one GB call, and cupti_activity.cpp's activity sink, whose C callbacks
// CUPTI calls without a user pointer.)
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "measure/checks/call_readings.hpp"
#include "measure/checks/paused_timing.hpp"
#include "measure/checks/sharing_check.hpp"
#include "measure/process/gpu_lock.hpp"
#include "measure/process/harness.hpp"
#include "measure/profiling/counter_route.hpp"
#include "measure/profiling/profiling_pass.hpp"
#include "measure/profiling/profiling_policy.hpp"
#include "measure/publish/profile_log.hpp"
#include "measure/publish/run_cost.hpp"
#include "measure/publish/sample_log.hpp"
#include "measure/reuse/call_reuse.hpp"
#include "measure/sampling/sample_series.hpp"

namespace gpubench::detail {

class IterationController;

struct ProcessState {
  /// The one instance; never destroyed (benchmarks may outlive main's end).
  static ProcessState& Get();

  Harness harness;
  ProfilingPolicy policy;
  ProfilingPass profiling_pass;
  /// Where the calls' hardware counters come from: the route of the run's final profiling role.
  /// Chosen once, by gpubench::Initialize when the profiler and the profiling pass are set up
  /// (ChooseRoute); a test that sets them up itself gets the choice at its first call.
  const CounterRoute& route() {
    // A test that skips Initialize gets the route at its first call, and GB's threads of a
    // ->Threads(n) benchmark ask for it at once: one of them chooses it.
    std::lock_guard<std::mutex> lock(route_mutex_);
    if (!route_) ChooseRoute();
    return *route_;
  }
  void ChooseRoute();
  SharingHistory sharing_history;
  ProfileLog profile_log;
  SampleLog sample_log;
  /// The timed calls' thread CPU time, for the reporters' PauseTiming check.
  CallReadings timed_cpu;
  /// The GPU seconds each timed call handed GB (SetIterationTime), for the reporters' check of a
  /// body that times itself.
  CallReadings timed_gpu;
  /// What the run and each row cost in wall time.
  RunCost cost;
  /// gpubench's rule: the sample count of each instance's first repetition, which its later
  /// repetitions take too (GB's statistics check that every repetition has the same count).
  std::map<std::string, int64_t> sample_counts;
  /// Each instance's repetitions so far: their means and own variances, for the spread between
  /// calls in precision_pct (sample_series.hpp).
  std::map<std::string, std::vector<RepetitionMean>> repetition_means;
  /// The work signature's run-level lines and --gpubench_reuse's source (call_reuse.hpp).
  ReuseState reuse;

  /// After a sticky CUDA error nothing more can run on the GPU in this process.
  void MarkContextLost(const std::string& reason) {
    if (context_lost_reason.empty()) context_lost_reason = reason;
  }
  std::string context_lost_reason;

  /// The device of one device's run of --gpubench_devices: every name gets /gpu:N.
  std::optional<int> tagged_device;

  /// --gpubench_thermal=wait: the coolest GPU temperature read so far (< 0: none yet).
  double thermal_reference_c = -1;

  /// gpubench::Loop objects made so far: a gpubench form's call that made none timed nothing.
  int64_t loops_started = 0;

  /// The loop whose body runs now (gpubench::UntimedScope finds it here); null between bodies.
  IterationController* active_loop = nullptr;

  /// --gpubench_exclusive=wait: this job's turn on the GPU among gpubench jobs (gpu_lock.hpp).
  GpuLock gpu_lock;

  /// Everything back to the state before gpubench::Initialize.
  void ResetForTesting();
  /// Releases GPU resources before the CUDA runtime is torn down at exit.
  void Shutdown() { harness.ReleaseBackends(); }

 private:
  std::unique_ptr<CounterRoute> route_;
  std::mutex route_mutex_;
};

}  // namespace gpubench::detail
