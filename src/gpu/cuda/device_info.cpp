#include "gpu/cuda/device_info.hpp"

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cupti.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "common/environment.hpp"
#include "gpu/cuda/cuda_status.hpp"
#include "gpu/cuda/driver_entry.hpp"

namespace gpubench::detail {

std::string CudaVersionString(int version) {
  if (version <= 0) return "none";
  return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

std::string FormatGpuUuid(const unsigned char (&bytes)[16]) {
  bool all_zero = true;
  for (unsigned char byte : bytes) all_zero &= byte == 0;
  if (all_zero) return "";
  std::string text = "GPU-";
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) text += '-';
    char hex[3];
    std::snprintf(hex, sizeof(hex), "%02x", bytes[i]);
    text += hex;
  }
  return text;
}

bool CudaDriverPresent() {
  if (::access("/dev/nvidiactl", F_OK) != 0) return false;
  const char* visible = VisibleCudaDevicesVariable();
  if (visible == nullptr) return true;
  const std::string devices = visible;
  return !devices.empty() && devices != "-1" && devices != "NoDevFiles";
}

bool ContextExistsBeforeGpubench(int ordinal) {
  using Init = CUresult (*)(unsigned);
  using DeviceGet = CUresult (*)(CUdevice*, int);
  using PrimaryState = CUresult (*)(CUdevice, unsigned*, int*);
  using CurrentContext = CUresult (*)(CUcontext*);
  const auto init = DriverFunction<Init>("cuInit");
  const auto device_get = DriverFunction<DeviceGet>("cuDeviceGet");
  const auto primary_state = DriverFunction<PrimaryState>("cuDevicePrimaryCtxGetState");
  const auto current = DriverFunction<CurrentContext>("cuCtxGetCurrent");
  if (init == nullptr || device_get == nullptr || primary_state == nullptr ||
      init(0) != CUDA_SUCCESS) {
    return false;
  }
  CUdevice device = 0;
  unsigned flags = 0;
  int active = 0;
  if (device_get(&device, ordinal) == CUDA_SUCCESS &&
      primary_state(device, &flags, &active) == CUDA_SUCCESS && active != 0) {
    return true;
  }
  CUcontext context = nullptr;
  return current != nullptr && current(&context) == CUDA_SUCCESS && context != nullptr;
}

DeviceFacts QueryDeviceFacts(int ordinal) {
  DeviceFacts facts;
  facts.ordinal = ordinal;
  cudaRuntimeGetVersion(&facts.runtime_version);
  cudaDriverGetVersion(&facts.driver_version);  // 0 without a driver
  cuptiGetVersion(&facts.cupti_api_version);

  int count = 0;
  Status status = CudaStatus(cudaGetDeviceCount(&count), "cudaGetDeviceCount");
  if (!status.ok()) {
    facts.unavailable_reason = status.message();
    return facts;
  }
  if (ordinal >= count) {
    facts.unavailable_reason = "device " + std::to_string(ordinal) +
                               " does not exist: " + std::to_string(count) +
                               " CUDA device(s), ordinals 0.." + std::to_string(count - 1);
    return facts;
  }
  cudaDeviceProp prop{};
  status = CudaStatus(cudaGetDeviceProperties(&prop, ordinal), "cudaGetDeviceProperties");
  if (!status.ok()) {
    facts.unavailable_reason = status.message();
    return facts;
  }
  facts.name = prop.name;
  facts.compute_capability_major = prop.major;
  facts.compute_capability_minor = prop.minor;
  facts.sm_count = prop.multiProcessorCount;
  facts.l2_bytes = prop.l2CacheSize;
  facts.memory_bus_width_bits = prop.memoryBusWidth;
  facts.ecc_enabled = prop.ECCEnabled != 0;
  // CUDA 13 removed the clock rates from cudaDeviceProp; the attributes remain (kHz).
  int sm_khz = 0;
  int memory_khz = 0;
  cudaDeviceGetAttribute(&sm_khz, cudaDevAttrClockRate, ordinal);
  cudaDeviceGetAttribute(&memory_khz, cudaDevAttrMemoryClockRate, ordinal);
  facts.sm_clock_rated_mhz = sm_khz / 1000.0;
  facts.memory_clock_rated_mhz = memory_khz / 1000.0;
  char bus_id[32] = {};
  if (cudaDeviceGetPCIBusId(bus_id, sizeof(bus_id), ordinal) == cudaSuccess) {
    facts.pci_bus_id = bus_id;
  }
  unsigned char uuid[16];
  static_assert(sizeof(prop.uuid.bytes) == sizeof(uuid), "cudaUUID_t holds 16 bytes");
  std::memcpy(uuid, prop.uuid.bytes, sizeof(uuid));
  facts.cuda_uuid = FormatGpuUuid(uuid);
  facts.available = true;
  return facts;
}

}  // namespace gpubench::detail
