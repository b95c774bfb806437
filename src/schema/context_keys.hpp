// The keys of the context block gpubench writes (GB's "context" in JSON, the console's header),
// spelled once for the library that writes them and the tools that read them; what each value
// holds is in docs/user_guide.md "Context block". The lowest layer (schema/): header-only and
// constexpr.
#pragma once

#include <cstddef>
#include <string_view>

namespace gpubench {

/// Every key of the table below. Character arrays, so that they stand wherever a literal stood
/// (std::string, std::string_view, map keys, nlohmann::json's value()).
namespace context_key {
// The prefixes: every key starts with one of them; a --gpubench_devices run repeats each gpu_*
// key of device N as gpu_<N>_*; a setting written to the context is gpubench_<setting>.
inline constexpr char kGpubenchPrefix[] = "gpubench_";
inline constexpr char kGpuPrefix[] = "gpu_";
inline constexpr char kCudaPrefix[] = "cuda_";

inline constexpr char kVersion[] = "gpubench_version";
inline constexpr char kMethodVersion[] = "gpubench_method_version";
inline constexpr char kTimer[] = "gpubench_timer";
inline constexpr char kCache[] = "gpubench_cache";
inline constexpr char kFlushMethod[] = "gpubench_flush_method";
inline constexpr char kLaunchHold[] = "gpubench_launch_hold";
inline constexpr char kClockControl[] = "gpubench_clock_control";
inline constexpr char kProfiling[] = "gpubench_profiling";
inline constexpr char kMetrics[] = "gpubench_metrics";
inline constexpr char kProfileProcess[] = "gpubench_profile_process";
inline constexpr char kDeviceOrder[] = "gpubench_device_order";
inline constexpr char kThermal[] = "gpubench_thermal";
inline constexpr char kStoppingRule[] = "gpubench_stopping_rule";
inline constexpr char kProfileIterations[] = "gpubench_profile_iterations";
inline constexpr char kProfileRuns[] = "gpubench_profile_runs";
inline constexpr char kDevice[] = "gpubench_device";
inline constexpr char kExclusive[] = "gpubench_exclusive";
inline constexpr char kSignature[] = "gpubench_signature";
inline constexpr char kStopping[] = "gpubench_stopping";
inline constexpr char kPrecision[] = "gpubench_precision";
inline constexpr char kMinSamples[] = "gpubench_min_samples";
inline constexpr char kMinSeconds[] = "gpubench_min_seconds";
inline constexpr char kMaxSeconds[] = "gpubench_max_seconds";
inline constexpr char kFlushDescription[] = "gpubench_flush_description";
inline constexpr char kLaunchHoldDescription[] = "gpubench_launch_hold_description";
inline constexpr char kStoppingNote[] = "gpubench_stopping_note";
inline constexpr char kProfiler[] = "gpubench_profiler";
inline constexpr char kStreamWatch[] = "gpubench_stream_watch";
inline constexpr char kMetricGroups[] = "gpubench_metric_groups";
inline constexpr char kFlopMethod[] = "gpubench_flop_method";
inline constexpr char kWarmupIterations[] = "gpubench_warmup_iterations";
inline constexpr char kGpuSharing[] = "gpubench_gpu_sharing";
inline constexpr char kSettingsFingerprint[] = "gpubench_settings_fingerprint";
inline constexpr char kFingerprintKeys[] = "gpubench_fingerprint_keys";
inline constexpr char kCounterUnits[] = "gpubench_counter_units";
inline constexpr char kDevices[] = "gpubench_devices";
inline constexpr char kGpuThermal[] = "gpubench_gpu_thermal";
inline constexpr char kGpuBusy[] = "gpubench_gpu_busy";
inline constexpr char kHostCalls[] = "gpubench_host_calls";
inline constexpr char kSignatureCovers[] = "gpubench_signature_covers";
inline constexpr char kReuseSource[] = "gpubench_reuse_source";
inline constexpr char kGpuStatus[] = "gpu_status";
inline constexpr char kGpuName[] = "gpu_name";
inline constexpr char kGpuComputeCapability[] = "gpu_compute_capability";
inline constexpr char kGpuSmCount[] = "gpu_sm_count";
inline constexpr char kGpuL2Bytes[] = "gpu_l2_bytes";
inline constexpr char kGpuSmClockRatedMhz[] = "gpu_sm_clock_rated_mhz";
inline constexpr char kGpuMemoryClockRatedMhz[] = "gpu_memory_clock_rated_mhz";
inline constexpr char kGpuMemoryBusWidthBits[] = "gpu_memory_bus_width_bits";
inline constexpr char kGpuDramBandwidthTheoretical[] =
    "gpu_dram_bandwidth_theoretical_bytes_per_second";
inline constexpr char kGpuEcc[] = "gpu_ecc";
inline constexpr char kGpuPciBusId[] = "gpu_pci_bus_id";
inline constexpr char kGpuUuid[] = "gpu_uuid";
inline constexpr char kGpuSerial[] = "gpu_serial";
inline constexpr char kGpuVbiosVersion[] = "gpu_vbios_version";
inline constexpr char kGpuDriverVersion[] = "gpu_driver_version";
inline constexpr char kCudaDriverVersion[] = "cuda_driver_version";
inline constexpr char kCudaRuntimeVersion[] = "cuda_runtime_version";
inline constexpr char kCudaCuptiApiVersion[] = "cuda_cupti_api_version";
}  // namespace context_key

/// Where a key's name and value come from.
enum class ContextWriter {
  kContext,        ///< the context block's own (frontend/setup/context.cpp)
  kSettingsTable,  ///< a setting (config/settings_table.cpp): its fingerprint entries, or the
                   ///< setting itself as gpubench_<name> where its row says in_context
  kDevices,        ///< the merge of a --gpubench_devices run's files (frontend/setup/devices.cpp)
};

struct ContextKeyInfo {
  std::string_view key;
  ContextWriter writer;
  std::string_view meaning;
};

inline constexpr ContextKeyInfo kContextKeys[] = {
    {context_key::kVersion, ContextWriter::kContext, "this library's version"},
    {context_key::kMethodVersion, ContextWriter::kSettingsTable,
     "bumped when the measurement method changes a number's meaning (fingerprinted)"},
    {context_key::kTimer, ContextWriter::kSettingsTable, "--gpubench_timer (fingerprinted)"},
    {context_key::kCache, ContextWriter::kSettingsTable, "--gpubench_cache (fingerprinted)"},
    {context_key::kFlushMethod, ContextWriter::kSettingsTable,
     "l2_read_evict (cache=flush) or none (fingerprinted)"},
    {context_key::kLaunchHold, ContextWriter::kSettingsTable,
     "hold_kernel (cache=flush) or none: how each timed body is launched (fingerprinted)"},
    {context_key::kClockControl, ContextWriter::kSettingsTable, "none (fingerprinted)"},
    {context_key::kProfiling, ContextWriter::kSettingsTable, "on or off (fingerprinted)"},
    {context_key::kMetrics, ContextWriter::kSettingsTable,
     "the sorted metric names, none when profiling is off (fingerprinted)"},
    {context_key::kProfileProcess, ContextWriter::kSettingsTable,
     "child or same (none when profiling is off): where the metrics were profiled "
     "(fingerprinted)"},
    {context_key::kDeviceOrder, ContextWriter::kSettingsTable,
     "one_at_a_time or all_at_once (fingerprinted when all_at_once)"},
    {context_key::kThermal, ContextWriter::kSettingsTable,
     "none or wait:MARGIN_C (fingerprinted when wait)"},
    {context_key::kStoppingRule, ContextWriter::kSettingsTable,
     "the stopping rule in effect, with its settings (fingerprinted)"},
    {context_key::kProfileIterations, ContextWriter::kSettingsTable,
     "--gpubench_profile_iterations"},
    {context_key::kProfileRuns, ContextWriter::kSettingsTable, "--gpubench_profile_runs"},
    {context_key::kDevice, ContextWriter::kSettingsTable, "--gpubench_device"},
    {context_key::kExclusive, ContextWriter::kSettingsTable, "--gpubench_exclusive"},
    {context_key::kSignature, ContextWriter::kSettingsTable,
     "--gpubench_signature: on (each row carries work_signature) or off"},
    {context_key::kStopping, ContextWriter::kSettingsTable, "--gpubench_stopping"},
    {context_key::kPrecision, ContextWriter::kSettingsTable, "--gpubench_precision"},
    {context_key::kMinSamples, ContextWriter::kSettingsTable, "--gpubench_min_samples"},
    {context_key::kMinSeconds, ContextWriter::kSettingsTable, "--gpubench_min_seconds"},
    {context_key::kMaxSeconds, ContextWriter::kSettingsTable, "--gpubench_max_seconds"},
    {context_key::kFlushDescription, ContextWriter::kContext,
     "how the flush is done, with its size in bytes"},
    {context_key::kLaunchHoldDescription, ContextWriter::kContext,
     "what the launch hold does, and what happens to a body that waits for the GPU"},
    {context_key::kStoppingNote, ContextWriter::kContext,
     "present where GB's rule was kept although stopping=precision was asked for: why"},
    {context_key::kProfiler, ContextWriter::kContext, "on: ..., off: ... or unavailable: ..."},
    {context_key::kStreamWatch, ContextWriter::kContext,
     "on: ... (how the body's streams are found and joined) or unavailable: ..."},
    {context_key::kMetricGroups, ContextWriter::kContext,
     "the metric groups whose metrics the run collects, or none"},
    {context_key::kFlopMethod, ContextWriter::kContext,
     "with +flops only: how the FLOP counters, the peak and the intensity are computed"},
    {context_key::kWarmupIterations, ContextWriter::kContext,
     "untimed iterations before the timed ones: the warm-up and, with cache=flush, the hold "
     "check, which a body the warm-up saw wait for the GPU does not need"},
    {context_key::kGpuSharing, ContextWriter::kContext,
     "what NVML saw on the device at start, or unknown: ..."},
    {context_key::kSettingsFingerprint, ContextWriter::kContext,
     "16 hex digits: FNV-1a 64 of the sorted key=value lines of the keys in "
     "gpubench_fingerprint_keys"},
    {context_key::kFingerprintKeys, ContextWriter::kContext,
     "the keys whose values are hashed into gpubench_settings_fingerprint"},
    {context_key::kCounterUnits, ContextWriter::kContext,
     "name=unit:better;... for every counter the run can write (prefix entries end in /*)"},
    {context_key::kDevices, ContextWriter::kDevices,
     "--gpubench_devices only: the devices whose rows the file holds (a device's own run "
     "writes its ordinal, frontend/setup/context.cpp)"},
    {context_key::kGpuThermal, ContextWriter::kContext,
     "how the temperature, power and clock-event counters are read, or unavailable: ..."},
    {context_key::kGpuBusy, ContextWriter::kContext,
     "how gpu_busy_time was measured, or not measured: ..."},
    {context_key::kSignatureCovers, ContextWriter::kContext,
     "what counter work_signature covers, and what it cannot see"},
    {context_key::kReuseSource, ContextWriter::kContext,
     "with --gpubench_reuse: the source run (file, date, commit) or why none is used"},
    {context_key::kHostCalls, ContextWriter::kContext,
     "per instance, the CUDA runtime calls of the loop body: INSTANCE=NAME:COUNT:SECONDS,...;..."},
    {context_key::kGpuStatus, ContextWriter::kContext, "ok or unavailable: <CUDA error>"},
    {context_key::kGpuName, ContextWriter::kContext, "device name, none without a device"},
    {context_key::kGpuComputeCapability, ContextWriter::kContext, "MAJOR.MINOR"},
    {context_key::kGpuSmCount, ContextWriter::kContext, "streaming multiprocessors"},
    {context_key::kGpuL2Bytes, ContextWriter::kContext, "L2 cache size"},
    {context_key::kGpuSmClockRatedMhz, ContextWriter::kContext,
     "rated SM clock (cudaDevAttrClockRate)"},
    {context_key::kGpuMemoryClockRatedMhz, ContextWriter::kContext,
     "rated memory clock (cudaDevAttrMemoryClockRate)"},
    {context_key::kGpuMemoryBusWidthBits, ContextWriter::kContext, "memory bus width"},
    {context_key::kGpuDramBandwidthTheoretical, ContextWriter::kContext,
     "2 x memory clock x bus width / 8"},
    {context_key::kGpuEcc, ContextWriter::kContext, "on or off"},
    {context_key::kGpuPciBusId, ContextWriter::kContext, "the device's PCI bus id"},
    {context_key::kGpuUuid, ContextWriter::kContext,
     "the physical GPU: GPU-<hex> from NVML, else the CUDA runtime's (identity, not "
     "fingerprinted), or unknown: ..."},
    {context_key::kGpuSerial, ContextWriter::kContext,
     "the board's serial number from NVML (identity), or unknown: ..."},
    {context_key::kGpuVbiosVersion, ContextWriter::kContext,
     "the VBIOS version from NVML (identity), or unknown: ..."},
    {context_key::kGpuDriverVersion, ContextWriter::kContext,
     "the driver's full version from NVML, e.g. 580.95.05 (identity), or unknown: ..."},
    {context_key::kCudaDriverVersion, ContextWriter::kContext, "none without a driver"},
    {context_key::kCudaRuntimeVersion, ContextWriter::kContext, "the CUDA runtime's version"},
    {context_key::kCudaCuptiApiVersion, ContextWriter::kContext, "CUPTI's API version"},
};

/// The table's entry for a key, or nullptr. A key gpu_<N>_* of a --gpubench_devices run is
/// looked up as its gpu_* key.
constexpr const ContextKeyInfo* FindContextKey(std::string_view key) {
  const std::string_view gpu = context_key::kGpuPrefix;
  if (key.substr(0, gpu.size()) == gpu) {
    std::size_t digits = gpu.size();
    while (digits < key.size() && key[digits] >= '0' && key[digits] <= '9') ++digits;
    if (digits > gpu.size() && digits < key.size() && key[digits] == '_') {
      for (const ContextKeyInfo& info : kContextKeys) {
        if (info.key.substr(0, gpu.size()) == gpu &&
            info.key.substr(gpu.size()) == key.substr(digits + 1)) {
          return &info;
        }
      }
      return nullptr;
    }
  }
  for (const ContextKeyInfo& info : kContextKeys) {
    if (info.key == key) return &info;
  }
  return nullptr;
}

namespace schema_detail {
constexpr bool ContextKeysAreUniqueAndPrefixed() {
  constexpr std::size_t kKeys = sizeof(kContextKeys) / sizeof(kContextKeys[0]);
  for (std::size_t i = 0; i < kKeys; ++i) {
    const std::string_view key = kContextKeys[i].key;
    const bool prefixed = key.substr(0, 9) == context_key::kGpubenchPrefix ||
                          key.substr(0, 4) == context_key::kGpuPrefix ||
                          key.substr(0, 5) == context_key::kCudaPrefix;
    if (!prefixed) return false;
    for (std::size_t j = i + 1; j < kKeys; ++j) {
      if (key == kContextKeys[j].key) return false;
    }
  }
  return true;
}
}  // namespace schema_detail
static_assert(schema_detail::ContextKeysAreUniqueAndPrefixed(),
              "a key of kContextKeys is there twice, or starts with none of the prefixes");

}  // namespace gpubench
