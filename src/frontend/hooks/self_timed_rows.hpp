// A loop body that times itself (its own CUDA events and state.SetIterationTime()), found after
// the fact. GB adds every second a body hands it to the GPU time gpubench hands it, in the timed
// bodies and in those gpubench runs outside GB's iterations (warm-up, hold check), so such a row
// would show 2-4 times the GPU time, silently. gpubench knows what it handed GB for each call
// (TimedGpuReadings, process_access.hpp); its reporters compare that with GB's manual time of the
// row and refuse the rows that differ, once per benchmark with what to remove.
#pragma once

#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include <optional>

#include "measure/checks/call_readings.hpp"

namespace gpubench::detail {

/// Whether GB's manual time of a row exceeds what gpubench handed GB for it: by more than the
/// sums' rounding (1 ns plus a millionth of the time).
bool GbAddedTime(double gpubench_seconds, double gb_seconds);

/// Makes the GPU-timed rows whose GB manual time exceeds gpubench's an error (their aggregates
/// too, judged through the mean) and says once per benchmark on stderr what the body must drop.
/// `timed_gpu`: what gpubench handed GB for each call (claimed as the rows are judged);
/// `tagged_device`: the device tag of a --gpubench_devices child.
void RefuseSelfTimedRows(std::vector<benchmark::BenchmarkReporter::Run>* runs,
                         CallReadings& timed_gpu, std::optional<int> tagged_device);

/// The checks gpubench's reporters make on GB's rows before printing them: PauseTiming in the
/// body (paused_rows.hpp), a body that times itself (above); and the codes GB averaged into its
/// aggregate rows taken out (aggregate_codes.hpp). Against the process's readings and device tag.
void CheckReportedRows(std::vector<benchmark::BenchmarkReporter::Run>* runs);

}  // namespace gpubench::detail
