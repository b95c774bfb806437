// From averaged CUPTI metric values to gpubench's counters (names are a public contract).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "device_info.hpp"

namespace gpubench::detail {

/// Mean of each metric over the profiled ranges (metrics missing from a range are skipped).
std::map<std::string, double> AverageRanges(
    const std::vector<std::map<std::string, double>>& ranges);

/// dram_read_bytes, dram_write_bytes, bytes_moved, gpu_duration (s), profiled_sm_clock_mhz,
/// dram_bandwidth (B/s), dram_bandwidth_pct, and every other metric under its own name.
std::map<std::string, double> DeriveMetricCounters(const std::map<std::string, double>& averaged,
                                                   const DeviceFacts& facts);

/// Actual SM clock counters of the timed iterations.
std::map<std::string, double> ClockCounters(double sm_clock_mhz, const DeviceFacts& facts);

/// Close matches for an unknown metric: its forms when the base name exists, else the three
/// base names nearest by edit distance (keeping the requested form, e.g. ".sum").
std::string SuggestMetrics(const std::string& wanted, const std::vector<std::string>& base_metrics,
                           const std::vector<std::string>& rollups_of_base);

/// Runs below this fraction of the rated SM clock are flagged (sm_clock_throttled = 1).
inline constexpr double kThrottleFraction = 0.9;

}  // namespace gpubench::detail
