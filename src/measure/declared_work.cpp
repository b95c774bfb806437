#include "measure/declared_work.hpp"

#include <map>
#include <string>

#include "measure/metrics.hpp"

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
}

}  // namespace gpubench::detail
