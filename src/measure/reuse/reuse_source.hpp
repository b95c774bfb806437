// The reuse source (--gpubench_reuse=PATH): a previous run's GB JSON file, or a history folder
// (its newest run), read into the rows a later run may reuse. No GPU: tested on committed files.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include "common/file_calls.hpp"
#include "common/status.hpp"

namespace gpubench::detail {

/// One repetition row of the source run (GB's run_type "iteration"; aggregates are left out).
struct SourceRow {
  std::string name;         ///< GB's "name" (gpubench's rows carry no "/iterations:2")
  int repetition_index = 0;
  int64_t iterations = 0;
  double real_time_seconds = 0;  ///< GB's real_time in seconds (time_unit applied)
  bool error = false;            ///< GB's error_occurred: never reused
  std::map<std::string, double> counters;  ///< every numeric field GB wrote beyond its own
};

/// What the run as a whole was measured under; equal in the source and this run, or nothing is
/// reused.
struct RunIdentity {
  std::string settings_fingerprint;  ///< gpubench_settings_fingerprint
  std::string gpu_uuid;              ///< gpu_uuid
  std::string driver_version;        ///< gpu_driver_version (cuda_driver_version where absent)
  std::string method_version;        ///< gpubench_method_version
};

struct ReuseSource {
  std::string path;    ///< the file read (in a folder: the newest run's file)
  std::string date;    ///< GB's context "date", as written
  double date_unix = 0;  ///< the same in seconds since 1970, UTC (0 when unreadable)
  std::string commit;  ///< the context's "commit" (GB's --benchmark_context=commit=...), or ""
  RunIdentity identity;
  std::map<std::pair<std::string, int>, SourceRow> rows;  ///< by (name, repetition_index)

  const SourceRow* Find(const std::string& name, int repetition_index) const;
  /// "FILE (DATE, commit C)" for the context block and the row's mark.
  std::string Describe() const;
};

/// Reads `path`: a GB JSON file written by gpubench, or a folder whose newest *.json run (by
/// its context's date, then its name) is read. Opened with the same care as the GPU lock
/// (common/file_calls.hpp: no link followed; a file in a folder another user owns is
/// refused). Errors name the file and what was wrong: not JSON, cut off mid-write, not written
/// by gpubench (no gpubench_version in its context), no rows.
Result<ReuseSource> LoadReuseSource(const std::string& path, FileCalls& calls);

}  // namespace gpubench::detail
