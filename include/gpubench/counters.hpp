// gpubench's counter vocabulary: every value gpubench writes into a benchmark row, with its unit,
// which way is better, how the regression gate judges it and what it means. One table, read by
// the console reporter (units), the context block (gpubench_counter_units), gpubench-compare
// (directions and thresholds) and the user guide's check. Header-only and constexpr: tools use it
// without linking the library.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace gpubench {

/// Which way a value should move.
enum class Better { kLower, kHigher, kNeither };

/// How gpubench-compare judges a change (see docs/compare.md).
enum class Gating {
  kReportOnly,  ///< shown with its change, never fails the gate
  kTime,        ///< medians + Mann-Whitney; threshold = max(minimum, noise), absolute floor
  kRate,        ///< like kTime; gated only when the benchmark moves more than the byte floor
  kBytes,       ///< medians decide; threshold = max(minimum, noise); floor in bytes and vs traffic
  kFlag,        ///< 0/1 flag: marks the row (e.g. throttled), never fails by itself
};

/// How often a counter is measured: each repetition (each call's timed samples) has its own
/// value, or one measurement (the instance's profiling session in the profiling child) serves
/// every repetition, which then carry the same value. The gate tests a repetition-to-repetition
/// difference (Mann-Whitney, the repetitions' noise) only for the first; for the second the
/// repetitions are one value, and only the spread between runs (a history) says how much it
/// moves on its own.
enum class Measured { kPerRepetition, kPerRun };

/// Who writes a counter into a row, and when: each counter has one writer. (The test
/// Counters.EveryNameWrittenInTheSourcesIsInTheTableWithItsWriter reads the sources for it.)
enum class Writer {
  kGoogleBenchmark,  ///< GB: its time fields, and the rates of SetBytesProcessed/SetItemsProcessed
  kBenchmarkFunction,  ///< the benchmark function, through gpubench's API
                       ///< (include/gpubench/loop.hpp)
  kCallEnd,            ///< src/measure/publish/publish.cpp as each call's loop ends (with the
                       ///< names measure/profiling/metrics.cpp gives the clock probe and the
                       ///< profiled metrics)
  kFunctionEnd,        ///< src/measure/publish/declared_work.cpp after the benchmark function
                       ///< returned: what it declared, against what its loop measured
  kRowCost,            ///< the row's cost (measure/publish/run_cost.cpp): publish.cpp at the
                       ///< call's end, or declared_work.cpp after the function of a gpubench
                       ///< form or Fixture
  kReporter,           ///< src/frontend/hooks/paused_rows.cpp as gpubench's reporter receives
                       ///< the row
};

/// One counter (or GB time field) gpubench writes.
struct CounterInfo {
  std::string_view name;  ///< as in GB's output; a name ending in '/' is a prefix
  Writer writer;
  std::string_view unit;  ///< bytes, bytes/s, 1/s, s, ns, MHz, %, count, flag, FLOP, FLOP/s,
                          ///< FLOP/byte, ratio, C (degrees Celsius), W, reasons (a bit set,
                          ///< kClockEventReasons), reason (a code of kStopReasons)
  Better better;
  Gating gating;
  double min_threshold_percent;  ///< gated: the smallest relative change that can fail
  double floor;                  ///< gated: the smallest absolute change that can fail, in `unit`
  std::string_view meaning;
  /// The CUPTI metric it is read from ("" for derived counters) and the factor to its unit.
  std::string_view source_metric = {};
  double source_scale = 1;
  /// The metric group that must be on for it to be written ("" for none): --gpubench_metrics
  /// =+flops or +l2 adds the group's metrics, and its counters come with them.
  std::string_view group = {};
  Measured measured = Measured::kPerRepetition;
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

/// The bits of counter clock_event_reasons: NVML's clock-event reasons (why the driver held the
/// clocks below their maximum), with the names gpubench prints.
struct ClockEventReason {
  uint64_t bit;
  std::string_view name;
  std::string_view meaning;
};
inline constexpr ClockEventReason kClockEventReasons[] = {
    {0x1, "gpu_idle", "nothing ran on the GPU (left out of clock_event_reasons)"},
    {0x2, "applications_clocks_setting", "the clocks are held at the applications clocks"},
    {0x4, "sw_power_cap", "the driver lowered the clocks to stay under the power limit"},
    {0x8, "hw_slowdown", "the hardware slowed the clocks (heat or an external power signal)"},
    {0x10, "sync_boost", "the clocks follow other GPUs of a sync-boost group"},
    {0x20, "sw_thermal_slowdown", "the driver lowered the clocks to keep the GPU cool"},
    {0x40, "hw_thermal_slowdown", "the hardware slowed the clocks for heat"},
    {0x80, "hw_power_brake_slowdown", "an external power brake slowed the clocks"},
    {0x100, "display_clock_setting", "the clocks follow the display clock"},
};
/// The reasons that lower the clock for heat or power: sw_power_cap, hw_slowdown,
/// sw_thermal_slowdown, hw_thermal_slowdown, hw_power_brake_slowdown (what a cool-down waits out
/// and what gpubench-report warns about).
inline constexpr uint64_t kClockEventsOfHeatOrPower = 0x4 | 0x8 | 0x20 | 0x40 | 0x80;

/// The codes of counter stop_reason: why a repetition's timed samples ended.
struct StopReasonName {
  int code;
  std::string_view name;
  std::string_view meaning;
};
inline constexpr StopReasonName kStopReasons[] = {
    {1, "precision",
     "gpubench's rule: the 95% confidence half-width of the mean GPU time reached "
     "--gpubench_precision, after --gpubench_min_samples samples and --gpubench_min_seconds"},
    {2, "max_seconds",
     "gpubench's rule: the wall budget --gpubench_max_seconds ended the repetition before the "
     "precision target (precision_pct says how far it got)"},
    {3, "minimum",
     "gpubench's rule without per-sample times (cache=keep times the repetition in one region, "
     "timer=cupti hands its records over at the end): the minimum samples and seconds ended it"},
    {4, "min_time",
     "GB's rule: GB's trial calls until one held its min_time of GPU time (--benchmark_min_time, "
     "->MinTime(), --gpubench_stopping=gb, a main of your own, or a benchmark registered with "
     "GB's own macros)"},
    {5, "iterations", "an explicit count of GB's: ->Iterations(n) or --benchmark_min_time=<n>x"},
    {6, "repetition",
     "gpubench's rule, a later repetition: the sample count of the instance's first repetition "
     "(GB's mean, median and stddev rows need every repetition to have the same count; the "
     "first repetition's stop_reason says why it stopped)"},
};

/// The name of a stop_reason code ("" for an unknown code).
constexpr std::string_view StopReasonNameOf(int code) {
  for (const StopReasonName& reason : kStopReasons) {
    if (reason.code == code) return reason.name;
  }
  return {};
}

/// Every name of the table below, for code that reads rows (the tools): a misspelt constant does
/// not compile, a misspelt string literal finds nothing. Character arrays, so that they stand
/// wherever a literal stood (std::string, std::string_view, map keys).
namespace counter {
inline constexpr char kRealTime[] = "real_time";
inline constexpr char kCpuTime[] = "cpu_time";
inline constexpr char kSmClockMhz[] = "sm_clock_mhz";
inline constexpr char kSmClockRatedMhz[] = "sm_clock_rated_mhz";
inline constexpr char kSmClockThrottled[] = "sm_clock_throttled";
inline constexpr char kGpuShared[] = "gpu_shared";
inline constexpr char kLaunchHeld[] = "launch_held";
inline constexpr char kStreamsJoined[] = "streams_joined";
inline constexpr char kTimingPaused[] = "timing_paused";
inline constexpr char kGpuTempStartC[] = "gpu_temp_start_c";
inline constexpr char kGpuTempEndC[] = "gpu_temp_end_c";
inline constexpr char kGpuPowerW[] = "gpu_power_w";
inline constexpr char kClockEventReasons[] = "clock_event_reasons";
inline constexpr char kThermalWaitTime[] = "thermal_wait_time";
inline constexpr char kStopReason[] = "stop_reason";
inline constexpr char kPrecisionPct[] = "precision_pct";
inline constexpr char kCallSpreadPct[] = "call_spread_pct";
inline constexpr char kSamples[] = "samples";
inline constexpr char kWallTime[] = "wall_time";
inline constexpr char kWallWarmup[] = "wall_warmup";
inline constexpr char kWallTimed[] = "wall_timed";
inline constexpr char kWallProfiling[] = "wall_profiling";
inline constexpr char kProfiledInline[] = "profiled_inline";
inline constexpr char kGpuBusyTime[] = "gpu_busy_time";
inline constexpr char kGpuBusyPct[] = "gpu_busy_pct";
inline constexpr char kGpuWorkItems[] = "gpu_work_items";
inline constexpr char kDramReadBytes[] = "dram_read_bytes";
inline constexpr char kDramWriteBytes[] = "dram_write_bytes";
inline constexpr char kBytesMoved[] = "bytes_moved";
inline constexpr char kGpuDuration[] = "gpu_duration";
inline constexpr char kProfiledSmClockMhz[] = "profiled_sm_clock_mhz";
inline constexpr char kDramBandwidth[] = "dram_bandwidth";
inline constexpr char kDramBandwidthPct[] = "dram_bandwidth_pct";
inline constexpr char kProfilePasses[] = "profile_passes";
inline constexpr char kKernelTimePrefix[] = "kernel_time/";
inline constexpr char kBytesPerSecond[] = "bytes_per_second";
inline constexpr char kItemsPerSecond[] = "items_per_second";
inline constexpr char kFlopsPerSecond[] = "flops_per_second";
inline constexpr char kDeclaredBytes[] = "declared_bytes";
inline constexpr char kDramTrafficRatio[] = "dram_traffic_ratio";
inline constexpr char kDeclaredFlop[] = "declared_flop";
inline constexpr char kFlopCountFp64[] = "flop_count_fp64";
inline constexpr char kFlopCountFp32[] = "flop_count_fp32";
inline constexpr char kFlopCountFp16[] = "flop_count_fp16";
inline constexpr char kFlopCount[] = "flop_count";
inline constexpr char kFlopRate[] = "flop_rate";
inline constexpr char kFlopRatePeak[] = "flop_rate_peak";
inline constexpr char kFlopRatePct[] = "flop_rate_pct";
inline constexpr char kArithmeticIntensity[] = "arithmetic_intensity";
inline constexpr char kTensorPipePct[] = "tensor_pipe_pct";
inline constexpr char kFlopCountRatio[] = "flop_count_ratio";
inline constexpr char kL2HitRate[] = "l2_hit_rate";
inline constexpr char kL2ReadBytes[] = "l2_read_bytes";
inline constexpr char kL2WriteBytes[] = "l2_write_bytes";
}  // namespace counter

inline constexpr CounterInfo kCounters[] = {
    // GB's own time fields (normalised to ns by gpubench-compare).
    // 1.75%: identical reruns of a CUB radix sort in two machine sessions moved its median by
    // 1.54% while each run's repetitions varied by < 0.2% (memory placement differs per process).
    {counter::kRealTime, Writer::kGoogleBenchmark, "ns", Better::kLower, Gating::kTime, 1.75,
     kGateTimeFloorNs, "GPU time per iteration (GB's manual time under gpubench)"},
    {counter::kCpuTime, Writer::kGoogleBenchmark, "ns", Better::kLower, Gating::kReportOnly, 0, 0,
     "host CPU time per iteration of the benchmark's thread"},
    // Clock probe around the timed iterations.
    {counter::kSmClockMhz, Writer::kCallEnd, "MHz", Better::kHigher, Gating::kReportOnly, 0, 0,
     "mean SM clock over the timed iterations (clock probe, all SMs)"},
    {counter::kSmClockRatedMhz, Writer::kCallEnd, "MHz", Better::kNeither, Gating::kReportOnly, 0,
     0, "the card's rated SM clock (cudaDevAttrClockRate)"},
    {counter::kSmClockThrottled, Writer::kCallEnd, "flag", Better::kLower, Gating::kFlag, 0, 0,
     "1 when sm_clock_mhz < 90% of the rated clock: the time is doubtful"},
    {counter::kGpuShared, Writer::kCallEnd, "flag", Better::kLower, Gating::kFlag, 0, 0,
     "1 when another process used the GPU around the run (NVML) or held its profiler"},
    {counter::kLaunchHeld, Writer::kCallEnd, "flag", Better::kHigher, Gating::kFlag, 0, 0,
     "cache=flush: 1 when every timed body ran behind a stream hold; 0 when the body waits for "
     "the GPU (the host's launch time may be inside the time) or another process used the GPU "
     "(then gpu_shared=1 too)"},
    {counter::kStreamsJoined, Writer::kCallEnd, "count", Better::kNeither, Gating::kReportOnly, 0,
     0,
     "streams besides the timed one that the body put GPU work on in its warm-up; each timed "
     "span forks to and joins from them, so their work is inside the GPU time"},
    {counter::kTimingPaused, Writer::kReporter, "flag", Better::kLower, Gating::kFlag, 0, 0,
     "1 when GB's CPU time of the timed iterations differs from the thread's CPU time that "
     "gpubench read over them: the body calls state.PauseTiming(), which leaves the paused GPU "
     "work in the GPU time (use gpubench::UntimedScope); absent otherwise"},
    // NVML over the timed iterations (absent without NVML: gpubench_gpu_thermal says why).
    {counter::kGpuTempStartC, Writer::kCallEnd, "C", Better::kNeither, Gating::kReportOnly, 0, 0,
     "GPU temperature as the timed iterations began (NVML)"},
    {counter::kGpuTempEndC, Writer::kCallEnd, "C", Better::kNeither, Gating::kReportOnly, 0, 0,
     "GPU temperature as the timed iterations ended (NVML)"},
    {counter::kGpuPowerW, Writer::kCallEnd, "W", Better::kNeither, Gating::kReportOnly, 0, 0,
     "mean board power over the timed iterations (NVML's energy counter, or its power readings "
     "for spans under 50 ms)"},
    {counter::kClockEventReasons, Writer::kCallEnd, "reasons", Better::kNeither,
     Gating::kReportOnly, 0, 0,
     "NVML's clock-event reasons seen during the timed iterations, a bit set "
     "(kClockEventReasons: sw_power_cap, sw_thermal_slowdown, ...; gpu_idle left out); 0: none"},
    {counter::kThermalWaitTime, Writer::kCallEnd, "s", Better::kNeither, Gating::kReportOnly, 0, 0,
     "--gpubench_thermal=wait: how long the call waited for the GPU to cool first"},
    // How the repetition's samples ended and what it cost (measure/sampling/stopping_rule.hpp,
    // measure/publish/run_cost.hpp). Report-only: they describe the measurement, not the kernel.
    {counter::kStopReason, Writer::kCallEnd, "reason", Better::kNeither, Gating::kReportOnly, 0, 0,
     "why the repetition's timed samples ended, a code of kStopReasons: 1 precision, 2 "
     "max_seconds, 3 minimum, 4 min_time, 5 iterations, 6 repetition"},
    {counter::kPrecisionPct, Writer::kCallEnd, "%", Better::kLower, Gating::kReportOnly, 0, 0,
     "the half-width of the 95% confidence interval of the repetition's mean GPU time, % of it: "
     "its own samples (the wider of independent samples and 10 batch means, for correlated "
     "samples) plus call_spread_pct, the spread between the instance's calls so far (cache=flush, "
     "timer=events; absent otherwise)"},
    {counter::kCallSpreadPct, Writer::kCallEnd, "%", Better::kLower, Gating::kReportOnly, 0, 0,
     "from the instance's second repetition on: the standard deviation between its repetitions' "
     "means so far beyond what their own samples explain, % of their mean (another call's data "
     "placement, clock and heat, which no call sees in its own samples); part of precision_pct"},
    {counter::kSamples, Writer::kRowCost, "count", Better::kNeither, Gating::kReportOnly, 0, 0,
     "timed bodies the row took: its iterations, plus those of GB's trial calls before it (GB's "
     "rule)"},
    {counter::kWallTime, Writer::kRowCost, "s", Better::kLower, Gating::kReportOnly, 0, 0,
     "wall seconds the row cost: the benchmark function's call (its set-up, warm-up and timed "
     "samples), GB's trial calls before it, and its instance's profiling (on the instance's first "
     "row)"},
    {counter::kWallWarmup, Writer::kCallEnd, "s", Better::kLower, Gating::kReportOnly, 0, 0,
     "wall seconds of the call's warm-up stages: the warm-up body, the hold check, a thermal wait"},
    {counter::kWallTimed, Writer::kCallEnd, "s", Better::kLower, Gating::kReportOnly, 0, 0,
     "wall seconds of the call's timed samples"},
    {counter::kWallProfiling, Writer::kCallEnd, "s", Better::kLower, Gating::kReportOnly, 0, 0,
     "wall seconds of the row's profiling: its instance's call in the profiling child (on the "
     "instance's first row, 0 on the others), or its own profiled and busy bodies with "
     "profile_process=same"},
    {counter::kProfiledInline, Writer::kCallEnd, "flag", Better::kLower, Gating::kReportOnly, 0, 0,
     "1 when the metrics were profiled after each timed run (a main that starts the benchmarks "
     "with benchmark::RunSpecifiedBenchmarks): CUPTI then stays attached and held short kernels "
     "time slower; absent after gpubench's profiling pass"},
    // The busy measurement: untimed iterations with CUPTI activity records, in the profiling
    // child (or inline with profile_process=same); absent with metrics off.
    {counter::kGpuBusyTime,
     Writer::kCallEnd,
     "s",
     Better::kNeither,
     Gating::kReportOnly,
     0,
     0,
     "per iteration: the union of the GPU's own activity (kernels, memcpy, memset) of the timed "
     "span, from CUPTI activity records of untimed iterations",
     "",
     1,
     {},
     Measured::kPerRun},
    {counter::kGpuBusyPct,
     Writer::kCallEnd,
     "%",
     Better::kHigher,
     Gating::kReportOnly,
     0,
     0,
     "gpu_busy_time as % of the GPU time per iteration; well below 100 when the GPU waits for "
     "host calls inside the loop (a message names them when below 80)",
     "",
     1,
     {},
     Measured::kPerRun},
    {counter::kGpuWorkItems,
     Writer::kCallEnd,
     "count",
     Better::kNeither,
     Gating::kReportOnly,
     0,
     0,
     "per iteration: the kernels, memcpy and memset of the busy measurement, whatever host "
     "thread enqueued them; 1 says the idle part of a held body's GPU time is the timer's floor",
     "",
     1,
     {},
     Measured::kPerRun},
    // CUPTI Range Profiler, per profiled iteration.
    {counter::kDramReadBytes,
     Writer::kCallEnd,
     "bytes",
     Better::kLower,
     Gating::kBytes,
     1.0,
     kGateByteFloor,
     "dram__bytes_read.sum per profiled iteration (mean over ranges)",
     "dram__bytes_read.sum",
     1,
     {},
     Measured::kPerRun},
    {counter::kDramWriteBytes,
     Writer::kCallEnd,
     "bytes",
     Better::kLower,
     Gating::kBytes,
     1.0,
     kGateByteFloor,
     "dram__bytes_write.sum per profiled iteration",
     "dram__bytes_write.sum",
     1,
     {},
     Measured::kPerRun},
    {counter::kBytesMoved,
     Writer::kCallEnd,
     "bytes",
     Better::kLower,
     Gating::kBytes,
     1.0,
     kGateByteFloor,
     "dram_read_bytes + dram_write_bytes",
     "",
     1,
     {},
     Measured::kPerRun},
    {counter::kGpuDuration,
     Writer::kCallEnd,
     "s",
     Better::kLower,
     Gating::kReportOnly,
     0,
     0,
     "gpu__time_duration.sum of a profiled range (includes ~2.5 us of range overhead)",
     "gpu__time_duration.sum",
     1e-9,
     {},
     Measured::kPerRun},
    {counter::kProfiledSmClockMhz,
     Writer::kCallEnd,
     "MHz",
     Better::kHigher,
     Gating::kReportOnly,
     0,
     0,
     "sm__cycles_elapsed.avg.per_second during the profiled ranges",
     "sm__cycles_elapsed.avg.per_second",
     1e-6,
     {},
     Measured::kPerRun},
    // Report-only: a ratio whose inputs are judged already (bytes_moved by the gate, the time by
    // real_time), and whose denominator is one profiled range; gating it too made identical
    // reruns of small kernels fail on their bytes' noise (-94% with 6 KB against 94 KB).
    {counter::kDramBandwidth,
     Writer::kCallEnd,
     "bytes/s",
     Better::kHigher,
     Gating::kReportOnly,
     0,
     0,
     "bytes_moved / gpu_duration",
     "",
     1,
     {},
     Measured::kPerRun},
    {counter::kDramBandwidthPct,
     Writer::kCallEnd,
     "%",
     Better::kHigher,
     Gating::kReportOnly,
     0,
     0,
     "dram_bandwidth as % of gpu_dram_bandwidth_theoretical_bytes_per_second",
     "",
     1,
     {},
     Measured::kPerRun},
    {counter::kProfilePasses,
     Writer::kCallEnd,
     "count",
     Better::kNeither,
     Gating::kReportOnly,
     0,
     0,
     "replay passes the metrics needed",
     "",
     1,
     {},
     Measured::kPerRun},
    // timer=cupti: one counter per kernel name.
    {counter::kKernelTimePrefix, Writer::kCallEnd, "s", Better::kLower, Gating::kReportOnly, 0, 0,
     "per iteration, per kernel name (timer=cupti only)"},
    // GB's rate counters (SetBytesProcessed, SetItemsProcessed): rates over GPU time.
    {counter::kBytesPerSecond, Writer::kGoogleBenchmark, "bytes/s", Better::kHigher,
     Gating::kReportOnly, 0, 0, "GB's SetBytesProcessed over GPU time"},
    {counter::kItemsPerSecond, Writer::kGoogleBenchmark, "1/s", Better::kHigher,
     Gating::kReportOnly, 0, 0, "GB's SetItemsProcessed over GPU time"},
    {counter::kFlopsPerSecond, Writer::kBenchmarkFunction, "FLOP/s", Better::kHigher,
     Gating::kReportOnly, 0, 0, "gpubench::SetFlopsProcessed over GPU time"},
    // What the benchmark declared against what the profiler measured. Report-only: they follow
    // bytes_moved and flop_count, which the gate judges (bytes) or shows already.
    {counter::kDeclaredBytes, Writer::kFunctionEnd, "bytes", Better::kNeither, Gating::kReportOnly,
     0, 0, "bytes declared with SetBytesProcessed, per iteration"},
    {counter::kDramTrafficRatio,
     Writer::kFunctionEnd,
     "ratio",
     Better::kLower,
     Gating::kReportOnly,
     0,
     0,
     "bytes_moved / declared_bytes: 1 moves what the algorithm needs, above 1 redundant "
     "traffic, below 1 reuse from cache",
     "",
     1,
     {},
     Measured::kPerRun},
    {counter::kDeclaredFlop, Writer::kFunctionEnd, "FLOP", Better::kNeither, Gating::kReportOnly, 0,
     0, "FLOPs declared with gpubench::SetFlopsProcessed, per iteration"},
    // Metric group flops (--gpubench_metrics=+flops). Report-only: FLOP counts change only when
    // the code does, and rates follow real_time, which is gated.
    {counter::kFlopCountFp64, Writer::kCallEnd, "FLOP", Better::kNeither, Gating::kReportOnly, 0, 0,
     "DADD + DMUL + 2 x DFMA thread instructions per profiled iteration", "", 1, "flops",
     Measured::kPerRun},
    {counter::kFlopCountFp32, Writer::kCallEnd, "FLOP", Better::kNeither, Gating::kReportOnly, 0, 0,
     "FADD + FMUL + 2 x FFMA thread instructions per profiled iteration", "", 1, "flops",
     Measured::kPerRun},
    {counter::kFlopCountFp16, Writer::kCallEnd, "FLOP", Better::kNeither, Gating::kReportOnly, 0, 0,
     "HADD + HMUL + 2 x HFMA thread instructions per profiled iteration (a packed HFMA2 counts "
     "as one instruction)",
     "", 1, "flops", Measured::kPerRun},
    {counter::kFlopCount, Writer::kCallEnd, "FLOP", Better::kNeither, Gating::kReportOnly, 0, 0,
     "flop_count_fp64 + flop_count_fp32 + flop_count_fp16 (tensor-core work not included)", "", 1,
     "flops", Measured::kPerRun},
    {counter::kFlopRate, Writer::kCallEnd, "FLOP/s", Better::kHigher, Gating::kReportOnly, 0, 0,
     "flop_count / gpu_duration", "", 1, "flops", Measured::kPerRun},
    {counter::kFlopRatePeak, Writer::kCallEnd, "FLOP/s", Better::kNeither, Gating::kReportOnly, 0,
     0,
     "peak FLOP rate for this mix of precisions at profiled_sm_clock_mhz (2 x fma .peak_sustained "
     "x clock per precision; FP32's without FP work)",
     "", 1, "flops", Measured::kPerRun},
    {counter::kFlopRatePct, Writer::kCallEnd, "%", Better::kHigher, Gating::kReportOnly, 0, 0,
     "flop_rate as % of flop_rate_peak", "", 1, "flops", Measured::kPerRun},
    {counter::kArithmeticIntensity, Writer::kCallEnd, "FLOP/byte", Better::kNeither,
     Gating::kReportOnly, 0, 0, "flop_count / bytes_moved (FLOP per DRAM byte)", "", 1, "flops",
     Measured::kPerRun},
    {counter::kTensorPipePct, Writer::kCallEnd, "%", Better::kNeither, Gating::kReportOnly, 0, 0,
     "tensor pipe active, % of elapsed cycles averaged over the SMs (tensor-core work has no "
     "exact FLOP count)",
     "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed", 1, "flops",
     Measured::kPerRun},
    {counter::kFlopCountRatio, Writer::kFunctionEnd, "ratio", Better::kNeither, Gating::kReportOnly,
     0, 0, "flop_count / declared_flop", "", 1, "flops", Measured::kPerRun},
    // Metric group l2 (--gpubench_metrics=+l2).
    {counter::kL2HitRate, Writer::kCallEnd, "%", Better::kHigher, Gating::kReportOnly, 0, 0,
     "lts__t_sector_hit_rate.pct: L2 sector lookups that hit, all sources",
     "lts__t_sector_hit_rate.pct", 1, "l2", Measured::kPerRun},
    {counter::kL2ReadBytes, Writer::kCallEnd, "bytes", Better::kNeither, Gating::kReportOnly, 0, 0,
     "bytes the SMs read from L2 per profiled iteration (32 x "
     "lts__t_sectors_srcunit_tex_op_read.sum)",
     "lts__t_sectors_srcunit_tex_op_read.sum", 32, "l2", Measured::kPerRun},
    {counter::kL2WriteBytes, Writer::kCallEnd, "bytes", Better::kNeither, Gating::kReportOnly, 0, 0,
     "bytes the SMs wrote to L2 per profiled iteration (32 x "
     "lts__t_sectors_srcunit_tex_op_write.sum)",
     "lts__t_sectors_srcunit_tex_op_write.sum", 32, "l2", Measured::kPerRun},
};

/// The vocabulary's entry for a counter name (prefix entries match kernel_time/<kernel>), or
/// nullptr for a name gpubench does not write itself (a metric added by name, a user counter).
constexpr const CounterInfo* FindCounter(std::string_view name) {
  for (const CounterInfo& counter : kCounters) {
    const std::string_view key = counter.name;
    const bool prefix = !key.empty() && key.back() == '/';
    if (prefix ? name.substr(0, key.size()) == key && name.size() > key.size() : name == key) {
      return &counter;
    }
  }
  return nullptr;
}

/// "lower", "higher" or "neither", as written in gpubench_counter_units.
constexpr std::string_view BetterName(Better better) {
  return better == Better::kLower ? "lower" : better == Better::kHigher ? "higher" : "neither";
}

/// Context keys that tools reading gpubench's JSON rely on.
inline constexpr std::string_view kSettingsFingerprintKey = "gpubench_settings_fingerprint";
inline constexpr std::string_view kFingerprintKeysKey = "gpubench_fingerprint_keys";
/// "name=unit:better;..." for every counter the run can write (prefix entries end in "/*").
inline constexpr std::string_view kCounterUnitsKey = "gpubench_counter_units";

}  // namespace gpubench
