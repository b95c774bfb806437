// Whether a call reuses its source row (--gpubench_reuse): the rules of docs/user_guide.md
// "Reusing unchanged work", as a pure function of the source, the call's signature and the
// settings. The codes are counters.hpp's kReuseStatuses.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "measure/reuse/reuse_source.hpp"

namespace gpubench::detail {

struct ReuseRules {
  int max_runs = 5;                 ///< --gpubench_reuse_max_runs: reused at most this many runs in a row
  double max_age_seconds = 7 * 86400.0;  ///< --gpubench_reuse_max_age
  double busy_cutoff_pct = 95;      ///< a source row with gpu_busy_pct below this is measured
};

/// The run-level check: "" when the source run and this one agree on every part of RunIdentity,
/// else one line naming the first part that differs and both values.
std::string RunDifference(const RunIdentity& source, const RunIdentity& current);

struct ReuseDecision {
  int status = 0;                    ///< a code of kReuseStatuses
  const SourceRow* row = nullptr;    ///< the source row (status reused)
  int reused_runs = 0;               ///< for the row: the source's reused_runs + 1 when reused
  double measured_at = 0;            ///< for the row: when the reused value was measured
  std::string why;                   ///< for a measured row, one phrase (for stderr / the log)
};

/// The decision for one call. `source` null: no usable source (status no_source).
/// `run_difference`: RunDifference's result for the run. `signature`: the call's work
/// signature, absent when the work could not be signed (`unsigned_why` says why).
/// `now_unix`: this run's time.
ReuseDecision DecideReuse(const ReuseSource* source, const std::string& run_difference,
                          const std::string& name, int repetition_index,
                          std::optional<uint64_t> signature, const std::string& unsigned_why,
                          const ReuseRules& rules, double now_unix);

}  // namespace gpubench::detail
