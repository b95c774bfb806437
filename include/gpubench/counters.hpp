// What gpubench writes into a benchmark row as a code, and what each code means: the bits of
// counter clock_event_reasons and the codes of counters stop_reason and reuse_status. Header-only
// and constexpr: code that reads gpubench's rows decodes them without linking the library. (Every
// counter's name, unit and meaning is in docs/user_guide.md "Counters".)
#pragma once

#include <cstdint>
#include <string_view>

namespace gpubench {

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

/// The codes of counter reuse_status (--gpubench_reuse): whether the row's values were measured
/// in this run or taken from the reuse source's row of the same instance and repetition, and
/// why a row was measured.
struct ReuseStatusName {
  int code;
  std::string_view name;
  std::string_view meaning;
};
inline constexpr ReuseStatusName kReuseStatuses[] = {
    {1, "reused",
     "the work signature equals the source row's: the row carries the source row's values; "
     "nothing was timed or profiled (wall_time is what this run spent on the set-up and the "
     "signature's body)"},
    {2, "new",
     "measured: the reuse source has no row of this instance and repetition, or only an error "
     "row"},
    {3, "changed", "measured: the work signature differs from the source row's"},
    {4, "streak",
     "measured: the source row's value had been reused --gpubench_reuse_max_runs runs in a row"},
    {5, "aged", "measured: the source row's value is older than --gpubench_reuse_max_age"},
    {6, "host_bound",
     "measured: the source row was timed without the launch hold and its gpu_busy_pct is below "
     "99%, or absent: the GPU may have waited for the host, whose code the signature does not "
     "see"},
    {7, "unsigned",
     "measured: part of the work cannot be signed (a kernel whose machine code was not seen, a "
     "graph instantiated before the instance or changed after, a host function launched into a "
     "stream, a 3-D or batched copy, a set-up that ran outside gpubench's forms)"},
    {8, "run_differs",
     "measured: the source run's GPU, driver, settings fingerprint or method version differ "
     "from this run's"},
    {9, "no_source", "measured: the reuse source could not be read (stderr says why)"},
};

/// The name of a reuse_status code ("" for an unknown code).
constexpr std::string_view ReuseStatusNameOf(int code) {
  for (const ReuseStatusName& status : kReuseStatuses) {
    if (status.code == code) return status.name;
  }
  return {};
}

/// The code of counter reuse_status for a row whose values came from the reuse source.
inline constexpr int kReuseStatusReused = 1;

}  // namespace gpubench
