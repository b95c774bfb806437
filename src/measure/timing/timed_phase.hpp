// GB's timed iterations, the timed phase of a call: the NVTX range and the GPU timer's regions
// around each timed body, forked to and joined from every stream the warm-up saw the body use,
// and the clock probe around them all. Two implementations, one per cache policy, chosen once by
// the cache strategy (cache_strategy.hpp), as NVBench's measure_cold and measure_hot:
//
//   FlushTimedPhase  cache=flush: flush, wait and hold before each body; a region per body, each
//                    one a sample of its own
//   KeepTimedPhase   cache=keep: one region over all the bodies, spread evenly over them; no
//                    flush, no holds, no samples
#pragma once

#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>

#include <string>
#include <vector>

#include "common/status.hpp"
#include "measure/call/call_result.hpp"
#include "measure/process/harness.hpp"

namespace gpubench::detail {

/// Reports each iteration's GPU time to GB (SetIterationTime). The parts both policies share.
class TimedPhase {
 public:
  virtual ~TimedPhase() { CloseRange(); }
  TimedPhase(const TimedPhase&) = delete;
  TimedPhase& operator=(const TimedPhase&) = delete;

  /// Starts the clock probe (after the warm-up); `hold`: the warm-up's LaunchHold verdict;
  /// `streams`: the streams each timed span forks to and joins from; `scopes`: the warm-up
  /// body entered a gpubench::UntimedScope, so held runs measure the scope overhead first
  /// (IterationTimer::SetScopeOverhead) into *scope_overhead_seconds.
  Status Begin(LaunchHold hold, const StreamPlan& streams, bool scopes,
               double* scope_overhead_seconds);
  /// Before each timed body: (cache=flush: flush, wait for it, hold the stream), the NVTX range,
  /// the timer region.
  virtual Status BeforeBody(const std::string& instance) = 0;
  /// After each timed body: closes the region, releases the hold, closes the range, hands GB
  /// the GPU time of the regions finished so far (each sample's own also to call->samples).
  /// `last`: no timed body follows (cache=keep closes its one region then).
  virtual Status AfterBody(const std::string& instance, CallResult* call, bool last) = 0;
  /// Waits for the regions still in flight and hands GB their time (before GB's count is
  /// claimed under gpubench's rule).
  Status CollectRemaining(const std::string& instance, CallResult* call);
  /// After the last body: the clock probe's SM clock, the per-kernel times, whether every hold
  /// was released by the host.
  Status End(CallResult* call);
  /// Releases a hold and pops an NVTX range an early exit left open.
  void CloseRange();
  /// gpubench::UntimedScope inside a timed body: the timer leaves the span out. Behind a hold,
  /// the scope releases it (its work may wait for the GPU), and at its end waits for that work
  /// and holds the stream again, so the rest of the body starts back to back as after a flush.
  /// The NVTX range closes with the scope and opens again after its flush and hold, so that a
  /// profiler filtering on the range (ncu --nvtx-include) sees the timed work only.
  Status Pause();
  virtual Status Resume(const std::string& instance) = 0;

  /// Whether each sample's own GPU time reaches the stopping rule while the call runs (else the
  /// rule decides as the body it ends on closes).
  virtual bool PerSampleTimes() const = 0;
  /// Whether the bodies run behind holds.
  bool held() const { return hold_ == LaunchHold::kHeld; }
  /// Host seconds the latest held iteration waited for its flush to finish.
  double last_flush_wait_seconds() const { return last_flush_wait_seconds_; }
  /// Another process uses the GPU: the remaining bodies run without holds (LaunchHold::kShared).
  void StopHolding() { hold_ = LaunchHold::kShared; }

 protected:
  TimedPhase(Harness& harness, benchmark::State& state, cudaStream_t stream)
      : harness_(harness), state_(state), stream_(stream) {}

  /// The body's NVTX range.
  void OpenRange(const std::string& instance);
  /// The body's other streams wait for the region's start (after IterationTimer::Begin).
  Status ForkBodyStreams();
  /// Joins the body's other streams and ends the timer region.
  Status CloseRegion();
  /// The rest of AfterBody once the region is closed (or left open): release, range, launch
  /// error, the wait behind a hold, and the time of the regions finished so far.
  Status FinishBody(const std::string& instance, const Status& launch, CallResult* call, bool last);
  /// The end of an UntimedScope once the body may run on: the range again and the timer.
  Status ResumeTimed(const std::string& instance);
  /// Hands GB one finished region's GPU time.
  virtual void AddRegion(double seconds, CallResult* call) = 0;

  Harness& harness_;
  benchmark::State& state_;
  cudaStream_t stream_;
  LaunchHold hold_ = LaunchHold::kNotApplicable;
  double last_flush_wait_seconds_ = 0;

 private:
  Status MeasureScopeOverhead(double* seconds);
  Status Collect(const std::string& instance, bool wait_all, CallResult* call);

  std::vector<StreamHandle> joined_;
  bool range_open_ = false;
  std::vector<double> times_;
};

/// cache=flush: each body follows an L2 flush and, where it can, runs behind a stream hold; a
/// region per body, one sample per region.
class FlushTimedPhase final : public TimedPhase {
 public:
  FlushTimedPhase(Harness& harness, benchmark::State& state, cudaStream_t stream)
      : TimedPhase(harness, state, stream) {}
  Status BeforeBody(const std::string& instance) override;
  Status AfterBody(const std::string& instance, CallResult* call, bool last) override;
  Status Resume(const std::string& instance) override;
  bool PerSampleTimes() const override;

 private:
  void AddRegion(double seconds, CallResult* call) override;
};

/// cache=keep: the bodies run back to back in one region, opened at the first body and closed
/// at the last; its time is spread evenly over them.
class KeepTimedPhase final : public TimedPhase {
 public:
  KeepTimedPhase(Harness& harness, benchmark::State& state, cudaStream_t stream)
      : TimedPhase(harness, state, stream) {}
  Status BeforeBody(const std::string& instance) override;
  Status AfterBody(const std::string& instance, CallResult* call, bool last) override;
  Status Resume(const std::string& instance) override { return ResumeTimed(instance); }
  /// The call is timed in one region: no sample has a time of its own.
  bool PerSampleTimes() const override { return false; }

 private:
  void AddRegion(double seconds, CallResult* call) override;
  bool region_open_ = false;
  int64_t iterations_in_region_ = 0;
};

}  // namespace gpubench::detail
