// The profiling child (measure/profiling/profiling_pass.hpp): the parent runs the benchmark
// binary again with the same arguments, waits for it, then creates its own CUDA context (after
// the child, so that its buffers land where they land with metrics off) and reads what the child
// profiled.
#pragma once

#include <chrono>
#include <memory>
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

class RemovedOnSignal;

/// The child while it runs: Start runs the binary again (`args`: its command line) without
/// waiting, so that the parent can do its own start-up meanwhile; Announce says on `log` that the
/// pass runs, once the parent knows it will use the child (one started before the device query
/// may be discarded, and then nothing is said of it); Finish waits for it, loads its sessions into
/// the process state (stage kTiming) and says on `log` what it found. A child started and never
/// finished is waited for, and its file removed, on destruction.
class ProfilingChild {
 public:
  ProfilingChild();
  ~ProfilingChild();
  ProfilingChild(const ProfilingChild&) = delete;
  ProfilingChild& operator=(const ProfilingChild&) = delete;

  void Start(const std::vector<std::string>& args);
  void Announce(std::ostream& log);
  ProfilingChildResult Finish(std::ostream& log);
  /// Waits for the child and removes its file without reading it (its results are not wanted).
  void Discard();

 private:
  std::string file_;
  std::string why_not_;  ///< the child could not be started: why
  int pid_ = -1;
  std::chrono::steady_clock::time_point start_;
  std::unique_ptr<RemovedOnSignal> removed_;  ///< the file, on a signal that ends the parent
};

/// Start and Finish in one: runs the child and waits for it.
ProfilingChildResult RunProfilingChild(const std::vector<std::string>& args, std::ostream& log);

}  // namespace gpubench::detail
