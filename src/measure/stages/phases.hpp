// The phases of one call of a benchmark function. GB runs the user's body between the loop's
// steps, so each phase has a step before and a step after a body; each returns a failed Status
// for what ends the call (SkipWithError) and leaves its data in the CallResult.
//
//   warm-up      one untimed body: surfaces launch errors before anything is timed
//   timed        GB's iterations (measure/timing/timed_phase.hpp)
//   profiling    profiled iterations after GB's timer stopped: CUPTI passes x ranges
#pragma once

#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>

#include <chrono>
#include <string>
#include <vector>

#include "common/status.hpp"
#include "measure/call/call_result.hpp"
#include "measure/process/harness.hpp"
#include "measure/profiling/range_parts.hpp"

namespace gpubench::detail {

/// An error of the user's body (launch or asynchronous), named as such.
Status BodyError(const std::string& instance, const Status& status);

/// The warm-up body: flushed before (cache=flush), checked and waited for after. It also loads
/// the body's modules (CUDA loads kernels lazily, at their first launch, which waits for the
/// GPU). With cache=flush a second untimed body, the hold check, then runs behind a stream hold
/// to learn whether the body can be held: a body that waits for the GPU cannot (its hold times
/// out), and is then timed without holds. A body the warm-up saw wait for a held stream
/// (StreamPlan::waits_for_gpu: cudaDeviceSynchronize, say) has no hold check: its hold could
/// only time out, and the answer is known (warmup_stages.cpp).
class WarmupPhase {
 public:
  WarmupPhase(Harness& harness, cudaStream_t stream) : harness_(harness), stream_(stream) {}
  /// Flushes (cache=flush) and starts watching the body's streams.
  Status Before();
  /// Sets call->streams: which streams the timed span forks to and joins from.
  Status After(const std::string& instance, CallResult* call);
  /// Whether a hold check follows the warm-up (cache=flush).
  bool NeedsHoldCheck() const;
  Status BeforeHoldCheck(const CallResult& call);
  /// gpubench::UntimedScope inside the hold check's body: as in a held timed body.
  Status PauseHoldCheck();
  Status ResumeHoldCheck(const std::string& instance);
  /// Sets call->launch_hold.
  Status AfterHoldCheck(const std::string& instance, CallResult* call);

 private:
  Harness& harness_;
  cudaStream_t stream_;
  bool holding_ = false;  ///< the hold check's body runs behind a hold
};

/// Profiled iterations: one CUPTI session of `ranges` ranges per pass, as many passes as the
/// metrics need. A body that enters gpubench::UntimedScope is several ranges, the iteration's
/// parts: the range closes where the scope begins and the next part opens once the scope's work
/// is done (after an L2 flush with cache=flush, as every range starts), so the counters leave
/// the scope's work out as the GPU time does; each part has a name of its own, and the parts are
/// put together per iteration (range_parts.hpp). A failed session is not an error of the call
/// (timing stays valid): it ends the phase with ProfileOutcome::kFailed; only body errors and a
/// lost context are returned.
class ProfilingPhase {
 public:
  ProfilingPhase(Harness& harness, cudaStream_t stream) : harness_(harness), stream_(stream) {}
  ~ProfilingPhase() { Abort(); }

  /// Starts the session and the first range; `scopes`: the gpubench::UntimedScope entries of the
  /// warm-up body, each a part more per iteration; *body: whether a profiled body runs now.
  Status Begin(const std::string& instance, int ranges, int scopes, ProfileOutcome* outcome,
               bool* body);
  /// After each profiled body; *body: whether another one runs.
  Status AfterBody(const DeviceFacts& facts, ProfileOutcome* outcome, bool* body);
  /// gpubench::UntimedScope inside a profiled body: the range closes, and the next part opens at
  /// the scope's end. A profiler that fails there, or a body that enters more scopes than its
  /// warm-up did (the session has no room for the parts), fails the session at the body's end.
  Status PauseScope();
  Status ResumeScope();
  /// Ends a session an error or an early exit left open.
  void Abort();

 private:
  Status BeginPass(ProfileOutcome* outcome, bool* body);
  Status BeginRange(ProfileOutcome* outcome, bool* body);
  /// Pushes the range of the running part, keeping (first pass) or checking (replay passes) the
  /// sequence of names.
  Status PushPart();
  /// A failure inside a body: the session ends now, the phase at the body's end.
  Status FailInBody(const Status& status);
  Status Failed(const Status& status, ProfileOutcome* outcome, bool* body);
  Status Finish(const DeviceFacts& facts, ProfileOutcome* outcome);
  double Seconds() const;
  void ShowProgress(int pass);
  void ClearProgress();

  // Far above any real pass count (11 metrics take 9 passes on GH100): a guard against a
  // profiler that never reports completion.
  static constexpr int kMaxPasses = 1000;
  Harness& harness_;
  cudaStream_t stream_;
  std::string instance_;
  bool open_ = false;
  bool progress_shown_ = false;
  int ranges_ = 0;
  int range_ = 0;
  int parts_ = 1;            ///< ranges per profiled iteration: 1 + the warm-up's scopes
  int part_ = 0;             ///< the part of the body that runs
  int depth_ = 0;            ///< scopes entered and not left (a nested one changes nothing)
  bool range_open_ = false;  ///< a range is pushed and not popped
  int pass_ = 0;
  Status failure_ = Status::Ok();    ///< the session failed inside a body
  std::vector<PushedRange> pushed_;  ///< the first pass's ranges, in order
  size_t pushed_in_pass_ = 0;        ///< ranges pushed so far in this pass
  std::chrono::steady_clock::time_point start_;
};

}  // namespace gpubench::detail
