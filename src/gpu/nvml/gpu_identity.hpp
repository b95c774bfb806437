// The physical GPU's identity through NVML: its UUID, serial and VBIOS, and the driver's full
// version; what tells two GPUs of one kind, and two drivers of one CUDA version, apart.
#pragma once

#include <string>

#include "gpu/cuda/device_info.hpp"
#include "gpu/nvml/nvml_library.hpp"

namespace gpubench::detail {

/// NVML's text queries for one device, as NVML's C ABI has them (a null function: this NVML lacks
/// it). ReadGpuIdentity fills them from the driver's NVML; tests fill them with fakes.
struct NvmlIdentityQueries {
  std::string unavailable_reason;  ///< why NVML can tell nothing ("" when it can)
  NvmlDevice device = nullptr;
  NvmlReturn (*uuid)(NvmlDevice, char*, unsigned) = nullptr;
  NvmlReturn (*serial)(NvmlDevice, char*, unsigned) = nullptr;
  NvmlReturn (*vbios_version)(NvmlDevice, char*, unsigned) = nullptr;
  NvmlReturn (*driver_version)(char*, unsigned) = nullptr;
};

/// The identity these queries give. The UUID is NVML's, else `cuda_uuid` (DeviceFacts::cuda_uuid,
/// the same bytes in the same format) where NVML does not give it; each other value not given
/// says why.
GpuIdentity IdentityFromQueries(const NvmlIdentityQueries& nvml, const std::string& cuda_uuid);

/// The identity of the device with this PCI bus id, from the driver's NVML (loaded at run time).
/// Never fails: without NVML the UUID is `cuda_uuid` and the other values say why they are unknown.
GpuIdentity ReadGpuIdentity(const std::string& pci_bus_id, const std::string& cuda_uuid);

}  // namespace gpubench::detail
