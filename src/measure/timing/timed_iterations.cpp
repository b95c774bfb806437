#include "measure/timing/timed_iterations.hpp"

#include <algorithm>
#include <chrono>
#include <thread>

#include "gb/gb_internals.hpp"
#include "gpubench/counters.hpp"
#include "measure/call/instance.hpp"
#include "measure/checks/paused_timing.hpp"
#include "schema/counter_sink.hpp"

namespace gpubench::detail {

namespace {

void Sleep(std::chrono::duration<double> seconds) { std::this_thread::sleep_for(seconds); }

}  // namespace

double TimedIterations::SecondsSince(std::chrono::steady_clock::time_point start) const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

Result<bool> TimedIterations::Begin(CallResult* call) {
  const Settings& settings = services_.harness.settings();
  if (settings.thermal == Thermal::kWait) {
    call->thermal_wait = WaitForCoolGpu(
        services_.harness.thermal(), settings.thermal_margin_c, &services_.thermal_reference_c,
        std::chrono::duration<double>(kThermalWaitSeconds), std::chrono::milliseconds(250), Sleep);
  }
  // GB asks for gpubench's count only where gpubench set it; anything else is GB's to decide.
  if (settings.stopping == Stopping::kPrecision && GetCurrentInstance().gpubench_stops &&
      state_.max_iterations == kGpubenchIterations) {
    rule_.emplace(settings);
    if (const auto found = services_.sample_counts.find(call->instance);
        found != services_.sample_counts.end()) {
      repeat_count_ = found->second;
    }
  }
  thermal_.emplace(services_.harness.thermal());
  thermal_->Start();
  GPUBENCH_RETURN_IF_ERROR(timed_->Begin(call->launch_hold, call->streams, call->warmup_scopes > 0,
                                         &call->scope_overhead_seconds));
  if (timed_->held()) {
    watch_.emplace(WatchHeldIterations(services_.harness.sharing(), services_.harness.facts()));
  }
  return BeforeBody(call);
}

Status TimedIterations::Reuse(CallResult* call) {
  const ReuseDecision& decision = *call->reuse.decision;
  const double seconds = decision.row->real_time_seconds;
  int64_t iterations = 0;
  // Under gpubench's count the row keeps the source's iterations; under GB's own rule GB decides
  // them from the time, as it would have for a measured call.
  if (services_.harness.settings().stopping == Stopping::kPrecision &&
      GetCurrentInstance().gpubench_stops && state_.max_iterations == kGpubenchIterations) {
    const int64_t count = std::max<int64_t>(1, decision.row->iterations);
    ClaimIterations(state_, 1);
    if (count > 1) ClaimIterations(state_, count - 1);
    state_.SetIterationTime(seconds * static_cast<double>(count));
    iterations = count;
  }
  while (state_.KeepRunning()) {
    state_.SetIterationTime(seconds);
    ++iterations;
  }
  call->iterations = iterations;
  call->gpu_seconds = seconds * static_cast<double>(iterations);
  return Status::Ok();
}

std::optional<StopReason> TimedIterations::Decide(const CallResult& call) const {
  if (repeat_count_ > 0) {
    return bodies_ >= repeat_count_ ? std::optional<StopReason>(StopReason::kRepetition)
                                    : std::nullopt;
  }
  return rule_->Decide(call.samples, bodies_, SecondsSince(call.loop_start),
                       SecondsSince(timed_start_), timed_->PerSampleTimes());
}

Result<bool> TimedIterations::NextBody(CallResult* call) {
  if (!rule_) return state_.KeepRunning();
  // GB's count is two: the first iteration starts GB's timer and leaves one, through which the
  // samples are claimed once the rule has said stop.
  if (bodies_ == 0) return ClaimIterations(state_, 1);
  if (!stop_) stop_ = Decide(*call);
  if (!stop_) return true;
  GPUBENCH_RETURN_IF_ERROR(timed_->CollectRemaining(call->instance, call));
  ClaimIterations(state_, bodies_ - 1);  // GB reports the iterations that ran: bodies_
  return state_.KeepRunning();           // false: GB's timer stops
}

Result<bool> TimedIterations::BeforeBody(CallResult* call) {
  const Result<bool> next = NextBody(call);
  if (!next.ok()) return next.status();
  if (!next.value()) {
    GPUBENCH_RETURN_IF_ERROR(End(call));
    return false;
  }
  // Read after GB's timer started (inside the first KeepRunning), as the end is read after it
  // stopped: the span lies within GB's but for a few instructions.
  if (timed_cpu_start_ < 0) {
    timed_cpu_start_ = ThreadCpuSeconds();
    timed_start_ = std::chrono::steady_clock::now();
  }
  ++bodies_;
  GPUBENCH_RETURN_IF_ERROR(timed_->BeforeBody(call->instance));
  return true;
}

Result<bool> TimedIterations::AfterBody(CallResult* call) {
  bool last = false;
  if (!rule_) {
    last = state_.iterations() >= state_.max_iterations;
  } else if (!timed_->PerSampleTimes()) {
    // One region (cache=keep) closes with the body the rule ends on, so it decides here.
    stop_ = Decide(*call);
    last = stop_.has_value();
  }
  GPUBENCH_RETURN_IF_ERROR(timed_->AfterBody(call->instance, call, last));
  if (timed_->held() &&
      NeighbourAfterHeldIteration(*watch_, timed_->last_flush_wait_seconds(), call)) {
    timed_->StopHolding();
  }
  return BeforeBody(call);
}

// NVML's view of the timed iterations, as the row's counters (publish.cpp also reads the summary
// to say why a throttled clock was low).
static void MeasureThermal(const ThermalSummary& thermal, std::map<std::string, double>* measured) {
  if (!thermal.known) return;
  CounterSink<Writer::kCallEnd> out(*measured);
  out.Set<counter::kGpuTempStartC>(thermal.temperature_start_c);
  out.Set<counter::kGpuTempEndC>(thermal.temperature_end_c);
  if (thermal.power_w >= 0) out.Set<counter::kGpuPowerW>(thermal.power_w);
  if (thermal.reasons_known) {
    out.Set<counter::kClockEventReasons>(static_cast<double>(thermal.clock_event_reasons));
  }
}

Status TimedIterations::End(CallResult* call) {
  if (timed_cpu_start_ >= 0) call->timed_cpu_seconds = ThreadCpuSeconds() - timed_cpu_start_;
  GPUBENCH_RETURN_IF_ERROR(timed_->End(call));  // waits for the GPU: every iteration is done
  if (thermal_) {
    call->thermal = thermal_->Stop();
    MeasureThermal(call->thermal, &call->measured);
  }
  if (bodies_ > 0) {
    call->wall_warmup_seconds =
        std::chrono::duration<double>(timed_start_ - call->loop_start).count();
    call->wall_timed_seconds = SecondsSince(timed_start_);
  }
  if (stop_) {
    call->stop_reason = stop_;
    // The instance's later repetitions take the same count (GB's statistics need it).
    if (repeat_count_ == 0) services_.sample_counts[call->instance] = bodies_;
  } else {
    const CurrentInstance& current = GetCurrentInstance();
    const bool counted =
        current.own_iterations || (!rule_ && !services_.trials.min_time_seconds().has_value());
    call->stop_reason = counted ? StopReason::kIterations : StopReason::kMinTime;
  }
  CheckAfterRun(services_.harness.sharing(), services_.sharing_history, *call, &call->sharing);
  services_.sample_log.Append(
      call->instance,
      std::string(StopReasonNameOf(call->stop_reason ? static_cast<int>(*call->stop_reason) : 0)),
      call->samples);
  return Status::Ok();
}

}  // namespace gpubench::detail
