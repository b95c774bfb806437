#include "measure/declared_work.hpp"

#include <chrono>
#include <map>
#include <string>

#include "measure/instance.hpp"
#include "measure/metrics.hpp"
#include "measure/process_state.hpp"

namespace gpubench::detail {

void PublishDeclared(benchmark::State& state) {
  // Publish sets sm_clock_mhz on every call whose loop finished; a skipped call, or a function
  // that never ran gpubench::Loop, has nothing measured to compare with.
  if (state.counters.count("sm_clock_mhz") == 0) return;
  std::map<std::string, double> call;
  for (const auto& [name, counter] : state.counters) call[name] = counter.value;
  for (const auto& [name, value] : DeclaredCounters(call, state.iterations())) {
    state.counters[name] = value;
  }
  // The whole function's wall time, its set-up and tear-down included.
  const double function_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                                                GetCurrentInstance().call_start)
                                      .count();
  if (const auto row = ProcessState::Get().cost.FunctionDone(function_seconds)) {
    state.counters["wall_time"] = row->wall_seconds;
    state.counters["samples"] = static_cast<double>(row->samples);
  }
}

}  // namespace gpubench::detail
