// The per-range values of profiled iterations, kept in a side file (--gpubench_profile_out) so
// the variation between profiled iterations is not lost in the average.
#pragma once

#include <cstdint>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "common/status.hpp"

namespace gpubench::detail {

class ProfileLog {
 public:
  /// Opens (appends to) `path`, closing an earlier log; an empty path turns the log off.
  Status Open(const std::string& path);
  void Close();

  /// One JSON line: {"benchmark", "iterations" (of the GB call it belongs to, as in GB's output),
  /// "passes", "seconds" (host time the profiled iterations took), "ranges": [{metric: value}...]
  /// (one per profiled iteration, its parts put together where gpubench::UntimedScope split it),
  /// "error", "note" (metrics left out, ProfileOutcome::note)}. Nothing when the log is off.
  void Append(const std::string& benchmark, int64_t iterations, int passes, double seconds,
              const std::vector<std::map<std::string, double>>& ranges, const std::string& error,
              const std::string& note = "");

 private:
  std::ofstream stream_;
};

}  // namespace gpubench::detail
