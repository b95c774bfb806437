#include "measure/stages/phases.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "gpu/plan/range_names.hpp"
#include "measure/profiling/metrics.hpp"
#include "schema/counter_sink.hpp"

namespace gpubench::detail {

Status BodyError(const std::string& instance, const Status& status) {
  std::string message = "CUDA error in the benchmark body of " + instance + ": " + status.message();
  return status.code() == Status::Code::kContextLost ? Status::ContextLost(message)
                                                     : Status::Error(message);
}

// --- warm-up -----------------------------------------------------------------------------------

Status WarmupPhase::Before() {
  if (harness_.flushes()) {
    GPUBENCH_RETURN_IF_ERROR(harness_.ops().FlushCache(stream_));
  }
  // Last, so that only the body's own work is seen.
  harness_.streams().BeginBody();
  return Status::Ok();
}

Status WarmupPhase::After(const std::string& instance, CallResult* call) {
  StreamWatch& watch = harness_.streams();
  const std::vector<StreamUse> uses = watch.EndBody();
  GpuOps& ops = harness_.ops();
  if (Status status = ops.CheckLaunch(); !status.ok()) return BodyError(instance, status);
  // Waiting here surfaces the body's asynchronous errors before anything is timed.
  if (Status status = ops.Synchronize(stream_); !status.ok()) return BodyError(instance, status);
  watch.AfterBodyFinished();
  if (!watch.UnavailableReason().empty()) {
    call->streams = StreamPlan();
    return Status::Ok();
  }
  call->streams = PlanStreams(reinterpret_cast<StreamHandle>(stream_), uses);
  if (!call->streams.error.empty()) return Status::Error(call->streams.error);
  return Status::Ok();
}

bool WarmupPhase::NeedsHoldCheck() const { return harness_.flushes(); }

Status WarmupPhase::BeforeHoldCheck(const CallResult& call) {
  GpuOps& ops = harness_.ops();
  GPUBENCH_RETURN_IF_ERROR(ops.FlushCache(stream_));
  GPUBENCH_RETURN_IF_ERROR(ops.Synchronize(stream_));
  GPUBENCH_RETURN_IF_ERROR(ops.HoldStream(stream_));
  // The body's other streams wait behind the hold too: a body that waits for one of them
  // waits for the GPU.
  return ops.ForkStreams(stream_, call.streams.joined);
}

Status WarmupPhase::AfterHoldCheck(const std::string& instance, CallResult* call) {
  GpuOps& ops = harness_.ops();
  const Status join = ops.JoinStreams(stream_, call->streams.joined);
  ops.ReleaseStream();
  if (!join.ok()) return join;
  if (Status status = ops.CheckLaunch(); !status.ok()) return BodyError(instance, status);
  if (Status status = ops.Synchronize(stream_); !status.ok()) return BodyError(instance, status);
  call->launch_hold = ops.TakeHoldTimedOut() ? LaunchHold::kBodyWaits : LaunchHold::kHeld;
  return Status::Ok();
}

Status WarmupPhase::PauseHoldCheck() {
  harness_.ops().ReleaseStream();
  return Status::Ok();
}

Status WarmupPhase::ResumeHoldCheck(const std::string& instance) {
  GpuOps& ops = harness_.ops();
  // The scope's work may wait for the GPU; what follows it is what the check is about.
  if (Status status = ops.Synchronize(stream_); !status.ok()) return BodyError(instance, status);
  return ops.HoldStream(stream_);
}

// --- timed -------------------------------------------------------------------------------------

Status TimedPhase::Pause() {
  GPUBENCH_RETURN_IF_ERROR(harness_.timer().Pause(stream_));
  if (hold_ == LaunchHold::kHeld) harness_.ops().ReleaseStream();
  if (range_open_) {
    harness_.ops().PopRange();
    range_open_ = false;
  }
  return Status::Ok();
}

Status TimedPhase::Resume(const std::string& instance) {
  GpuOps& ops = harness_.ops();
  // cache=flush: the timed rest of the body starts from a flushed L2, as every timed iteration
  // does; a restore in the scope leaves dirty lines whose write-back would be timed otherwise.
  if (flushing()) GPUBENCH_RETURN_IF_ERROR(ops.FlushCache(stream_));
  if (hold_ == LaunchHold::kHeld) {
    if (Status status = ops.Synchronize(stream_); !status.ok()) return BodyError(instance, status);
    GPUBENCH_RETURN_IF_ERROR(ops.HoldStream(stream_));
  }
  // The body's range is open from BeforeBody on, so only the scope's Pause closed it.
  if (!range_open_) {
    ops.PushRange(instance);
    range_open_ = true;
  }
  return harness_.timer().Resume(stream_);
}

Status TimedPhase::Begin(LaunchHold hold, const StreamPlan& streams, bool scopes,
                         double* scope_overhead_seconds) {
  hold_ = hold;
  joined_ = streams.joined;
  GPUBENCH_RETURN_IF_ERROR(harness_.timer().BeforeTimedIterations());
  *scope_overhead_seconds = 0;
  if (scopes && hold_ == LaunchHold::kHeld && harness_.settings().timer == Timer::kEvents) {
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

Status TimedPhase::BeforeBody(const std::string& instance) {
  GpuOps& ops = harness_.ops();
  if (flushing()) {
    const auto flush_launched = std::chrono::steady_clock::now();
    GPUBENCH_RETURN_IF_ERROR(ops.FlushCache(stream_));
    if (hold_ == LaunchHold::kHeld) {
      // The GPU is idle once the flush is done; the hold then keeps the start event, the body
      // and the stop event queued until the host has enqueued them all, so the host's launch
      // pace is not timed. Measured against queuing behind the flush in docs/accuracy.md.
      if (Status status = ops.Synchronize(stream_); !status.ok()) {
        return BodyError(instance, status);
      }
      // How long the flush took to finish tells whether another context holds the GPU.
      last_flush_wait_seconds_ =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - flush_launched).count();
      GPUBENCH_RETURN_IF_ERROR(ops.HoldStream(stream_));
    }
  }
  ops.PushRange(instance);
  range_open_ = true;
  // cache=flush: one event pair per iteration. cache=keep: one pair around the whole run.
  if (flushing() || !region_open_) {
    GPUBENCH_RETURN_IF_ERROR(harness_.timer().Begin(stream_));
    region_open_ = true;
    GPUBENCH_RETURN_IF_ERROR(harness_.ops().ForkStreams(stream_, joined_));
  }
  ++iterations_in_region_;
  return Status::Ok();
}

Status TimedPhase::AfterBody(const std::string& instance, CallResult* call, bool last) {
  IterationTimer& timer = harness_.timer();
  const Status launch = harness_.ops().CheckLaunch();
  if (flushing() || last) {
    GPUBENCH_RETURN_IF_ERROR(harness_.ops().JoinStreams(stream_, joined_));
    GPUBENCH_RETURN_IF_ERROR(timer.End(stream_));
    region_open_ = false;
  }
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
    // A region covers one iteration (flush) or the whole run (keep): spread it evenly.
    const int64_t covered = flushing() ? 1 : iterations_in_region_;
    for (int64_t i = 0; i < covered; ++i) state_.SetIterationTime(seconds / covered);
    if (flushing()) {  // each sample's own time
      call->samples.Add(seconds, std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                                               call->loop_start)
                                     .count());
    }
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

// --- profiling ---------------------------------------------------------------------------------

Status ProfilingPhase::Begin(const std::string& instance, int ranges, ProfileOutcome* outcome,
                             bool* body) {
  instance_ = instance;
  ranges_ = ranges;
  start_ = std::chrono::steady_clock::now();
  if (Status status = harness_.profiler()->BeginSession(stream_, ranges); !status.ok()) {
    return Failed(status, outcome, body);
  }
  open_ = true;
  outcome->passes = 0;
  return BeginPass(outcome, body);
}

Status ProfilingPhase::BeginPass(ProfileOutcome* outcome, bool* body) {
  ShowProgress(outcome->passes + 1);
  if (Status status = harness_.profiler()->BeginPass(); !status.ok()) {
    return Failed(status, outcome, body);
  }
  range_ = 0;
  return BeginRange(outcome, body);
}

Status ProfilingPhase::BeginRange(ProfileOutcome* outcome, bool* body) {
  if (harness_.flushes()) {
    GPUBENCH_RETURN_IF_ERROR(harness_.ops().FlushCache(stream_));
  }
  if (Status status = harness_.profiler()->PushRange(ProfiledRangeName(instance_, range_));
      !status.ok()) {
    return Failed(status, outcome, body);
  }
  *body = true;
  return Status::Ok();
}

Status ProfilingPhase::AfterBody(const DeviceFacts& facts, ProfileOutcome* outcome, bool* body) {
  Profiler& profiler = *harness_.profiler();
  const Status launch = harness_.ops().CheckLaunch();
  const Status pop = profiler.PopRange();
  if (!launch.ok()) return BodyError(instance_, launch);
  if (!pop.ok()) return Failed(pop, outcome, body);
  if (++range_ < ranges_) return BeginRange(outcome, body);
  bool done = false;
  if (Status status = profiler.EndPass(&done); !status.ok()) return Failed(status, outcome, body);
  ++outcome->passes;
  if (!done) {
    if (outcome->passes >= kMaxPasses) {
      return Failed(Status::Error("CUPTI still wanted passes after " +
                                  std::to_string(outcome->passes) + " replay passes; giving up"),
                    outcome, body);
    }
    return BeginPass(outcome, body);
  }
  *body = false;
  if (Status status = Finish(facts, outcome); !status.ok()) return Failed(status, outcome, body);
  return Status::Ok();
}

Status ProfilingPhase::Finish(const DeviceFacts& facts, ProfileOutcome* outcome) {
  ClearProgress();
  open_ = false;
  GPUBENCH_RETURN_IF_ERROR(harness_.profiler()->EndSession(&outcome->ranges));
  outcome->counters = DeriveMetricCounters(AverageRanges(outcome->ranges), facts);
  CounterSink<Writer::kCallEnd>(outcome->counters).Set<counter::kProfilePasses>(outcome->passes);
  outcome->seconds = Seconds();
  outcome->kind = ProfileOutcome::Kind::kProfiled;
  return Status::Ok();
}

// Hardware metrics failed for this call: timing stays valid, so the call is kept without the
// metric counters. A lost context is an error of the call.
Status ProfilingPhase::Failed(const Status& status, ProfileOutcome* outcome, bool* body) {
  ClearProgress();
  *body = false;
  if (status.code() == Status::Code::kContextLost) return BodyError(instance_, status);
  Abort();
  outcome->kind = ProfileOutcome::Kind::kFailed;
  outcome->ranges.clear();
  outcome->counters.clear();
  outcome->error = status.message();
  outcome->seconds = Seconds();
  return Status::Ok();
}

void ProfilingPhase::Abort() {
  if (!open_) return;
  harness_.profiler()->AbortSession();
  open_ = false;
}

double ProfilingPhase::Seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void ProfilingPhase::ShowProgress(int pass) {
  static const bool terminal = isatty(STDERR_FILENO) != 0;
  if (!terminal) return;
  const int total = harness_.profiler()->PassCount();
  std::fprintf(stderr, "\r\033[K[gpubench] %s: profiling pass %d/%d", instance_.c_str(), pass,
               total > 0 ? total : pass);
  std::fflush(stderr);
  progress_shown_ = true;
}

void ProfilingPhase::ClearProgress() {
  if (!progress_shown_) return;
  std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
  progress_shown_ = false;
}

}  // namespace gpubench::detail
