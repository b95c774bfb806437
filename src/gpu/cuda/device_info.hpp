// Facts about the device that give a number its meaning, queried once per process.
#pragma once

#include <cstdint>
#include <string>

namespace gpubench::detail {

/// One value of the GPU's identity, or why it is not known.
struct IdentityValue {
  std::string value;           ///< "" when not known
  std::string unknown_reason;  ///< why not, when value is ""
};

/// Which physical GPU ran the benchmarks, with its firmware and driver: two GPUs of one kind are
/// not the same GPU. Identity, not a setting: never part of the settings fingerprint.
struct GpuIdentity {
  IdentityValue uuid;            ///< "GPU-xxxxxxxx-xxxx-...": NVML's, else the CUDA runtime's
  IdentityValue serial;          ///< the board's serial number (NVML)
  IdentityValue vbios_version;   ///< the VBIOS version (NVML)
  IdentityValue driver_version;  ///< the driver's full version, e.g. "580.95.05" (NVML)
};

struct DeviceFacts {
  bool available = false;
  std::string unavailable_reason;  ///< the CUDA error that made the device unusable
  int ordinal = 0;
  std::string name;
  int compute_capability_major = 0;
  int compute_capability_minor = 0;
  int sm_count = 0;
  int64_t l2_bytes = 0;
  double sm_clock_rated_mhz = 0;
  double memory_clock_rated_mhz = 0;
  int memory_bus_width_bits = 0;
  bool ecc_enabled = false;
  std::string pci_bus_id;
  std::string cuda_uuid;    ///< cudaDeviceProp::uuid as FormatGpuUuid writes it; "" when all zero
  GpuIdentity identity;     ///< read where the context is written (ReadGpuIdentity), not here
  int driver_version = 0;   ///< e.g. 13000 for 13.0 (0 when no driver)
  int runtime_version = 0;  ///< e.g. 13000
  uint32_t cupti_api_version = 0;

  /// Double data rate over the full bus: 2 x memory clock x bus width / 8 (bytes per second).
  double DramBandwidthBytesPerSecond() const {
    return 2.0 * memory_clock_rated_mhz * 1e6 * memory_bus_width_bits / 8.0;
  }
};

/// Queries the CUDA runtime (and CUPTI's version); a missing driver or device gives
/// available = false with the reason, never a failure.
DeviceFacts QueryDeviceFacts(int ordinal);

/// Whether a CUDA device may be there, without asking the driver (cuInit takes about 0.1 s): the
/// driver's control device /dev/nvidiactl exists and CUDA_VISIBLE_DEVICES does not hide every
/// device. QueryDeviceFacts says for certain.
bool CudaDriverPresent();

/// Whether a CUDA context already exists for device `ordinal`, before gpubench made one: the
/// device's primary context is active (the runtime's, made by cudaSetDevice, cudaFree(0), a
/// kernel or an allocation, from any CUDA runtime in the process, a static one included), or
/// the calling thread has a current context (one made with the driver API). Asks the driver
/// without creating a context; false where it cannot tell (no driver, no such device).
bool ContextExistsBeforeGpubench(int ordinal);

/// The 16 bytes of a GPU's UUID as NVML and nvidia-smi write them:
/// "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" (lower-case hex); "" when all 16 are zero.
std::string FormatGpuUuid(const unsigned char (&bytes)[16]);

/// "13.0" from 13000.
std::string CudaVersionString(int version);

}  // namespace gpubench::detail
