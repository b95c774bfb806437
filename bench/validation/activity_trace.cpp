// A tracer that shares no code with gpubench: a CUDA injection library
// (CUDA_INJECTION64_PATH=libgpubench_activity_trace.so) that writes every kernel, memcpy and
// memset the process runs, with CUPTI's start and end times, to the CSV file named by
// ACTIVITY_TRACE_OUT. bench/validation/sync_crosscheck.py reads it to check gpu_busy_time's memcpy
// and memset part, which Nsight Compute does not time (docs/user_guide.md "Benchmarks that
// synchronise"). Run the traced binary with metrics off: CUPTI takes one set of activity
// callbacks per process, and gpubench's busy measurement would replace these.
// ACTIVITY_TRACE_KIND=none makes it a CUDA tool that traces nothing: gpubench then stands its own
// CUPTI tracing down, as under any tool. ACTIVITY_TRACE_HOST_PINNED=1 keeps CUPTI's timestamp
// buffers in pinned host memory instead of the GPU's (both for docs/accuracy.md "A number and what
// ran before it"). ACTIVITY_TRACE_KIND=memory traces only the process's GPU memory allocations
// and frees, which run no code on the GPU: rows "alloc"/"free" whose name is the address in hex
// and whose bytes are the size (where the suite's arrays land in a gpubench process and a plain
// one). ACTIVITY_TRACE_KIND=subscribe takes CUPTI's one callback subscription and enables nothing,
// so gpubench's stream watch cannot subscribe; ACTIVITY_TRACE_KIND=callbacks also enables every
// driver API callback, with a callback that does nothing, as gpubench's stream watch does.
#include <cupti.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

namespace {

std::FILE* out = nullptr;
std::mutex out_mutex;
constexpr size_t kBufferBytes = 8 << 20;

const char* CopyKindName(uint8_t kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
      return "HtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
      return "DtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD:
      return "DtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH:
      return "HtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP:
      return "PtoP";
    default:
      return "other";
  }
}

// Kernel names may hold commas (template arguments); the CSV quotes them.
void WriteRow(const char* kind, const std::string& name, unsigned long long bytes,
              unsigned long long start, unsigned long long end, unsigned stream) {
  std::string quoted = "\"";
  for (char c : name) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  quoted += '"';
  std::fprintf(out, "%s,%s,%llu,%llu,%llu,%u\n", kind, quoted.c_str(), bytes, start, end, stream);
}

void CUPTIAPI BufferRequested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
  *size = *buffer != nullptr ? kBufferBytes : 0;
  *max_records = 0;
}

void CUPTIAPI BufferCompleted(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  std::lock_guard<std::mutex> lock(out_mutex);
  CUpti_Activity* record = nullptr;
  while (out != nullptr && cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    switch (record->kind) {
      case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
      case CUPTI_ACTIVITY_KIND_KERNEL: {
        const auto* kernel = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
        WriteRow("kernel", kernel->name != nullptr ? kernel->name : "?", 0, kernel->start,
                 kernel->end, kernel->streamId);
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const auto* copy = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
        WriteRow("memcpy", CopyKindName(copy->copyKind), copy->bytes, copy->start, copy->end,
                 copy->streamId);
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMSET: {
        const auto* set = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
        WriteRow("memset", "memset", set->bytes, set->start, set->end, set->streamId);
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMORY2: {
        const auto* memory = reinterpret_cast<const CUpti_ActivityMemory4*>(record);
        const bool release =
            memory->memoryOperationType == CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE;
        char address[32];
        std::snprintf(address, sizeof(address), "0x%llx",
                      static_cast<unsigned long long>(memory->address));
        WriteRow(release ? "free" : "alloc", address, memory->bytes, memory->timestamp,
                 memory->timestamp, memory->streamId);
        break;
      }
      default:
        break;
    }
  }
  std::free(buffer);
}

void FlushAtExit() {
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  std::lock_guard<std::mutex> lock(out_mutex);
  if (out != nullptr) std::fclose(out);
  out = nullptr;
}

void CUPTIAPI IgnoreCallback(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void*) {}

}  // namespace

extern "C" int InitializeInjection() {
  const char* kind_name = std::getenv("ACTIVITY_TRACE_KIND");
  if (kind_name != nullptr && std::strcmp(kind_name, "none") == 0) return 1;
  const bool subscribe = kind_name != nullptr && std::strcmp(kind_name, "subscribe") == 0;
  const bool callbacks = kind_name != nullptr && std::strcmp(kind_name, "callbacks") == 0;
  if (subscribe || callbacks) {
    static CUpti_SubscriberHandle subscriber = nullptr;
    bool ok = cuptiSubscribe(&subscriber, IgnoreCallback, nullptr) == CUPTI_SUCCESS;
    if (ok && callbacks) {
      ok = cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API) == CUPTI_SUCCESS;
    }
    if (!ok) std::fprintf(stderr, "activity_trace: CUPTI refused the subscription\n");
    return 1;
  }
  const char* pinned = std::getenv("ACTIVITY_TRACE_HOST_PINNED");
  if (pinned != nullptr && std::strcmp(pinned, "1") == 0) {
    uint8_t host_pinned = 1;
    size_t size = sizeof(host_pinned);
    if (cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_MEM_ALLOCATION_TYPE_HOST_PINNED, &size,
                                  &host_pinned) != CUPTI_SUCCESS) {
      std::fprintf(stderr, "activity_trace: CUPTI refused host-pinned buffers\n");
    }
  }
  const char* path = std::getenv("ACTIVITY_TRACE_OUT");
  if (path == nullptr || *path == '\0') {
    std::fprintf(stderr, "activity_trace: set ACTIVITY_TRACE_OUT to the CSV file to write\n");
    return 0;
  }
  out = std::fopen(path, "w");
  if (out == nullptr) {
    std::fprintf(stderr, "activity_trace: cannot write %s: %s\n", path, std::strerror(errno));
    return 0;
  }
  std::fprintf(out, "kind,name,bytes,start_ns,end_ns,stream\n");
  bool ok = cuptiActivityRegisterCallbacks(BufferRequested, BufferCompleted) == CUPTI_SUCCESS;
  // ACTIVITY_TRACE_KIND=kernel: CUPTI's serialized kernel records instead of the concurrent
  // ones, for which CUPTI instruments every kernel's code.
  const bool serialized = kind_name != nullptr && std::strcmp(kind_name, "kernel") == 0;
  const bool memory_only = kind_name != nullptr && std::strcmp(kind_name, "memory") == 0;
  const CUpti_ActivityKind kernels =
      serialized ? CUPTI_ACTIVITY_KIND_KERNEL : CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  if (memory_only) {
    ok = ok && cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMORY2) == CUPTI_SUCCESS;
  } else {
    for (CUpti_ActivityKind kind :
         {kernels, CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMSET}) {
      ok = ok && cuptiActivityEnable(kind) == CUPTI_SUCCESS;
    }
  }
  if (!ok) std::fprintf(stderr, "activity_trace: CUPTI refused the activity tracing\n");
  std::atexit(FlushAtExit);
  return 1;
}
