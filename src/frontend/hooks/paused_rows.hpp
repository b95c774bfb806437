// gpubench's reporters mark GB's rows whose CPU time shows state.PauseTiming() in the loop body
// (measure/checks/paused_timing.hpp): counter timing_paused=1 and one message per benchmark.
#pragma once

#include <benchmark/benchmark.h>

#include <optional>
#include <string>
#include <vector>

#include "gb/gb_internals.hpp"
#include "measure/checks/call_readings.hpp"

namespace gpubench::detail {

/// The rows that ran and are GPU-timed (they carry sm_clock_mhz), by the instance name of their
/// call (with `tagged_device`, the device tag of a --gpubench_devices child), in order.
std::vector<std::pair<std::string, std::vector<benchmark::BenchmarkReporter::Run*>>>
GpuRowsByInstance(std::vector<benchmark::BenchmarkReporter::Run>* runs,
                  std::optional<int> tagged_device);

/// A row's number and gpubench's reading of the same span, both as one call's accumulated
/// seconds: a repetition against its call's reading, GB's mean aggregate against the readings'
/// mean (GB divides an aggregate's accumulated time by the repetition count when it reports it).
struct RowAgainstReading {
  double gpubench = 0;
  double gb = 0;
};
/// `gb_accumulated`: the row's accumulated time of the kind compared (cpu_accumulated_time,
/// real_accumulated_time). nullopt for a row without a reading: a repetition of another
/// iteration count, an aggregate other than the mean.
std::optional<RowAgainstReading> MatchReading(const benchmark::BenchmarkReporter::Run& run,
                                              const CallReadings::Repetitions& readings,
                                              double gb_accumulated);

/// Compares every row of a gpubench::Loop call with the thread CPU time gpubench read over its
/// timed iterations (`timed_cpu`, claimed as the rows are judged) and marks the rows of a paused
/// timer (aggregates through their mean); rows without a reading (other benchmarks, other
/// processes) pass unchanged. Call it before a device tag is added to the names. Each message is
/// said once per process (FirstTime).
void MarkPausedTiming(std::vector<benchmark::BenchmarkReporter::Run>* runs, CallReadings& timed_cpu,
                      std::optional<int> tagged_device);

}  // namespace gpubench::detail
