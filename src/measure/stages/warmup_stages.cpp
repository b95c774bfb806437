#include "measure/stages/warmup_stages.hpp"

#include "measure/checks/sharing_check.hpp"
#include "measure/profiling/profiling_pass.hpp"

namespace gpubench::detail {

Status WarmupStages::Begin(CallResult* call) {
  Harness& harness = services_.harness;
  // The profiling pass's calls are not GB's iteration-count trials: the detector skips them.
  GPUBENCH_RETURN_IF_ERROR(
      AdmitCall(state_, services_.admission, /*count_call=*/times_calls(), &call->instance));
  const std::string& name = call->instance;
  // One session per instance: GB's repetitions and later calls of it are skipped at once.
  if (services_.route.AlreadyProfiled(name)) {
    return Status::Error(kProfilingPassSkip);
  }
  GPUBENCH_RETURN_IF_ERROR(harness.cache().Prepare(harness.ops(), stream_));
  // After Prepare: this process holds its context, so NVML lists it beside any other.
  GPUBENCH_RETURN_IF_ERROR(CheckBeforeRun(harness.sharing(), harness.settings(),
                                          harness.profiler_status(), name, &call->sharing));
  if (times_calls()) harness.timer().BeginRun();
  GPUBENCH_RETURN_IF_ERROR(warmup_.Before());
  warmup_start_ = std::chrono::steady_clock::now();
  return Status::Ok();
}

Result<WarmupStages::Next> WarmupStages::AfterBody(CallResult* call) {
  if (!in_hold_check_) return AfterWarmup(call);
  GPUBENCH_RETURN_IF_ERROR(AfterHoldCheck(call));
  return Next::kTimed;
}

Result<WarmupStages::Next> WarmupStages::AfterWarmup(CallResult* call) {
  GPUBENCH_RETURN_IF_ERROR(warmup_.After(call->instance, call));
  // It waited for the GPU: what one body takes, for the profiling pass's share of bodies.
  call->warmup_body_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - warmup_start_).count();
  if (!times_calls()) return Next::kCounters;  // nothing is timed in the profiling pass
  if (!warmup_.NeedsHoldCheck()) return Next::kTimed;
  if (call->sharing.shared) {
    // Holding would make every iteration wait for the other process's time slice.
    call->launch_hold = LaunchHold::kShared;
    return Next::kTimed;
  }
  GPUBENCH_RETURN_IF_ERROR(warmup_.BeforeHoldCheck(*call));
  in_hold_check_ = true;
  return Next::kHoldCheck;
}

Status WarmupStages::AfterHoldCheck(CallResult* call) {
  GPUBENCH_RETURN_IF_ERROR(warmup_.AfterHoldCheck(call->instance, call));
  // A hold that timed out while another process arrived says nothing about the body.
  if (call->launch_hold == LaunchHold::kBodyWaits &&
      NoteOtherProcesses(services_.harness.sharing(), &call->sharing)) {
    call->launch_hold = LaunchHold::kShared;
  }
  return Status::Ok();
}

}  // namespace gpubench::detail
