#include "measure/timing/timed_phase.hpp"

#include <algorithm>
#include <chrono>
#include <vector>

#include "measure/stages/phases.hpp"

namespace gpubench::detail {

// --- shared ------------------------------------------------------------------------------------

Status TimedPhase::Pause() {
  GPUBENCH_RETURN_IF_ERROR(harness_.timer().Pause(stream_));
  if (hold_ == LaunchHold::kHeld) harness_.ops().ReleaseStream();
  if (range_open_) {
    harness_.ops().PopRange();
    range_open_ = false;
  }
  return Status::Ok();
}

Status TimedPhase::ResumeTimed(const std::string& instance) {
  // The body's range is open from BeforeBody on, so only the scope's Pause closed it.
  if (!range_open_) OpenRange(instance);
  return harness_.timer().Resume(stream_);
}

Status TimedPhase::Begin(LaunchHold hold, const StreamPlan& streams, bool scopes,
                         double* scope_overhead_seconds) {
  hold_ = hold;
  joined_ = streams.joined;
  GPUBENCH_RETURN_IF_ERROR(harness_.timer().BeforeTimedIterations());
  *scope_overhead_seconds = 0;
  if (scopes && hold_ == LaunchHold::kHeld && harness_.timer().ScopesAddOverhead()) {
    GPUBENCH_RETURN_IF_ERROR(MeasureScopeOverhead(scope_overhead_seconds));
  }
  return harness_.ops().BeginClockProbe(stream_);
}

// A scope splits a held region in two: [start, scope start] and [scope end, stop]. With nothing
// before the scope, the first part is an empty pair of events, which the GPU may still span for
// a moment. The median of a few empty held regions is that part, taken out per scope.
Status TimedPhase::MeasureScopeOverhead(double* seconds) {
  constexpr int kSamples = 7;
  IterationTimer& timer = harness_.timer();
  GpuOps& ops = harness_.ops();
  std::vector<double> spans;
  for (int i = 0; i < kSamples; ++i) {
    GPUBENCH_RETURN_IF_ERROR(ops.HoldStream(stream_));
    Status begin = timer.Begin(stream_);
    Status end = begin.ok() ? timer.End(stream_) : begin;
    ops.ReleaseStream();
    GPUBENCH_RETURN_IF_ERROR(end);
    GPUBENCH_RETURN_IF_ERROR(timer.Collect(/*wait_all=*/true, &spans));
  }
  if (spans.empty()) return Status::Ok();
  std::nth_element(spans.begin(), spans.begin() + spans.size() / 2, spans.end());
  *seconds = spans[spans.size() / 2];
  timer.SetScopeOverhead(*seconds);
  return Status::Ok();
}

void TimedPhase::OpenRange(const std::string& instance) {
  harness_.ops().PushRange(instance);
  range_open_ = true;
}

Status TimedPhase::ForkBodyStreams() { return harness_.ops().ForkStreams(stream_, joined_); }

Status TimedPhase::CloseRegion() {
  GPUBENCH_RETURN_IF_ERROR(harness_.ops().JoinStreams(stream_, joined_));
  return harness_.timer().End(stream_);
}

Status TimedPhase::FinishBody(const std::string& instance, const Status& launch, CallResult* call,
                              bool last) {
  harness_.ops().ReleaseStream();
  CloseRange();
  if (!launch.ok()) return BodyError(instance, launch);
  if (hold_ == LaunchHold::kHeld) {
    // Nothing more is enqueued until the iteration is done: the next flush's launch, arriving
    // while the GPU runs the timed work, added about 0.1-0.2 us to a 3 us kernel on an H200.
    if (Status status = harness_.ops().Synchronize(stream_); !status.ok()) {
      return BodyError(instance, status);
    }
  }
  return Collect(instance, last, call);
}

Status TimedPhase::CollectRemaining(const std::string& instance, CallResult* call) {
  return Collect(instance, /*wait_all=*/true, call);
}

Status TimedPhase::Collect(const std::string& instance, bool wait_all, CallResult* call) {
  times_.clear();
  if (Status status = harness_.timer().Collect(wait_all, &times_); !status.ok()) {
    return BodyError(instance, status);
  }
  for (double seconds : times_) {
    AddRegion(seconds, call);
    call->gpu_seconds += seconds;
  }
  return Status::Ok();
}

Status TimedPhase::End(CallResult* call) {
  GPUBENCH_RETURN_IF_ERROR(harness_.ops().EndClockProbe(stream_, &call->sm_clock_mhz));
  call->iterations = state_.iterations();
  call->kernel_seconds = harness_.timer().KernelSeconds();
  // EndClockProbe waited for the stream, so every hold has ended by now. After StopHolding, a
  // hold that timed out was the neighbour's doing, not the body's; it is taken all the same, so
  // that the next call's hold check starts afresh.
  if (hold_ == LaunchHold::kHeld || hold_ == LaunchHold::kShared) {
    if (harness_.ops().TakeHoldTimedOut() && hold_ == LaunchHold::kHeld) {
      hold_ = LaunchHold::kBodyWaits;
    }
  }
  call->launch_hold = hold_;
  return Status::Ok();
}

void TimedPhase::CloseRange() {
  harness_.ops().ReleaseStream();
  if (!range_open_) return;
  harness_.ops().PopRange();
  range_open_ = false;
}

// --- cache=flush -------------------------------------------------------------------------------

Status FlushTimedPhase::BeforeBody(const std::string& instance) {
  GpuOps& ops = harness_.ops();
  const auto flush_launched = std::chrono::steady_clock::now();
  GPUBENCH_RETURN_IF_ERROR(ops.FlushCache(stream_));
  if (hold_ == LaunchHold::kHeld) {
    // The GPU is idle once the flush is done; the hold then keeps the start event, the body
    // and the stop event queued until the host has enqueued them all, so the host's launch
    // pace is not timed. Measured against queuing behind the flush in docs/accuracy.md.
    if (Status status = ops.Synchronize(stream_); !status.ok()) return BodyError(instance, status);
    // How long the flush took to finish tells whether another context holds the GPU.
    last_flush_wait_seconds_ =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - flush_launched).count();
    GPUBENCH_RETURN_IF_ERROR(ops.HoldStream(stream_));
  }
  OpenRange(instance);
  // One event pair per iteration.
  GPUBENCH_RETURN_IF_ERROR(harness_.timer().Begin(stream_));
  return ForkBodyStreams();
}

Status FlushTimedPhase::AfterBody(const std::string& instance, CallResult* call, bool last) {
  const Status launch = harness_.ops().CheckLaunch();
  GPUBENCH_RETURN_IF_ERROR(CloseRegion());
  return FinishBody(instance, launch, call, last);
}

Status FlushTimedPhase::Resume(const std::string& instance) {
  GpuOps& ops = harness_.ops();
  // The timed rest of the body starts from a flushed L2, as every timed iteration does; a
  // restore in the scope leaves dirty lines whose write-back would be timed otherwise.
  GPUBENCH_RETURN_IF_ERROR(ops.FlushCache(stream_));
  if (hold_ == LaunchHold::kHeld) {
    if (Status status = ops.Synchronize(stream_); !status.ok()) return BodyError(instance, status);
    GPUBENCH_RETURN_IF_ERROR(ops.HoldStream(stream_));
  }
  return ResumeTimed(instance);
}

// timer=cupti hands its records over at the end of the call, the event timer region by region.
bool FlushTimedPhase::PerSampleTimes() const { return harness_.timer().DeliversEachRegion(); }

void FlushTimedPhase::AddRegion(double seconds, CallResult* call) {
  state_.SetIterationTime(seconds);
  // Each sample's own time.
  call->samples.Add(
      seconds,
      std::chrono::duration<double>(std::chrono::steady_clock::now() - call->loop_start).count());
}

// --- cache=keep --------------------------------------------------------------------------------

Status KeepTimedPhase::BeforeBody(const std::string& instance) {
  OpenRange(instance);
  if (!region_open_) {  // one event pair around the whole run
    GPUBENCH_RETURN_IF_ERROR(harness_.timer().Begin(stream_));
    region_open_ = true;
    GPUBENCH_RETURN_IF_ERROR(ForkBodyStreams());
  }
  ++iterations_in_region_;
  return Status::Ok();
}

Status KeepTimedPhase::AfterBody(const std::string& instance, CallResult* call, bool last) {
  const Status launch = harness_.ops().CheckLaunch();
  if (last) {
    GPUBENCH_RETURN_IF_ERROR(CloseRegion());
    region_open_ = false;
  }
  return FinishBody(instance, launch, call, last);
}

void KeepTimedPhase::AddRegion(double seconds, CallResult* call) {
  (void)call;  // no sample has a time of its own
  // The region covers every body so far: spread it evenly.
  for (int64_t i = 0; i < iterations_in_region_; ++i) {
    state_.SetIterationTime(seconds / iterations_in_region_);
  }
}

}  // namespace gpubench::detail
