// gpubench's reporters mark GB's rows whose CPU time shows state.PauseTiming() in the loop body
// (measure/paused_timing.hpp): counter timing_paused=1 and one message per benchmark.
#pragma once

#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "measure/process_state.hpp"

namespace gpubench::detail {

/// The instance name gpubench's loop gave the row's call ("BM_Copy/1048576"): GB's family name
/// and arguments, without argument names, time type or repetition count.
std::string InstanceNameOfRun(const benchmark::BenchmarkReporter::Run& run);

/// The rows that ran and are GPU-timed (they carry sm_clock_mhz), by the instance name of their
/// call (with the device tag of a --gpubench_devices child), in order.
std::vector<std::pair<std::string, std::vector<benchmark::BenchmarkReporter::Run*>>>
GpuRowsByInstance(std::vector<benchmark::BenchmarkReporter::Run>* runs,
                  const ProcessState& process);

/// Compares every row of a gpubench::Loop call with the thread CPU time gpubench read over its
/// timed iterations and marks the rows of a paused timer (aggregates through their mean); rows
/// without a reading (other benchmarks, other processes) pass unchanged. Call it before a
/// device tag is added to the names.
void MarkPausedTiming(std::vector<benchmark::BenchmarkReporter::Run>* runs, ProcessState& process);

}  // namespace gpubench::detail
