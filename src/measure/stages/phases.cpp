#include "measure/stages/phases.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <set>
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
  GPUBENCH_RETURN_IF_ERROR(harness_.cache().BeforeWarmupBody(harness_.ops(), stream_));
  // Last, so that only the body's own work is seen.
  if (harness_.work().recording()) harness_.work().Hold(false);
  harness_.streams().BeginBody();
  return Status::Ok();
}

Status WarmupPhase::After(const std::string& instance, CallResult* call) {
  StreamWatch& watch = harness_.streams();
  const std::vector<StreamUse> uses = watch.EndBody();
  // Before the watch detaches CUPTI (AfterBodyFinished): the recorder's callbacks end here too.
  if (harness_.work().recording()) call->work = harness_.work().End();
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
  call->streams.waits_for_gpu =
      HeldWait(reinterpret_cast<StreamHandle>(stream_), call->streams.joined, watch.Waits());
  return Status::Ok();
}

bool WarmupPhase::NeedsHoldCheck() const { return harness_.cache().HoldCheck(); }

Status WarmupPhase::BeforeHoldCheck(const CallResult& call) {
  GpuOps& ops = harness_.ops();
  GPUBENCH_RETURN_IF_ERROR(ops.FlushCache(stream_));
  GPUBENCH_RETURN_IF_ERROR(ops.Synchronize(stream_));
  holding_ = true;
  GPUBENCH_RETURN_IF_ERROR(ops.HoldStream(stream_));
  // The body's other streams wait behind the hold too: a body that waits for one of them
  // waits for the GPU.
  return ops.ForkStreams(stream_, call.streams.joined);
}

Status WarmupPhase::AfterHoldCheck(const std::string& instance, CallResult* call) {
  GpuOps& ops = harness_.ops();
  holding_ = false;
  const Status join = ops.JoinStreams(stream_, call->streams.joined);
  ops.ReleaseStream();
  if (!join.ok()) return join;
  if (Status status = ops.CheckLaunch(); !status.ok()) return BodyError(instance, status);
  if (Status status = ops.Synchronize(stream_); !status.ok()) return BodyError(instance, status);
  call->launch_hold = ops.TakeHoldTimedOut() ? LaunchHold::kBodyWaits : LaunchHold::kHeld;
  return Status::Ok();
}

Status WarmupPhase::PauseHoldCheck() {
  if (holding_) harness_.ops().ReleaseStream();
  return Status::Ok();
}

Status WarmupPhase::ResumeHoldCheck(const std::string& instance) {
  if (!holding_) return Status::Ok();
  GpuOps& ops = harness_.ops();
  // The scope's work may wait for the GPU; what follows it is what the check is about.
  if (Status status = ops.Synchronize(stream_); !status.ok()) return BodyError(instance, status);
  return ops.HoldStream(stream_);
}

// --- profiling ---------------------------------------------------------------------------------

Status ProfilingPhase::Begin(const std::string& instance, int ranges, int scopes,
                             ProfileOutcome* outcome, bool* body) {
  instance_ = instance;
  ranges_ = ranges;
  parts_ = 1 + std::max(scopes, 0);
  pushed_.clear();
  failure_ = Status::Ok();
  start_ = std::chrono::steady_clock::now();
  if (Status status = harness_.profiler()->BeginSession(stream_, ranges * parts_); !status.ok()) {
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
  pass_ = outcome->passes;
  pushed_in_pass_ = 0;
  range_ = 0;
  return BeginRange(outcome, body);
}

Status ProfilingPhase::BeginRange(ProfileOutcome* outcome, bool* body) {
  GPUBENCH_RETURN_IF_ERROR(harness_.cache().BeforeProfiledRange(harness_.ops(), stream_));
  part_ = 0;
  depth_ = 0;
  if (Status status = PushPart(); !status.ok()) return Failed(status, outcome, body);
  range_open_ = true;
  *body = true;
  return Status::Ok();
}

Status ProfilingPhase::PushPart() {
  const std::string name = ProfiledRangeName(instance_, range_, part_);
  if (pass_ == 0) {
    pushed_.push_back({name, range_});
  } else if (pushed_in_pass_ >= pushed_.size() || pushed_[pushed_in_pass_].name != name) {
    return Status::Error("replay pass " + std::to_string(pass_ + 1) +
                         " entered gpubench::UntimedScope at other points than pass 1 (range " +
                         name +
                         "): the body's work depends on data or state, so CUPTI's passes "
                         "would measure different work; hardware metrics of this run are not "
                         "reported");
  }
  ++pushed_in_pass_;
  return harness_.profiler()->PushRange(name);
}

Status ProfilingPhase::PauseScope() {
  if (depth_++ > 0 || !open_ || !range_open_) return Status::Ok();
  range_open_ = false;
  if (Status pop = harness_.profiler()->PopRange(); !pop.ok()) return FailInBody(pop);
  return Status::Ok();
}

Status ProfilingPhase::ResumeScope() {
  if (depth_ == 0 || --depth_ > 0 || !open_) return Status::Ok();
  GpuOps& ops = harness_.ops();
  // The next part starts as every range does (cache=flush: from a flushed L2, which also writes
  // the scope's dirty lines back outside the range), once the scope's work is done.
  GPUBENCH_RETURN_IF_ERROR(harness_.cache().BeforeProfiledRange(ops, stream_));
  if (Status status = ops.Synchronize(stream_); !status.ok()) return BodyError(instance_, status);
  if (part_ + 1 >= parts_) {
    return FailInBody(Status::Error(
        "a profiled iteration entered gpubench::UntimedScope more often than the warm-up body (" +
        std::to_string(parts_ - 1) +
        " time(s)), for which the profiling session was sized: the body's work differs from "
        "iteration to iteration; hardware metrics of this run are not reported"));
  }
  ++part_;
  if (Status status = PushPart(); !status.ok()) return FailInBody(status);
  range_open_ = true;
  return Status::Ok();
}

Status ProfilingPhase::FailInBody(const Status& status) {
  if (status.code() == Status::Code::kContextLost) return BodyError(instance_, status);
  if (failure_.ok()) failure_ = status;
  Abort();
  return Status::Ok();
}

Status ProfilingPhase::AfterBody(const DeviceFacts& facts, ProfileOutcome* outcome, bool* body) {
  Profiler& profiler = *harness_.profiler();
  const Status launch = harness_.ops().CheckLaunch();
  Status pop = Status::Ok();
  if (range_open_) {
    range_open_ = false;
    pop = profiler.PopRange();
  }
  depth_ = 0;
  if (!launch.ok()) return BodyError(instance_, launch);
  if (!failure_.ok()) return Failed(failure_, outcome, body);
  if (!pop.ok()) return Failed(pop, outcome, body);
  if (++range_ < ranges_) return BeginRange(outcome, body);
  if (pass_ > 0 && pushed_in_pass_ != pushed_.size()) {
    return Failed(Status::Error("replay pass " + std::to_string(pass_ + 1) + " pushed " +
                                std::to_string(pushed_in_pass_) + " ranges, pass 1 " +
                                std::to_string(pushed_.size()) +
                                ": the body entered gpubench::UntimedScope a different number "
                                "of times; hardware metrics of this run are not reported"),
                  outcome, body);
  }
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
  std::vector<ProfiledRange> ranges;
  GPUBENCH_RETURN_IF_ERROR(harness_.profiler()->EndSession(&ranges));
  Result<IterationValues> values = CombineRangeParts(ranges, pushed_);
  if (!values.ok()) return values.status();
  outcome->ranges = std::move(values.value().iterations);
  const std::set<std::string>& left_out = values.value().left_out;
  outcome->counters = DeriveMetricCounters(AverageRanges(outcome->ranges), facts, left_out);
  CounterSink<Writer::kCallEnd>(outcome->counters).Set<counter::kProfilePasses>(outcome->passes);
  outcome->ranges_paused = parts_ > 1;
  outcome->note = LeftOutNote(left_out);
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
  outcome->note.clear();
  outcome->ranges_paused = false;
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
