// Named ways into the process state (process_state.hpp; defined in process_state.cpp) for the
// code that cannot be handed it:
// GB constructs the hooks (reporters, the instance scope) and users construct the public classes,
// so they take no constructor arguments. Each function hands out one part, or does one thing,
// so that the singleton is named in few files and each user says what it needs.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "common/status.hpp"
#include "gpu/cuda/device_info.hpp"
#include "gpubench/settings.hpp"
#include "measure/checks/call_readings.hpp"
#include "measure/profiling/profiling_pass.hpp"
#include "measure/publish/run_cost.hpp"
#include "measure/reuse/call_reuse.hpp"

namespace gpubench::detail {

/// What the run and each row cost in wall time.
RunCost& ProcessRunCost();

/// The device of one device's run of --gpubench_devices (every name gets /gpu:N); else nullopt.
std::optional<int> TaggedDevice();

/// gpubench::Loop objects made so far: a gpubench form's call that made none timed nothing.
int64_t LoopsStarted();

/// The timed calls' thread CPU time, for the reporters' PauseTiming check.
CallReadings& TimedCpuReadings();
/// The GPU seconds each timed call handed GB, for the reporters' check of a self-timing body.
CallReadings& TimedGpuReadings();

/// True the first time `message` is asked about: each message is printed once per process.
bool FirstTime(const std::string& message);

/// The harness's view of the run, for the banner and the rows: its settings, the device's facts,
/// the profiler's status and the units of the hardware metrics.
const Settings& ProcessSettings();
const DeviceFacts& ProcessDeviceFacts();
/// Why the device gpubench::Initialize (or a test's Configure) looked at is not usable; nullopt
/// where it is, or where nothing configured the run (then the loop says that Initialize is
/// missing).
std::optional<std::string> UnusableDeviceReason();
const std::string& ProfilerStatus();
const std::map<std::string, std::string>& MetricUnits();

/// CUDA's last error, read and so cleared (a usable device only).
Status TakeLastCudaError();
/// After a sticky CUDA error nothing more can run on the GPU in this process.
void MarkContextLost(const std::string& reason);

/// The profiling pass: the child's sessions read in the parent, or the child's output.
ProfilingPass& ProcessProfilingPass();
/// The profiler's status and metric units as the profiling child found them.
void SetProfilerFromChild(std::string status, std::map<std::string, std::string> metric_units);

/// The work recorder around a gpubench form's call: on from before the benchmark function (its
/// set-up is part of the work signature) to the end of the warm-up body; EndCallWork ends a
/// recording the call left on. Nothing without a usable device.
void BeginCallWork();
void EndCallWork();
/// --gpubench_reuse, the parent of the profiling child: the call of `instance` that is about to
/// start reuses its source row on the child's signature (call_reuse.hpp ReuseFromChild), or
/// nullopt where it runs.
std::optional<CallReuse> ReuseFromChildFor(const std::string& instance);
/// Releases GPU resources before the CUDA runtime is torn down at exit.
void ShutdownProcess();

}  // namespace gpubench::detail
