// gpubench's counter vocabulary: every value gpubench writes into a benchmark row, with its unit,
// which way is better, who writes it and what it means. One table, read by the library (the
// console reporter's units, the context block's gpubench_counter_units, the writers of each
// counter) and by the tools (directions, units; the gate's own rules are in
// src/tools/gate/gate_tuning.hpp), and checked against the user guide's counter table. The
// lowest layer (schema/): header-only and constexpr, so that the tools use it without linking the
// library.
#pragma once

#include <cstddef>
#include <string_view>

namespace gpubench {

/// Which way a value should move.
enum class Better { kLower, kHigher, kNeither };

/// How often a counter is measured: each repetition (each call's timed samples) has its own
/// value, or one measurement (the instance's profiling session in the profiling child) serves
/// every repetition, which then carry the same value. The gate tests a repetition-to-repetition
/// difference (Mann-Whitney, the repetitions' noise) only for the first; for the second the
/// repetitions are one value, and only the spread between runs (a history) says how much it
/// moves on its own.
enum class Measured { kPerRepetition, kPerRun };

/// Who writes a counter into a row, and when: each counter has one writer. The library writes
/// through schema/counter_sink.hpp's CounterSink<writer>, which does not compile a write of a
/// counter another writer owns (tests/unit/compile_fail).
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
                          ///< kClockEventReasons), reason (a code of kStopReasons), reuse (a
                          ///< code of kReuseStatuses), signature (a 48-bit hash, shown in hex),
                          ///< unix s (seconds since 1970, UTC)
  Better better;
  std::string_view meaning;
  /// The CUPTI metric it is read from ("" for derived counters) and the factor to its unit.
  std::string_view source_metric = {};
  double source_scale = 1;
  /// The metric group that must be on for it to be written ("" for none): --gpubench_metrics
  /// =+flops or +l2 adds the group's metrics, and its counters come with them.
  std::string_view group = {};
  Measured measured = Measured::kPerRepetition;
};

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
inline constexpr char kWorkSignature[] = "work_signature";
inline constexpr char kReuseStatus[] = "reuse_status";
inline constexpr char kReusedRuns[] = "reused_runs";
inline constexpr char kMeasuredAt[] = "measured_at";
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
    {counter::kRealTime, Writer::kGoogleBenchmark, "ns", Better::kLower,
     "GPU time per iteration (GB's manual time under gpubench)"},
    {counter::kCpuTime, Writer::kGoogleBenchmark, "ns", Better::kLower,
     "host CPU time per iteration of the benchmark's thread"},
    // Clock probe around the timed iterations.
    {counter::kSmClockMhz, Writer::kCallEnd, "MHz", Better::kHigher,
     "mean SM clock over the timed iterations (clock probe, all SMs)"},
    {counter::kSmClockRatedMhz, Writer::kCallEnd, "MHz", Better::kNeither,
     "the card's rated SM clock (cudaDevAttrClockRate)"},
    {counter::kSmClockThrottled, Writer::kCallEnd, "flag", Better::kLower,
     "1 when sm_clock_mhz < 90% of the rated clock: the time is doubtful"},
    {counter::kGpuShared, Writer::kCallEnd, "flag", Better::kLower,
     "1 when another process used the GPU around the run (NVML) or held its profiler"},
    {counter::kLaunchHeld, Writer::kCallEnd, "flag", Better::kHigher,
     "cache=flush: 1 when every timed body ran behind a stream hold; 0 when the body waits for "
     "the GPU (the host's launch time may be inside the time) or another process used the GPU "
     "(then gpu_shared=1 too)"},
    {counter::kStreamsJoined, Writer::kCallEnd, "count", Better::kNeither,
     "streams besides the timed one that the body put GPU work on in its warm-up; each timed "
     "span forks to and joins from them, so their work is inside the GPU time"},
    {counter::kTimingPaused, Writer::kReporter, "flag", Better::kLower,
     "1 when GB's CPU time of the timed iterations differs from the thread's CPU time that "
     "gpubench read over them: the body calls state.PauseTiming(), which leaves the paused GPU "
     "work in the GPU time (use gpubench::UntimedScope); absent otherwise"},
    // NVML over the timed iterations (absent without NVML: gpubench_gpu_thermal says why).
    {counter::kGpuTempStartC, Writer::kCallEnd, "C", Better::kNeither,
     "GPU temperature as the timed iterations began (NVML)"},
    {counter::kGpuTempEndC, Writer::kCallEnd, "C", Better::kNeither,
     "GPU temperature as the timed iterations ended (NVML)"},
    {counter::kGpuPowerW, Writer::kCallEnd, "W", Better::kNeither,
     "mean board power over the timed iterations (NVML's energy counter, or its power readings "
     "for spans under 50 ms)"},
    {counter::kClockEventReasons, Writer::kCallEnd, "reasons", Better::kNeither,
     "NVML's clock-event reasons seen during the timed iterations, a bit set "
     "(kClockEventReasons: sw_power_cap, sw_thermal_slowdown, ...; gpu_idle left out); 0: none"},
    {counter::kThermalWaitTime, Writer::kCallEnd, "s", Better::kNeither,
     "--gpubench_thermal=wait: how long the call waited for the GPU to cool first"},
    // How the repetition's samples ended and what it cost (measure/sampling/stopping_rule.hpp,
    // measure/publish/run_cost.hpp): they describe the measurement, not the kernel.
    {counter::kStopReason, Writer::kCallEnd, "reason", Better::kNeither,
     "why the repetition's timed samples ended, a code of kStopReasons: 1 precision, 2 "
     "max_seconds, 3 minimum, 4 min_time, 5 iterations, 6 repetition"},
    {counter::kPrecisionPct, Writer::kCallEnd, "%", Better::kLower,
     "the half-width of the 95% confidence interval of the repetition's mean GPU time, % of it: "
     "its own samples (the wider of independent samples and 10 batch means, for correlated "
     "samples) plus call_spread_pct, the spread between the instance's calls so far (cache=flush, "
     "timer=events; absent otherwise)"},
    {counter::kCallSpreadPct, Writer::kCallEnd, "%", Better::kLower,
     "from the instance's second repetition on: the standard deviation between its repetitions' "
     "means so far beyond what their own samples explain, % of their mean (another call's data "
     "placement, clock and heat, which no call sees in its own samples); part of precision_pct"},
    {counter::kSamples, Writer::kRowCost, "count", Better::kNeither,
     "timed bodies the row took: its iterations, plus those of GB's trial calls before it (GB's "
     "rule)"},
    {counter::kWallTime, Writer::kRowCost, "s", Better::kLower,
     "wall seconds the row cost: the benchmark function's call (its set-up, warm-up and timed "
     "samples), GB's trial calls before it, and its instance's profiling (on the instance's first "
     "row)"},
    {counter::kWallWarmup, Writer::kCallEnd, "s", Better::kLower,
     "wall seconds of the call's warm-up stages: the warm-up body, the hold check, a thermal wait"},
    {counter::kWallTimed, Writer::kCallEnd, "s", Better::kLower,
     "wall seconds of the call's timed samples"},
    {counter::kWallProfiling, Writer::kCallEnd, "s", Better::kLower,
     "wall seconds of the row's profiling: its instance's call in the profiling child (on the "
     "instance's first row, 0 on the others), or its own profiled and busy bodies with "
     "profile_process=same"},
    {counter::kProfiledInline, Writer::kCallEnd, "flag", Better::kLower,
     "1 when the metrics were profiled after each timed run (a main that starts the benchmarks "
     "with benchmark::RunSpecifiedBenchmarks): CUPTI then stays attached and held short kernels "
     "time slower; absent after gpubench's profiling pass"},
    // The busy measurement: untimed iterations with CUPTI activity records, in the profiling
    // child (or inline with profile_process=same); absent with metrics off.
    {counter::kGpuBusyTime,
     Writer::kCallEnd,
     "s",
     Better::kNeither,
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
     "dram__bytes_read.sum per profiled iteration (mean over ranges)",
     "dram__bytes_read.sum",
     1,
     {},
     Measured::kPerRun},
    {counter::kDramWriteBytes,
     Writer::kCallEnd,
     "bytes",
     Better::kLower,
     "dram__bytes_write.sum per profiled iteration",
     "dram__bytes_write.sum",
     1,
     {},
     Measured::kPerRun},
    {counter::kBytesMoved,
     Writer::kCallEnd,
     "bytes",
     Better::kLower,
     "dram_read_bytes + dram_write_bytes",
     "",
     1,
     {},
     Measured::kPerRun},
    {counter::kGpuDuration,
     Writer::kCallEnd,
     "s",
     Better::kLower,
     "gpu__time_duration.sum of a profiled iteration's ranges: one, or one between each "
     "gpubench::UntimedScope, whose work is not in it (each range adds ~2.5 us of overhead)",
     "gpu__time_duration.sum",
     1e-9,
     {},
     Measured::kPerRun},
    {counter::kProfiledSmClockMhz,
     Writer::kCallEnd,
     "MHz",
     Better::kHigher,
     "sm__cycles_elapsed.avg.per_second during the profiled ranges",
     "sm__cycles_elapsed.avg.per_second",
     1e-6,
     {},
     Measured::kPerRun},
    {counter::kDramBandwidth,
     Writer::kCallEnd,
     "bytes/s",
     Better::kHigher,
     "bytes_moved / gpu_duration",
     "",
     1,
     {},
     Measured::kPerRun},
    {counter::kDramBandwidthPct,
     Writer::kCallEnd,
     "%",
     Better::kHigher,
     "dram_bandwidth as % of gpu_dram_bandwidth_theoretical_bytes_per_second",
     "",
     1,
     {},
     Measured::kPerRun},
    {counter::kProfilePasses,
     Writer::kCallEnd,
     "count",
     Better::kNeither,
     "replay passes the metrics needed",
     "",
     1,
     {},
     Measured::kPerRun},
    // The work signature and reuse (--gpubench_reuse, docs/user_guide.md "Reusing unchanged
    // work").
    {counter::kWorkSignature, Writer::kCallEnd, "signature", Better::kNeither,
     "a 48-bit hash of what the instance asked the GPU to do in its set-up and one body (each "
     "kernel's machine code, launch geometry and arguments, each copy and set), with the "
     "settings fingerprint, the GPU, the driver and the method version; an integer in JSON, 12 "
     "hex digits in the tools; absent with --gpubench_signature=off or where the work could not "
     "be watched (without --gpubench_reuse also where it could not be signed whole)"},
    {counter::kReuseStatus, Writer::kCallEnd, "reuse", Better::kNeither,
     "with --gpubench_reuse: whether the values were reused or measured and why, a code of "
     "kReuseStatuses: 1 reused, 2 new, 3 changed, 4 streak, 5 aged, 6 host_bound, 7 unsigned, "
     "8 run_differs, 9 no_source"},
    {counter::kReusedRuns, Writer::kCallEnd, "count", Better::kNeither,
     "with --gpubench_reuse: how many runs in a row the row's values have been reused (0: "
     "measured in this run)"},
    {counter::kMeasuredAt, Writer::kCallEnd, "unix s", Better::kNeither,
     "with --gpubench_reuse: when the row's values were measured, in seconds since 1970 (UTC): "
     "this run's call, or the reuse source's measurement for a reused row"},
    // timer=cupti: one counter per kernel name.
    {counter::kKernelTimePrefix, Writer::kCallEnd, "s", Better::kLower,
     "per iteration, per kernel name (timer=cupti only)"},
    // GB's rate counters (SetBytesProcessed, SetItemsProcessed): rates over GPU time.
    {counter::kBytesPerSecond, Writer::kGoogleBenchmark, "bytes/s", Better::kHigher,
     "GB's SetBytesProcessed over GPU time"},
    {counter::kItemsPerSecond, Writer::kGoogleBenchmark, "1/s", Better::kHigher,
     "GB's SetItemsProcessed over GPU time"},
    {counter::kFlopsPerSecond, Writer::kBenchmarkFunction, "FLOP/s", Better::kHigher,
     "gpubench::SetFlopsProcessed over GPU time"},
    // What the benchmark declared against what the profiler measured.
    {counter::kDeclaredBytes, Writer::kFunctionEnd, "bytes", Better::kNeither,
     "bytes declared with SetBytesProcessed, per iteration"},
    {counter::kDramTrafficRatio,
     Writer::kFunctionEnd,
     "ratio",
     Better::kLower,
     "bytes_moved / declared_bytes: 1 moves what the algorithm needs, above 1 redundant "
     "traffic, below 1 reuse from cache",
     "",
     1,
     {},
     Measured::kPerRun},
    {counter::kDeclaredFlop, Writer::kFunctionEnd, "FLOP", Better::kNeither,
     "FLOPs declared with gpubench::SetFlopsProcessed, per iteration"},
    // Metric group flops (--gpubench_metrics=+flops).
    {counter::kFlopCountFp64, Writer::kCallEnd, "FLOP", Better::kNeither,
     "DADD + DMUL + 2 x DFMA thread instructions per profiled iteration", "", 1, "flops",
     Measured::kPerRun},
    {counter::kFlopCountFp32, Writer::kCallEnd, "FLOP", Better::kNeither,
     "FADD + FMUL + 2 x FFMA thread instructions per profiled iteration", "", 1, "flops",
     Measured::kPerRun},
    {counter::kFlopCountFp16, Writer::kCallEnd, "FLOP", Better::kNeither,
     "HADD + HMUL + 2 x HFMA thread instructions per profiled iteration (a packed HFMA2 counts "
     "as one instruction)",
     "", 1, "flops", Measured::kPerRun},
    {counter::kFlopCount, Writer::kCallEnd, "FLOP", Better::kNeither,
     "flop_count_fp64 + flop_count_fp32 + flop_count_fp16 (tensor-core work not included)", "", 1,
     "flops", Measured::kPerRun},
    {counter::kFlopRate, Writer::kCallEnd, "FLOP/s", Better::kHigher, "flop_count / gpu_duration",
     "", 1, "flops", Measured::kPerRun},
    {counter::kFlopRatePeak, Writer::kCallEnd, "FLOP/s", Better::kNeither,
     "peak FLOP rate for this mix of precisions at profiled_sm_clock_mhz (2 x fma .peak_sustained "
     "x clock per precision; FP32's without FP work)",
     "", 1, "flops", Measured::kPerRun},
    {counter::kFlopRatePct, Writer::kCallEnd, "%", Better::kHigher,
     "flop_rate as % of flop_rate_peak", "", 1, "flops", Measured::kPerRun},
    {counter::kArithmeticIntensity, Writer::kCallEnd, "FLOP/byte", Better::kNeither,
     "flop_count / bytes_moved (FLOP per DRAM byte)", "", 1, "flops", Measured::kPerRun},
    {counter::kTensorPipePct, Writer::kCallEnd, "%", Better::kNeither,
     "tensor pipe active, % of elapsed cycles averaged over the SMs (tensor-core work has no "
     "exact FLOP count)",
     "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed", 1, "flops",
     Measured::kPerRun},
    {counter::kFlopCountRatio, Writer::kFunctionEnd, "ratio", Better::kNeither,
     "flop_count / declared_flop", "", 1, "flops", Measured::kPerRun},
    // Metric group l2 (--gpubench_metrics=+l2).
    {counter::kL2HitRate, Writer::kCallEnd, "%", Better::kHigher,
     "lts__t_sector_hit_rate.pct: L2 sector lookups that hit, all sources",
     "lts__t_sector_hit_rate.pct", 1, "l2", Measured::kPerRun},
    {counter::kL2ReadBytes, Writer::kCallEnd, "bytes", Better::kNeither,
     "bytes the SMs read from L2 per profiled iteration (32 x "
     "lts__t_sectors_srcunit_tex_op_read.sum)",
     "lts__t_sectors_srcunit_tex_op_read.sum", 32, "l2", Measured::kPerRun},
    {counter::kL2WriteBytes, Writer::kCallEnd, "bytes", Better::kNeither,
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

/// The index in kCounters of the row named exactly `name` (a prefix row by its prefix,
/// "kernel_time/"), or -1: the compile-time lookup of CounterSink. An index, not a pointer: gcc
/// with -fsanitize=undefined refuses to compare a row's address with nullptr in a constant
/// expression.
constexpr int CounterRowOf(std::string_view name) {
  for (std::size_t i = 0; i < sizeof(kCounters) / sizeof(kCounters[0]); ++i) {
    if (kCounters[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

/// Whether a table name is a prefix (kernel_time/<kernel>).
constexpr bool IsPrefixName(std::string_view name) { return !name.empty() && name.back() == '/'; }

/// "lower", "higher" or "neither", as written in gpubench_counter_units.
constexpr std::string_view BetterName(Better better) {
  return better == Better::kLower ? "lower" : better == Better::kHigher ? "higher" : "neither";
}

namespace schema_detail {
constexpr bool CounterNamesAreUnique() {
  for (std::size_t i = 0; i < sizeof(kCounters) / sizeof(kCounters[0]); ++i) {
    for (std::size_t j = i + 1; j < sizeof(kCounters) / sizeof(kCounters[0]); ++j) {
      if (kCounters[i].name == kCounters[j].name) return false;
    }
  }
  return true;
}
// What the profiler measures serves every repetition of the run.
constexpr bool SourceMetricsAreMeasuredPerRun() {
  for (const CounterInfo& counter : kCounters) {
    if (!counter.source_metric.empty() && counter.measured != Measured::kPerRun) return false;
  }
  return true;
}
// metrics.cpp writes the counters of source metrics by iterating the table at run time, as
// kCallEnd: that run-time write is checked here instead of at each write.
constexpr bool SourceMetricsAreWrittenAtCallEnd() {
  for (const CounterInfo& counter : kCounters) {
    if (!counter.source_metric.empty() && counter.writer != Writer::kCallEnd) return false;
  }
  return true;
}
}  // namespace schema_detail
static_assert(schema_detail::CounterNamesAreUnique(), "two rows of kCounters share a name");
static_assert(schema_detail::SourceMetricsAreMeasuredPerRun(),
              "a counter read from a CUPTI metric is measured once per run (Measured::kPerRun)");
static_assert(schema_detail::SourceMetricsAreWrittenAtCallEnd(),
              "a counter read from a CUPTI metric is written by metrics.cpp (Writer::kCallEnd)");

}  // namespace gpubench
