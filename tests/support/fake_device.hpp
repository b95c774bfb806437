// One device's facts for the tests that build the context block from them (test_context.cpp,
// test_schema.cpp): an H200 as cudaGetDeviceProperties, the driver and NVML describe it.
#pragma once

#include "gpu/cuda/device_info.hpp"

namespace gpubench::testing {

inline detail::DeviceFacts FakeH200() {
  detail::DeviceFacts facts;
  facts.available = true;
  facts.name = "NVIDIA H200";
  facts.compute_capability_major = 9;
  facts.compute_capability_minor = 0;
  facts.sm_count = 132;
  facts.l2_bytes = 62914560;
  facts.sm_clock_rated_mhz = 1980;
  facts.memory_clock_rated_mhz = 3201;
  facts.memory_bus_width_bits = 6144;
  facts.ecc_enabled = true;
  facts.pci_bus_id = "00000000:19:00.0";
  facts.cuda_uuid = "GPU-5f3c2d1e-8a7b-4c6d-9e0f-1a2b3c4d5e6f";
  facts.identity.uuid = {facts.cuda_uuid, ""};
  facts.identity.serial = {"1654123456789", ""};
  facts.identity.vbios_version = {"96.00.AF.00.01", ""};
  facts.identity.driver_version = {"580.95.05", ""};
  facts.driver_version = 13000;
  facts.runtime_version = 13000;
  facts.cupti_api_version = 130001;
  return facts;
}

}  // namespace gpubench::testing
