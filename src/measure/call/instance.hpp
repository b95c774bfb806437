// Which registered benchmark instance is running on this thread, for NVTX range names.
#pragma once

#include <benchmark/benchmark.h>

#include <chrono>
#include <string>

#include "common/status.hpp"
#include "gpubench/registration.hpp"
#include "measure/reuse/call_reuse.hpp"

namespace gpubench::detail {

struct CurrentInstance {
  const std::string* family = nullptr;  ///< null: not registered through gpubench
  int args_count = -1;                  ///< GB's ArgsCnt(): -1 when the family has no args
  double own_min_time_seconds = 0;      ///< the family's ->MinTime(); 0 when it has none
  bool own_iterations = false;          ///< the family has ->Iterations(n) of the user's
  /// gpubench set the family's count (stopping=precision): GB asks for kGpubenchIterations and
  /// the loop's rule decides how many samples the call takes.
  bool gpubench_stops = false;
  std::chrono::steady_clock::time_point call_start;  ///< as GB called the benchmark function
  /// --gpubench_reuse, the parent of the profiling child: the call reuses its source row on the
  /// child's signature (ReuseFromChild), so the scope runs the loop without the function.
  std::optional<CallReuse> reuse_from_child;
};

/// The instance running on this thread (set by InstanceScope).
const CurrentInstance& GetCurrentInstance();

/// "family/arg0/arg1...": the family name followed by the instance's argument values.
std::string InstanceName(const CurrentInstance& instance, const benchmark::State& state);

/// The instance name of a benchmark registered with GB's own macro (no InstanceScope), where GB
/// tells it (State::name() and State::range_size(), GB >= 1.9.5); otherwise an error that says
/// which gpubench form to use and why. `note`: what GB's time means for such a benchmark, to be
/// printed once per family.
Status NameOfUnregisteredInstance(const benchmark::State& state, std::string* name,
                                  std::string* note);

}  // namespace gpubench::detail
