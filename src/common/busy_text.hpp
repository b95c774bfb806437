// Words that gpubench (on stderr) and gpubench-report both say about a row's busy time, kept in
// one place so the two never disagree.
#pragma once

#include <string>

namespace gpubench::detail {

/// Why a held body of one GPU work item per iteration is not fully busy; `idle` is the idle
/// time per iteration, formatted ("2.4 us").
inline std::string OneWorkItemIdleText(const std::string& idle) {
  return "the launches were held (launch_held=1) and the body has one GPU work item per "
         "iteration (gpu_work_items=1), so the idle time (" +
         idle +
         " per iteration) is the time around that item inside the timed span: the timer's own "
         "floor (the event pair, about 2 us) and the item's launch latency, not a gap between "
         "work items (docs/user_guide.md \"Benchmarks that synchronise\"; "
         "--gpubench_timer=cupti times the kernels alone)";
}

/// Busy iterations are averaged: one kernel per body reads 1, a second item every other
/// iteration 1.5.
inline constexpr double kOneWorkItem = 1.01;

}  // namespace gpubench::detail
