// The plan of one run, decided once by gpubench::Initialize (issue #48): which role this process
// plays in taking hardware metrics, which stopping rule applies and why, whether another CUDA
// tool is attached and in which order the devices run. The stages read the plan's answers; none
// of them looks at the settings, the environment or GB's flags again to decide a mode. A pure
// value, tested without a GPU (tests/unit/test_run_plan.cpp).
#pragma once

#include <string>

#include "common/status.hpp"
#include "gpubench/settings.hpp"

namespace gpubench::detail {

/// Where this process's hardware counters come from.
enum class ProfilingRole {
  kNone,       ///< no hardware metrics here (profile_iterations=0, no profiler, or the child
               ///< said why not)
  kInProcess,  ///< each call profiles right after its own timed iterations
               ///< (profile_process=same, or no profiling child could run)
  kParent,     ///< the profiling child ran first: calls are timed and take its counters
  kChild,      ///< this process is the profiling child: calls profile and are skipped
};

/// "none", "in-process", "parent", "child".
const char* ProfilingRoleName(ProfilingRole role);

/// timer=cupti: each kernel's own time (kernel_time/*) is written.
bool PerKernelTimes(const Settings& settings);

/// What the plan is decided from, gathered once by Initialize.
struct PlanInputs {
  Settings settings;          ///< as parsed from flags and GPUBENCH_* variables
  bool main_reports = false;  ///< GPUBENCH_MAIN or gpubench::Main runs the reporters
  /// A main of one's own: why gpubench cannot give every benchmark its count unnamed (GB 1.7, or
  /// a benchmark outside gpubench that the count would change); "" when it can.
  std::string global_count_refusal = "a main of your own";
  std::string gb_min_time;       ///< --benchmark_min_time (or BENCHMARK_MIN_TIME), "" if unset
  std::string cuda_tool;         ///< CUDA_INJECTION64_PATH, "" when no tool is injected
  std::string child_file;        ///< set in the profiling child: where its sessions go
  bool devices_at_once = false;  ///< a child of an all_at_once --gpubench_devices run
  bool devices_asked = false;    ///< --gpubench_devices was given
};

struct RunPlan {
  /// The effective settings: the stopping rule (with gpubench_stopping_note when it differs from
  /// what was asked) and the device order of this process's rows are filled in here.
  Settings settings;
  /// DraftRunPlan's intended role; FinishProfilingRole gives the final one.
  ProfilingRole profiling = ProfilingRole::kNone;
  std::string child_file;  ///< kChild: the parent's file for the sessions
  std::string cuda_tool;   ///< "" = no other CUDA tool attached
  /// Printed once on stderr by Initialize: why a run the user did not ask to change keeps GB's
  /// rule (a main of one's own), which the context block alone would not show on the console.
  std::string console_note;

  /// gpubench's stopping rule sets the counts of GB's families (TakeOverCounts).
  bool gpubench_counts() const;
  /// ... through --benchmark_min_time=<n>x, not each family's ->Iterations(n): a main of one's
  /// own, whose GB reporters would show a family's count in every name.
  bool counts_by_flag = false;
  /// timer=cupti: each kernel's own time (kernel_time/*) is written (PerKernelTimes).
  bool per_kernel_times() const { return PerKernelTimes(settings); }
  /// This process is the profiling child (its calls are not the run's results).
  bool is_profiling_child() const { return !child_file.empty(); }
  /// A profiling child runs first: the intended role is kParent, a device is there and something
  /// is measured (not a listing, --help or --gpubench_list_metrics).
  bool runs_child_first(bool device_available, bool nothing_measured) const;
  /// The child starts before this process asks the driver for its device (about 0.1 s of
  /// cuInit that the child would otherwise wait for): where a driver is installed
  /// (`driver_present`: /dev/nvidiactl, devices not hidden) and no turn on the GPU is to be
  /// taken first (exclusive=wait takes it before the child runs).
  bool starts_child_before_device_query(bool driver_present, bool nothing_measured) const;
  /// The profiling child starts CUPTI's profiler before its CUDA context
  /// (PrepareCuptiProfiler): where a driver is installed and something is measured. The timing
  /// process never does: a process whose profiler is initialised times short kernels slower.
  bool prepares_profiler_before_context(bool driver_present, bool nothing_measured) const;
  /// exclusive=wait takes a turn on the GPU (the profiling child's parent holds it already).
  bool takes_gpu_lock(bool device_available, bool list_metrics) const;
};

/// The plan before the profiler is set up, or the refusal: --gpubench_devices without gpubench's
/// main. Reads nothing but `inputs`.
Result<RunPlan> DraftRunPlan(const PlanInputs& inputs);

/// timer=cupti cannot run under another CUDA tool (one CUPTI client per process): the refusal,
/// or Ok. Apart from DraftRunPlan because a --gpubench_devices run hands its devices to children
/// first, each of which says it.
Status RefuseUnderCudaTool(const RunPlan& plan);

/// What the profiling pass (measure/profiling/profiling_pass.hpp) holds once the profiler is set
/// up.
struct ProfilingPassFiles {
  bool writes_sessions = false;  ///< this process writes its sessions to the parent's file
  bool read_child = false;       ///< this process read a child's file whose profiler was on
};

/// The final role: `has_profiler` is whether CUPTI's profiler runs in this process.
ProfilingRole FinishProfilingRole(const Settings& settings, bool has_profiler,
                                  ProfilingPassFiles pass);

}  // namespace gpubench::detail
