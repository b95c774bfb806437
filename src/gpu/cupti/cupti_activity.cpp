#include "gpu/cupti/cupti_activity.hpp"

#include <cupti.h>
#include <cxxabi.h>

#include <cctype>
#include <cstdlib>
#include <mutex>

#include "gpu/cupti/cupti_status.hpp"

namespace gpubench::detail {
namespace {

constexpr size_t kBufferBytes = 8 << 20;

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

class ActivitySink {
 public:
  static ActivitySink& Get() {
    static ActivitySink sink;
    return sink;
  }

  void Add(const CUpti_Activity* record) {
    std::lock_guard<std::mutex> lock(mutex_);
    switch (record->kind) {
      case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
        const auto* kernel = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
        records_.gpu.push_back({kernel->correlationId, kernel->start, kernel->end, true,
                                ShortKernelName(kernel->name)});
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const auto* copy = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
        records_.gpu.push_back({copy->correlationId, copy->start, copy->end, false, {}});
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMCPY2: {
        const auto* copy = reinterpret_cast<const CUpti_ActivityMemcpyPtoP4*>(record);
        records_.gpu.push_back({copy->correlationId, copy->start, copy->end, false, {}});
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMSET: {
        const auto* set = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
        records_.gpu.push_back({set->correlationId, set->start, set->end, false, {}});
        break;
      }
      case CUPTI_ACTIVITY_KIND_RUNTIME: {
        const auto* api = reinterpret_cast<const CUpti_ActivityAPI*>(record);
        records_.runtime.push_back({api->correlationId, api->cbid, api->start, api->end});
        break;
      }
      case CUPTI_ACTIVITY_KIND_DRIVER: {
        const auto* api = reinterpret_cast<const CUpti_ActivityAPI*>(record);
        records_.driver.push_back({api->correlationId, api->cbid, api->start, api->end});
        break;
      }
      case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
        const auto* link = reinterpret_cast<const CUpti_ActivityExternalCorrelation*>(record);
        records_.external[static_cast<int>(link->externalKind)][link->correlationId] =
            link->externalId;
        break;
      }
      default:
        break;
    }
  }

  void AddDropped(size_t dropped) {
    std::lock_guard<std::mutex> lock(mutex_);
    records_.dropped += dropped;
  }

  void Take(ActivityRecords* records) {
    std::lock_guard<std::mutex> lock(mutex_);
    *records = std::move(records_);
    records_ = ActivityRecords();
  }

 private:
  std::mutex mutex_;
  ActivityRecords records_;
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

// CUPTI keeps the GPU's timestamps of traced kernels, copies and sets in buffers of its own, by
// default in GPU memory. Traced so, mdspan's left-layout 80^3 sum ran 11% slower than untraced in
// every process; with the buffers in pinned host memory it ran as untraced (docs/accuracy.md "A
// number and what ran before it").
void KeepTimestampBuffersOnHost() {
  uint8_t host_pinned = 1;
  size_t size = sizeof(host_pinned);
  // Refused on confidential-computing GPUs: CUPTI then keeps them in GPU memory, as before.
  (void)cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_MEM_ALLOCATION_TYPE_HOST_PINNED, &size,
                                  &host_pinned);
}

}  // namespace

Status RegisterActivityBuffers() {
  static const Status registered = [] {
    KeepTimestampBuffersOnHost();
    return CuptiStatus(cuptiActivityRegisterCallbacks(BufferRequested, BufferCompleted),
                       "cuptiActivityRegisterCallbacks");
  }();
  return registered;
}

void TakeActivityRecords(ActivityRecords* records) { ActivitySink::Get().Take(records); }

std::string RuntimeCallName(uint32_t callback_id) {
  const char* name = nullptr;
  if (cuptiGetCallbackName(CUPTI_CB_DOMAIN_RUNTIME_API, callback_id, &name) != CUPTI_SUCCESS ||
      name == nullptr) {
    return "runtime call " + std::to_string(callback_id);
  }
  std::string text = name;
  // cudaMalloc_v3020 -> cudaMalloc: the version suffix says nothing to the user.
  const size_t suffix = text.rfind("_v");
  if (suffix != std::string::npos && suffix + 2 < text.size() &&
      std::isdigit(static_cast<unsigned char>(text[suffix + 2]))) {
    text.resize(suffix);
  }
  return text;
}

}  // namespace gpubench::detail
