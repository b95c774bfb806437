#include "gpubench/loop.hpp"

#include <iostream>
#include <optional>
#include <string>

#include "measure/abort_note.hpp"
#include "measure/admission.hpp"
#include "measure/busy_phase.hpp"
#include "measure/call_result.hpp"
#include "measure/instance.hpp"
#include "measure/paused_timing.hpp"
#include "measure/phases.hpp"
#include "measure/process_state.hpp"
#include "measure/profiling_pass.hpp"
#include "measure/publish.hpp"
#include "measure/sharing_check.hpp"

namespace gpubench {
namespace detail {

// Sequences the phases of one call (phases.hpp). Next() is called before every body execution
// and once after the last; it returns whether the body runs (again). Each phase leaves its data
// in call_; Publish turns it into counters at the end. A failed Status ends the call with
// SkipWithError, so no exception reaches GB's runner.
class IterationController {
 public:
  IterationController(benchmark::State& state, cudaStream_t stream)
      : state_(state),
        stream_(stream),
        process_(ProcessState::Get()),
        harness_(process_.harness),
        warmup_(harness_, stream),
        timed_(harness_, state, stream),
        profiling_(harness_, stream),
        busy_(harness_, stream) {}
  ~IterationController() {
    if (process_.active_loop == this) process_.active_loop = nullptr;
  }

  bool Next() {
    if (process_.active_loop == this) process_.active_loop = nullptr;
    ClearUntimedBody();
    const bool body = Advance();
    if (body) {
      process_.active_loop = this;
      if (const char* phase = UntimedPhase()) NoteUntimedBody(phase, name());
    }
    return body;
  }

  /// gpubench::UntimedScope: whether the scope is inside a body of this call's `state`.
  bool Runs(const benchmark::State& state) const { return &state == &state_; }
  /// The scope's begin and end: GPU time stops on the loop's stream (timed and busy bodies).
  bool PauseTiming() { return Scope(/*pause=*/true); }
  void ResumeTiming() { Scope(/*pause=*/false); }

 private:
  enum class Step { kStart, kWarmup, kHoldCheck, kTimed, kProfiled, kBusy, kDone };

  bool Advance() {
    switch (step_) {
      case Step::kStart:
        return Start();
      case Step::kWarmup:
        return AfterWarmup();
      case Step::kHoldCheck:
        return AfterHoldCheck();
      case Step::kTimed:
        return AfterTimedBody();
      case Step::kProfiled:
        return AfterProfiledBody();
      case Step::kBusy:
        return AfterBusyBody();
      case Step::kDone:
        return false;
    }
    return false;
  }

  // The body about to run outside GB's timed iterations, or null for a timed one.
  const char* UntimedPhase() const {
    switch (step_) {
      case Step::kWarmup:
        return "warm-up";
      case Step::kHoldCheck:
        return "hold-check";
      case Step::kProfiled:
        return "profiled";
      case Step::kBusy:
        return "busy-measurement";
      default:
        return nullptr;
    }
  }

  bool Scope(bool pause) {
    Status status = Status::Ok();
    if (step_ == Step::kTimed) {
      status = pause ? timed_.Pause() : timed_.Resume(name());
      if (pause) ++call_.untimed_scopes;
    } else if (step_ == Step::kHoldCheck) {
      status = pause ? warmup_.PauseHoldCheck() : warmup_.ResumeHoldCheck(name());
    } else if (step_ == Step::kBusy) {
      status = pause ? busy_.Pause() : busy_.Resume();
    } else {
      if (step_ == Step::kWarmup && pause) ++call_.warmup_scopes;
      return false;  // the warm-up and the profiled bodies run whole
    }
    if (!status.ok() && scope_error_.ok()) scope_error_ = status;
    return status.ok();
  }

  const Settings& settings() const { return harness_.settings(); }
  const std::string& name() const { return call_.instance; }

  bool profiling_pass() const {
    return process_.profiling_pass.stage() == ProfilingPass::Stage::kProfiling;
  }

  Status Prepare() {
    // The profiling pass's calls are not GB's iteration-count trials: the detector skips them.
    GPUBENCH_RETURN_IF_ERROR(
        AdmitCall(state_, process_, /*count_call=*/!profiling_pass(), &call_.instance));
    // One session per instance: GB's repetitions and later calls of it are skipped at once.
    if (profiling_pass() && process_.profiling_pass.Find(name()) != nullptr) {
      return Status::Error(kProfilingPassSkip);
    }
    GPUBENCH_RETURN_IF_ERROR(harness_.ops().Prepare(stream_, settings().cache));
    // After Prepare: this process holds its context, so NVML lists it beside any other.
    GPUBENCH_RETURN_IF_ERROR(CheckBeforeRun(harness_.sharing(), settings(),
                                            harness_.profiler_status(), name(), &call_.sharing));
    if (!profiling_pass()) harness_.timer().BeginRun();
    return warmup_.Before();
  }

  bool Start() {
    if (Status status = Prepare(); !status.ok()) return Fail(status);
    step_ = Step::kWarmup;
    return true;
  }

  bool AfterWarmup() {
    if (Status status = warmup_.After(name(), &call_); !status.ok()) return Fail(status);
    if (profiling_pass()) return StartProfiling();  // nothing is timed in the profiling pass
    if (warmup_.NeedsHoldCheck() && call_.sharing.shared) {
      // Holding would make every iteration wait for the other process's time slice.
      call_.launch_hold = LaunchHold::kShared;
      return StartTimed();
    }
    if (warmup_.NeedsHoldCheck()) {
      if (Status status = warmup_.BeforeHoldCheck(call_); !status.ok()) return Fail(status);
      step_ = Step::kHoldCheck;
      return true;
    }
    return StartTimed();
  }

  bool AfterHoldCheck() {
    if (!scope_error_.ok()) return Fail(scope_error_);
    if (Status status = warmup_.AfterHoldCheck(name(), &call_); !status.ok()) return Fail(status);
    // A hold that timed out while another process arrived says nothing about the body.
    if (call_.launch_hold == LaunchHold::kBodyWaits &&
        NoteOtherProcesses(harness_.sharing(), &call_.sharing)) {
      call_.launch_hold = LaunchHold::kShared;
    }
    return StartTimed();
  }

  bool StartTimed() {
    if (Status status = timed_.Begin(call_.launch_hold, call_.streams, call_.warmup_scopes > 0,
                                     &call_.scope_overhead_seconds);
        !status.ok()) {
      return Fail(status);
    }
    if (timed_.held()) watch_.emplace(WatchHeldIterations(harness_.sharing(), harness_.facts()));
    step_ = Step::kTimed;
    return BeforeTimedBody();
  }

  bool BeforeTimedBody() {
    if (!state_.KeepRunning()) return EndTimed();
    // Read after GB's timer started (inside the first KeepRunning), as the end is read after it
    // stopped: the span lies within GB's but for a few instructions.
    if (timed_cpu_start_ < 0) timed_cpu_start_ = ThreadCpuSeconds();
    if (Status status = timed_.BeforeBody(name()); !status.ok()) return Fail(status);
    return true;
  }

  bool AfterTimedBody() {
    if (!scope_error_.ok()) return Fail(scope_error_);
    if (Status status = timed_.AfterBody(name(), &call_); !status.ok()) return Fail(status);
    if (timed_.held() &&
        NeighbourAfterHeldIteration(*watch_, timed_.last_flush_wait_seconds(), &call_)) {
      timed_.StopHolding();
    }
    return BeforeTimedBody();
  }

  bool EndTimed() {
    if (timed_cpu_start_ >= 0) call_.timed_cpu_seconds = ThreadCpuSeconds() - timed_cpu_start_;
    if (Status status = timed_.End(&call_); !status.ok()) return Fail(status);
    CheckAfterRun(harness_.sharing(), process_.sharing_history, call_, &call_.sharing);
    return StartProfiling();
  }

  bool StartProfiling() {
    const int ranges = settings().profile_iterations;
    if (ranges <= 0) return Done();
    // The parent of the profiling child has no profiler of its own.
    if (process_.profiling_pass.stage() == ProfilingPass::Stage::kTiming) {
      process_.profiling_pass.TakeCounters(name(), &call_);
      return Done();
    }
    if (harness_.profiler() == nullptr) return Done();
    if (!profiling_pass() && process_.policy.CopyCountersForTrial(
                                 settings(), name(), call_.gpu_seconds, &call_.profile)) {
      return Done();
    }
    bool body = false;
    if (Status status = profiling_.Begin(name(), ranges, &call_.profile, &body); !status.ok()) {
      return Fail(status);
    }
    if (!body) return StartBusy();
    step_ = Step::kProfiled;
    return true;
  }

  bool AfterProfiledBody() {
    bool body = false;
    if (Status status = profiling_.AfterBody(harness_.facts(), &call_.profile, &body);
        !status.ok()) {
      return Fail(status);
    }
    return body || StartBusy();
  }

  // The busy measurement runs where the metrics are profiled, after them.
  bool StartBusy() {
    bool body = false;
    if (Status status = busy_.Begin(name(), settings().profile_iterations, &call_, &body);
        !status.ok()) {
      return Fail(status);
    }
    if (!body) return Done();
    step_ = Step::kBusy;
    return true;
  }

  bool AfterBusyBody() {
    if (!scope_error_.ok()) return Fail(scope_error_);
    bool body = false;
    if (Status status = busy_.AfterBody(&call_, &body); !status.ok()) return Fail(status);
    return body || Done();
  }

  bool Done() {
    if (profiling_pass()) {
      KeepForTimedPass(harness_.sharing(), call_, process_);
      return Fail(Status::Error(kProfilingPassSkip));
    }
    if (Status span = CheckTimedSpan(call_); !span.ok()) return Fail(span);
    Publish(call_, state_, process_);
    step_ = Step::kDone;
    return false;
  }

  bool Fail(const Status& status) {
    if (status.code() == Status::Code::kContextLost) {
      process_.MarkContextLost(name().empty() ? status.message()
                                              : name() + ": " + status.message());
    }
    timed_.CloseRange();  // also releases a hold the warm-up's check left pending
    profiling_.Abort();
    busy_.Abort();
    const std::string message = "gpubench: " + status.message();
    state_.SkipWithError(message.c_str());
    step_ = Step::kDone;
    return false;
  }

  benchmark::State& state_;
  cudaStream_t stream_;
  ProcessState& process_;
  Harness& harness_;
  WarmupPhase warmup_;
  TimedPhase timed_;
  ProfilingPhase profiling_;
  BusyPhase busy_;
  Status scope_error_ = Status::Ok();        ///< an UntimedScope that could not pause or resume
  std::optional<HeldIterationWatch> watch_;  ///< while the timed bodies are held
  Step step_ = Step::kStart;
  double timed_cpu_start_ = -1;  ///< the thread's CPU time as GB's timed iterations began
  CallResult call_;
};

}  // namespace detail

Loop::Loop(benchmark::State& state, cudaStream_t stream)
    : stream_(stream), controller_(new detail::IterationController(state, stream)) {}

Loop::~Loop() = default;

Loop::Iterator Loop::begin() { return Iterator(controller_.get()); }

Loop::Iterator Loop::end() { return Iterator(nullptr); }

bool Loop::Iterator::operator!=(const Iterator&) const { return controller_->Next(); }

UntimedScope::UntimedScope(benchmark::State& state) : state_(state) {
  detail::IterationController* loop = detail::ProcessState::Get().active_loop;
  active_ = loop != nullptr && loop->Runs(state_) && loop->PauseTiming();
}

UntimedScope::~UntimedScope() {
  detail::IterationController* loop = detail::ProcessState::Get().active_loop;
  if (active_ && loop != nullptr && loop->Runs(state_)) loop->ResumeTiming();
}

}  // namespace gpubench
