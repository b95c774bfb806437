#include "config/run_plan.hpp"

namespace gpubench::detail {

const char* ProfilingRoleName(ProfilingRole role) {
  switch (role) {
    case ProfilingRole::kNone:
      return "none";
    case ProfilingRole::kInProcess:
      return "in-process";
    case ProfilingRole::kParent:
      return "parent";
    case ProfilingRole::kChild:
      return "child";
  }
  return "none";
}

namespace {

// stopping=precision needs no GB time asked for on the command line, and Main's reporters or a
// count GB names nowhere (GB >= 1.8: --benchmark_min_time=<n>x); otherwise GB's rule stays, and
// the note says why (context gpubench_stopping_note).
void ChooseStopping(const PlanInputs& inputs, Settings* settings, std::string* console_note) {
  if (settings->stopping != Stopping::kPrecision) return;
  if (!inputs.gb_min_time.empty()) {
    settings->stopping = Stopping::kGb;
    settings->stopping_note = "GB's rule: --benchmark_min_time=" + inputs.gb_min_time +
                              " (or BENCHMARK_MIN_TIME) was given, and what a user asks GB for "
                              "wins over gpubench's rule";
  } else if (!inputs.main_reports && !inputs.global_count_refusal.empty()) {
    settings->stopping = Stopping::kGb;
    settings->stopping_note =
        "GB's rule: a main of your own runs GB's reporters, which would show the count gpubench "
        "sets in every name (.../iterations:2/...), and " +
        inputs.global_count_refusal +
        "; call gpubench::Main(argc, argv) from your main, or use GPUBENCH_MAIN(), for "
        "gpubench's rule";
    // Nobody asked for GB's rule here: say so where the user looks, not only in the context
    // (once: the profiling child runs the same main).
    if (inputs.child_file.empty()) {
      *console_note = "gpubench: " + settings->stopping_note +
                      " (gpubench_stopping_rule and the settings fingerprint say so too)\n";
    }
  }
}

ProfilingRole IntendedRole(const PlanInputs& inputs) {
  const Settings& settings = inputs.settings;
  if (settings.profile_iterations <= 0) return ProfilingRole::kNone;
  if (!inputs.child_file.empty()) return ProfilingRole::kChild;
  // Under ncu or nsys gpubench's profiler steps aside (the profiler's status says why).
  if (settings.profile_process == ProfileProcess::kChild && inputs.cuda_tool.empty()) {
    return ProfilingRole::kParent;
  }
  return ProfilingRole::kInProcess;
}

}  // namespace

Result<RunPlan> DraftRunPlan(const PlanInputs& inputs) {
  if (inputs.devices_asked && !inputs.main_reports) {
    return Status::Error(
        "--gpubench_devices needs GPUBENCH_MAIN() or gpubench::Main: it runs the suite once per "
        "device and names every row after its device in GB's output, which a main of your own "
        "does not let gpubench do");
  }
  RunPlan plan;
  plan.settings = inputs.settings;
  // What ran beside this process's rows: the other devices' children, in an all_at_once run only
  // (its children are told so); a run of one device reads one_at_a_time whatever was asked.
  plan.settings.device_order =
      inputs.devices_at_once ? DeviceOrder::kAllAtOnce : DeviceOrder::kOneAtATime;
  ChooseStopping(inputs, &plan.settings, &plan.console_note);
  plan.counts_by_flag = !inputs.main_reports && plan.gpubench_counts();
  plan.profiling = IntendedRole(inputs);
  plan.child_file = inputs.child_file;
  plan.cuda_tool = inputs.cuda_tool;
  return plan;
}

Status RefuseUnderCudaTool(const RunPlan& plan) {
  if (plan.settings.timer != Timer::kCupti || plan.cuda_tool.empty()) return Status::Ok();
  return Status::Error(
      "--gpubench_timer=cupti cannot run under another CUDA tool (CUDA_INJECTION64_PATH is set, "
      "e.g. by ncu or nsys): only one CUPTI client can trace a process; use "
      "--gpubench_timer=events under that tool");
}

bool RunPlan::gpubench_counts() const { return settings.stopping == Stopping::kPrecision; }

bool PerKernelTimes(const Settings& settings) { return settings.timer == Timer::kCupti; }

bool RunPlan::runs_child_first(bool device_available, bool nothing_measured) const {
  return profiling == ProfilingRole::kParent && device_available && !nothing_measured;
}

bool RunPlan::starts_child_before_device_query(bool driver_present, bool nothing_measured) const {
  return runs_child_first(driver_present, nothing_measured) &&
         settings.exclusive != Exclusive::kWait;
}

bool RunPlan::prepares_profiler_before_context(bool driver_present, bool nothing_measured) const {
  return profiling == ProfilingRole::kChild && driver_present && !nothing_measured;
}

bool RunPlan::takes_gpu_lock(bool device_available, bool list_metrics) const {
  return device_available && !list_metrics && settings.exclusive == Exclusive::kWait &&
         !is_profiling_child();
}

ProfilingRole FinishProfilingRole(const Settings& settings, bool has_profiler,
                                  ProfilingPassFiles pass) {
  if (settings.profile_iterations <= 0) return ProfilingRole::kNone;
  // The parent never sets up a profiler: the child's header said it had one.
  if (pass.read_child) return ProfilingRole::kParent;
  if (!has_profiler) return ProfilingRole::kNone;
  return pass.writes_sessions ? ProfilingRole::kChild : ProfilingRole::kInProcess;
}

}  // namespace gpubench::detail
