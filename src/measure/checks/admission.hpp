// The checks before a call of a benchmark function, and after its phases: what makes a call
// impossible (not initialized, no name, threads, no device, a lost context) and a timed span
// that missed the body's work.
#pragma once

#include <benchmark/benchmark.h>

#include <optional>
#include <string>

#include "common/status.hpp"
#include "gpu/plan/stream_plan.hpp"
#include "measure/call/call_result.hpp"
#include "measure/process/harness.hpp"
#include "measure/profiling/profiling_policy.hpp"

namespace gpubench::detail {

/// What the admission reads of the process (filled by loop.cpp from the process state).
struct AdmissionServices {
  const Harness& harness;                   ///< configured, and the device's facts
  ProfilingPolicy& policy;                  ///< notes printed once, the trial detector
  const std::optional<int>& tagged_device;  ///< one device's run of --gpubench_devices
  const std::string& context_lost_reason;   ///< set after a sticky CUDA error
};

/// Checks that make the whole call impossible, in the order a user would fix them. Sets
/// *name to GB's name of the instance (with its arguments, and the device's tag in one
/// device's run of --gpubench_devices) and, with `count_call`, starts the trial detector's view
/// of the call.
Status AdmitCall(benchmark::State& state, const AdmissionServices& services, bool count_call,
                 std::string* name);

/// What the call's GPU time is held against: its busy time, else its profiled duration
/// (ChooseUndercountReference).
UndercountReference UndercountReferenceOf(const CallResult& call);

/// The last line of defence against a span that missed the body's work (CheckUndercount
/// against UndercountReferenceOf), whatever the cause.
Status CheckTimedSpan(const CallResult& call);

}  // namespace gpubench::detail
