#include "measure/publish/declared_work.hpp"

#include <chrono>
#include <map>
#include <string>

#include "measure/call/instance.hpp"
#include "measure/process/process_access.hpp"
#include "schema/counter_sink.hpp"

namespace gpubench::detail {
namespace {

// The call's total of a rate counter GB has not yet divided by the time (0 when absent).
double Total(const std::map<std::string, double>& call, const char* name) {
  const auto found = call.find(name);
  return found == call.end() ? 0 : found->second;
}

}  // namespace

std::map<std::string, double> DeclaredCounters(const std::map<std::string, double>& call,
                                               int64_t iterations) {
  std::map<std::string, double> counters;
  CounterSink<Writer::kFunctionEnd> out(counters);
  if (iterations <= 0) return counters;
  // GB's SetBytesProcessed and gpubench::SetFlopsProcessed hold totals over the call's
  // iterations until GB divides them by the time, after the benchmark function returns.
  const double bytes = Total(call, counter::kBytesPerSecond) / static_cast<double>(iterations);
  if (bytes > 0) {
    out.Set<counter::kDeclaredBytes>(bytes);
    if (auto moved = call.find(counter::kBytesMoved); moved != call.end()) {
      out.Set<counter::kDramTrafficRatio>(moved->second / bytes);
    }
  }
  const double flop = Total(call, counter::kFlopsPerSecond) / static_cast<double>(iterations);
  if (flop > 0) {
    out.Set<counter::kDeclaredFlop>(flop);
    if (auto counted = call.find(counter::kFlopCount); counted != call.end()) {
      out.Set<counter::kFlopCountRatio>(counted->second / flop);
    }
  }
  return counters;
}

void PublishDeclared(benchmark::State& state) {
  // Publish sets sm_clock_mhz on every call whose loop finished; a skipped call, or a function
  // that never ran gpubench::Loop, has nothing measured to compare with.
  if (state.counters.count(counter::kSmClockMhz) == 0) return;
  std::map<std::string, double> call;
  for (const auto& [name, counter] : state.counters) call[name] = counter.value;
  for (const auto& [name, value] : DeclaredCounters(call, state.iterations())) {
    state.counters[name] = value;
  }
  PublishFunctionCost(state);
}

void PublishFunctionCost(benchmark::State& state) {
  // The whole function's wall time, its set-up and tear-down included.
  const double function_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                                                GetCurrentInstance().call_start)
                                      .count();
  if (const auto row = ProcessRunCost().FunctionDone(function_seconds)) {
    CounterSink<Writer::kRowCost> cost(state.counters);
    cost.Set<counter::kWallTime>(row->wall_seconds);
    cost.Set<counter::kSamples>(static_cast<double>(row->samples));
  }
}

}  // namespace gpubench::detail
