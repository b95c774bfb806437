// The reuse source (--gpubench_reuse=PATH): a previous run's GB JSON file, or a history folder
// (its newest run), read into the rows a later run may reuse. No GPU: tested on committed files.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "common/file_calls.hpp"
#include "common/status.hpp"

namespace gpubench::detail {

/// One repetition row of the source run (GB's run_type "iteration"; aggregates are left out).
struct SourceRow {
  std::string name;    ///< GB's "name" (gpubench's rows carry no "/iterations:2")
  int repetition = 0;  ///< GB's "repetition_index"
  int64_t iterations = 0;
  double real_time_seconds = 0;  ///< GB's real_time in seconds (time_unit applied)
  /// GB's error_occurred, a skip message, a row without a readable real_time, or a second row
  /// of the same name and repetition: never reused.
  bool error = false;
  /// Every numeric field GB wrote beyond its own (GB's own: name, run_name, run_type,
  /// repetitions, repetition_index, threads, iterations, real_time, cpu_time, time_unit,
  /// family_index, per_family_instance_index, aggregate_name, aggregate_unit, error_occurred,
  /// error_message, label, ...): the counters, gpubench's and the user's.
  std::map<std::string, double> counters;
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
  std::string path;      ///< the file read (in a folder: the newest run's file)
  std::string date;      ///< GB's context "date", as written
  double date_unix = 0;  ///< the same in seconds since 1970, UTC (0 when unreadable)
  std::string commit;    ///< the context's "commit" (GB's --benchmark_context=commit=...), or ""
  RunIdentity identity;
  /// by (InstanceOfRowName(name), repetition)
  std::map<std::pair<std::string, int>, SourceRow> rows;
  /// What the reader passed over on the way, one line each, for stderr: in a folder, newer
  /// files that could not be used (cut off, not a gpubench run, another user's) and why; rows
  /// made unusable (two rows of one name and repetition).
  std::vector<std::string> notes;

  /// The row of an instance ("BM_Copy/1048576", as gpubench names it) or of a row's name as GB
  /// wrote it ("BM_Copy/1048576/manual_time"): both are read through InstanceOfRowName.
  const SourceRow* Find(const std::string& name, int repetition) const;
  /// "FILE (DATE, commit C)" for the context block and the row's mark; "FILE (DATE)" without
  /// a commit.
  std::string Describe() const;
};

/// Reads `path`: a GB JSON file written by gpubench, or a folder whose newest *.json run (by
/// its context's date, then its name) is read; a newer file of the folder that cannot be used
/// is passed over with a note, and the next newest is read. Opened with the same care as the
/// GPU lock (common/file_calls.hpp): no symbolic link is followed, neither at `path` nor for a
/// file of the folder; a file must be this user's, and the folder holding it (`path` itself,
/// or the file's parent) this user's or root's (a link into another user's folder is refused
/// as a link, a file planted there as another user's). Errors name the file and what was
/// wrong: missing, not JSON, cut off mid-write, not written by gpubench (no gpubench_version in
/// its context), no rows; for a folder, no *.json file, or why each one was not used.
Result<ReuseSource> LoadReuseSource(const std::string& path, FileCalls& calls);

/// GB's context date ("2026-12-06T23:29:43+00:00"; also "Z", "+0100", fractions of a second) in
/// seconds since 1970, UTC; false when `text` is not such a date.
bool ParseGbDate(const std::string& text, double* unix_seconds);

}  // namespace gpubench::detail
