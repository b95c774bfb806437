// The busy measurement (backend.hpp): in untimed iterations, CUPTI activity records of the GPU's
// own work (kernels, memcpy, memset) and of the host's CUDA runtime calls, tied to each
// iteration through an external correlation id pushed before the body and popped after it.
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
#include "gpu/cuda_status.hpp"
#include "gpu/cupti_activity.hpp"
#include "gpu/cupti_attach.hpp"
#include "gpu/cupti_status.hpp"

namespace gpubench::detail {
namespace {

// CUSTOM0 is timer=cupti's: both may be on in one process (profile_process=same).
constexpr CUpti_ExternalCorrelationKind kIterationKind = CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM1;

constexpr CUpti_ActivityKind kKinds[] = {
    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMCPY2,
    CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION,
    // External correlation records are made for API records, so the API kinds must be on.
    CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_ACTIVITY_KIND_DRIVER};

// The length of the union of [start, end) intervals.
uint64_t UnionLength(std::vector<std::pair<uint64_t, uint64_t>> intervals) {
  std::sort(intervals.begin(), intervals.end());
  uint64_t total = 0, covered_to = 0;
  for (const auto& [start, end] : intervals) {
    if (end <= covered_to) continue;
    total += end - std::max(start, covered_to);
    covered_to = end;
  }
  return total;
}

class CuptiBusyTracer final : public BusyTracer {
 public:
  CuptiBusyTracer() {
    const char* injection = std::getenv("CUDA_INJECTION64_PATH");
    if (injection != nullptr && *injection != '\0') {
      unavailable_ = "another CUDA tool traces this process (CUDA_INJECTION64_PATH is set)";
    }
  }
  ~CuptiBusyTracer() override { Stop(); }

  std::string UnavailableReason() const override { return unavailable_; }

  Status Start() override {
    ActivityRecords stale;
    TakeActivityRecords(&stale);
    iterations_ = 0;
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

  Status BeginIteration() override { return Push(); }
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
    const auto& iteration_of = records.external[kIterationKind];
    std::vector<std::vector<std::pair<uint64_t, uint64_t>>> intervals(iterations_);
    for (const GpuActivity& work : records.gpu) {
      const auto link = iteration_of.find(work.correlation);
      if (link == iteration_of.end() || link->second >= iterations_) continue;
      intervals[link->second].emplace_back(work.start, work.end);
    }
    uint64_t busy = 0;
    size_t items = 0;
    for (auto& iteration : intervals) {
      items += iteration.size();
      busy += UnionLength(std::move(iteration));
    }
    std::map<uint32_t, std::pair<int, uint64_t>> by_call;  // callback id -> calls, ns
    for (const RuntimeCall& call : records.runtime) {
      const auto link = iteration_of.find(call.correlation);
      if (link == iteration_of.end() || link->second >= iterations_) continue;
      auto& [count, nanoseconds] = by_call[call.callback_id];
      ++count;
      nanoseconds += call.end > call.start ? call.end - call.start : 0;
    }
    const double n = static_cast<double>(iterations_);
    measure->iterations = static_cast<int>(iterations_);
    measure->busy_seconds = static_cast<double>(busy) * 1e-9 / n;
    measure->work_items = static_cast<double>(items) / n;
    for (const auto& [id, totals] : by_call) {
      measure->calls.push_back(
          {RuntimeCallName(id), totals.first / n, static_cast<double>(totals.second) * 1e-9 / n});
    }
    std::sort(measure->calls.begin(), measure->calls.end(),
              [](const HostCall& a, const HostCall& b) { return a.seconds > b.seconds; });
    return Status::Ok();
  }

 private:
  Status Push() {
    return CuptiStatus(cuptiActivityPushExternalCorrelationId(kIterationKind, iterations_),
                       "cuptiActivityPushExternalCorrelationId");
  }
  Status Pop() {
    uint64_t id = 0;
    return CuptiStatus(cuptiActivityPopExternalCorrelationId(kIterationKind, &id),
                       "cuptiActivityPopExternalCorrelationId");
  }
  void Stop() {
    if (!enabled_) return;
    for (CUpti_ActivityKind kind : kKinds) cuptiActivityDisable(kind);
    enabled_ = false;
  }

  std::string unavailable_;
  bool enabled_ = false;
  uint64_t iterations_ = 0;
};

}  // namespace

std::unique_ptr<BusyTracer> MakeCuptiBusyTracer() { return std::make_unique<CuptiBusyTracer>(); }

}  // namespace gpubench::detail
