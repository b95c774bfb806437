// timer=cupti: the GPU time of a region is the sum of the durations of the kernels launched in
// it, from CUPTI activity records (CONCURRENT_KERNEL, which does not serialise kernels as the
// KERNEL kind does). Kernels are tied to regions through an external correlation id pushed at
// Begin and popped at End, so gpubench's own flush and probe kernels never count.
#include <cuda_runtime_api.h>
#include <cupti.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "gpu/backend.hpp"
#include "gpu/cuda/cuda_status.hpp"
#include "gpu/cupti/cupti_activity.hpp"
#include "gpu/cupti/cupti_attach.hpp"
#include "gpu/cupti/cupti_status.hpp"

namespace gpubench::detail {
namespace {

constexpr CUpti_ExternalCorrelationKind kRegionKind = CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0;

class CuptiTimer final : public IterationTimer {
 public:
  ~CuptiTimer() override { Stop(); }

  void BeginRun() override {
    Stop();
    ActivityRecords stale;
    TakeActivityRecords(&stale);
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
    ++region_count_;
    return PopRegion();
  }

  // An untimed scope: its kernels carry no region, so they do not count.
  Status Pause(cudaStream_t) override { return PopRegion(); }
  Status Resume(cudaStream_t) override {
    return CuptiStatus(cuptiActivityPushExternalCorrelationId(kRegionKind, region_count_),
                       "cuptiActivityPushExternalCorrelationId");
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
    ActivityRecords records;
    TakeActivityRecords(&records);
    const auto& region_of = records.external[kRegionKind];
    if (records.dropped > 0) {
      return Status::Error("CUPTI dropped " + std::to_string(records.dropped) +
                           " activity records, so kernel times would be incomplete; run fewer "
                           "kernels per iteration or use --gpubench_timer=events");
    }
    std::vector<double> region_seconds(region_count_ - harvested_, 0.0);
    for (const GpuActivity& kernel : records.gpu) {
      if (!kernel.kernel) continue;
      auto link = region_of.find(kernel.correlation);
      if (link == region_of.end() || link->second < harvested_ || link->second >= region_count_) {
        continue;  // not launched inside a timed region (flush, probe, warm-up)
      }
      const double seconds = static_cast<double>(kernel.end - kernel.start) * 1e-9;
      region_seconds[link->second - harvested_] += seconds;
      kernel_seconds_[kernel.name] += seconds;
    }
    harvested_ = region_count_;
    seconds->insert(seconds->end(), region_seconds.begin(), region_seconds.end());
    return Status::Ok();
  }

  std::map<std::string, double> KernelSeconds() const override { return kernel_seconds_; }
  // Activity records arrive when the call's regions are collected at its end, and a scope adds
  // no kernel of its own.
  bool DeliversEachRegion() const override { return false; }
  bool ScopesAddOverhead() const override { return false; }

 private:
  Status PopRegion() {
    uint64_t id = 0;
    return CuptiStatus(cuptiActivityPopExternalCorrelationId(kRegionKind, &id),
                       "cuptiActivityPopExternalCorrelationId");
  }

  Status Start() {
    GPUBENCH_RETURN_IF_ERROR(RegisterActivityBuffers());
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
