#include "measure/counter_stages.hpp"

#include <string>

#include "measure/profiling_pass.hpp"
#include "measure/publish.hpp"

namespace gpubench::detail {

Result<bool> CounterStages::Begin(CallResult* call) {
  const std::string& name = call->instance;
  const int ranges = settings().profile_iterations;
  if (ranges <= 0) return false;
  // The parent of the profiling child has no profiler of its own.
  if (process_.profiling_pass.stage() == ProfilingPass::Stage::kTiming) {
    process_.profiling_pass.TakeCounters(name, call);
    return false;
  }
  if (process_.harness.profiler() == nullptr) return false;
  if (!profiling_pass() &&
      process_.policy.CopyCountersForTrial(settings(), name, call->gpu_seconds, &call->profile)) {
    return false;
  }
  bool body = false;
  GPUBENCH_RETURN_IF_ERROR(profiling_.Begin(name, ranges, &call->profile, &body));
  if (!body) return StartBusy(call);
  return true;
}

Result<bool> CounterStages::AfterBody(CallResult* call) {
  if (!in_busy_body_) return AfterProfiledBody(call);
  bool body = false;
  GPUBENCH_RETURN_IF_ERROR(busy_.AfterBody(call, &body));
  return body;
}

Result<bool> CounterStages::AfterProfiledBody(CallResult* call) {
  bool body = false;
  GPUBENCH_RETURN_IF_ERROR(profiling_.AfterBody(process_.harness.facts(), &call->profile, &body));
  if (body) return true;
  return StartBusy(call);
}

Result<bool> CounterStages::StartBusy(CallResult* call) {
  bool body = false;
  GPUBENCH_RETURN_IF_ERROR(busy_.Begin(call->instance, settings().profile_iterations, call, &body));
  in_busy_body_ = body;
  return body;
}

Status CounterStages::EndProfilingPassCall(const CallResult& call) {
  if (!profiling_pass()) return Status::Ok();
  KeepForTimedPass(process_.harness.sharing(), call, process_);
  return Status::Error(kProfilingPassSkip);
}

}  // namespace gpubench::detail
