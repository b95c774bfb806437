#include "measure/process/process_access.hpp"

#include <utility>

#include "measure/process/process_state.hpp"

namespace gpubench::detail {

RunCost& ProcessRunCost() { return ProcessState::Get().cost; }

std::optional<int> TaggedDevice() { return ProcessState::Get().tagged_device; }

int64_t LoopsStarted() { return ProcessState::Get().loops_started; }

CallReadings& TimedCpuReadings() { return ProcessState::Get().timed_cpu; }
CallReadings& TimedGpuReadings() { return ProcessState::Get().timed_gpu; }

bool FirstTime(const std::string& message) { return ProcessState::Get().policy.FirstTime(message); }

const Settings& ProcessSettings() { return ProcessState::Get().harness.settings(); }
const DeviceFacts& ProcessDeviceFacts() { return ProcessState::Get().harness.facts(); }
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

}  // namespace gpubench::detail
