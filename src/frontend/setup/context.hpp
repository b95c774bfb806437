// The context block: every setting and device fact that gives gpubench's numbers their meaning.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "config/settings_table.hpp"
#include "gpu/cuda/device_info.hpp"
#include "gpu/nvml/gpu_thermal.hpp"
#include "gpu/plan/flush.hpp"
#include "gpubench/settings.hpp"
#include "measure/reuse/call_reuse.hpp"

namespace gpubench::detail {

/// Everything gpubench adds to GB's context block, in a fixed order: the fingerprinted settings,
/// the other rows of the settings table marked in_context, run facts, the device's facts.
/// `profiler_status`: "on: ..." / "off: ..." / "unavailable: ..." (see docs/user_guide.md).
/// `metric_units`: CUPTI's unit of each configured metric (Profiler::MetricUnits).
/// `gpu_sharing`: what NVML saw on the device at start (gpubench_gpu_sharing).
/// `tagged_device`: the ordinal of one device of a --gpubench_devices run; its facts are written
/// twice, as gpu_* and as gpu_<ordinal>_*, with gpubench_devices=<ordinal>.
/// `stream_watch_unavailable`: why the body's streams cannot be watched ("" when they can).
KeyValues BuildContext(const Settings& settings, const DeviceFacts& facts,
                       const std::string& profiler_status,
                       const std::map<std::string, std::string>& metric_units = {},
                       const std::string& gpu_sharing = "unknown: not checked",
                       std::optional<int> tagged_device = std::nullopt,
                       const std::string& stream_watch_unavailable = "");

/// gpubench_gpu_thermal: how the temperature, power and clock-event counters are read, with the
/// reading `at_start` (before any benchmark), or why there are none.
KeyValues ThermalContext(const ThermalSample& at_start);

/// The work signature's keys: what it covers (or why no call is signed: `unavailable`, the
/// recorder's reason, or no `device`), and with --gpubench_reuse the source run.
KeyValues SignatureContext(const ReuseState& reuse, const std::string& unavailable, bool device);

/// The gpubench_stream_watch context value.
std::string StreamWatchDescription(const std::string& unavailable_reason);

/// The device's facts as gpu_* context keys (gpu_status, gpu_name, ... gpu_pci_bus_id), then its
/// identity (gpu_uuid, gpu_serial, gpu_vbios_version, gpu_driver_version: a value or
/// "unknown: <why>"); without a device gpu_status and gpu_name only.
KeyValues DeviceContext(const DeviceFacts& facts);

/// The metric groups (metric_groups.hpp) whose metrics `settings` collects, in table order.
std::vector<std::string> ActiveGroupNames(const Settings& settings);

/// gpubench_flop_method: how the flops group's counters are computed.
std::string FlopMethod();

/// gpubench_counter_units: "name=unit:better;..." for every counter a run with these settings
/// can write: the vocabulary's (kernel_time/* with timer=cupti, metric counters when profiling
/// is on, a group's counters when its metrics are collected) and each metric added by name
/// (not through a group) with CUPTI's unit ("-" when unknown) and "neither".
std::string CounterUnits(const Settings& settings,
                         const std::map<std::string, std::string>& metric_units);

}  // namespace gpubench::detail
