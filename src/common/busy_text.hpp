// Words that gpubench (on stderr) and gpubench-report both say about a row's busy time, kept in
// one place so the two never disagree.
#pragma once

#include <string>

namespace gpubench::detail {

/// Below this gpu_busy_pct gpubench (on stderr) and gpubench-report say where the GPU idled
/// inside the timed span: the host calls of the loop body, or behind a launch hold the gaps
/// between the body's GPU work items.
inline constexpr double kBusyWarnBelowPercent = 80;

/// Behind a launch hold (launch_held=1) an iteration's GPU time also holds the event pair's own
/// floor around the launch, which tracing does not count as busy: for bodies of one kernel the
/// committed H200 runs (tests/data/h200) idle 1.4-3.9 us per iteration (the 3.1 us tiny
/// kernel 2.1 us of it: gpu_busy_pct 34%). A held row is said to idle between work items only
/// when its GPU time less its busy time exceeds this, in seconds, and it has more than one work
/// item per iteration (gpu_work_items); with one, the idle time is the timer's floor.
inline constexpr double kBusyHeldIdleFloorSeconds = 4e-6;

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
