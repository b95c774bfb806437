// The work signature's lines of copies and sets (cupti_work_lines.hpp).
#include "gpu/cupti/work/cupti_work_lines.hpp"

#include <cuda.h>

#include <cinttypes>
#include <cstdio>
#include <string>

#include "gpu/cuda/driver_entry.hpp"

namespace gpubench::detail {
namespace {

// Through the runtime (driver_entry.hpp): gpubench links no libcuda.
CUresult PointerAttribute(void* value, CUpointer_attribute attribute, CUdeviceptr pointer) {
  static const auto call =
      DriverFunction<decltype(&cuPointerGetAttribute)>("cuPointerGetAttribute");
  return call != nullptr ? call(value, attribute, pointer) : CUDA_ERROR_NOT_SUPPORTED;
}

// Host memory the driver does not know (pageable) or knows as host memory (pinned, mapped).
bool IsHostMemory(CUdeviceptr pointer) {
  unsigned int type = 0;
  if (PointerAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, pointer) != CUDA_SUCCESS) {
    return true;  // not the driver's: pageable host memory
  }
  return type == CU_MEMORYTYPE_HOST;
}

// "copy KIND bytes=N", with the host bytes' hash for a copy from the host.
std::string Copy(const char* kind, CUdeviceptr destination, const void* host_source, size_t bytes) {
  DriverAllocations allocations;
  std::string line = std::string("copy ") + kind + " bytes=" + std::to_string(bytes);
  uint64_t base = 0, size = 0;
  if (destination != 0 && allocations.Find(destination, &base, &size)) {
    line += " to=" + std::to_string(size) + "+" + std::to_string(destination - base);
  }
  if (host_source != nullptr) line += " host=" + HexWord(HashBytes(host_source, bytes));
  return line;
}

template <class Params>
std::string Unified(const void* p) {
  const auto* c = static_cast<const Params*>(p);
  const bool from_host = IsHostMemory(c->src);
  const bool to_host = IsHostMemory(c->dst);
  const char* kind = from_host ? (to_host ? "HtoH" : "HtoD") : (to_host ? "DtoH" : "DtoD");
  return Copy(kind, to_host ? 0 : c->dst,
              from_host ? reinterpret_cast<const void*>(static_cast<uintptr_t>(c->src)) : nullptr,
              c->ByteCount);
}

template <class Params>
std::string Copy2D(const void* p, const char* call) {
  const CUDA_MEMCPY2D* c = static_cast<const Params*>(p)->pCopy;
  if (c == nullptr) return std::string("copy ") + call;
  std::string line = std::string("copy ") + call + " width=" + std::to_string(c->WidthInBytes) +
                     " height=" + std::to_string(c->Height) +
                     " kinds=" + std::to_string(c->srcMemoryType) + "," +
                     std::to_string(c->dstMemoryType);
  if (c->srcMemoryType == CU_MEMORYTYPE_HOST && c->srcHost != nullptr) {
    uint64_t hash = 0;
    for (size_t row = 0; row < c->Height; ++row) {
      hash = HashBytes(static_cast<const char*>(c->srcHost) + row * c->srcPitch, c->WidthInBytes,
                       hash);
    }
    line += " host=" + HexWord(hash);
  }
  return line;
}

template <class Params, class Value>
std::string Set(const void* p, Value Params::*value, const char* element) {
  const auto* s = static_cast<const Params*>(p);
  return std::string("set ") + element + " value=" + std::to_string(s->*value) +
         " count=" + std::to_string(s->N);
}

template <class Params, class Value>
std::string Set2D(const void* p, Value Params::*value, const char* element) {
  const auto* s = static_cast<const Params*>(p);
  return std::string("set2d ") + element + " value=" + std::to_string(s->*value) +
         " width=" + std::to_string(s->Width) + " height=" + std::to_string(s->Height);
}

std::string Line(CUpti_CallbackId id, const CUpti_CallbackData* data, std::string* why) {
  const void* p = data->functionParams;
  switch (id) {
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpy:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpy_ptds:
      return Unified<cuMemcpy_params>(p);
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync_ptsz:
      return Unified<cuMemcpyAsync_params>(p);
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2_ptds: {
      const auto* c = static_cast<const cuMemcpyHtoD_v2_params*>(p);
      return Copy("HtoD", c->dstDevice, c->srcHost, c->ByteCount);
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2_ptsz: {
      const auto* c = static_cast<const cuMemcpyHtoDAsync_v2_params*>(p);
      return Copy("HtoD", c->dstDevice, c->srcHost, c->ByteCount);
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2_ptds:
      return Copy("DtoH", 0, nullptr, static_cast<const cuMemcpyDtoH_v2_params*>(p)->ByteCount);
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2_ptsz:
      return Copy("DtoH", 0, nullptr,
                  static_cast<const cuMemcpyDtoHAsync_v2_params*>(p)->ByteCount);
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoD_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoD_v2_ptds: {
      const auto* c = static_cast<const cuMemcpyDtoD_v2_params*>(p);
      return Copy("DtoD", c->dstDevice, nullptr, c->ByteCount);
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoDAsync_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoDAsync_v2_ptsz: {
      const auto* c = static_cast<const cuMemcpyDtoDAsync_v2_params*>(p);
      return Copy("DtoD", c->dstDevice, nullptr, c->ByteCount);
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpy2D_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpy2D_v2_ptds:
      return Copy2D<cuMemcpy2D_v2_params>(p, "2D");
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpy2DAsync_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpy2DAsync_v2_ptsz:
      return Copy2D<cuMemcpy2DAsync_v2_params>(p, "2D");
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpy2DUnaligned_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpy2DUnaligned_v2_ptds:
      return Copy2D<cuMemcpy2DUnaligned_v2_params>(p, "2D");
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyPeer:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyPeer_ptds:
      return Copy("peer", 0, nullptr, static_cast<const cuMemcpyPeer_params*>(p)->ByteCount);
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyPeerAsync:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyPeerAsync_ptsz:
      return Copy("peer", 0, nullptr, static_cast<const cuMemcpyPeerAsync_params*>(p)->ByteCount);
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD8_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD8_v2_ptds:
      return Set(p, &cuMemsetD8_v2_params::uc, "8");
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD16_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD16_v2_ptds:
      return Set(p, &cuMemsetD16_v2_params::us, "16");
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD32_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD32_v2_ptds:
      return Set(p, &cuMemsetD32_v2_params::ui, "32");
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async:
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async_ptsz:
      return Set(p, &cuMemsetD8Async_params::uc, "8");
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD16Async:
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD16Async_ptsz:
      return Set(p, &cuMemsetD16Async_params::us, "16");
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD32Async:
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD32Async_ptsz:
      return Set(p, &cuMemsetD32Async_params::ui, "32");
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D8_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D8_v2_ptds:
      return Set2D(p, &cuMemsetD2D8_v2_params::uc, "8");
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D16_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D16_v2_ptds:
      return Set2D(p, &cuMemsetD2D16_v2_params::us, "16");
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D32_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D32_v2_ptds:
      return Set2D(p, &cuMemsetD2D32_v2_params::ui, "32");
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D8Async:
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D8Async_ptsz:
      return Set2D(p, &cuMemsetD2D8Async_params::uc, "8");
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D16Async:
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D16Async_ptsz:
      return Set2D(p, &cuMemsetD2D16Async_params::us, "16");
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D32Async:
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D32Async_ptsz:
      return Set2D(p, &cuMemsetD2D32Async_params::ui, "32");
    default: {
      // 3-D and batched copies: their host bytes are not read.
      const std::string name = data->functionName != nullptr ? data->functionName : "?";
      *why = "a " + name + " copy (its bytes are not read)";
      return "call " + name;
    }
  }
}

}  // namespace

bool DriverAllocations::Find(uint64_t address, uint64_t* base, uint64_t* size) {
  // Small values are counts and flags, never addresses: spare the driver the question.
  if (address < (1u << 16)) return false;
  CUdeviceptr start = 0;
  size_t bytes = 0;
  const auto pointer = static_cast<CUdeviceptr>(address);
  if (PointerAttribute(&start, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, pointer) != CUDA_SUCCESS ||
      PointerAttribute(&bytes, CU_POINTER_ATTRIBUTE_RANGE_SIZE, pointer) != CUDA_SUCCESS) {
    return false;
  }
  *base = start;
  *size = bytes;
  return true;
}

std::string HexWord(uint64_t value) {
  char text[20];
  std::snprintf(text, sizeof(text), "%016" PRIx64, value);
  return text;
}

std::string CopyOrSetLine(CUpti_CallbackId id, const CUpti_CallbackData* data, std::string* why) {
  return Line(id, data, why);
}

}  // namespace gpubench::detail
