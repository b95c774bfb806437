#include "measure/process/process_state.hpp"

#include "config/settings_parse.hpp"

namespace gpubench {

const Settings& CurrentSettings() {
  const detail::Harness& harness = detail::ProcessState::Get().harness;
  if (harness.configured()) return harness.settings();
  static const Settings from_environment = [] {
    auto parsed = detail::ParseCommandLine({"gpubench"}, detail::ProcessEnvironment());
    if (parsed.ok) return parsed.command_line.settings;
    Settings defaults;
    defaults.metrics = DefaultMetrics();
    return defaults;
  }();
  return from_environment;
}

namespace detail {

ProcessState& ProcessState::Get() {
  static ProcessState* state = new ProcessState();  // never destroyed, see the header
  return *state;
}

void ProcessState::ChooseRoute() {
  const ProfilingRole role = FinishProfilingRole(harness.settings(), harness.profiler() != nullptr,
                                                 profiling_pass.files());
  route_ = MakeCounterRoute(role, {profiling_pass, policy, profile_log, harness.settings()});
}

void ProcessState::ResetForTesting() {
  harness = Harness();
  policy = ProfilingPolicy();
  profiling_pass = ProfilingPass();
  route_.reset();
  sharing_history = SharingHistory();
  profile_log.Close();
  sample_log.Close();
  timed_cpu = CallReadings();
  timed_gpu = CallReadings();
  cost = RunCost();
  sample_counts.clear();
  repetition_means.clear();
  context_lost_reason.clear();
  active_loop = nullptr;
  thermal_reference_c = -1;
  tagged_device.reset();
  gpu_lock.Release();
}

}  // namespace detail
}  // namespace gpubench
