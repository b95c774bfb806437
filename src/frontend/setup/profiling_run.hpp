// The profiling child (measure/profiling/profiling_pass.hpp): the parent runs the benchmark
// binary again with the same arguments before it creates its CUDA context, and reads what the
// child profiled.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace gpubench::detail {

/// The child's arguments: the parent's, without GB's file output (the child's results are not
/// the run's; its console output goes nowhere).
std::vector<std::string> ProfilingChildArgs(const std::vector<std::string>& args);

/// This process's command line as it started (/proc/self/cmdline), or `fallback` when it cannot
/// be read. The child runs the same main from the start, so it needs what main got, not what a
/// main of your own may have handed gpubench::Initialize after taking its own flags out.
std::vector<std::string> OwnCommandLine(const std::vector<std::string>& fallback);

/// What the parent learnt from its child.
struct ProfilingChildResult {
  bool ran = false;     ///< the child wrote its header: the pass is in the process state
  std::string why_not;  ///< otherwise: for the gpubench_profiler context value
};

/// Runs the child (the binary again, `args`: its command line), waits for it, and loads
/// its sessions into the process state (stage kTiming). Says on `log` what it did.
ProfilingChildResult RunProfilingChild(const std::vector<std::string>& args, std::ostream& log);

}  // namespace gpubench::detail
