// The GPU's temperature, power and clock-event reasons (why the driver holds the clocks below
// their maximum), read through NVML: what explains a clock that dropped between two runs.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gpubench/counters.hpp"

namespace gpubench::detail {

/// NVML's clock-event reason bits (nvmlClocksEventReason*), as its ABI has them; their names are
/// gpubench::kClockEventReasons (counters.hpp).
inline constexpr uint64_t kClockEventGpuIdle = 0x1;
inline constexpr uint64_t kClockEventApplicationsClocks = 0x2;
inline constexpr uint64_t kClockEventSwPowerCap = 0x4;
inline constexpr uint64_t kClockEventHwSlowdown = 0x8;
inline constexpr uint64_t kClockEventSyncBoost = 0x10;
inline constexpr uint64_t kClockEventSwThermalSlowdown = 0x20;
inline constexpr uint64_t kClockEventHwThermalSlowdown = 0x40;
inline constexpr uint64_t kClockEventHwPowerBrake = 0x80;
inline constexpr uint64_t kClockEventDisplayClock = 0x100;
/// The reasons that lower the clock for heat or power: the vocabulary's mask.
using gpubench::kClockEventsOfHeatOrPower;
static_assert(kClockEventsOfHeatOrPower ==
                  (kClockEventSwPowerCap | kClockEventHwSlowdown | kClockEventSwThermalSlowdown |
                   kClockEventHwThermalSlowdown | kClockEventHwPowerBrake),
              "NVML's heat and power bits and the vocabulary's mask agree");

/// One reading of the device.
struct ThermalSample {
  bool known = false;          ///< false: NVML could not tell (unknown_reason says why)
  std::string unknown_reason;  ///< e.g. "libnvidia-ml.so.1 (the driver's NVML) not found"
  double temperature_c = 0;    ///< GPU core temperature
  double power_w = -1;         ///< board power draw now; -1 when NVML does not say
  double energy_j = -1;        ///< energy since the driver loaded; -1 when NVML does not say
  bool reasons_known = false;
  uint64_t clock_event_reasons = 0;  ///< kClockEvent* bits active now
};

/// The narrow interface the loop uses; tests install a fake. Sample() is called from one thread
/// at a time (the watch's, or the loop's between watches).
class ThermalMonitor {
 public:
  virtual ~ThermalMonitor() = default;
  virtual ThermalSample Sample() = 0;
};

/// NVML's view of the device with this PCI bus id. Never null: without NVML every sample is
/// unknown, with the reason.
std::unique_ptr<ThermalMonitor> MakeNvmlThermalMonitor(const std::string& pci_bus_id);

}  // namespace gpubench::detail
