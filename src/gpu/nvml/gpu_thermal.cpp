#include "gpu/nvml/gpu_thermal.hpp"

#include "gpu/nvml/nvml_library.hpp"

namespace gpubench::detail {
namespace {

constexpr unsigned kNvmlTemperatureGpu = 0;  // NVML_TEMPERATURE_GPU

class NvmlThermalMonitor final : public ThermalMonitor {
 public:
  explicit NvmlThermalMonitor(const std::string& pci_bus_id) : nvml_(pci_bus_id) {
    temperature_ =
        nvml_.Symbol<NvmlReturn (*)(NvmlDevice, unsigned, unsigned*)>("nvmlDeviceGetTemperature");
    power_ = nvml_.Symbol<NvmlReturn (*)(NvmlDevice, unsigned*)>("nvmlDeviceGetPowerUsage");
    energy_ = nvml_.Symbol<NvmlReturn (*)(NvmlDevice, unsigned long long*)>(
        "nvmlDeviceGetTotalEnergyConsumption");
    // Renamed in CUDA 12.2's NVML ("throttle" became "event"); the old name is kept as an alias.
    reasons_ = nvml_.Symbol<NvmlReturn (*)(NvmlDevice, unsigned long long*)>(
        "nvmlDeviceGetCurrentClocksEventReasons");
    if (!reasons_) {
      reasons_ = nvml_.Symbol<NvmlReturn (*)(NvmlDevice, unsigned long long*)>(
          "nvmlDeviceGetCurrentClocksThrottleReasons");
    }
    if (nvml_.device() == nullptr) {
      reason_ = nvml_.reason();
    } else if (!temperature_) {
      reason_ = "libnvidia-ml.so.1 lacks nvmlDeviceGetTemperature";
    }
  }

  ThermalSample Sample() override {
    ThermalSample sample;
    if (!reason_.empty()) {
      sample.unknown_reason = reason_;
      return sample;
    }
    unsigned celsius = 0;
    if (NvmlReturn result = temperature_(nvml_.device(), kNvmlTemperatureGpu, &celsius);
        result != kNvmlSuccess) {
      sample.unknown_reason =
          "nvmlDeviceGetTemperature failed (NVML error " + std::to_string(result) + ")";
      return sample;
    }
    sample.known = true;
    sample.temperature_c = celsius;
    unsigned milliwatts = 0;
    if (power_ && power_(nvml_.device(), &milliwatts) == kNvmlSuccess) {
      sample.power_w = milliwatts * 1e-3;
    }
    unsigned long long millijoules = 0;
    if (energy_ && energy_(nvml_.device(), &millijoules) == kNvmlSuccess) {
      sample.energy_j = static_cast<double>(millijoules) * 1e-3;
    }
    unsigned long long reasons = 0;
    if (reasons_ && reasons_(nvml_.device(), &reasons) == kNvmlSuccess) {
      sample.reasons_known = true;
      sample.clock_event_reasons = reasons;
    }
    return sample;
  }

 private:
  NvmlLibrary nvml_;
  std::string reason_;  ///< why every sample is unknown; "" when NVML can tell
  NvmlReturn (*temperature_)(NvmlDevice, unsigned, unsigned*) = nullptr;
  NvmlReturn (*power_)(NvmlDevice, unsigned*) = nullptr;
  NvmlReturn (*energy_)(NvmlDevice, unsigned long long*) = nullptr;
  NvmlReturn (*reasons_)(NvmlDevice, unsigned long long*) = nullptr;
};

}  // namespace

std::unique_ptr<ThermalMonitor> MakeNvmlThermalMonitor(const std::string& pci_bus_id) {
  return std::make_unique<NvmlThermalMonitor>(pci_bus_id);
}

}  // namespace gpubench::detail
