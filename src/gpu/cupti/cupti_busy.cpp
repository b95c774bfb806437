// The busy measurement (backend.hpp): in untimed iterations, CUPTI activity records of the GPU's
// own work (kernels, memcpy, memset) and of the host's CUDA runtime calls, tied to each
// iteration through an external correlation id pushed before the body and popped after it.
// Another thread's work is the iteration's when its call started while the body ran.
// Busy time is the union of the work's intervals, so work that overlaps on several streams
// counts once; the gaps are the GPU waiting, usually for the host.
#include <cuda_runtime_api.h>
#include <cupti.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "gpu/backend.hpp"
#include "gpu/cuda/cuda_status.hpp"
#include "gpu/cupti/cupti_activity.hpp"
#include "gpu/cupti/cupti_attach.hpp"
#include "gpu/cupti/cupti_status.hpp"
#include "gpu/plan/busy_attribution.hpp"

namespace gpubench::detail {
namespace {

// CUSTOM0 is timer=cupti's: both may be on in one process (profile_process=same).
constexpr CUpti_ExternalCorrelationKind kIterationKind = CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM1;

constexpr CUpti_ActivityKind kKinds[] = {
    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMCPY2,
    CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION,
    // External correlation records are made for API records, so the API kinds must be on.
    CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_ACTIVITY_KIND_DRIVER};

class CuptiBusyTracer final : public BusyTracer {
 public:
  CuptiBusyTracer() = default;
  ~CuptiBusyTracer() override { Stop(); }

  std::string UnavailableReason() const override { return ""; }

  Status Start() override {
    ActivityRecords stale;
    TakeActivityRecords(&stale);
    iterations_ = 0;
    windows_.clear();
    GPUBENCH_RETURN_IF_ERROR(RegisterActivityBuffers());
    CuptiAttachment::KeepAttached();  // activity tracing cannot attach again after a detach
    for (CUpti_ActivityKind kind : kKinds) {
      if (Status status = CuptiStatus(cuptiActivityEnable(kind), "cuptiActivityEnable");
          !status.ok()) {
        Stop();
        return status;
      }
    }
    enabled_ = true;
    return Status::Ok();
  }

  Status BeginIteration() override {
    windows_.emplace_back();
    return Push();
  }
  Status EndIteration() override {
    GPUBENCH_RETURN_IF_ERROR(Pop());
    ++iterations_;
    return Status::Ok();
  }
  Status Pause() override { return Pop(); }
  Status Resume() override { return Push(); }

  Status Finish(BusyMeasure* measure) override {
    *measure = BusyMeasure();
    GPUBENCH_RETURN_IF_ERROR(CudaStatus(cudaDeviceSynchronize(), "cudaDeviceSynchronize"));
    GPUBENCH_RETURN_IF_ERROR(CuptiStatus(cuptiActivityFlushAll(1), "cuptiActivityFlushAll"));
    Stop();
    ActivityRecords records;
    TakeActivityRecords(&records);
    if (records.dropped > 0) {
      return Status::Error("CUPTI dropped " + std::to_string(records.dropped) +
                           " activity records of the busy measurement");
    }
    if (iterations_ == 0) return Status::Ok();
    windows_.resize(iterations_);
    const BusyAttribution found =
        AttributeBusy(records, records.external[kIterationKind], windows_);
    measure->iterations = found.iterations;
    measure->busy_seconds = found.busy_seconds;
    measure->work_items = found.work_items;
    measure->other_thread_items = found.other_thread_items;
    for (const BusyAttribution::Calls& call : found.calls) {
      measure->calls.push_back({RuntimeCallName(call.callback_id), call.count, call.seconds});
    }
    std::sort(measure->calls.begin(), measure->calls.end(),
              [](const HostCall& a, const HostCall& b) { return a.seconds > b.seconds; });
    return Status::Ok();
  }

 private:
  // The id ties the loop thread's calls to the iteration; the window, another thread's calls
  // (ids are pushed per thread), so work handed to a worker thread is counted too.
  Status Push() {
    GPUBENCH_RETURN_IF_ERROR(
        CuptiStatus(cuptiActivityPushExternalCorrelationId(kIterationKind, iterations_),
                    "cuptiActivityPushExternalCorrelationId"));
    if (!windows_.empty()) windows_.back().push_back({Now(), 0});
    return Status::Ok();
  }
  Status Pop() {
    if (!windows_.empty() && !windows_.back().empty() && windows_.back().back().second == 0) {
      windows_.back().back().second = Now();
    }
    uint64_t id = 0;
    return CuptiStatus(cuptiActivityPopExternalCorrelationId(kIterationKind, &id),
                       "cuptiActivityPopExternalCorrelationId");
  }
  static uint64_t Now() {
    uint64_t timestamp = 0;
    cuptiGetTimestamp(&timestamp);  // the activity records' clock
    return timestamp;
  }
  void Stop() {
    if (!enabled_) return;
    for (CUpti_ActivityKind kind : kKinds) cuptiActivityDisable(kind);
    enabled_ = false;
  }

  bool enabled_ = false;
  uint64_t iterations_ = 0;
  std::vector<std::vector<HostWindow>> windows_;  ///< per iteration, scopes left out
};

}  // namespace

std::unique_ptr<BusyTracer> MakeCuptiBusyTracer() { return std::make_unique<CuptiBusyTracer>(); }

}  // namespace gpubench::detail
