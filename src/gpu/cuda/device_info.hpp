// Facts about the device that give a number its meaning, queried once per process.
#pragma once

#include <cstdint>
#include <string>

namespace gpubench::detail {

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

/// "13.0" from 13000.
std::string CudaVersionString(int version);

}  // namespace gpubench::detail
