#include "measure/profiling/counter_stages.hpp"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <string>

#include "common/format.hpp"

namespace gpubench::detail {

ProfilingBodies BoundProfilingBodies(double body_seconds, int passes, int most,
                                     double budget_seconds) {
  ProfilingBodies bodies{most, most};
  if (body_seconds <= 0 || most <= 0) return bodies;
  passes = std::max(passes, 1);
  // What is left of the budget after the warm-up body, in bodies.
  const double left = budget_seconds / body_seconds - 1;
  bodies.ranges = std::clamp(static_cast<int>(std::floor((left - 1) / passes)), 1, most);
  bodies.busy = std::clamp(static_cast<int>(std::floor(left - passes * bodies.ranges)), 1, most);
  return bodies;
}

bool UsesWarmupBusy(const CallResult& call) {
  return call.warmup_busy.iterations > 0 && call.warmup_scopes == 0 &&
         call.warmup_body_seconds > kProfilingBodiesSeconds;
}

Result<bool> CounterStages::Begin(CallResult* call) {
  const std::string& name = call->instance;
  if (services_.route.SettleWithoutSession(call)) return false;
  const Profiler& profiler = *services_.harness.profiler();
  bodies_ = BoundProfilingBodies(call->warmup_body_seconds, profiler.PassCount(),
                                 settings().profile_iterations);
  if (UsesWarmupBusy(*call)) bodies_.busy = 0;
  const double seconds = bodies_.Seconds(call->warmup_body_seconds, profiler.PassCount());
  if (seconds > 1.5 * kProfilingSecondsPerInstance && services_.policy.FirstTime("slow:" + name)) {
    std::cerr << "gpubench: " << name << ": profiling takes about " << FormatSeconds(seconds)
              << ", more than the " << FormatSeconds(kProfilingSecondsPerInstance)
              << " aimed at: one body takes " << FormatSeconds(call->warmup_body_seconds)
              << " and the metrics need its warm-up, " << std::max(profiler.PassCount(), 1)
              << " replay pass(es) of " << bodies_.ranges << " range(s)"
              << (bodies_.busy > 0
                      ? " and " + std::to_string(bodies_.busy) + " busy-measurement iteration(s)"
                      : std::string(" (the warm-up was the busy measurement)"))
              << "; --gpubench_profile_iterations=0 turns hardware metrics off\n";
  }
  bool body = false;
  GPUBENCH_RETURN_IF_ERROR(profiling_.Begin(
      name, bodies_.ranges, static_cast<int>(call->warmup_scopes), &call->profile, &body));
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
  GPUBENCH_RETURN_IF_ERROR(profiling_.AfterBody(services_.harness.facts(), &call->profile, &body));
  if (body) return true;
  return StartBusy(call);
}

Result<bool> CounterStages::StartBusy(CallResult* call) {
  if (UsesWarmupBusy(*call)) {
    // A body this long was traced in its warm-up: tracing a second one adds a body's wall time
    // and nothing the busy share could use (docs/user_guide.md "Profiled iterations").
    call->busy = call->warmup_busy;
    return false;
  }
  bool body = false;
  GPUBENCH_RETURN_IF_ERROR(busy_.Begin(call->instance, bodies_.busy, call, &body));
  in_busy_body_ = body;
  return body;
}

Status CounterStages::EndCall(const CallResult& call) {
  return services_.route.EndCall(services_.harness.sharing(), call);
}

}  // namespace gpubench::detail
