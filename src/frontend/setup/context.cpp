#include "frontend/setup/context.hpp"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <memory>

#include "common/format.hpp"
#include "config/metric_groups.hpp"
#include "config/run_plan.hpp"
#include "gpubench/version.hpp"
#include "measure/timing/cache_strategy.hpp"
#include "schema/context_keys.hpp"
#include "schema/counter_table.hpp"

namespace gpubench::detail {
namespace {

std::string FormatDouble(double value, int decimals) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.*f", decimals, value);
  return buffer;
}

}  // namespace

std::vector<std::string> ActiveGroupNames(const Settings& settings) {
  std::vector<std::string> names;
  for (const MetricGroup& group : MetricGroups()) {
    if (GroupActive(group, settings.metrics)) names.emplace_back(group.name);
  }
  return names;
}

std::string FlopMethod() {
  return "flop_count_<p> = add + mul + 2 x fma thread instructions executed with predicate on "
         "(sm__sass_thread_inst_executed_op_{d,f,h}{add,mul,fma}_pred_on.sum), per profiled "
         "iteration; tensor-core instructions are not counted (tensor_pipe_pct shows their "
         "pipe's activity instead); flop_rate = flop_count / gpu_duration; peak of precision p "
         "= 2 x sm__sass_thread_inst_executed_op_<p>fma_pred_on.sum.peak_sustained (per cycle, "
         "all SMs) x sm__cycles_elapsed.avg.per_second (the clock measured in the profiled "
         "ranges); flop_rate_peak = flop_count / sum_p(flop_count_<p> / peak_p) (FP32's peak "
         "without FP work); flop_rate_pct = 100 x flop_rate / flop_rate_peak; "
         "arithmetic_intensity = flop_count / bytes_moved (DRAM)";
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
  const std::vector<std::string> groups = ActiveGroupNames(settings);
  auto group_on = [&](std::string_view group) {
    return std::find(groups.begin(), groups.end(), group) != groups.end();
  };
  for (const CounterInfo& counter : kCounters) {
    const std::string_view name = counter.name;
    if (name == counter::kRealTime || name == counter::kCpuTime) continue;  // GB's, not counters
    // One value per run: the instance's profiling session (its metrics and the busy
    // measurement) gives them, so without the profiler there are none.
    const bool from_profiler = counter.measured == Measured::kPerRun;
    if (from_profiler && !profiling) continue;
    if (!counter.group.empty() && !group_on(counter.group)) continue;
    if (name.back() == '/') {
      if (!PerKernelTimes(settings)) continue;
      add(std::string(name) + "*", counter.unit, counter.better);
      continue;
    }
    add(name, counter.unit, counter.better);
  }
  if (profiling) {
    std::vector<std::string> in_groups;  // written as the groups' counters, not by name
    for (const MetricGroup& group : MetricGroups()) {
      if (group_on(group.name))
        in_groups.insert(in_groups.end(), group.metrics.begin(), group.metrics.end());
    }
    for (const std::string& metric : settings.metrics) {
      if (FindCounter(metric) != nullptr) continue;
      if (std::find(in_groups.begin(), in_groups.end(), metric) != in_groups.end()) continue;
      bool renamed = false;
      for (const CounterInfo& counter : kCounters) {
        renamed |= counter.source_metric == metric && counter.group.empty();
      }
      if (renamed) continue;
      auto unit = metric_units.find(metric);
      add(metric, unit == metric_units.end() ? "-" : unit->second, Better::kNeither);
    }
  }
  return out;
}

std::string StreamWatchDescription(const std::string& unavailable_reason) {
  if (unavailable_reason.empty()) {
    return "on: CUPTI driver callbacks during the warm-up show every stream the body puts GPU "
           "work on (kernels, copies, memsets, graph and host-function launches); each timed "
           "span waits for all of them (fork and join with events, counter streams_joined)";
  }
  return "unavailable: " + unavailable_reason +
         "; only work on the timed stream (and what it orders with) is inside the GPU time, and "
         "a row whose GPU time is below 25% of its profiled duration (and 100 us below it) is "
         "refused";
}

KeyValues DeviceContext(const DeviceFacts& facts) {
  KeyValues keys;
  keys.push_back({context_key::kGpuStatus,
                  facts.available ? "ok" : "unavailable: " + facts.unavailable_reason});
  if (facts.available) {
    keys.push_back({context_key::kGpuName, facts.name});
    keys.push_back(
        {context_key::kGpuComputeCapability, std::to_string(facts.compute_capability_major) + "." +
                                                 std::to_string(facts.compute_capability_minor)});
    keys.push_back({context_key::kGpuSmCount, std::to_string(facts.sm_count)});
    keys.push_back({context_key::kGpuL2Bytes, std::to_string(facts.l2_bytes)});
    keys.push_back({context_key::kGpuSmClockRatedMhz, FormatDouble(facts.sm_clock_rated_mhz, 0)});
    keys.push_back(
        {context_key::kGpuMemoryClockRatedMhz, FormatDouble(facts.memory_clock_rated_mhz, 0)});
    keys.push_back(
        {context_key::kGpuMemoryBusWidthBits, std::to_string(facts.memory_bus_width_bits)});
    keys.push_back({context_key::kGpuDramBandwidthTheoretical,
                    FormatDouble(facts.DramBandwidthBytesPerSecond(), 0)});
    keys.push_back({context_key::kGpuEcc, facts.ecc_enabled ? "on" : "off"});
    keys.push_back({context_key::kGpuPciBusId, facts.pci_bus_id});
    // Identity, not settings: which GPU, firmware and driver ran; never fingerprinted.
    const auto identity = [](const IdentityValue& value) {
      if (!value.value.empty()) return value.value;
      return "unknown: " + (value.unknown_reason.empty() ? "not read" : value.unknown_reason);
    };
    keys.push_back({context_key::kGpuUuid, identity(facts.identity.uuid)});
    keys.push_back({context_key::kGpuSerial, identity(facts.identity.serial)});
    keys.push_back({context_key::kGpuVbiosVersion, identity(facts.identity.vbios_version)});
    keys.push_back({context_key::kGpuDriverVersion, identity(facts.identity.driver_version)});
  } else {
    keys.push_back({context_key::kGpuName, "none"});
  }
  return keys;
}

KeyValues BuildContext(const Settings& settings, const DeviceFacts& facts,
                       const std::string& profiler_status,
                       const std::map<std::string, std::string>& metric_units,
                       const std::string& gpu_sharing, std::optional<int> tagged_device,
                       const std::string& stream_watch_unavailable) {
  KeyValues context = {{context_key::kVersion, kVersion}};
  KeyValues fingerprinted = FingerprintedSettings(settings);
  std::string keys;
  for (const auto& entry : fingerprinted) {
    // The values are exactly those hashed, so a reader can recompute the fingerprint.
    context.push_back(entry);
    keys += (keys.empty() ? "" : ",") + entry.first;
  }
  const std::unique_ptr<CacheStrategy> cache = MakeCacheStrategy(settings);
  const KeyValues cache_keys = cache->Describe(facts);
  context.insert(context.end(), cache_keys.begin(), cache_keys.end());
  CommandLine line;
  line.settings = settings;
  for (const SettingRow& row : SettingRows()) {
    const std::string key = context_key::kGpubenchPrefix + std::string(row.name);
    // A setting fingerprinted only at some values (device_order) is written once either way.
    const bool written = std::any_of(fingerprinted.begin(), fingerprinted.end(),
                                     [&](const auto& entry) { return entry.first == key; });
    if (row.in_context && !written) context.push_back({key, row.print(line)});
  }
  if (!settings.stopping_note.empty()) {
    context.push_back({context_key::kStoppingNote, settings.stopping_note});
  }
  context.push_back({context_key::kProfiler, profiler_status});
  context.push_back({context_key::kStreamWatch, StreamWatchDescription(stream_watch_unavailable)});
  // Groups expand into metric names (fingerprinted in gpubench_metrics); this names them.
  const std::vector<std::string> groups = ActiveGroupNames(settings);
  std::string group_list;
  for (const auto& group : groups) group_list += (group_list.empty() ? "" : ",") + group;
  const bool profiling = settings.profile_iterations > 0;
  context.push_back(
      {context_key::kMetricGroups, profiling && !groups.empty() ? group_list : "none"});
  if (profiling && std::find(groups.begin(), groups.end(), "flops") != groups.end()) {
    context.push_back({context_key::kFlopMethod, FlopMethod()});
  }
  // The hold check is a second untimed iteration (gpubench_launch_hold); a body the warm-up saw
  // wait for the GPU has none.
  context.push_back({context_key::kWarmupIterations,
                     cache->HoldCheck() ? "2 (1 for a body that waits for the GPU)" : "1"});
  context.push_back({context_key::kGpuSharing, gpu_sharing});
  context.push_back({context_key::kSettingsFingerprint, SettingsFingerprint(settings)});
  context.push_back({context_key::kFingerprintKeys, keys});
  context.push_back({context_key::kCounterUnits, CounterUnits(settings, metric_units)});

  KeyValues device = DeviceContext(facts);
  context.insert(context.end(), device.begin(), device.end());
  if (tagged_device) {
    // One device of a --gpubench_devices run: its facts again under its own ordinal, so the
    // merged context of every device's run holds each device's facts.
    context.push_back({context_key::kDevices, std::to_string(*tagged_device)});
    const std::string prefix = context_key::kGpuPrefix + std::to_string(*tagged_device) + "_";
    for (const auto& [key, value] : device) {
      context.push_back({prefix + key.substr(sizeof(context_key::kGpuPrefix) - 1), value});
    }
  }
  context.push_back({context_key::kCudaDriverVersion, CudaVersionString(facts.driver_version)});
  context.push_back({context_key::kCudaRuntimeVersion, CudaVersionString(facts.runtime_version)});
  context.push_back({context_key::kCudaCuptiApiVersion, std::to_string(facts.cupti_api_version)});
  return context;
}

KeyValues ThermalContext(const ThermalSample& at_start) {
  if (!at_start.known) {
    return {{context_key::kGpuThermal,
             "unavailable: " + at_start.unknown_reason +
                 "; no temperature, power or clock-event counters (thermal=wait does not wait)"}};
  }
  std::string start = FormatValue(at_start.temperature_c, CounterUnit::kCelsius);
  if (at_start.power_w >= 0) start += ", " + FormatValue(at_start.power_w, CounterUnit::kWatts);
  if (at_start.reasons_known) {
    start += ", clock-event reasons " + DescribeClockEventReasons(at_start.clock_event_reasons);
  }
  return {{context_key::kGpuThermal,
           "NVML, read on a thread of its own as each call's timed iterations begin, 10 ms later "
           "and every 100 ms while they run, and once after they end: gpu_temp_start_c and "
           "gpu_temp_end_c, gpu_power_w (the energy "
           "counter over the span, or the mean of the power readings for spans under 50 ms), "
           "clock_event_reasons (every reason seen, gpu_idle left out); at start " +
               start}};
}

KeyValues SignatureContext(const ReuseState& reuse, const std::string& unavailable, bool device) {
  KeyValues keys;
  std::string covers =
      "set-up and first body of each instance: each kernel's own machine code (with the device "
      "functions it calls and the initialised data it reads), grid, block, cluster, dynamic "
      "shared memory and argument bytes (a device address as its allocation's size and the "
      "offset in it); each copy's direction and size, with a hash of the host bytes copied from "
      "pageable or pinned memory; each set's size and value; a graph's nodes as read at its "
      "instantiation; the settings fingerprint, GPU UUID, driver and method version. Not seen: "
      "memory the host writes and the GPU reads without a copy (pinned, mapped, managed), data "
      "made on the host and never copied, the host's own code and timing, other processes";
  if (!reuse.signing) {
    covers = "not recorded: --gpubench_signature=off";
  } else if (!device) {
    covers = "none: no usable CUDA device";
  } else if (!unavailable.empty()) {
    covers = "none: " + unavailable;
  }
  keys.emplace_back(context_key::kSignatureCovers, covers);
  if (reuse.on) {
    keys.emplace_back(context_key::kReuseSource,
                      reuse.source ? reuse.source->Describe() : "none: " + reuse.source_error);
  }
  return keys;
}

}  // namespace gpubench::detail
