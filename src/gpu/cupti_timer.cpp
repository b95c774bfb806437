// timer=cupti: the GPU time of a region is the sum of the durations of the kernels launched in
// it, from CUPTI activity records (CONCURRENT_KERNEL, which does not serialise kernels as the
// KERNEL kind does). Kernels are tied to regions through an external correlation id pushed at
// Begin and popped at End, so gpubench's own flush and probe kernels never count.
#include <cuda_runtime_api.h>
#include <cupti.h>

#include <cxxabi.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "gpu/backend.hpp"
#include "gpu/cuda_status.hpp"
#include "gpu/cupti_attach.hpp"
#include "gpu/cupti_status.hpp"

namespace gpubench::detail {
namespace {

constexpr size_t kBufferBytes = 8 << 20;
constexpr CUpti_ExternalCorrelationKind kRegionKind = CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0;

// "CopyKernel" for "_Z10CopyKernelPKfPfm": readable counter names, without parameter lists.
std::string ShortKernelName(const char* mangled) {
  if (mangled == nullptr) return "unknown";
  int status = 0;
  char* demangled = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
  std::string name = (status == 0 && demangled != nullptr) ? demangled : mangled;
  std::free(demangled);
  name = name.substr(0, name.find('('));
  if (name.rfind("void ", 0) == 0) name = name.substr(5);
  return name;
}

struct KernelRecord {
  uint32_t correlation;
  uint64_t nanoseconds;
  std::string name;
};

// CUPTI hands activity buffers to free functions; they forward to the one active timer.
class ActivitySink {
 public:
  static ActivitySink& Get() {
    static ActivitySink sink;
    return sink;
  }

  void Add(const CUpti_Activity* record) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) {
      const auto* kernel = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
      kernels_.push_back(
          {kernel->correlationId, kernel->end - kernel->start, ShortKernelName(kernel->name)});
    } else if (record->kind == CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION) {
      const auto* link = reinterpret_cast<const CUpti_ActivityExternalCorrelation*>(record);
      if (link->externalKind == kRegionKind) region_of_[link->correlationId] = link->externalId;
    }
  }

  void AddDropped(size_t dropped) {
    std::lock_guard<std::mutex> lock(mutex_);
    dropped_ += dropped;
  }

  void Take(std::vector<KernelRecord>* kernels, std::unordered_map<uint32_t, uint64_t>* regions,
            size_t* dropped) {
    std::lock_guard<std::mutex> lock(mutex_);
    kernels->swap(kernels_);
    kernels_.clear();
    for (const auto& entry : region_of_) (*regions)[entry.first] = entry.second;
    region_of_.clear();
    *dropped += dropped_;
    dropped_ = 0;
  }

 private:
  std::mutex mutex_;
  std::vector<KernelRecord> kernels_;
  std::unordered_map<uint32_t, uint64_t> region_of_;
  size_t dropped_ = 0;
};

void CUPTIAPI BufferRequested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *size = kBufferBytes;
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
  *max_records = 0;
}

void CUPTIAPI BufferCompleted(CUcontext context, uint32_t stream, uint8_t* buffer, size_t,
                              size_t valid) {
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    ActivitySink::Get().Add(record);
  }
  size_t dropped = 0;
  if (cuptiActivityGetNumDroppedRecords(context, stream, &dropped) == CUPTI_SUCCESS && dropped) {
    ActivitySink::Get().AddDropped(dropped);
  }
  std::free(buffer);
}

class CuptiTimer final : public IterationTimer {
 public:
  ~CuptiTimer() override { Stop(); }

  void BeginRun() override {
    Stop();
    std::vector<KernelRecord> stale;
    std::unordered_map<uint32_t, uint64_t> stale_regions;
    size_t dropped = 0;
    ActivitySink::Get().Take(&stale, &stale_regions, &dropped);
    region_count_ = 0;
    harvested_ = 0;
    kernel_seconds_.clear();
  }

  // Enabling tracing waits for the GPU, so it must not happen behind a stream hold.
  Status BeforeTimedIterations() override { return enabled_ ? Status::Ok() : Start(); }

  Status Begin(cudaStream_t) override {
    if (!enabled_) {
      if (Status status = Start(); !status.ok()) return status;
    }
    return CuptiStatus(cuptiActivityPushExternalCorrelationId(kRegionKind, region_count_),
                       "cuptiActivityPushExternalCorrelationId");
  }

  Status End(cudaStream_t) override {
    uint64_t id = 0;
    ++region_count_;
    return CuptiStatus(cuptiActivityPopExternalCorrelationId(kRegionKind, &id),
                       "cuptiActivityPopExternalCorrelationId");
  }

  Status Collect(bool wait_all, std::vector<double>* seconds) override {
    if (!wait_all) return Status::Ok();  // records arrive in bulk; the last call takes them all
    if (Status status = CudaStatus(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
        !status.ok()) {
      return status;
    }
    if (Status status = CuptiStatus(cuptiActivityFlushAll(1), "cuptiActivityFlushAll");
        !status.ok()) {
      return status;
    }
    Stop();
    std::vector<KernelRecord> kernels;
    std::unordered_map<uint32_t, uint64_t> region_of;
    size_t dropped = 0;
    ActivitySink::Get().Take(&kernels, &region_of, &dropped);
    if (dropped > 0) {
      return Status::Error("CUPTI dropped " + std::to_string(dropped) +
                           " activity records, so kernel times would be incomplete; run fewer "
                           "kernels per iteration or use --gpubench_timer=events");
    }
    std::vector<double> region_seconds(region_count_ - harvested_, 0.0);
    for (const auto& kernel : kernels) {
      auto link = region_of.find(kernel.correlation);
      if (link == region_of.end() || link->second < harvested_ || link->second >= region_count_) {
        continue;  // not launched inside a timed region (flush, probe, warm-up)
      }
      region_seconds[link->second - harvested_] += kernel.nanoseconds * 1e-9;
      kernel_seconds_[kernel.name] += kernel.nanoseconds * 1e-9;
    }
    harvested_ = region_count_;
    seconds->insert(seconds->end(), region_seconds.begin(), region_seconds.end());
    return Status::Ok();
  }

  std::map<std::string, double> KernelSeconds() const override { return kernel_seconds_; }

 private:
  Status Start() {
    static const Status registered =
        CuptiStatus(cuptiActivityRegisterCallbacks(BufferRequested, BufferCompleted),
                    "cuptiActivityRegisterCallbacks");
    if (!registered.ok()) return registered;
    if (Status status = CuptiStatus(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL),
                                    "cuptiActivityEnable(CONCURRENT_KERNEL)");
        !status.ok()) {
      return status;
    }
    // External correlation records are made for API records, so the API kinds must be on.
    for (auto kind : {CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION, CUPTI_ACTIVITY_KIND_RUNTIME,
                      CUPTI_ACTIVITY_KIND_DRIVER}) {
      if (Status status = CuptiStatus(cuptiActivityEnable(kind), "cuptiActivityEnable");
          !status.ok()) {
        return status;
      }
    }
    enabled_ = true;
    return Status::Ok();
  }

  // Tracing is off outside the timed loop so that profiling and other benchmarks pay nothing.
  void Stop() {
    if (!enabled_) return;
    cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    cuptiActivityDisable(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION);
    cuptiActivityDisable(CUPTI_ACTIVITY_KIND_RUNTIME);
    cuptiActivityDisable(CUPTI_ACTIVITY_KIND_DRIVER);
    enabled_ = false;
  }

  bool enabled_ = false;
  uint64_t region_count_ = 0;
  uint64_t harvested_ = 0;
  std::map<std::string, double> kernel_seconds_;
};

}  // namespace

std::unique_ptr<IterationTimer> MakeCuptiTimer() {
  // The activity API is the timer: CUPTI stays attached for the whole process.
  CuptiAttachment::KeepAttached();
  return std::make_unique<CuptiTimer>();
}

}  // namespace gpubench::detail
