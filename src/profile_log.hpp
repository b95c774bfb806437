// The per-range values of profiled iterations, kept in a side file (--gpubench_profile_out) so
// the variation between profiled iterations is not lost in the average.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace gpubench::detail {

/// Opens (appends to) `path`, closing the file opened before; an empty path turns the log off.
/// Returns an error message or "".
std::string OpenProfileLog(const std::string& path);

/// One JSON line: {"benchmark", "iterations" (of the GB call it belongs to, as in GB's output),
/// "passes", "seconds" (host time the profiled iterations took), "ranges": [{metric: value}...],
/// "error"}.
void AppendProfileRecord(const std::string& benchmark, int64_t iterations, int passes,
                         double seconds, const std::vector<std::map<std::string, double>>& ranges,
                         const std::string& error);

}  // namespace gpubench::detail
