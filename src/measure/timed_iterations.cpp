#include "measure/timed_iterations.hpp"

#include <chrono>
#include <thread>

#include "measure/paused_timing.hpp"

namespace gpubench::detail {

namespace {

void Sleep(std::chrono::duration<double> seconds) { std::this_thread::sleep_for(seconds); }

}  // namespace

Result<bool> TimedIterations::Begin(CallResult* call) {
  const Settings& settings = process_.harness.settings();
  if (settings.thermal == Thermal::kWait) {
    call->thermal_wait = WaitForCoolGpu(
        process_.harness.thermal(), settings.thermal_margin_c, &process_.thermal_reference_c,
        std::chrono::duration<double>(kThermalWaitSeconds), std::chrono::milliseconds(250), Sleep);
  }
  thermal_.emplace(process_.harness.thermal());
  thermal_->Start();
  GPUBENCH_RETURN_IF_ERROR(timed_.Begin(call->launch_hold, call->streams, call->warmup_scopes > 0,
                                        &call->scope_overhead_seconds));
  if (timed_.held()) {
    watch_.emplace(WatchHeldIterations(process_.harness.sharing(), process_.harness.facts()));
  }
  return BeforeBody(call);
}

Result<bool> TimedIterations::BeforeBody(CallResult* call) {
  if (!state_.KeepRunning()) {
    GPUBENCH_RETURN_IF_ERROR(End(call));
    return false;
  }
  // Read after GB's timer started (inside the first KeepRunning), as the end is read after it
  // stopped: the span lies within GB's but for a few instructions.
  if (timed_cpu_start_ < 0) timed_cpu_start_ = ThreadCpuSeconds();
  GPUBENCH_RETURN_IF_ERROR(timed_.BeforeBody(call->instance));
  return true;
}

Result<bool> TimedIterations::AfterBody(CallResult* call) {
  GPUBENCH_RETURN_IF_ERROR(timed_.AfterBody(call->instance, call));
  if (timed_.held() &&
      NeighbourAfterHeldIteration(*watch_, timed_.last_flush_wait_seconds(), call)) {
    timed_.StopHolding();
  }
  return BeforeBody(call);
}

Status TimedIterations::End(CallResult* call) {
  if (timed_cpu_start_ >= 0) call->timed_cpu_seconds = ThreadCpuSeconds() - timed_cpu_start_;
  GPUBENCH_RETURN_IF_ERROR(timed_.End(call));  // waits for the GPU: every iteration is done
  if (thermal_) call->thermal = thermal_->Stop();
  CheckAfterRun(process_.harness.sharing(), process_.sharing_history, *call, &call->sharing);
  return Status::Ok();
}

}  // namespace gpubench::detail
