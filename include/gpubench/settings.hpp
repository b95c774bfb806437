// Settings that change what gpubench's numbers mean. Each is set by a flag
// (--gpubench_<name>=VALUE) or an environment variable (GPUBENCH_<NAME>); flags win.
#pragma once

#include <string>
#include <vector>

namespace gpubench {

/// How the GPU time of one iteration is measured.
enum class Timer {
  kEvents,  ///< CUDA events around the iteration on the body's stream (includes launch gaps).
  kCupti,   ///< Sum of the iteration's kernel durations from CUPTI activity records.
};

/// What the L2 cache holds when an iteration starts.
enum class CachePolicy {
  kFlush,  ///< Cold L2: gpubench evicts it before every iteration, outside the timed region.
  kKeep,   ///< Warm L2: iterations run back to back; one event pair times the whole run.
};

/// Which of GB's calls of a benchmark function run profiling sessions.
enum class ProfileRuns {
  kReported,  ///< Calls GB may report; its iteration-count trials reuse the instance's counters.
  kAll,       ///< Every call, trials included (slower; for a ->MinTime() gpubench cannot read).
};

/// Which process takes the hardware metrics. Once CUPTI's profiler has been set up in a process,
/// held short kernels time 5-10% slower there for good (docs/accuracy.md "Metrics on and off").
enum class ProfileProcess {
  kChild,  ///< A child process profiles every benchmark first; this one only times.
  kSame,   ///< This process profiles after each timed run (rows say profiled_inline=1).
};

/// What to do when another process uses the GPU before a benchmark runs (seen through NVML).
enum class Exclusive {
  kWarn,  ///< Run, mark the run gpu_shared=1 and warn once.
  kWait,  ///< Wait (with progress messages, at most kExclusiveWaitSeconds) until it is free.
  kFail,  ///< Skip the benchmark with the reason.
};

/// The longest --gpubench_exclusive=wait waits before one benchmark (then it is skipped).
inline constexpr double kExclusiveWaitSeconds = 600;

/// What to do about the GPU's heat before each benchmark's timed iterations (through NVML).
enum class Thermal {
  kNone,  ///< Time the GPU as it is; the rows record its temperature, power and clock events.
  kWait,  ///< Wait until it has cooled: at most thermal_margin_c above the coolest temperature
          ///< read since the run started, no heat or power clock-event reason active (at most
          ///< kThermalWaitSeconds, then time it anyway and say so).
};

/// The longest --gpubench_thermal=wait waits before one benchmark.
inline constexpr double kThermalWaitSeconds = 120;

/// How --gpubench_devices runs the devices' children. One at a time is the default: what running
/// side by side does to each device's numbers (shared power, heat and host) has not been measured
/// on a machine of several GPUs yet (docs/accuracy.md "Several devices").
enum class DeviceOrder {
  kOneAtATime,  ///< One device's child after another (the suite takes devices x as long).
  kAllAtOnce,   ///< Every device's child at the same time; the settings fingerprint says so.
};

/// How a repetition of a gpubench benchmark decides that it has taken enough timed samples.
enum class Stopping {
  kPrecision,  ///< gpubench's rule: sample until the mean GPU time is precise enough (precision,
               ///< min_samples, min_seconds), or until the wall budget max_seconds is spent.
  kGb,         ///< GB's rule: growing trial calls until one holds min_time of GPU time (0.5 s
               ///< by default).
};

/// Whether each instance's work signature is recorded (docs/user_guide.md "Reusing unchanged
/// work"). It never changes a measured number; --gpubench_reuse needs it on.
enum class Signature {
  kOn,   ///< Every row carries work_signature, so any run can serve a later one as a source.
  kOff,  ///< No CUPTI callbacks before a warm-up body; rows carry no signature.
};

/// The settings in effect for a run of benchmarks. Clock control is not a field: gpubench never
/// locks clocks ("none"), it measures the clock the iterations ran at instead.
struct Settings {
  Timer timer = Timer::kEvents;
  CachePolicy cache = CachePolicy::kFlush;
  /// CUPTI metric names collected by the profiled iterations (defaults first, then additions).
  std::vector<std::string> metrics;
  /// Profiled iterations per run after the timed ones; 0 turns hardware metrics off.
  int profile_iterations = 3;
  /// Which calls are profiled; the counters of every reported call mean the same either way.
  ProfileRuns profile_runs = ProfileRuns::kReported;
  /// Where the metrics are profiled: a child process before the timing (default), or this one.
  ProfileProcess profile_process = ProfileProcess::kChild;
  /// CUDA device ordinal.
  int device = 0;
  /// --gpubench_devices: the children one after another (default) or all at once. A run of one
  /// device reads one_at_a_time, since nothing ran beside it.
  DeviceOrder device_order = DeviceOrder::kOneAtATime;
  /// Other work on the GPU: warn (default), wait for it to end, or skip the benchmark.
  Exclusive exclusive = Exclusive::kWarn;
  /// The GPU's heat before each benchmark: record it (default), or wait for it to cool first.
  Thermal thermal = Thermal::kNone;
  /// thermal=wait: degrees Celsius above the coolest temperature read since the start.
  int thermal_margin_c = 5;
  /// The rule in effect: gpubench's (default) or GB's. Initialize turns it to GB's where the
  /// user asked GB for a time or count (--benchmark_min_time) or gpubench cannot apply its own
  /// (a main of your own), and says why in stopping_note.
  Stopping stopping = Stopping::kPrecision;
  std::string stopping_note;
  /// stopping=precision: the target, in percent of the mean GPU time, of the half-width of its
  /// 95% confidence interval.
  double precision_percent = 0.2;
  /// stopping=precision: the fewest timed samples and wall seconds of them per repetition.
  int min_samples = 10;
  double min_seconds = 0.1;
  /// stopping=precision: the most wall seconds a repetition spends (its warm-up included); it
  /// ends the repetition before the precision target when it comes first (two samples at least).
  double max_seconds = 0.5;
  /// --gpubench_reuse: a previous run's JSON file, or a folder of runs (its newest), whose rows
  /// are carried over where an instance's work signature equals its row's; "" (the default)
  /// measures everything. Not fingerprinted: a run that reuses compares equal with a full run.
  std::string reuse_path;
  /// --gpubench_signature: record each instance's work signature (on, the default) or not.
  Signature signature = Signature::kOn;
  /// --gpubench_reuse_max_runs: a row's values are reused at most this many runs in a row, then
  /// measured again; 0 measures every row (with a source, each row still says why).
  int reuse_max_runs = 5;
  /// --gpubench_reuse_max_age: a source row measured longer ago than this is measured again.
  double reuse_max_age_seconds = 7 * 86400.0;
};

/// The metrics collected when no --gpubench_metrics is given (one replay pass on Hopper).
const std::vector<std::string>& DefaultMetrics();

/// The settings in effect: those parsed by gpubench::Initialize, else defaults plus GPUBENCH_*
/// environment variables.
const Settings& CurrentSettings();

/// Text forms used by flags, the context block and the user guide.
const char* ToString(Timer timer);
const char* ToString(CachePolicy cache);
const char* ToString(ProfileRuns runs);
const char* ToString(ProfileProcess process);
const char* ToString(Exclusive exclusive);
const char* ToString(Thermal thermal);
const char* ToString(Stopping stopping);
const char* ToString(DeviceOrder order);
const char* ToString(Signature signature);

}  // namespace gpubench
