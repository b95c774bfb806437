// The one step that turns what a call measured into what users see: GB counters, the profile
// log, and the warnings about it (each printed once).
#pragma once

#include <benchmark/benchmark.h>

#include "measure/call/call_result.hpp"
#include "measure/process/process_state.hpp"

namespace gpubench::detail {

/// Writes `call`'s counters into `state` and records it in `process` (the profiled-call cache
/// for trials, the trial detector's note of copied counters, the profile log).
void Publish(const CallResult& call, benchmark::State& state, ProcessState& process);

/// The profiling pass's counterpart: keeps `call`'s session (and who else used the GPU around it,
/// asked of `monitor` now) for the instance's timed calls, and writes the profile log.
/// An error says the session could not be written for the parent.
Status KeepForTimedPass(SharingMonitor& monitor, const CallResult& call, ProfileLog& profile_log,
                        ProfilingPass& pass);

}  // namespace gpubench::detail
