#include "measure/stages/warmup_stages.hpp"

#include "measure/call/instance.hpp"
#include "measure/checks/sharing_check.hpp"
#include "measure/profiling/counter_stages.hpp"
#include "measure/profiling/profiling_pass.hpp"

namespace gpubench::detail {

Status WarmupStages::Begin(CallResult* call) {
  Harness& harness = services_.harness;
  // The profiling pass's calls are not GB's iteration-count trials: the detector skips them.
  GPUBENCH_RETURN_IF_ERROR(
      AdmitCall(state_, services_.admission, /*count_call=*/times_calls(), &call->instance));
  // Reused on the profiling child's signature (a gpubench form's scope decided it): no body.
  if (const std::optional<CallReuse>& decided = GetCurrentInstance().reuse_from_child) {
    call->reuse = *decided;
    reused_before_body_ = true;
    return Status::Ok();
  }
  // The set-up of a gpubench form's call was recorded from its start (InstanceScope); a loop of
  // GB's own macros starts recording here, after its set-up.
  if (services_.reuse.signing) {
    WorkRecorder& work = harness.work();
    if (!work.recording()) {
      call->setup_watched = false;
      work.Begin();
    }
    work.Hold(true);  // gpubench's own work until the body (warmup_.Before releases it)
  }
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
  if (!times_calls() && LongSetUp()) BeginTrace();
  warmup_start_ = std::chrono::steady_clock::now();
  return Status::Ok();
}

double WarmupStages::CallSeconds(const CallResult& call) const {
  const CurrentInstance& instance = GetCurrentInstance();
  // From the function's call where it is known (its set-up included), else from the loop's.
  const auto start = instance.family != nullptr ? instance.call_start : call.loop_start;
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

bool WarmupStages::LongSetUp() const {
  const CurrentInstance& instance = GetCurrentInstance();
  if (instance.family == nullptr) return false;  // no call start known (GB's own macros)
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - instance.call_start)
             .count() > kProfilingBodiesSeconds;
}

void WarmupStages::BeginTrace() {
  BusyTracer& tracer = services_.harness.busy();
  if (!tracer.UnavailableReason().empty()) return;
  // Start waits for the GPU (the flush) before the body's window opens.
  if (!tracer.Start().ok()) return;
  tracing_ = true;
  window_open_ = tracer.BeginIteration().ok();
  if (!window_open_) Abort();
}

void WarmupStages::EndTraceWindow() {
  if (tracing_ && !services_.harness.busy().EndIteration().ok()) Abort();
  window_open_ = false;
}

Status WarmupStages::EndTrace(CallResult* call) {
  if (!tracing_) return Status::Ok();
  tracing_ = false;
  BusyTracer& tracer = services_.harness.busy();
  BusyMeasure measure;
  // The body has finished (the warm-up waited for it); Finish waits again and reads the records.
  if (Status finish = tracer.Finish(&measure); !finish.ok()) {
    if (finish.code() == Status::Code::kContextLost) return BodyError(call->instance, finish);
    return Status::Ok();
  }
  call->warmup_busy = measure;
  return Status::Ok();
}

void WarmupStages::Abort() {
  // A call that failed before its warm-up body ended leaves no recording on.
  if (services_.reuse.signing) (void)services_.harness.work().End();
  if (!tracing_) return;
  tracing_ = false;
  BusyTracer& tracer = services_.harness.busy();
  if (window_open_) (void)tracer.EndIteration();
  window_open_ = false;
  BusyMeasure discarded;
  (void)tracer.Finish(&discarded);
}

Result<WarmupStages::Next> WarmupStages::AfterBody(CallResult* call) {
  if (!in_hold_check_) return AfterWarmup(call);
  GPUBENCH_RETURN_IF_ERROR(AfterHoldCheck(call));
  return Next::kTimed;
}

Result<WarmupStages::Next> WarmupStages::AfterWarmup(CallResult* call) {
  EndTraceWindow();  // right after the body, as a busy iteration's
  GPUBENCH_RETURN_IF_ERROR(warmup_.After(call->instance, call));
  // It waited for the GPU: what one body takes, for the profiling pass's share of bodies.
  call->warmup_body_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - warmup_start_).count();
  call->reuse = SignCall(services_.reuse, call->work, call->setup_watched, call->instance,
                         UnixSeconds(), services_.route.SignedInChild(call->instance));
  if (call->reuse.reused()) {
    // The profiling child profiles nothing the timing process will not measure, and hands the
    // signature on: the parent then runs neither this set-up nor this body again.
    if (!times_calls()) return services_.route.EndReusedCall(*call, CallSeconds(*call));
    return Next::kReused;
  }
  if (!times_calls()) {
    GPUBENCH_RETURN_IF_ERROR(EndTrace(call));
    return Next::kCounters;  // nothing is timed in the profiling pass
  }
  if (!warmup_.NeedsHoldCheck()) return Next::kTimed;
  if (call->sharing.shared) {
    // Holding would make every iteration wait for the other process's time slice.
    call->launch_hold = LaunchHold::kShared;
    return Next::kTimed;
  }
  if (!call->streams.waits_for_gpu.empty()) {
    // The warm-up saw the body wait for the GPU: a hold could only time out (kHoldTimeoutMs),
    // so there is no hold to check, and the body does not run a second untimed time.
    call->launch_hold = LaunchHold::kBodyWaits;
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
