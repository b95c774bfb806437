// The narrow interfaces between the benchmark loop and the GPU. cuda_backend.cu implements them
// on a real device; tests implement them with fakes that record what the loop asked for.
#pragma once

#include <cuda_runtime_api.h>

#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "common/status.hpp"
#include "gpu/cuda/device_info.hpp"
#include "gpu/plan/launch_hold.hpp"
#include "gpu/plan/stream_plan.hpp"
#include "gpubench/settings.hpp"

namespace gpubench::detail {

/// GPU work around the user's body: cache policy, error checks, clock probe, NVTX ranges.
class GpuOps {
 public:
  virtual ~GpuOps() = default;
  /// Before a run's first iteration, and once before any benchmark (Harness::
  /// PrepareBeforeBenchmarks): selects the device; the first time, allocates the clock probe,
  /// creates the stream fork's and joins' events and loads gpubench's kernels, so that none of
  /// it lands between a later benchmark's allocations.
  virtual Status Prepare(cudaStream_t stream) = 0;
  /// After Prepare, for cache=flush only: allocates the stream hold and the L2 flush buffer.
  virtual Status PrepareFlush(cudaStream_t stream) = 0;
  /// Evicts L2 by streaming a read-only buffer on `stream` (writes nothing).
  virtual Status FlushCache(cudaStream_t stream) = 0;
  /// After each body: reports launch errors (configuration, resources) the body left.
  virtual Status CheckLaunch() = 0;
  /// Reads and clears CUDA's last error, whatever call left it (after a benchmark threw).
  virtual Status TakeLastError() = 0;
  virtual Status Synchronize(cudaStream_t stream) = 0;
  /// Starts measuring the SM clock: a probe kernel records each SM's clock and global time.
  virtual Status BeginClockProbe(cudaStream_t stream) = 0;
  /// Ends it and waits: the mean SM clock (MHz) between the two probes, over all SMs seen.
  virtual Status EndClockProbe(cudaStream_t stream, double* sm_clock_mhz) = 0;
  /// NVTX push/pop in domain "gpubench": one nested range per '/'-separated part of the name
  /// (NvtxRangePath), popped together.
  virtual void PushRange(const std::string& name) = 0;
  virtual void PopRange() = 0;
  /// Holds `stream` with a one-thread kernel that spins until ReleaseStream, or until
  /// kHoldTimeoutMs have passed. Work the host enqueues behind it then starts back to back when
  /// it is released, whatever the host's launch pace (docs/accuracy.md "Short kernels").
  virtual Status HoldStream(cudaStream_t stream) = 0;
  /// Lets the latest hold end. Does nothing when none is pending, so error paths may call it.
  virtual void ReleaseStream() = 0;
  /// Whether a hold ended by its timeout (the host did not release it in time, e.g. the body
  /// waited for the GPU) since the last call. Call after the stream was synchronized.
  virtual bool TakeHoldTimedOut() = 0;
  /// The start of a timed span on `timed`: each of `others` waits for what `timed` has
  /// enqueued so far (the start event, behind any hold), so their work starts inside the span.
  virtual Status ForkStreams(cudaStream_t timed, const std::vector<StreamHandle>& others) = 0;
  /// The end of the span: `timed` waits for everything enqueued on `others`, so the stop event
  /// comes after the last of it.
  virtual Status JoinStreams(cudaStream_t timed, const std::vector<StreamHandle>& others) = 0;
};

/// Which streams the user's body enqueues GPU work on (stream_plan.hpp): kernel launches,
/// copies, memsets, graph and host-function launches, seen through CUPTI's driver callbacks.
class StreamWatch {
 public:
  virtual ~StreamWatch() = default;
  /// "" when the watch works; else why not (for the context block).
  virtual std::string UnavailableReason() const = 0;
  /// Right before a body: starts recording its work.
  virtual void BeginBody() = 0;
  /// Right after it: the streams it used, in first-use order.
  virtual std::vector<StreamUse> EndBody() = 0;
  /// After EndBody: the calls by which the body, on its own thread, waited for GPU work
  /// (cuCtxSynchronize, cuStreamSynchronize, cuEventSynchronize of an event it recorded, a copy
  /// to the host), in call order.
  virtual std::vector<StreamWait> Waits() const { return {}; }
  /// Once the body's work has finished (the warm-up synchronized): CUPTI, attached for the
  /// watch, is detached so that the timed iterations run without it (cupti_attach.hpp).
  virtual void AfterBodyFinished() {}
};

/// What an instance asked the GPU to do in its set-up and one body (WorkRecorder), as the lines
/// its work signature hashes (gpu/plan/work_signature.hpp).
struct WorkRecord {
  bool watched = false;            ///< false: nothing was recorded (no recorder, or not begun)
  std::vector<std::string> items;  ///< one canonical line per kernel, copy, set, graph launch
  std::string unsigned_why;        ///< "" when every item could be signed; else the first reason
};

/// Records the work an instance launches, from CUPTI's driver and resource callbacks
/// (cupti_work_recorder.cpp): on from the instance's set-up to the end of its warm-up body, so
/// that the timed iterations run without it. Module loads are watched whenever it records, and
/// around the context's creation (WatchModules), so that each kernel's machine code is known.
class WorkRecorder {
 public:
  virtual ~WorkRecorder() = default;
  /// "" when it works; else why not (the signature is then absent).
  virtual std::string UnavailableReason() const = 0;
  /// Starts recording; a recording in progress starts over.
  virtual void Begin() = 0;
  virtual bool recording() const = 0;
  /// Stops recording: what was seen since Begin.
  virtual WorkRecord End() = 0;
  /// Watches module loads (not launches) while on: Initialize's context creation.
  virtual void WatchModules(bool on) = 0;
  /// While held, calls are not recorded: gpubench's own work between the set-up and the body
  /// (its flush) is no part of the instance's.
  virtual void Hold(bool on) = 0;
};

/// A host API call the body made, per iteration (BusyTracer).
struct HostCall {
  std::string name;    ///< the CUDA runtime function ("cudaMalloc")
  double count = 0;    ///< calls per iteration
  double seconds = 0;  ///< host time in those calls per iteration
};

/// What the GPU did in untimed iterations of a body (BusyTracer).
struct BusyMeasure {
  int iterations = 0;       ///< 0: not measured
  double busy_seconds = 0;  ///< per iteration: the union of kernel, memcpy and memset intervals
  double work_items = 0;    ///< per iteration: kernels, memcpy and memset on the GPU
  double other_thread_items = 0;  ///< per iteration: of those, enqueued by other host threads
  std::vector<HostCall> calls;    ///< the body's runtime API calls, largest host time first
  double host_seconds = 0;        ///< what measuring took: tracing on, the iterations, tracing off
};

/// The GPU's own activity and the host's runtime calls in iterations of a body, from CUPTI
/// activity records (cupti_busy.cpp). It runs in untimed iterations only: activity tracing
/// stays on while it measures.
class BusyTracer {
 public:
  virtual ~BusyTracer() = default;
  /// "" when it works; else why not (for the context block).
  virtual std::string UnavailableReason() const = 0;
  /// Before the first iteration (enabling tracing waits for the GPU).
  virtual Status Start() = 0;
  /// Right before and right after each body: its work and calls are the iteration's.
  virtual Status BeginIteration() = 0;
  virtual Status EndIteration() = 0;
  /// gpubench::UntimedScope inside a body: what it encloses belongs to no iteration.
  virtual Status Pause() = 0;
  virtual Status Resume() = 0;
  /// After the last iteration: waits for the GPU, stops tracing, per-iteration results.
  virtual Status Finish(BusyMeasure* measure) = 0;
};

/// GPU time of regions of stream work.
class IterationTimer {
 public:
  virtual ~IterationTimer() = default;
  /// Once, before any benchmark: makes the events the regions and the scopes of later runs use
  /// (Harness::PrepareBeforeBenchmarks says why).
  virtual Status Reserve() { return Status::Ok(); }
  /// Forgets everything from earlier runs.
  virtual void BeginRun() {}
  /// Before the first timed iteration, and before its stream hold: anything that may wait for
  /// the GPU (enabling CUPTI activity tracing does) must happen here, not in Begin.
  virtual Status BeforeTimedIterations() { return Status::Ok(); }
  virtual Status Begin(cudaStream_t stream) = 0;
  virtual Status End(cudaStream_t stream) = 0;
  /// Appends the seconds of each region finished since the last call, in order. With
  /// wait_all it waits for every open region; otherwise it returns what it already has.
  virtual Status Collect(bool wait_all, std::vector<double>* seconds) = 0;
  /// gpubench::UntimedScope inside a region: the GPU time on `stream` between Pause and
  /// Resume is left out of the region's time.
  virtual Status Pause(cudaStream_t stream) = 0;
  virtual Status Resume(cudaStream_t stream) = 0;
  /// The GPU time of an empty region behind a hold (two events back to back), measured before
  /// the timed iterations: a scope's own pair of events adds it once more to the region, so it
  /// is taken out once per scope (events timer; the CUPTI timer sums kernels and has none).
  virtual void SetScopeOverhead(double seconds) { (void)seconds; }
  /// Kernel time per kernel name in this run's collected regions (timer=cupti only).
  virtual std::map<std::string, double> KernelSeconds() const { return {}; }
  /// Whether a region's time can be collected as soon as it ends (the event timer); the CUPTI
  /// timer hands its records over at the end of the call. The stopping rule judges each sample
  /// while the call runs only with such a timer.
  virtual bool DeliversEachRegion() const { return true; }
  /// Whether a gpubench::UntimedScope's own pause and resume add GPU time to the region, to be
  /// measured and taken out (SetScopeOverhead: the event timer's pair of events).
  virtual bool ScopesAddOverhead() const { return true; }
};

/// One range of a profiling session as the profiler read it back.
struct ProfiledRange {
  /// The name it was pushed under, as the profiler reports it; "" where it cannot say (then the
  /// ranges are in the order they were pushed).
  std::string name;
  std::map<std::string, double> values;  ///< metric name -> value in CUPTI's unit
};

/// Hardware metrics of profiled iterations (the CUPTI Range Profiler in cupti_profiler.cpp).
/// One session per run: for each pass, each profiled iteration is one named range, or several
/// where the body entered a gpubench::UntimedScope (the range closes at the scope and opens
/// again after it, under a name of its own: the profiler merges ranges that share a name).
class Profiler {
 public:
  virtual ~Profiler() = default;
  virtual Status BeginSession(cudaStream_t stream, int ranges) = 0;
  virtual Status BeginPass() = 0;
  virtual Status PushRange(const std::string& name) = 0;
  virtual Status PopRange() = 0;
  /// Ends a pass; *done once CUPTI has every pass it needs.
  virtual Status EndPass(bool* done) = 0;
  /// Metric values per range, in range order. A range with no GPU work in it may be missing.
  virtual Status EndSession(std::vector<ProfiledRange>* ranges) = 0;
  /// Ends a session early after an error, releasing what it holds.
  virtual void AbortSession() = 0;
  /// Replay passes a session needs for the configured metrics (0 before it is known).
  virtual int PassCount() const = 0;
  /// CUPTI's unit of each configured metric ("byte", "%", ...), where CUPTI names one.
  virtual std::map<std::string, std::string> MetricUnits() const { return {}; }
};

// The real backends. Each is defined in its own file: cuda_backend.cu (GpuOps, the event
// timer), cupti_timer.cpp (timer=cupti), cupti_profiler.cpp (the Range Profiler).

/// GpuOps on the CUDA device of `facts`.
std::unique_ptr<GpuOps> MakeCudaOps(const DeviceFacts& facts);
/// The stream watch on CUPTI's driver callbacks (cupti_stream_watch.cpp).
std::unique_ptr<StreamWatch> MakeCuptiStreamWatch();
/// The work recorder on CUPTI's driver and resource callbacks (cupti_work_recorder.cpp).
std::unique_ptr<WorkRecorder> MakeCuptiWorkRecorder();
/// timer=events: a CUDA event pair around each timed region.
std::unique_ptr<IterationTimer> MakeEventTimer();
/// timer=cupti: the CUPTI activity timer.
std::unique_ptr<IterationTimer> MakeCuptiTimer();
/// The busy measurement on CUPTI activity records (cupti_busy.cpp).
std::unique_ptr<BusyTracer> MakeCuptiBusyTracer();

/// The CUPTI Range Profiler for `settings.metrics` on the device, or null with the reason
/// ("unavailable: ..." / "off: ..."); the string becomes the gpubench_profiler context value.
/// Not under another CUDA tool (measure/process/harness.cpp steps aside there).
std::unique_ptr<Profiler> MakeCuptiProfiler(const Settings& settings, const DeviceFacts& facts,
                                            std::string* status);

/// Starts CUPTI's profiler interface and reads the chip's name of device `ordinal` on a thread
/// of its own, before this process creates a CUDA context: neither needs one, and the profiling
/// child otherwise waits for them after its context (about 0.08 s on an H200). MakeCuptiProfiler
/// for that device then waits for this start instead of making its own.
void PrepareCuptiProfiler(int ordinal);

/// Prints the metrics of `chip` (or of the device when chip is empty) whose names contain
/// `filter`: name, unit, description. Returns an error message, or "" on success.
std::string ListMetrics(const std::string& chip, const DeviceFacts& facts,
                        const std::string& filter, std::ostream& out);

}  // namespace gpubench::detail
