// How gpubench-compare judges each of gpubench's counters, and the numbers its thresholds and
// floors are tuned with (docs/compare.md). The counters themselves (name, unit, direction,
// meaning) are the vocabulary's, schema/counter_table.hpp; a rule here names one of them.
#pragma once

#include <cstddef>
#include <string_view>

#include "schema/counter_table.hpp"

namespace gpubench {

/// How gpubench-compare judges a change (see docs/compare.md).
enum class Gating {
  kReportOnly,  ///< shown with its change, never fails the gate
  kTime,        ///< medians + Mann-Whitney; threshold = max(minimum, noise), absolute floor
  kRate,        ///< like kTime; gated only when the benchmark moves more than the byte floor
  kBytes,       ///< medians decide; threshold = max(minimum, noise); floor in bytes and vs traffic
  kFlag,        ///< 0/1 flag: marks the row (e.g. throttled), never fails by itself
};

/// A change is below the noise when it is within this many coefficients of variation of the
/// noisier side's repetitions (baseline or contender): identical H200 reruns of launch-bound
/// kernels moved their median by up to 1.06x their cv (docs/compare.md).
inline constexpr double kGateNoiseMultiplier = 2.0;

/// A byte counter's change must also exceed this share of the benchmark's total DRAM traffic
/// (bytes_moved): a few KB of instruction fetch next to gigabytes of data is not a regression.
inline constexpr double kGateTrafficFractionPercent = 0.25;

/// Smallest change of a DRAM byte counter that can fail the gate: the counters' own granularity
/// for kernels that move little. In the committed H200 runs (tests/data/h200) the
/// one-warp Gate_Tiny's bytes_moved was 512 B to 1.1 KB in 17 of 20 identical runs
/// (history_gate_v3, history_gate_v4), 1.17-1.19 MB in the other three (history_gate_v3/
/// run_05..07, 1.14-1.19 MB of it written) and 1.33 MB in history_gate_v3/inject_copy_time.json,
/// whose injection was elsewhere; the FMA chain Gate_Fma's was 4.0 to 92.8 KB (87.4 KB written
/// in history_gate_v4/run_08): instruction and page-table fetches and the profiler's own
/// traffic. 2 MiB is 1.58 times the largest (1.76 times that of the identical runs); a larger
/// kernel's floor is kGateTrafficFractionPercent of its traffic where that is more.
inline constexpr double kGateByteFloor = 2097152;

/// Smallest change of GPU time per iteration that can fail the gate, in ns: identical H200
/// reruns of 4-7 us kernels moved by up to 0.28 us under method version 1 (event timestamps
/// themselves step in 32 ns there).
inline constexpr double kGateTimeFloorNs = 500;

/// A baseline history (several baseline runs, gpubench-compare BASE... CONTENDER or --history
/// DIR): from this many runs of a benchmark on, its thresholds come from the spread between the
/// runs' medians instead of the minimum, the noise term and the time floor above.
inline constexpr int kGateHistoryMinRuns = 3;

/// The chance that identical reruns fail a comparison with a history anywhere in the suite: its
/// m gated tests share it (Bonferroni), each a one-sided prediction bound t(1 - alpha/m, n - 1) x
/// sd x sqrt(1 + 1/n) of the runs' medians (10 runs: one test 2.96 x sd, 24 tests 5.15 x sd,
/// 1000 tests 8.50 x sd; HistoryFactor, which agrees with scipy's t.isf). A 250-benchmark suite
/// makes about 1000 such tests: 20 comparisons of identical reruns of a 252-benchmark suite drawn
/// from the committed H200 reruns failed 6 times with each test at 1%, and never with 1% shared
/// (SuiteScale.WithoutTheSuiteWideCorrectionTheSameRerunsFail; docs/compare.md "A suite").
inline constexpr double kGateHistoryAlpha = 0.01;

/// Smallest threshold a history can give, in percent: identical H200 reruns moved long kernels
/// by up to 0.12% between processes; a 1% change must stay catchable.
inline constexpr double kGateHistoryMinimumPercent = 0.5;

/// How the gate judges one counter of the vocabulary.
struct GateRule {
  std::string_view name;  ///< a counter of kCounters
  Gating gating;
  double min_threshold_percent;  ///< gated: the smallest relative change that can fail
  double floor;                  ///< gated: the smallest absolute change that can fail, in its unit
};

/// The counters the gate does more than report; every other counter of kCounters is report-only:
/// - the measurement's own record (stop_reason, precision_pct, samples, wall_*): it describes the
///   measurement, not the kernel;
/// - dram_bandwidth: a ratio whose inputs are judged already (bytes_moved by the gate, the time
///   by real_time), and whose denominator is one profiled range; gating it too made identical
///   reruns of small kernels fail on their bytes' noise (-94% with 6 KB against 94 KB);
/// - declared_bytes, dram_traffic_ratio, declared_flop, flop_count_ratio: they follow bytes_moved
///   and flop_count, which the gate judges (bytes) or shows already;
/// - the flops group: FLOP counts change only when the code does, and rates follow real_time,
///   which is gated.
inline constexpr GateRule kGateRules[] = {
    // GB's own time field (normalised to ns by gpubench-compare). 1.75%: identical reruns of a
    // CUB radix sort in two machine sessions moved its median by 1.54% while each run's
    // repetitions varied by < 0.2% (memory placement differs per process).
    {counter::kRealTime, Gating::kTime, 1.75, kGateTimeFloorNs},
    {counter::kSmClockThrottled, Gating::kFlag, 0, 0},
    {counter::kGpuShared, Gating::kFlag, 0, 0},
    {counter::kLaunchHeld, Gating::kFlag, 0, 0},
    {counter::kTimingPaused, Gating::kFlag, 0, 0},
    {counter::kDramReadBytes, Gating::kBytes, 1.0, kGateByteFloor},
    {counter::kDramWriteBytes, Gating::kBytes, 1.0, kGateByteFloor},
    {counter::kBytesMoved, Gating::kBytes, 1.0, kGateByteFloor},
};

/// The gate's rule for a counter of the vocabulary (its table name: "kernel_time/" for every
/// kernel_time/<kernel>): one of kGateRules, else report-only with no threshold or floor.
constexpr GateRule GateRuleOf(std::string_view name) {
  for (const GateRule& rule : kGateRules) {
    if (rule.name == name) return rule;
  }
  return {name, Gating::kReportOnly, 0, 0};
}

namespace gate_detail {
// Whether `name` is a row's name of kCounters. By name, not through FindCounter's pointer: gcc
// with -fsanitize=undefined cannot compare the address of a table row with nullptr in a constant
// expression.
constexpr bool IsCounterName(std::string_view name) {
  for (const CounterInfo& counter : kCounters) {
    if (std::string_view(counter.name) == name) return true;
  }
  return false;
}

// Every rule names a counter of the vocabulary (by its table name), and no counter twice.
constexpr bool EveryRuleNamesOneCounter() {
  constexpr std::size_t kRules = sizeof(kGateRules) / sizeof(kGateRules[0]);
  for (std::size_t i = 0; i < kRules; ++i) {
    if (!IsCounterName(kGateRules[i].name)) return false;
    for (std::size_t j = i + 1; j < kRules; ++j) {
      if (kGateRules[i].name == kGateRules[j].name) return false;
    }
  }
  return true;
}
}  // namespace gate_detail
static_assert(gate_detail::EveryRuleNamesOneCounter(),
              "a rule of kGateRules names no counter of kCounters (schema/counter_table.hpp), or "
              "a counter has two rules");

}  // namespace gpubench
