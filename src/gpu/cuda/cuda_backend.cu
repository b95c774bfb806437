// The CUDA implementations of GpuOps and IterationTimer: the L2 flush, the clock probe, NVTX
// ranges and event timing.
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <algorithm>
#include <atomic>
#include <deque>
#include <memory>
#include <vector>

#include "gpu/backend.hpp"
#include "gpu/cuda/cuda_status.hpp"
#include "gpu/plan/flush.hpp"
#include "gpu/plan/range_names.hpp"

namespace gpubench::detail {
namespace {

// Streams `words` 16-byte words through L2 with plain cached loads. The buffer is only read,
// so the lines it leaves in L2 are clean: evicting them later writes nothing back, unlike a
// memset-based flush whose dirty lines are written back inside the next measurement.
__global__ void FlushL2Kernel(const uint4* __restrict__ buffer, size_t words, unsigned* sink) {
  unsigned acc = 0;
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < words;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    const uint4 value = __ldcg(buffer + i);
    acc ^= value.x ^ value.y ^ value.z ^ value.w;
  }
  if (acc == 0x9e3779b9u && threadIdx.x == 0) *sink = acc;  // keeps the loads alive
}

struct ProbeSample {
  unsigned long long clock;  // this SM's clock64()
  unsigned long long time;   // %globaltimer, ns
  unsigned int valid;
  unsigned int pad;
};

__device__ unsigned long long GlobalTimer() {
  unsigned long long ns;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns));
  return ns;
}

__device__ unsigned SmId() {
  unsigned id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
}

// Records one (clock64, globaltimer) pair per SM. The end probe first waits until at least
// `min_window_ns` have passed since the begin sample of its SM, so that the coarse global timer
// does not dominate short runs.
__global__ void ClockProbeKernel(ProbeSample* samples, const ProbeSample* begin, int max_sms,
                                 unsigned long long min_window_ns) {
  if (threadIdx.x != 0) return;
  const unsigned sm = SmId();
  if (sm >= static_cast<unsigned>(max_sms)) return;
  if (begin != nullptr && begin[sm].valid) {
    while (GlobalTimer() < begin[sm].time + min_window_ns) {
    }
  }
  const unsigned long long time = GlobalTimer();
  const unsigned long long clock = clock64();
  if (atomicCAS(&samples[sm].valid, 0u, 2u) == 0u) {
    samples[sm].clock = clock;
    samples[sm].time = time;
    __threadfence();
    atomicExch(&samples[sm].valid, 1u);
  }
}

// Host-mapped state of the stream hold. The host writes `released`; a hold that gives up
// increments `timeouts`. One hold runs at a time, so plain volatile accesses suffice.
struct HoldState {
  unsigned released;
  unsigned timeouts;
};

// Spins until the host has released `ticket` or `timeout_ns` have passed.
__global__ void HoldKernel(volatile HoldState* state, unsigned ticket,
                           unsigned long long timeout_ns) {
  const unsigned long long start = GlobalTimer();
  while (static_cast<int>(state->released - ticket) < 0) {
    if (GlobalTimer() - start > timeout_ns) {
      state->timeouts = state->timeouts + 1;
      return;
    }
  }
}

constexpr unsigned long long kMinProbeWindowNs = 200000;  // 200 us
constexpr int kMaxSms = 1024;

class CudaOps final : public GpuOps {
 public:
  explicit CudaOps(const DeviceFacts& facts) : facts_(facts) {
    domain_ = nvtxDomainCreateA("gpubench");
  }

  ~CudaOps() override {
    // Errors are ignored: after a sticky error or at exit these calls may fail harmlessly.
    if (flush_buffer_ != nullptr) cudaFree(flush_buffer_);
    if (probe_ != nullptr) cudaFree(probe_);
    if (host_samples_ != nullptr) cudaFreeHost(host_samples_);
    if (hold_ != nullptr) {
      ReleaseStream();
      cudaFreeHost(const_cast<HoldState*>(hold_));
    }
    if (fork_event_ != nullptr) cudaEventDestroy(fork_event_);
    for (cudaEvent_t event : join_events_) cudaEventDestroy(event);
    nvtxDomainDestroy(domain_);
  }

  Status Prepare(cudaStream_t) override {
    if (Status status = CudaStatus(cudaSetDevice(facts_.ordinal), "cudaSetDevice"); !status.ok()) {
      return status;
    }
    if (probe_ == nullptr) {
      const size_t bytes = 2 * kMaxSms * sizeof(ProbeSample) + sizeof(unsigned);
      if (Status status = CudaStatus(cudaMalloc(&probe_, bytes), "cudaMalloc (clock probe)");
          !status.ok()) {
        return status;
      }
      if (Status status =
              CudaStatus(cudaMallocHost(&host_samples_, 2 * kMaxSms * sizeof(ProbeSample)),
                         "cudaMallocHost (clock probe)");
          !status.ok()) {
        return status;
      }
      GPUBENCH_RETURN_IF_ERROR(ReserveStreamEvents());
      GPUBENCH_RETURN_IF_ERROR(LoadKernels());
    }
    return Status::Ok();
  }

  Status PrepareFlush(cudaStream_t) override {
    if (hold_ == nullptr) {
      void* hold = nullptr;
      if (Status status = CudaStatus(cudaHostAlloc(&hold, sizeof(HoldState), cudaHostAllocMapped),
                                     "cudaHostAlloc (stream hold)");
          !status.ok()) {
        return status;
      }
      hold_ = static_cast<volatile HoldState*>(hold);
      hold_->released = 0;
      hold_->timeouts = 0;
      void* device = nullptr;
      if (Status status = CudaStatus(cudaHostGetDevicePointer(&device, hold, 0),
                                     "cudaHostGetDevicePointer (stream hold)");
          !status.ok()) {
        return status;
      }
      hold_device_ = static_cast<HoldState*>(device);
    }
    if (flush_buffer_ == nullptr) {
      flush_bytes_ = static_cast<size_t>(FlushBytes(facts_.l2_bytes));
      if (Status status = CudaStatus(cudaMalloc(&flush_buffer_, flush_bytes_ + sizeof(unsigned)),
                                     "cudaMalloc (L2 flush buffer)");
          !status.ok()) {
        return status;
      }
      // Written once, here; the synchronize lets no initialisation work reach a measurement.
      if (Status status = CudaStatus(cudaMemset(flush_buffer_, 0x5a, flush_bytes_), "cudaMemset");
          !status.ok()) {
        return status;
      }
      if (Status status = CudaStatus(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
          !status.ok()) {
        return status;
      }
    }
    return Status::Ok();
  }

  Status FlushCache(cudaStream_t stream) override {
    const size_t words = flush_bytes_ / sizeof(uint4);
    const int blocks = std::max(1, facts_.sm_count) * 4;
    FlushL2Kernel<<<blocks, 512, 0, stream>>>(
        static_cast<const uint4*>(flush_buffer_), words,
        reinterpret_cast<unsigned*>(static_cast<char*>(flush_buffer_) + flush_bytes_));
    return CudaStatus(cudaPeekAtLastError(), "L2 flush kernel launch");
  }

  Status CheckLaunch() override { return CudaStatus(cudaGetLastError(), "kernel launch"); }
  Status TakeLastError() override { return CudaStatus(cudaGetLastError(), "cudaGetLastError"); }

  Status Synchronize(cudaStream_t stream) override {
    return CudaStatus(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  }

  Status BeginClockProbe(cudaStream_t stream) override {
    if (Status status =
            CudaStatus(cudaMemsetAsync(probe_, 0, 2 * kMaxSms * sizeof(ProbeSample), stream),
                       "cudaMemsetAsync");
        !status.ok()) {
      return status;
    }
    return LaunchProbe(stream, Samples(0), nullptr, 0);
  }

  Status EndClockProbe(cudaStream_t stream, double* sm_clock_mhz) override {
    if (Status status = LaunchProbe(stream, Samples(1), Samples(0), kMinProbeWindowNs);
        !status.ok()) {
      return status;
    }
    if (Status status =
            CudaStatus(cudaMemcpyAsync(host_samples_, probe_, 2 * kMaxSms * sizeof(ProbeSample),
                                       cudaMemcpyDeviceToHost, stream),
                       "cudaMemcpyAsync (clock probe)");
        !status.ok()) {
      return status;
    }
    if (Status status = Synchronize(stream); !status.ok()) return status;
    double sum = 0;
    int sms = 0;
    for (int sm = 0; sm < kMaxSms; ++sm) {
      const ProbeSample& begin = host_samples_[sm];
      const ProbeSample& end = host_samples_[kMaxSms + sm];
      if (begin.valid != 1 || end.valid != 1 || end.time <= begin.time) continue;
      sum += static_cast<double>(end.clock - begin.clock) * 1e3 /
             static_cast<double>(end.time - begin.time);  // cycles per ns * 1000 = MHz
      ++sms;
    }
    *sm_clock_mhz = sms > 0 ? sum / sms : 0.0;
    return Status::Ok();
  }

  // One nested range per part of the name, so that ncu's push/pop filter
  // "gpubench@BM_Copy/1048576/" (ranges BM_Copy > 1048576) selects exactly these iterations.
  void PushRange(const std::string& name) override {
    if (name != pushed_name_) {
      pushed_name_ = name;
      pushed_parts_ = NvtxRangePath(name);
    }
    for (const auto& part : pushed_parts_) {
      nvtxEventAttributes_t attributes = {};
      attributes.version = NVTX_VERSION;
      attributes.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
      attributes.messageType = NVTX_MESSAGE_TYPE_ASCII;
      attributes.message.ascii = part.c_str();
      nvtxDomainRangePushEx(domain_, &attributes);
    }
  }

  void PopRange() override {
    for (size_t i = 0; i < pushed_parts_.size(); ++i) nvtxDomainRangePop(domain_);
  }

  Status HoldStream(cudaStream_t stream) override {
    if (hold_ == nullptr) return Status::Error("stream hold used before PrepareFlush");
    ++ticket_;
    HoldKernel<<<1, 1, 0, stream>>>(hold_device_, ticket_,
                                    static_cast<unsigned long long>(kHoldTimeoutMs) * 1000000);
    pending_ = true;
    return CudaStatus(cudaPeekAtLastError(), "stream hold kernel launch");
  }

  void ReleaseStream() override {
    if (!pending_) return;
    // Orders the host's earlier launches before the store the spinning kernel reads.
    std::atomic_thread_fence(std::memory_order_seq_cst);
    hold_->released = ticket_;
    pending_ = false;
  }

  Status ForkStreams(cudaStream_t timed, const std::vector<StreamHandle>& others) override {
    if (others.empty()) return Status::Ok();
    if (fork_event_ == nullptr) {
      GPUBENCH_RETURN_IF_ERROR(CudaStatus(
          cudaEventCreateWithFlags(&fork_event_, cudaEventDisableTiming), "cudaEventCreate"));
    }
    GPUBENCH_RETURN_IF_ERROR(
        CudaStatus(cudaEventRecord(fork_event_, timed), "cudaEventRecord (stream fork)"));
    for (StreamHandle other : others) {
      GPUBENCH_RETURN_IF_ERROR(CudaStatus(
          cudaStreamWaitEvent(AsStream(other), fork_event_, 0),
          ("cudaStreamWaitEvent (stream fork to " + DescribeStream(other) + ")").c_str()));
    }
    return Status::Ok();
  }

  Status JoinStreams(cudaStream_t timed, const std::vector<StreamHandle>& others) override {
    GPUBENCH_RETURN_IF_ERROR(MakeJoinEvents(others.size()));
    for (size_t i = 0; i < others.size(); ++i) {
      GPUBENCH_RETURN_IF_ERROR(CudaStatus(
          cudaEventRecord(join_events_[i], AsStream(others[i])),
          ("cudaEventRecord (stream join of " + DescribeStream(others[i]) + ")").c_str()));
      GPUBENCH_RETURN_IF_ERROR(CudaStatus(cudaStreamWaitEvent(timed, join_events_[i], 0),
                                          "cudaStreamWaitEvent (stream join)"));
    }
    return Status::Ok();
  }

  bool TakeHoldTimedOut() override {
    if (hold_ == nullptr || hold_->timeouts == 0) return false;
    hold_->timeouts = 0;
    return true;
  }

 private:
  ProbeSample* Samples(int which) { return static_cast<ProbeSample*>(probe_) + which * kMaxSms; }

  // The fork's event and the joins' for kReservedJoins other streams; a body on more streams
  // makes the rest when it first runs.
  Status ReserveStreamEvents() {
    if (fork_event_ == nullptr) {
      GPUBENCH_RETURN_IF_ERROR(CudaStatus(
          cudaEventCreateWithFlags(&fork_event_, cudaEventDisableTiming), "cudaEventCreate"));
    }
    return MakeJoinEvents(kReservedJoins);
  }

  Status MakeJoinEvents(size_t count) {
    while (join_events_.size() < count) {
      cudaEvent_t event = nullptr;
      GPUBENCH_RETURN_IF_ERROR(
          CudaStatus(cudaEventCreateWithFlags(&event, cudaEventDisableTiming), "cudaEventCreate"));
      join_events_.push_back(event);
    }
    return Status::Ok();
  }

  // CUDA loads a module's kernels at their first launch (lazy loading), which allocates device
  // memory for their code: asking for their attributes loads them now.
  static Status LoadKernels() {
    cudaFuncAttributes attributes{};
    GPUBENCH_RETURN_IF_ERROR(CudaStatus(cudaFuncGetAttributes(&attributes, FlushL2Kernel),
                                        "cudaFuncGetAttributes (L2 flush kernel)"));
    GPUBENCH_RETURN_IF_ERROR(CudaStatus(cudaFuncGetAttributes(&attributes, HoldKernel),
                                        "cudaFuncGetAttributes (stream hold kernel)"));
    return CudaStatus(cudaFuncGetAttributes(&attributes, ClockProbeKernel),
                      "cudaFuncGetAttributes (clock probe kernel)");
  }

  Status LaunchProbe(cudaStream_t stream, ProbeSample* out, const ProbeSample* begin,
                     unsigned long long min_window_ns) {
    // Several blocks per SM so that every SM runs at least one.
    const int blocks = std::max(1, std::min(facts_.sm_count, kMaxSms)) * 4;
    ClockProbeKernel<<<blocks, 32, 0, stream>>>(out, begin, kMaxSms, min_window_ns);
    return CudaStatus(cudaPeekAtLastError(), "clock probe kernel launch");
  }

  // The driver's handles 0x1 and 0x2 are cudaStreamLegacy and cudaStreamPerThread.
  static cudaStream_t AsStream(StreamHandle handle) {
    return reinterpret_cast<cudaStream_t>(handle);
  }

  static constexpr size_t kReservedJoins = 8;

  DeviceFacts facts_;
  cudaEvent_t fork_event_ = nullptr;
  std::vector<cudaEvent_t> join_events_;
  nvtxDomainHandle_t domain_ = nullptr;
  std::string pushed_name_;
  std::vector<std::string> pushed_parts_;
  void* flush_buffer_ = nullptr;
  size_t flush_bytes_ = 0;
  void* probe_ = nullptr;
  ProbeSample* host_samples_ = nullptr;
  volatile HoldState* hold_ = nullptr;
  HoldState* hold_device_ = nullptr;
  unsigned ticket_ = 0;
  bool pending_ = false;
};

// One event pair per region, from a pool; when every pair is in flight, the oldest is waited
// for, so the timer itself never waits per iteration. (With cache=flush the loop waits for each
// held iteration anyway; with cache=keep one region covers the whole run.)
class EventTimer final : public IterationTimer {
 public:
  ~EventTimer() override {
    for (auto& pair : pool_) {
      cudaEventDestroy(pair.start);
      cudaEventDestroy(pair.stop);
    }
    for (auto& pair : pauses_) {
      cudaEventDestroy(pair.start);
      cudaEventDestroy(pair.stop);
    }
  }

  void BeginRun() override {
    scope_overhead_seconds_ = 0;
    in_flight_.clear();
    finished_.clear();
    next_ = 0;
    for (auto& paused : paused_in_) {
      free_pauses_.insert(free_pauses_.end(), paused.begin(), paused.end());
      paused.clear();
    }
  }

  // The regions' pool, and a scope's pair for each region in flight (a body with more scopes
  // makes the rest when it first runs).
  Status Reserve() override {
    GPUBENCH_RETURN_IF_ERROR(MakePool());
    while (pauses_.size() < kPairs) GPUBENCH_RETURN_IF_ERROR(MakePausePair());
    return Status::Ok();
  }

  Status Begin(cudaStream_t stream) override {
    GPUBENCH_RETURN_IF_ERROR(MakePool());
    if (in_flight_.size() == pool_.size()) {
      if (Status status = Harvest(); !status.ok()) return status;
    }
    current_ = next_;
    next_ = (next_ + 1) % pool_.size();
    return CudaStatus(cudaEventRecord(pool_[current_].start, stream), "cudaEventRecord");
  }

  Status End(cudaStream_t stream) override {
    in_flight_.push_back(current_);
    return CudaStatus(cudaEventRecord(pool_[current_].stop, stream), "cudaEventRecord");
  }

  // An untimed scope: a second pair of events on the stream, whose span Harvest subtracts.
  Status Pause(cudaStream_t stream) override {
    if (free_pauses_.empty()) GPUBENCH_RETURN_IF_ERROR(MakePausePair());
    const size_t pause = free_pauses_.back();
    free_pauses_.pop_back();
    if (paused_in_.size() < pool_.size()) paused_in_.resize(pool_.size());
    paused_in_[current_].push_back(pause);
    return CudaStatus(cudaEventRecord(pauses_[pause].start, stream), "cudaEventRecord");
  }

  Status Resume(cudaStream_t stream) override {
    return CudaStatus(cudaEventRecord(pauses_[paused_in_[current_].back()].stop, stream),
                      "cudaEventRecord");
  }

  void SetScopeOverhead(double seconds) override { scope_overhead_seconds_ = seconds; }

  Status Collect(bool wait_all, std::vector<double>* seconds) override {
    while (!in_flight_.empty()) {
      // Without wait_all, only regions whose stop event has passed (no waiting): a stopping
      // rule sees each sample as soon as the GPU has timed it.
      if (!wait_all && !StopPassed(in_flight_.front())) break;
      if (Status status = Harvest(); !status.ok()) return status;
    }
    seconds->insert(seconds->end(), finished_.begin(), finished_.end());
    finished_.clear();
    return Status::Ok();
  }

 private:
  struct Pair {
    cudaEvent_t start = nullptr;
    cudaEvent_t stop = nullptr;
  };
  static constexpr size_t kPairs = 64;

  Status MakePool() {
    if (!pool_.empty()) return Status::Ok();
    std::vector<Pair> pool(kPairs);
    for (auto& pair : pool) {
      GPUBENCH_RETURN_IF_ERROR(CudaStatus(cudaEventCreate(&pair.start), "cudaEventCreate"));
      GPUBENCH_RETURN_IF_ERROR(CudaStatus(cudaEventCreate(&pair.stop), "cudaEventCreate"));
    }
    pool_ = std::move(pool);
    return Status::Ok();
  }

  Status MakePausePair() {
    Pair pair;
    GPUBENCH_RETURN_IF_ERROR(CudaStatus(cudaEventCreate(&pair.start), "cudaEventCreate"));
    GPUBENCH_RETURN_IF_ERROR(CudaStatus(cudaEventCreate(&pair.stop), "cudaEventCreate"));
    free_pauses_.push_back(pauses_.size());
    pauses_.push_back(pair);
    return Status::Ok();
  }

  // Whether the slot's stop event has been reached; an error other than "not ready" counts as
  // reached, so that Harvest's synchronize reports it.
  bool StopPassed(size_t slot) {
    const cudaError_t state = cudaEventQuery(pool_[slot].stop);
    if (state != cudaErrorNotReady) return true;
    // "Not ready" is no error; make sure no later cudaGetLastError reads it as one.
    if (cudaPeekAtLastError() == cudaErrorNotReady) (void)cudaGetLastError();
    return false;
  }

  Status Harvest() {
    const size_t slot = in_flight_.front();
    const Pair& pair = pool_[slot];
    in_flight_.pop_front();
    if (Status status = CudaStatus(cudaEventSynchronize(pair.stop), "cudaEventSynchronize");
        !status.ok()) {
      return status;
    }
    float ms = 0;
    if (Status status =
            CudaStatus(cudaEventElapsedTime(&ms, pair.start, pair.stop), "cudaEventElapsedTime");
        !status.ok()) {
      return status;
    }
    double region = ms * 1e-3;
    if (slot < paused_in_.size()) {
      for (size_t pause : paused_in_[slot]) {
        float paused_ms = 0;
        GPUBENCH_RETURN_IF_ERROR(
            CudaStatus(cudaEventElapsedTime(&paused_ms, pauses_[pause].start, pauses_[pause].stop),
                       "cudaEventElapsedTime"));
        region -= paused_ms * 1e-3 + scope_overhead_seconds_;
      }
      region = std::max(region, 0.0);
      free_pauses_.insert(free_pauses_.end(), paused_in_[slot].begin(), paused_in_[slot].end());
      paused_in_[slot].clear();
    }
    finished_.push_back(region);
    return Status::Ok();
  }

  std::vector<Pair> pool_;
  std::vector<Pair> pauses_;                    ///< untimed scopes' event pairs
  std::vector<size_t> free_pauses_;             ///< indexes into pauses_
  std::vector<std::vector<size_t>> paused_in_;  ///< per slot of pool_: its scopes' pairs
  std::deque<size_t> in_flight_;
  std::vector<double> finished_;
  size_t current_ = 0;
  size_t next_ = 0;
  double scope_overhead_seconds_ = 0;  ///< taken out once per scope (SetScopeOverhead)
};

}  // namespace

std::unique_ptr<GpuOps> MakeCudaOps(const DeviceFacts& facts) {
  return std::make_unique<CudaOps>(facts);
}

std::unique_ptr<IterationTimer> MakeEventTimer() { return std::make_unique<EventTimer>(); }

}  // namespace gpubench::detail
