// From averaged CUPTI metric values to gpubench's counters (names are a public contract).
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "gpu/cuda/device_info.hpp"

namespace gpubench::detail {

/// Mean of each metric over the profiled ranges (metrics missing from a range are skipped).
std::map<std::string, double> AverageRanges(
    const std::vector<std::map<std::string, double>>& ranges);

/// dram_read_bytes, dram_write_bytes, bytes_moved, gpu_duration (s), profiled_sm_clock_mhz,
/// dram_bandwidth (B/s), dram_bandwidth_pct; the counters of every metric group whose metrics
/// were all collected (metric_groups.hpp: flops, l2), the group's metrics then not under their
/// own names; and every other metric under its own name. `left_out`: metrics collected but not
/// in `averaged` (range_parts.hpp: they cannot be put together from an iteration's parts); they
/// count as collected for the groups, and the counters read from them are not written.
std::map<std::string, double> DeriveMetricCounters(const std::map<std::string, double>& averaged,
                                                   const DeviceFacts& facts,
                                                   const std::set<std::string>& left_out = {});

/// The flops group's counters from averaged metrics and the counters derived so far
/// (gpu_duration, bytes_moved): flop_count_fp64/fp32/fp16 (each written, 0 when none ran),
/// flop_count, flop_rate, flop_rate_peak, flop_rate_pct and arithmetic_intensity.
void AddFlopCounters(const std::map<std::string, double>& averaged,
                     std::map<std::string, double>* counters);

/// Actual SM clock counters of the timed iterations.
std::map<std::string, double> ClockCounters(double sm_clock_mhz, const DeviceFacts& facts);

/// Runs below this fraction of the rated SM clock are flagged (sm_clock_throttled = 1).
inline constexpr double kThrottleFraction = 0.9;

}  // namespace gpubench::detail
