// The one step that turns what a call measured into what users see: GB counters, the profile
// log, and the warnings about it (each printed once).
#pragma once

#include <benchmark/benchmark.h>

#include <map>
#include <string>
#include <vector>
#include "measure/call/call_result.hpp"

#include "gpu/cuda/device_info.hpp"
#include "measure/checks/call_readings.hpp"
#include "measure/profiling/counter_route.hpp"
#include "measure/profiling/profiling_pass.hpp"
#include "measure/profiling/profiling_policy.hpp"
#include "measure/publish/profile_log.hpp"
#include "measure/publish/run_cost.hpp"
#include "measure/sampling/sample_series.hpp"

namespace gpubench::detail {

/// What publishing uses of the process (filled by loop.cpp from the process state).
struct PublishServices {
  const CounterRoute& route;  ///< whether the counters were profiled here, after the timing
  ProfilingPolicy& policy;    ///< notes printed once, the profiled-call cache, the trial detector
  ProfileLog& profile_log;    ///< --gpubench_profile_log
  const DeviceFacts& facts;   ///< the rated clock, for the clock counters
  /// Each instance's repetitions so far, for the spread between calls (precision_pct).
  std::map<std::string, std::vector<RepetitionMean>>& repetition_means;
  RunCost& cost;            ///< what the run and each row cost in wall time
  CallReadings& timed_cpu;  ///< for the reporters' PauseTiming check
  CallReadings& timed_gpu;  ///< for the reporters' check of a body that times itself
  ReuseState& reuse;        ///< --gpubench_reuse: the rows published so far per instance
};

/// Writes `call`'s counters into `state` and records it through `services` (the profiled-call
/// cache for trials, the trial detector's note of copied counters, the profile log).
void Publish(const CallResult& call, benchmark::State& state, const PublishServices& services);

/// --gpubench_reuse, a reused call (call.reuse): the source row's values, the reuse counters, and
/// what this call cost (its set-up and its signature's body). publish_reuse.cpp.
void PublishReused(const CallResult& call, benchmark::State& state,
                   const PublishServices& services);

/// Every call measured here: work_signature, measured_at and, with --gpubench_reuse, the reason
/// it was measured (reuse_status, reused_runs 0). `trial`: GB discards the call. publish_reuse.cpp.
void PublishSignature(const CallResult& call, bool trial, benchmark::State& state,
                      const PublishServices& services);

/// The profiling pass's counterpart: keeps `call`'s session (and who else used the GPU around it,
/// asked of `monitor` now) for the instance's timed calls, and writes the profile log.
/// An error says the session could not be written for the parent.
Status KeepForTimedPass(SharingMonitor& monitor, const CallResult& call, ProfileLog& profile_log,
                        ProfilingPass& pass);

}  // namespace gpubench::detail
