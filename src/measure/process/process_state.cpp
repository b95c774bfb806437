#include "measure/process/process_state.hpp"

#include <utility>

#include "config/settings_parse.hpp"
#include "measure/call/abort_note.hpp"
#include "measure/process/process_access.hpp"

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
  SetAbortLineFile(-1);  // the pass's file is closed
  route_.reset();
  sharing_history = SharingHistory();
  profile_log.Close();
  sample_log.Close();
  timed_cpu = CallReadings();
  timed_gpu = CallReadings();
  cost = RunCost();
  sample_counts.clear();
  repetition_means.clear();
  reuse = ReuseState();
  context_lost_reason.clear();
  active_loop = nullptr;
  thermal_reference_c = -1;
  tagged_device.reset();
  gpu_lock.Release();
}

// The named ways in (process_access.hpp): here, so that the process state is named in few files.
RunCost& ProcessRunCost() { return ProcessState::Get().cost; }

std::optional<int> TaggedDevice() { return ProcessState::Get().tagged_device; }

int64_t LoopsStarted() { return ProcessState::Get().loops_started; }

CallReadings& TimedCpuReadings() { return ProcessState::Get().timed_cpu; }
CallReadings& TimedGpuReadings() { return ProcessState::Get().timed_gpu; }

void BeginCallWork() {
  ProcessState& process = ProcessState::Get();
  Harness& harness = process.harness;
  // Only a run that signs records: with --gpubench_signature=off no CUPTI callbacks come before
  // the warm-up body.
  if (!process.reuse.signing || !harness.configured() || !harness.facts().available) return;
  harness.work().Begin();
}

std::optional<CallReuse> ReuseFromChildFor(const std::string& instance) {
  ProcessState& process = ProcessState::Get();
  if (!process.reuse.on) return std::nullopt;
  return ReuseFromChild(process.reuse, instance, process.route().ReusedInChild(instance),
                        UnixSeconds());
}

void EndCallWork() {
  Harness& harness = ProcessState::Get().harness;
  if (!harness.configured() || !harness.facts().available) return;
  if (harness.work().recording()) (void)harness.work().End();
}

bool FirstTime(const std::string& message) { return ProcessState::Get().policy.FirstTime(message); }

const Settings& ProcessSettings() { return ProcessState::Get().harness.settings(); }
const DeviceFacts& ProcessDeviceFacts() { return ProcessState::Get().harness.facts(); }
std::optional<std::string> UnusableDeviceReason() {
  const Harness& harness = ProcessState::Get().harness;
  if (!harness.configured() || harness.facts().available) return std::nullopt;
  return harness.facts().unavailable_reason;
}
const std::string& ProfilerStatus() { return ProcessState::Get().harness.profiler_status(); }
const std::map<std::string, std::string>& MetricUnits() {
  return ProcessState::Get().harness.metric_units();
}

Status TakeLastCudaError() { return ProcessState::Get().harness.ops().TakeLastError(); }
void MarkContextLost(const std::string& reason) { ProcessState::Get().MarkContextLost(reason); }

ProfilingPass& ProcessProfilingPass() { return ProcessState::Get().profiling_pass; }
void SetProfilerFromChild(std::string status, std::map<std::string, std::string> metric_units) {
  ProcessState::Get().harness.SetProfilerFromChild(std::move(status), std::move(metric_units));
}

void ShutdownProcess() { ProcessState::Get().Shutdown(); }

}  // namespace detail
}  // namespace gpubench
