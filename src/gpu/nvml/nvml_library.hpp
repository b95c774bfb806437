// The driver's NVML, loaded at run time (libnvidia-ml.so.1; the toolkit has no NVML header), with
// the device of one PCI bus id: what gpu_sharing.cpp and gpu_thermal.cpp read through.
#pragma once

#include <dlfcn.h>

#include <string>

namespace gpubench::detail {

/// NVML's return code (nvmlReturn_t) and device handle, as NVML's ABI has them.
using NvmlReturn = int;
inline constexpr NvmlReturn kNvmlSuccess = 0;
inline constexpr NvmlReturn kNvmlNotSupported = 3;
inline constexpr NvmlReturn kNvmlInsufficientSize = 7;
using NvmlDevice = struct NvmlDeviceOpaque*;

/// Loads and initialises NVML and finds the device. Each user holds its own (NVML counts its
/// initialisations); the library itself stays loaded, since NVML's threads may outlive shutdown.
class NvmlLibrary {
 public:
  explicit NvmlLibrary(const std::string& pci_bus_id);
  ~NvmlLibrary();
  NvmlLibrary(const NvmlLibrary&) = delete;
  NvmlLibrary& operator=(const NvmlLibrary&) = delete;

  /// The device, or null with reason() saying why (no library, too old, unknown device).
  NvmlDevice device() const { return device_; }
  const std::string& reason() const { return reason_; }

  /// An NVML entry point by name; null when this driver's NVML lacks it.
  template <class Function>
  Function Symbol(const char* name) const {
    return library_ == nullptr ? nullptr : reinterpret_cast<Function>(::dlsym(library_, name));
  }

 private:
  void* library_ = nullptr;
  bool initialized_ = false;
  NvmlDevice device_ = nullptr;
  std::string reason_;
};

}  // namespace gpubench::detail
