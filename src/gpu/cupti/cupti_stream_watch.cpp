// The stream watch (backend.hpp) on CUPTI's driver callbacks. The callbacks are on only while a
// watched body runs (the warm-up), so the timed iterations pay nothing for them.
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cupti.h>

#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "gpu/backend.hpp"
#include "gpu/cupti/cupti_attach.hpp"
#include "gpu/cupti/cupti_callbacks.hpp"

namespace gpubench::detail {
namespace {

// Driver calls that enqueue work on the stream in their hStream parameter; the second column
// says whether a null stream means the per-thread default stream (_ptsz variants).
// One call per line; clang-format would reflow these lists differently on each run.
// clang-format off
#define GPUBENCH_STREAM_CALLS(X) \
  X(cuLaunchKernel, false) \
  X(cuLaunchKernel_ptsz, true) \
  X(cuLaunchCooperativeKernel, false) \
  X(cuLaunchCooperativeKernel_ptsz, true) \
  X(cuGraphLaunch, false) \
  X(cuGraphLaunch_ptsz, true) \
  X(cuLaunchHostFunc, false) \
  X(cuLaunchHostFunc_ptsz, true) \
  X(cuMemcpyAsync, false) \
  X(cuMemcpyHtoDAsync_v2, false) \
  X(cuMemcpyHtoDAsync_v2_ptsz, true) \
  X(cuMemcpyDtoHAsync_v2, false) \
  X(cuMemcpyDtoHAsync_v2_ptsz, true) \
  X(cuMemcpyDtoDAsync_v2, false) \
  X(cuMemcpyDtoDAsync_v2_ptsz, true) \
  X(cuMemcpyHtoAAsync_v2, false) \
  X(cuMemcpyHtoAAsync_v2_ptsz, true) \
  X(cuMemcpyAtoHAsync_v2_ptsz, true) \
  X(cuMemcpy2DAsync_v2, false) \
  X(cuMemcpy2DAsync_v2_ptsz, true) \
  X(cuMemcpy3DAsync_v2_ptsz, true) \
  X(cuMemcpyPeerAsync, false) \
  X(cuMemcpyPeerAsync_ptsz, true) \
  X(cuMemcpy3DPeerAsync_ptsz, true) \
  X(cuMemcpyBatchAsync_v2, false) \
  X(cuMemcpyBatchAsync_v2_ptsz, true) \
  X(cuMemsetD8Async_ptsz, true) \
  X(cuMemsetD16Async, false) \
  X(cuMemsetD16Async_ptsz, true) \
  X(cuMemsetD32Async_ptsz, true) \
  X(cuMemsetD2D8Async, false) \
  X(cuMemsetD2D8Async_ptsz, true) \
  X(cuMemsetD2D16Async_ptsz, true) \
  X(cuMemsetD2D32Async, false) \
  X(cuMemsetD2D32Async_ptsz, true) \
  X(cuMemPrefetchAsync_v2, false) \
  X(cuMemPrefetchAsync_v2_ptsz, true) \
  X(cuMemAllocAsync, false) \
  X(cuMemAllocAsync_ptsz, true) \
  X(cuMemFreeAsync, false) \
  X(cuMemFreeAsync_ptsz, true)

// Calls without a stream parameter: they run on the default stream (legacy, or per-thread for
// the _ptds variants).
#define GPUBENCH_DEFAULT_STREAM_CALLS(X) \
  X(cuMemcpy, false) \
  X(cuMemcpy_ptds, true) \
  X(cuMemcpyHtoD_v2, false) \
  X(cuMemcpyHtoD_v2_ptds, true) \
  X(cuMemcpyDtoH_v2, false) \
  X(cuMemcpyDtoH_v2_ptds, true) \
  X(cuMemcpyDtoD_v2, false) \
  X(cuMemcpyDtoD_v2_ptds, true) \
  X(cuMemcpy2D_v2, false) \
  X(cuMemcpy2D_v2_ptds, true) \
  X(cuMemcpy2DUnaligned_v2, false) \
  X(cuMemcpy2DUnaligned_v2_ptds, true) \
  X(cuMemcpy3D_v2, false) \
  X(cuMemcpy3D_v2_ptds, true) \
  X(cuMemcpyPeer, false) \
  X(cuMemcpyPeer_ptds, true) \
  X(cuMemcpy3DPeer, false) \
  X(cuMemcpy3DPeer_ptds, true) \
  X(cuMemsetD8_v2, false) \
  X(cuMemsetD8_v2_ptds, true) \
  X(cuMemsetD16_v2, false) \
  X(cuMemsetD16_v2_ptds, true) \
  X(cuMemsetD32_v2, false) \
  X(cuMemsetD32_v2_ptds, true) \
  X(cuMemsetD2D8_v2, false) \
  X(cuMemsetD2D8_v2_ptds, true) \
  X(cuMemsetD2D16_v2, false) \
  X(cuMemsetD2D16_v2_ptds, true) \
  X(cuMemsetD2D32_v2, false) \
  X(cuMemsetD2D32_v2_ptds, true)
// clang-format on

#define GPUBENCH_CBID(name, per_thread) CUPTI_DRIVER_TRACE_CBID_##name,

const std::vector<CUpti_CallbackId>& WatchedCalls() {
  static const std::vector<CUpti_CallbackId> ids = {
      GPUBENCH_STREAM_CALLS(GPUBENCH_CBID) GPUBENCH_DEFAULT_STREAM_CALLS(GPUBENCH_CBID)
          CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
      CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
      CUPTI_DRIVER_TRACE_CBID_cuStreamCreate,
      CUPTI_DRIVER_TRACE_CBID_cuStreamCreateWithPriority,
      CUPTI_DRIVER_TRACE_CBID_cuStreamDestroy,
      CUPTI_DRIVER_TRACE_CBID_cuStreamDestroy_v2,
      // Calls that wait for GPU work (the hold check can be spared for a body that makes one).
      CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize,
      CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize_v2,
      CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize,
      CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize_ptsz,
      CUPTI_DRIVER_TRACE_CBID_cuEventRecord,
      CUPTI_DRIVER_TRACE_CBID_cuEventRecord_ptsz,
      CUPTI_DRIVER_TRACE_CBID_cuEventRecordWithFlags,
      CUPTI_DRIVER_TRACE_CBID_cuEventRecordWithFlags_ptsz,
      CUPTI_DRIVER_TRACE_CBID_cuEventSynchronize,
  };
  return ids;
}

// The wait a call makes for GPU work, if it is one whose wait is certain: a device-wide or
// stream synchronization, the synchronization of an event the body recorded (its stream from
// `recorded`), or a copy to the host, which returns only once the copy (and the work before it
// on its stream) is done. A query (cuEventQuery, cuStreamQuery) polls and is not one.
bool WaitOfCall(CUpti_CallbackId id, const void* params,
                const std::map<CUevent, StreamHandle>& recorded, StreamWait* wait) {
  switch (id) {
    case CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize:
    case CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize_v2:
      *wait = {"cuCtxSynchronize", 0, true};
      return true;
    case CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize:
      *wait = {"cuStreamSynchronize",
               NormalizeStream(reinterpret_cast<StreamHandle>(
                                   static_cast<const cuStreamSynchronize_params*>(params)->hStream),
                               false),
               false};
      return true;
    case CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize_ptsz:
      *wait = {
          "cuStreamSynchronize",
          NormalizeStream(reinterpret_cast<StreamHandle>(
                              static_cast<const cuStreamSynchronize_ptsz_params*>(params)->hStream),
                          true),
          false};
      return true;
    case CUPTI_DRIVER_TRACE_CBID_cuEventSynchronize: {
      const auto found =
          recorded.find(static_cast<const cuEventSynchronize_params*>(params)->hEvent);
      if (found == recorded.end()) return false;  // recorded before the body: no certain wait
      *wait = {"cuEventSynchronize", found->second, false};
      return true;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2:
      *wait = {"cuMemcpyDtoH_v2", kLegacyStream, false};
      return true;
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2_ptds:
      *wait = {"cuMemcpyDtoH_v2", kPerThreadStream, false};
      return true;
    default:
      return false;
  }
}

// The event and stream of an event record, false for other calls.
template <class Params>
void ReadRecord(const void* params, bool per_thread, CUevent* event, StreamHandle* stream) {
  const auto* record = static_cast<const Params*>(params);
  *event = record->hEvent;
  *stream = NormalizeStream(reinterpret_cast<StreamHandle>(record->hStream), per_thread);
}
bool EventRecord(CUpti_CallbackId id, const void* params, CUevent* event, StreamHandle* stream) {
  switch (id) {
    case CUPTI_DRIVER_TRACE_CBID_cuEventRecord:
      ReadRecord<cuEventRecord_params>(params, false, event, stream);
      return true;
    case CUPTI_DRIVER_TRACE_CBID_cuEventRecord_ptsz:
      ReadRecord<cuEventRecord_ptsz_params>(params, true, event, stream);
      return true;
    case CUPTI_DRIVER_TRACE_CBID_cuEventRecordWithFlags:
      ReadRecord<cuEventRecordWithFlags_params>(params, false, event, stream);
      return true;
    case CUPTI_DRIVER_TRACE_CBID_cuEventRecordWithFlags_ptsz:
      ReadRecord<cuEventRecordWithFlags_ptsz_params>(params, true, event, stream);
      return true;
    default:
      return false;
  }
}

// The stream a work call enqueues on; false for calls that enqueue no work.
bool StreamOfCall(CUpti_CallbackId id, const void* params, StreamHandle* stream) {
  switch (id) {
#define GPUBENCH_STREAM_CASE(name, per_thread)                                              \
  case CUPTI_DRIVER_TRACE_CBID_##name:                                                      \
    *stream = NormalizeStream(                                                              \
        reinterpret_cast<StreamHandle>(static_cast<const name##_params*>(params)->hStream), \
        per_thread);                                                                        \
    return true;
    GPUBENCH_STREAM_CALLS(GPUBENCH_STREAM_CASE)
#undef GPUBENCH_STREAM_CASE
#define GPUBENCH_DEFAULT_CASE(name, per_thread)              \
  case CUPTI_DRIVER_TRACE_CBID_##name:                       \
    *stream = per_thread ? kPerThreadStream : kLegacyStream; \
    return true;
    GPUBENCH_DEFAULT_STREAM_CALLS(GPUBENCH_DEFAULT_CASE)
#undef GPUBENCH_DEFAULT_CASE
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
      const CUlaunchConfig* config = static_cast<const cuLaunchKernelEx_params*>(params)->config;
      *stream =
          NormalizeStream(config != nullptr ? reinterpret_cast<StreamHandle>(config->hStream) : 0,
                          id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz);
      return true;
    }
    default:
      return false;
  }
}

class CuptiStreamWatch final : public StreamWatch {
 public:
  CuptiStreamWatch() {
    callbacks_ = DriverCallbacks::Get(&unavailable_);
    if (callbacks_ != nullptr) callbacks_->AddListener(this, &OnCall);
  }
  ~CuptiStreamWatch() override {
    if (callbacks_ == nullptr) return;
    if (watching_) callbacks_->Enable(WatchedCalls(), false);
    callbacks_->RemoveListener(this);
  }

  std::string UnavailableReason() const override { return unavailable_; }

  void BeginBody() override {
    if (callbacks_ == nullptr) return;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      uses_.clear();
      created_.clear();
      destroyed_.clear();
      waits_.clear();
      recorded_.clear();
      thread_ = std::this_thread::get_id();
      watching_ = true;
    }
    if (!callbacks_->Enable(WatchedCalls(), true)) {
      // Another CUPTI client took the subscription after start: nothing is claimed from now on.
      callbacks_->RemoveListener(this);
      callbacks_ = nullptr;
      unavailable_ = "cuptiSubscribe was refused at a warm-up (another CUPTI client)";
    }
  }

  std::vector<StreamUse> EndBody() override {
    if (callbacks_ == nullptr) return {};
    callbacks_->Enable(WatchedCalls(), false);
    std::lock_guard<std::mutex> lock(mutex_);
    watching_ = false;
    for (StreamUse& use : uses_) {
      if (auto created = created_.find(use.stream); created != created_.end()) {
        use.created_in_body = true;
        use.non_blocking = (created->second & CU_STREAM_NON_BLOCKING) != 0;
      }
      use.destroyed_in_body = destroyed_.count(use.stream) > 0;
    }
    return uses_;
  }

  std::vector<StreamWait> Waits() const override {
    std::lock_guard<std::mutex> lock(mutex_);
    return waits_;
  }

  void AfterBodyFinished() override {
    // cuptiFinalize wants the GPU work of the watched calls done, on every stream.
    cudaDeviceSynchronize();
    CuptiAttachment::DetachIfUnused();
  }

 private:
  static void OnCall(void* self, CUpti_CallbackId id, const CUpti_CallbackData* data) {
    static_cast<CuptiStreamWatch*>(self)->Record(id, data);
  }

  void Record(CUpti_CallbackId id, const CUpti_CallbackData* data) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!watching_) return;
    const void* params = data->functionParams;
    if (id == CUPTI_DRIVER_TRACE_CBID_cuStreamCreate ||
        id == CUPTI_DRIVER_TRACE_CBID_cuStreamCreateWithPriority) {
      if (data->callbackSite != CUPTI_API_EXIT) return;
      const bool plain = id == CUPTI_DRIVER_TRACE_CBID_cuStreamCreate;
      CUstream* created =
          plain ? static_cast<const cuStreamCreate_params*>(params)->phStream
                : static_cast<const cuStreamCreateWithPriority_params*>(params)->phStream;
      const unsigned flags =
          plain ? static_cast<const cuStreamCreate_params*>(params)->Flags
                : static_cast<const cuStreamCreateWithPriority_params*>(params)->flags;
      if (created != nullptr) created_[reinterpret_cast<StreamHandle>(*created)] = flags;
      return;
    }
    if (data->callbackSite != CUPTI_API_ENTER) return;
    if (id == CUPTI_DRIVER_TRACE_CBID_cuStreamDestroy ||
        id == CUPTI_DRIVER_TRACE_CBID_cuStreamDestroy_v2) {
      destroyed_.insert({reinterpret_cast<StreamHandle>(
                             static_cast<const cuStreamDestroy_v2_params*>(params)->hStream),
                         true});
      return;
    }
    if (std::this_thread::get_id() == thread_) {
      CUevent event = nullptr;
      StreamHandle recorded_on = 0;
      if (EventRecord(id, params, &event, &recorded_on)) {
        recorded_[event] = recorded_on;
        return;
      }
      StreamWait wait;
      if (WaitOfCall(id, params, recorded_, &wait)) waits_.push_back(wait);
    }
    StreamHandle stream = 0;
    if (!StreamOfCall(id, params, &stream)) return;
    StreamUse* use = nullptr;
    for (StreamUse& known : uses_) {
      if (known.stream == stream) use = &known;
    }
    if (use == nullptr) {
      uses_.emplace_back();
      use = &uses_.back();
      use->stream = stream;
      use->first_call = data->functionName != nullptr ? data->functionName : "a driver call";
    }
    ++use->calls;
    if (std::this_thread::get_id() != thread_) use->other_thread = true;
  }

  DriverCallbacks* callbacks_ = nullptr;
  std::string unavailable_;
  mutable std::mutex mutex_;
  bool watching_ = false;
  std::thread::id thread_;
  std::vector<StreamUse> uses_;
  std::map<StreamHandle, unsigned> created_;
  std::map<StreamHandle, bool> destroyed_;
  std::vector<StreamWait> waits_;
  std::map<CUevent, StreamHandle> recorded_;  // events the body recorded, and on which stream
};

}  // namespace

std::unique_ptr<StreamWatch> MakeCuptiStreamWatch() { return std::make_unique<CuptiStreamWatch>(); }

}  // namespace gpubench::detail
