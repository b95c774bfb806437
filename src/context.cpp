#include "context.hpp"

#include <algorithm>
#include <cinttypes>
#include <cstdio>

#include "gpubench/counters.hpp"
#include "gpubench/version.hpp"

namespace gpubench::detail {
namespace {

std::string FormatDouble(double value, int decimals) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.*f", decimals, value);
  return buffer;
}

}  // namespace

std::string FlushMethodDescription(const Settings& settings, int64_t flush_bytes) {
  if (settings.cache == CachePolicy::kKeep) return "none (cache=keep)";
  return "l2_read_evict: a read-only kernel streams " +
         (flush_bytes > 0 ? std::to_string(flush_bytes) + " bytes" : std::string("a buffer")) +
         " (2x L2) before each iteration, outside the timed region; it writes nothing, so no "
         "dirty lines are left to be written back inside the next iteration";
}

std::string CounterUnits(const Settings& settings,
                         const std::map<std::string, std::string>& metric_units) {
  const bool profiling = settings.profile_iterations > 0;
  // Units and names never hold ';', '=' or ':'; CUPTI's units are made safe to be sure.
  auto safe = [](std::string text) {
    for (char& c : text) {
      if (c == ';' || c == '=' || c == ':' || c == ',') c = '_';
    }
    return text.empty() ? std::string("-") : text;
  };
  std::string out;
  auto add = [&](std::string_view name, std::string_view unit, Better better) {
    out += (out.empty() ? "" : ";") + std::string(name) + "=" + safe(std::string(unit)) + ":" +
           std::string(BetterName(better));
  };
  for (const CounterInfo& counter : kCounters) {
    const std::string_view name = counter.name;
    if (name == "real_time" || name == "cpu_time") continue;  // GB's fields, not counters
    const bool from_profiler = !counter.source_metric.empty() || name == "bytes_moved" ||
                               name == "dram_bandwidth" || name == "dram_bandwidth_pct" ||
                               name == "profile_passes";
    if (from_profiler && !profiling) continue;
    if (name.back() == '/') {
      if (settings.timer != Timer::kCupti) continue;
      add(std::string(name) + "*", counter.unit, counter.better);
      continue;
    }
    add(name, counter.unit, counter.better);
  }
  if (profiling) {
    for (const std::string& metric : settings.metrics) {
      if (FindCounter(metric) != nullptr) continue;
      bool renamed = false;
      for (const CounterInfo& counter : kCounters) renamed |= counter.source_metric == metric;
      if (renamed) continue;
      auto unit = metric_units.find(metric);
      add(metric, unit == metric_units.end() ? "-" : unit->second, Better::kNeither);
    }
  }
  return out;
}

KeyValues DeviceContext(const DeviceFacts& facts) {
  KeyValues keys;
  keys.push_back(
      {"gpu_status", facts.available ? "ok" : "unavailable: " + facts.unavailable_reason});
  if (facts.available) {
    keys.push_back({"gpu_name", facts.name});
    keys.push_back({"gpu_compute_capability", std::to_string(facts.compute_capability_major) + "." +
                                                  std::to_string(facts.compute_capability_minor)});
    keys.push_back({"gpu_sm_count", std::to_string(facts.sm_count)});
    keys.push_back({"gpu_l2_bytes", std::to_string(facts.l2_bytes)});
    keys.push_back({"gpu_sm_clock_rated_mhz", FormatDouble(facts.sm_clock_rated_mhz, 0)});
    keys.push_back({"gpu_memory_clock_rated_mhz", FormatDouble(facts.memory_clock_rated_mhz, 0)});
    keys.push_back({"gpu_memory_bus_width_bits", std::to_string(facts.memory_bus_width_bits)});
    keys.push_back({"gpu_dram_bandwidth_theoretical_bytes_per_second",
                    FormatDouble(facts.DramBandwidthBytesPerSecond(), 0)});
    keys.push_back({"gpu_ecc", facts.ecc_enabled ? "on" : "off"});
    keys.push_back({"gpu_pci_bus_id", facts.pci_bus_id});
  } else {
    keys.push_back({"gpu_name", "none"});
  }
  return keys;
}

KeyValues BuildContext(const Settings& settings, const DeviceFacts& facts,
                       const std::string& profiler_status,
                       const std::map<std::string, std::string>& metric_units,
                       const std::string& gpu_sharing, std::optional<int> tagged_device) {
  KeyValues context = {{"gpubench_version", kVersion}};
  KeyValues fingerprinted = FingerprintedSettings(settings);
  std::string keys;
  for (const auto& entry : fingerprinted) {
    // The values are exactly those hashed, so a reader can recompute the fingerprint.
    context.push_back(entry);
    keys += (keys.empty() ? "" : ",") + entry.first;
  }
  context.push_back(
      {"gpubench_flush_description",
       FlushMethodDescription(settings, facts.available ? FlushBytes(facts.l2_bytes) : 0)});
  CommandLine line;
  line.settings = settings;
  for (const SettingRow& row : SettingRows()) {
    if (row.in_context) context.push_back({"gpubench_" + std::string(row.name), row.print(line)});
  }
  context.push_back({"gpubench_profiler", profiler_status});
  context.push_back({"gpubench_warmup_iterations", "1"});
  context.push_back({"gpubench_gpu_sharing", gpu_sharing});
  context.push_back({std::string(kSettingsFingerprintKey), SettingsFingerprint(settings)});
  context.push_back({std::string(kFingerprintKeysKey), keys});
  context.push_back({std::string(kCounterUnitsKey), CounterUnits(settings, metric_units)});

  KeyValues device = DeviceContext(facts);
  context.insert(context.end(), device.begin(), device.end());
  if (tagged_device) {
    // One device of a --gpubench_devices run: its facts again under its own ordinal, so the
    // merged context of every device's run holds each device's facts.
    context.push_back({"gpubench_devices", std::to_string(*tagged_device)});
    const std::string prefix = "gpu_" + std::to_string(*tagged_device) + "_";
    for (const auto& [key, value] : device) context.push_back({prefix + key.substr(4), value});
  }
  context.push_back({"cuda_driver_version", CudaVersionString(facts.driver_version)});
  context.push_back({"cuda_runtime_version", CudaVersionString(facts.runtime_version)});
  context.push_back({"cuda_cupti_api_version", std::to_string(facts.cupti_api_version)});
  return context;
}

}  // namespace gpubench::detail
