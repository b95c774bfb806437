// The CUDA runtime calls that a benchmark's loop body made per iteration, as gpubench records
// them in the context key gpubench_host_calls, and the rows whose GPU was busy for well under
// their GPU time (gpu_busy_pct), which gpubench-report lists with those calls.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/busy_text.hpp"
#include "schema/context_keys.hpp"
#include "tools/load/model.hpp"

namespace gpubench::tools {

/// One runtime API call of the loop body: how often per iteration and the host time per
/// iteration spent in it.
struct HostCall {
  std::string name;    ///< "cudaMemcpy"
  double count = 0;    ///< calls per iteration (may be fractional)
  double seconds = 0;  ///< host seconds per iteration in those calls
};

/// What gpubench_host_calls says of one instance.
struct InstanceHostCalls {
  std::vector<HostCall> calls;  ///< in the value's order (largest host time first)
  bool malformed = false;       ///< named by an entry whose calls could not be read
};

/// gpubench_host_calls parsed:
///   value := "none" | entry (";" entry)*
///   entry := INSTANCE "=" call ("," call)*
///   call  := NAME ":" COUNT ":" SECONDS
/// INSTANCE is gpubench's instance name (family + "/" + each argument, "BM_Reduce/20480000").
/// A malformed entry keeps no calls (its instance, when it has one, is marked malformed) and is
/// said in `problems`; the other entries are kept. "none" is no instances and no problem, and so
/// is a value that starts with "not " (gpubench's "not measured", "not listed here: ..."); an
/// empty value is a problem.
struct HostCallsContext {
  /// The calls were recorded: the value is a list or "none", so that an instance it lacks made no
  /// runtime call in its loop body (gpubench lists only instances that made some).
  bool recorded = false;
  std::unordered_map<std::string, InstanceHostCalls> instances;
  /// What was wrong, one line each ("entry 2 (\"...\"): ..."); empty when the value is fine.
  std::vector<std::string> problems;

  /// The instance of GB's row `run_name`: the longest instance name that equals it or is a
  /// prefix of it followed by "/" ("BM_Reduce/20480000" for "BM_Reduce/20480000/manual_time");
  /// nullptr when none is.
  const InstanceHostCalls* Match(std::string_view run_name) const;
};
HostCallsContext ParseHostCalls(std::string_view value);

/// "cudaMallocHost (2.1 ms), cudaMemcpy 2x (200 us)": at most `max_calls`, the count only when
/// it is not 1, then "and N more call(s) (T)" for the rest.
std::string DescribeHostCalls(const std::vector<HostCall>& calls, std::size_t max_calls = 4);

/// The warnings about the GPU's busy time of a run: one per benchmark whose median gpu_busy_pct
/// is below kBusyWarnBelowPercent (rows marked gpu_shared are left out: their cause is the
/// other process; so are held rows that idle no longer than kBusyHeldIdleFloorSeconds, the
/// timer's floor around a launch), "NAME: GPU time T, GPU busy B (P%): per iteration the loop calls
/// ..." (or that the calls were not recorded: no gpubench_host_calls, or "not ..."; or that the
/// loop body made none: the list lacks the instance), the first 20 so and the rest named in one
/// more; and first one that says what was wrong with a malformed gpubench_host_calls.
std::vector<std::string> GpuBusyWarnings(const BenchmarkFile& run);

}  // namespace gpubench::tools
