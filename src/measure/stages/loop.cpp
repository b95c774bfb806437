#include "gpubench/loop.hpp"

#include <chrono>
#include <optional>
#include <string>

#include "measure/call/abort_note.hpp"
#include "measure/call/call_result.hpp"
#include "measure/checks/admission.hpp"
#include "measure/process/process_state.hpp"
#include "measure/profiling/counter_stages.hpp"
#include "measure/profiling/profiling_pass.hpp"
#include "measure/publish/publish.hpp"
#include "measure/stages/warmup_stages.hpp"
#include "measure/timing/timed_iterations.hpp"

namespace gpubench {
namespace detail {

namespace {

// Each stage gets only the parts of the process state it uses; this file is where they are
// handed out, so that the stages do not name the process state.
AdmissionServices AdmissionOf(ProcessState& process) {
  return {process.harness, process.policy, process.tagged_device, process.context_lost_reason};
}
WarmupServices WarmupOf(ProcessState& process) {
  return {process.harness, process.route(), AdmissionOf(process), process.reuse};
}
TimingServices TimingOf(ProcessState& process) {
  return {process.harness,       process.policy.trials(), process.thermal_reference_c,
          process.sample_counts, process.sharing_history, process.sample_log};
}
CounterServices CountersOf(ProcessState& process) {
  return {process.harness, process.route(), process.policy};
}
PublishServices PublishOf(ProcessState& process) {
  return {process.route(),         process.policy,           process.profile_log,
          process.harness.facts(), process.repetition_means, process.cost,
          process.timed_cpu,       process.timed_gpu,        process.reuse};
}

}  // namespace

// Sequences the stages of one call: the warm-up stages (warmup_stages.hpp), GB's timed
// iterations (timed_iterations.hpp), the counter stages (counter_stages.hpp). Next() is called
// before every body execution and once after the last; it returns whether the body runs (again).
// Each stage leaves its data in call_; Publish turns it into counters at the end. A failed Status
// ends the call with SkipWithError, so no exception reaches GB's runner.
class IterationController {
 public:
  IterationController(benchmark::State& state, cudaStream_t stream)
      : state_(state),
        process_(ProcessState::Get()),
        warmup_(state, WarmupOf(process_), stream),
        timed_(state, TimingOf(process_), stream),
        counters_(CountersOf(process_), stream) {
    ++process_.loops_started;
  }
  ~IterationController() {
    if (process_.active_loop == this) process_.active_loop = nullptr;
    // An exception from the body left the call inside a stage: close its NVTX range, release a
    // hold and end a profiling session, as a failed stage would (the registration's catch then
    // makes the row an error).
    if (step_ != Step::kStart && step_ != Step::kDone) {
      warmup_.Abort();
      timed_.CloseRange();
      counters_.Abort();
    }
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
  /// The scope's begin and end: GPU time stops on the loop's stream (timed and busy bodies), the
  /// profiled range closes (profiled bodies).
  bool PauseTiming() { return Scope(/*pause=*/true); }
  void ResumeTiming() { Scope(/*pause=*/false); }

 private:
  /// The stage whose body runs (kStart before the first, kDone after the last).
  enum class Step { kStart, kWarmup, kTimed, kCounters, kDone };

  bool Advance() {
    if (step_ == Step::kDone) return false;
    // Only the hold-check, timed, profiled and busy bodies act on a scope, so a failed
    // UntimedScope ends the call right after one of them.
    if (!scope_error_.ok()) return Fail(scope_error_);
    switch (step_) {
      case Step::kStart:
        return Start();
      case Step::kWarmup:
        return AfterWarmupBody();
      case Step::kTimed:
        return RunTimedBody(timed_.AfterBody(&call_));
      case Step::kCounters:
        return RunCounterBody(counters_.AfterBody(&call_));
      case Step::kDone:
        break;
    }
    return false;
  }

  // The body about to run outside GB's timed iterations, or null for a timed one.
  const char* UntimedPhase() const {
    if (step_ == Step::kWarmup) return warmup_.body_phase();
    if (step_ == Step::kCounters) return counters_.body_phase();
    return nullptr;
  }

  bool Scope(bool pause) {
    Status status = Status::Ok();
    if (step_ == Step::kTimed) {
      status = pause ? timed_.Pause() : timed_.Resume(name());
      if (pause) ++call_.untimed_scopes;
    } else if (step_ == Step::kWarmup && warmup_.in_hold_check()) {
      status = pause ? warmup_.PauseHoldCheck() : warmup_.ResumeHoldCheck(name());
    } else if (step_ == Step::kCounters) {
      status = pause ? counters_.PauseScope() : counters_.ResumeScope();
    } else {
      // The warm-up runs whole; its scopes size the profiling session (a part per scope).
      if (step_ == Step::kWarmup && pause) ++call_.warmup_scopes;
      return false;
    }
    if (!status.ok() && scope_error_.ok()) scope_error_ = status;
    return status.ok();
  }

  const std::string& name() const { return call_.instance; }

  bool Start() {
    call_.loop_start = std::chrono::steady_clock::now();
    if (Status status = warmup_.Begin(&call_); !status.ok()) return Fail(status);
    if (warmup_.reused_before_body()) return Reuse();
    step_ = Step::kWarmup;
    return true;
  }

  bool AfterWarmupBody() {
    const Result<WarmupStages::Next> next = warmup_.AfterBody(&call_);
    if (!next.ok()) return Fail(next.status());
    switch (next.value()) {
      case WarmupStages::Next::kHoldCheck:
        return true;
      case WarmupStages::Next::kTimed:
        return RunTimedBody(timed_.Begin(&call_));
      case WarmupStages::Next::kCounters:
        return RunCounterBody(counters_.Begin(&call_));
      case WarmupStages::Next::kReused:
        return Reuse();
    }
    return false;
  }

  // --gpubench_reuse: GB's iterations get the source row's time; no body runs again.
  bool Reuse() {
    if (Status status = timed_.Reuse(&call_); !status.ok()) return Fail(status);
    PublishReused(call_, state_, PublishOf(process_));
    step_ = Step::kDone;
    return false;
  }

  // `body`: whether a timed body runs next; after the last one the counter stages follow.
  bool RunTimedBody(const Result<bool>& body) {
    if (!body.ok()) return Fail(body.status());
    if (!body.value()) return RunCounterBody(counters_.Begin(&call_));
    step_ = Step::kTimed;
    return true;
  }

  // `body`: whether a profiled or busy body runs next; after the last one the call is done.
  bool RunCounterBody(const Result<bool>& body) {
    if (!counters_start_) counters_start_ = std::chrono::steady_clock::now();
    if (!body.ok()) return Fail(body.status());
    if (!body.value()) return Done();
    step_ = Step::kCounters;
    return true;
  }

  bool Done() {
    if (counters_start_ && process_.route().ChargesProfilingWall()) {
      // Profiled here (profile_process=same, or the profiling child's own call).
      call_.wall_profiling_seconds +=
          std::chrono::duration<double>(std::chrono::steady_clock::now() - *counters_start_)
              .count();
    }
    if (Status kept = counters_.EndCall(call_); !kept.ok()) return Fail(kept);
    if (Status span = CheckTimedSpan(call_); !span.ok()) return Fail(span);
    Publish(call_, state_, PublishOf(process_));
    step_ = Step::kDone;
    return false;
  }

  bool Fail(const Status& status) {
    if (status.code() == Status::Code::kContextLost) {
      process_.MarkContextLost(name().empty() ? status.message()
                                              : name() + ": " + status.message());
    }
    warmup_.Abort();
    timed_.CloseRange();  // also releases a hold the warm-up's check left pending
    counters_.Abort();
    const std::string message = "gpubench: " + status.message();
    state_.SkipWithError(message.c_str());
    step_ = Step::kDone;
    return false;
  }

  benchmark::State& state_;
  ProcessState& process_;
  WarmupStages warmup_;
  TimedIterations timed_;
  CounterStages counters_;
  Status scope_error_ = Status::Ok();  ///< an UntimedScope that could not pause or resume
  Step step_ = Step::kStart;
  CallResult call_;
  /// As the counter stages began (after the timed iterations).
  std::optional<std::chrono::steady_clock::time_point> counters_start_;
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
