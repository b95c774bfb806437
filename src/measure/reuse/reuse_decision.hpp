// Whether a call reuses its source row (--gpubench_reuse): the rules of docs/user_guide.md
// "Reusing unchanged work", as a pure function of the source, the call's signature and the
// settings. The codes are counters.hpp's kReuseStatuses.
//
// The checks, in order; the first that holds decides:
//   9 no_source    no usable source (it could not be read: stderr says why)
//   8 run_differs  the source run's GPU, driver, settings fingerprint or method version differ
//   7 unsigned     this call's work could not be signed
//   2 new          the source has no row of this name and repetition, or its row was skipped
//                  with an error (there is no value to carry over: the row is new to the
//                  source's values, not changed)
//   3 changed      the source row has no work_signature, or another one
//   4 streak       the source row's reused_runs >= max_runs (max_runs 0: every row is measured,
//                  which is how a run with a source is forced to measure everything)
//   5 aged         now - the source row's measured_at (the source run's date where the row has
//                  none) > max_age, or neither is known
//   6 host_bound   the source row was timed without a launch hold (launch_held absent or 0: the
//                  body waited for the GPU, so the host's pace may be inside its GPU time) and
//                  its gpu_busy_pct is absent or below busy_cutoff_pct. A row timed behind the
//                  hold (launch_held 1) had every launch enqueued before its span began: its
//                  idle time is the timer's floor and the gaps between its work items, not the
//                  host (docs/accuracy.md "Reusing a row: the busy cut-off").
//   1 reused       otherwise: reused_runs = the source's (0 where absent) + 1, measured_at the
//                  source's.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "measure/reuse/reuse_source.hpp"

namespace gpubench::detail {

struct ReuseRules {
  int max_runs = 5;  ///< --gpubench_reuse_max_runs: reused at most this many runs in a row
  double max_age_seconds = 7 * 86400.0;  ///< --gpubench_reuse_max_age
  /// An unheld source row with gpu_busy_pct below this is measured: the highest reading of a
  /// body that waits for the host in the committed H200 runs is 97.6%, a synchronising suite's
  /// long kernels read 99-100% (docs/accuracy.md "Reusing a row: the busy cut-off").
  double busy_cutoff_pct = 99;
};

/// The run-level check: "" when the source run and this one agree on every part of RunIdentity,
/// else one line naming the first part that differs and both values.
std::string RunDifference(const RunIdentity& source, const RunIdentity& current);

struct ReuseDecision {
  int status = 0;                  ///< a code of kReuseStatuses
  const SourceRow* row = nullptr;  ///< the source row (status reused)
  int reused_runs = 0;             ///< for the row: the source's reused_runs + 1 when reused
  double measured_at = 0;          ///< for the row: when the reused value was measured
  std::string why;  ///< one phrase naming the value that decided (a reused row's too)
};

/// The decision for one call. `source` null: no usable source (status no_source).
/// `run_difference`: RunDifference's result for the run. `signature`: the call's work
/// signature, absent when the work could not be signed (`unsigned_why` says why).
/// `now_unix`: this run's time.
ReuseDecision DecideReuse(const ReuseSource* source, const std::string& run_difference,
                          const std::string& name, int repetition,
                          std::optional<uint64_t> signature, const std::string& unsigned_why,
                          const ReuseRules& rules, double now_unix);

}  // namespace gpubench::detail
