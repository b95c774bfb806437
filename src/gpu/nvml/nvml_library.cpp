#include "gpu/nvml/nvml_library.hpp"

namespace gpubench::detail {

NvmlLibrary::NvmlLibrary(const std::string& pci_bus_id) {
  library_ = ::dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (library_ == nullptr) {
    reason_ = "libnvidia-ml.so.1 (the driver's NVML) not found";
    return;
  }
  auto init = Symbol<NvmlReturn (*)()>("nvmlInit_v2");
  auto by_bus =
      Symbol<NvmlReturn (*)(const char*, NvmlDevice*)>("nvmlDeviceGetHandleByPciBusId_v2");
  if (!init || !by_bus) {
    reason_ =
        "libnvidia-ml.so.1 lacks nvmlInit_v2 or nvmlDeviceGetHandleByPciBusId_v2 (driver too old)";
    return;
  }
  if (NvmlReturn result = init(); result != kNvmlSuccess) {
    reason_ = "nvmlInit_v2 failed (NVML error " + std::to_string(result) + ")";
    return;
  }
  initialized_ = true;
  if (NvmlReturn result = by_bus(pci_bus_id.c_str(), &device_); result != kNvmlSuccess) {
    reason_ = "NVML does not know the device at PCI bus id " + pci_bus_id + " (NVML error " +
              std::to_string(result) + ")";
    device_ = nullptr;
  }
}

NvmlLibrary::~NvmlLibrary() {
  if (!initialized_) return;
  if (auto shutdown = Symbol<NvmlReturn (*)()>("nvmlShutdown")) shutdown();
}

}  // namespace gpubench::detail
