// Which of the activity records of a busy measurement belong to which iteration (issue #37):
// CPU logic only, so the attribution is tested with made-up records (cupti_busy.cpp feeds it
// CUPTI's).
#pragma once

#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

#include "gpu/cupti/cupti_activity.hpp"

namespace gpubench::detail {

/// [start, end) in CUPTI's clock (ns): where an iteration's body ran on the host, its
/// gpubench::UntimedScope parts left out.
using HostWindow = std::pair<uint64_t, uint64_t>;

/// The iterations' records, summed per iteration.
struct BusyAttribution {
  int iterations = 0;
  double busy_seconds = 0;  ///< per iteration: the union of its work's GPU intervals
  double work_items = 0;    ///< per iteration
  /// Per iteration: work enqueued by a thread other than the loop's (found by the host time of
  /// the call that enqueued it, since CUPTI's correlation ids are pushed per thread).
  double other_thread_items = 0;
  struct Calls {
    uint32_t callback_id = 0;  ///< CUPTI's runtime callback id
    double count = 0;          ///< per iteration
    double seconds = 0;        ///< host time per iteration
  };
  std::vector<Calls> calls;  ///< runtime API calls, any thread's, by callback id
};

/// Work and runtime calls belong to iteration i when the loop thread made the call with
/// iteration i's external correlation id pushed (`iteration_of`: correlation -> iteration), or,
/// for another thread's call (no such id), when the call started inside one of iteration i's
/// host windows. GPU work whose enqueuing call is unknown is placed by its own start.
/// `windows[i]` are iteration i's windows; iterations beyond `windows.size()` are ignored.
BusyAttribution AttributeBusy(const ActivityRecords& records,
                              const std::unordered_map<uint32_t, uint64_t>& iteration_of,
                              const std::vector<std::vector<HostWindow>>& windows);

}  // namespace gpubench::detail
