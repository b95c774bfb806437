// The settings check: the files' settings fingerprints and the keys behind them, the device
// facts (gpu_*, cuda_*) that differ, and the physical GPU (gpu_uuid).
#include "tools/gate/settings_check.hpp"

#include <set>
#include <string_view>
#include <utility>

#include "schema/context_keys.hpp"

namespace gpubench::tools {
namespace {

constexpr std::string_view kFingerprintKey = context_key::kSettingsFingerprint;

std::vector<std::string> SplitKeyList(const std::string& list) {
  std::vector<std::string> keys;
  std::size_t start = 0;
  while (start <= list.size()) {
    std::size_t comma = list.find(',', start);
    if (comma == std::string::npos) comma = list.size();
    std::string key = list.substr(start, comma - start);
    key.erase(0, key.find_first_not_of(" \t"));
    key.erase(key.find_last_not_of(" \t") + 1);
    if (!key.empty()) keys.push_back(std::move(key));
    start = comma + 1;
  }
  return keys;
}

std::optional<std::string> OptionalValue(const BenchmarkFile& file, std::string_view key) {
  const std::string* value = file.ContextValue(key);
  return value ? std::optional<std::string>(*value) : std::nullopt;
}

// The fact a gpu_* key names, without the device's prefix: "uuid" of gpu_uuid and gpu_1_uuid;
// "" for a key that is not a device fact.
std::string_view GpuFact(std::string_view key) {
  const ContextKeyInfo* info = FindContextKey(key);
  const std::string_view gpu = context_key::kGpuPrefix;
  if (info == nullptr || info->key.substr(0, gpu.size()) != gpu) return "";
  return info->key.substr(gpu.size());
}

// The key of another fact of the same device: gpu_name for gpu_uuid, gpu_1_name for gpu_1_uuid.
std::string SameDeviceKey(std::string_view key, std::string_view fact) {
  const std::string_view own = GpuFact(key);
  return std::string(key.substr(0, key.size() - own.size())) + std::string(fact);
}

// A value that names something: present, and not "unknown: <why>".
bool Recorded(const std::optional<std::string>& value) {
  return value && !value->empty() && value->rfind("unknown:", 0) != 0;
}

// A physical GPU of the same kind, or a driver of the same CUDA version: what the coarser key
// (gpu_name, cuda_driver_version) does not show, so it is shown before the table.
bool ProminentIdentity(const std::string& key, const std::optional<std::string>& base_value,
                       const std::optional<std::string>& cont_value, const BenchmarkFile& baseline,
                       const BenchmarkFile& contender) {
  if (!Recorded(base_value) || !Recorded(cont_value)) return false;
  const std::string_view fact = GpuFact(key);
  const std::string coarser = fact == GpuFact(context_key::kGpuUuid)
                                  ? SameDeviceKey(key, GpuFact(context_key::kGpuName))
                              : fact == GpuFact(context_key::kGpuDriverVersion)
                                  ? std::string(context_key::kCudaDriverVersion)
                                  : std::string();
  return !coarser.empty() && OptionalValue(baseline, coarser) == OptionalValue(contender, coarser);
}

}  // namespace

SettingsCheck CheckSettings(const BenchmarkFile& baseline, const BenchmarkFile& contender) {
  SettingsCheck check;
  check.baseline_fingerprint = OptionalValue(baseline, kFingerprintKey);
  check.contender_fingerprint = OptionalValue(contender, kFingerprintKey);
  if (!check.baseline_fingerprint || !check.contender_fingerprint) {
    if (check.baseline_fingerprint || check.contender_fingerprint) {
      check.notes.push_back(std::string("only the ") +
                            (check.baseline_fingerprint ? "baseline" : "contender") +
                            " carries gpubench settings; settings were not checked");
    }
    return check;
  }
  // Union of both key lists, in the order first seen.
  std::vector<std::string> keys;
  std::set<std::string> seen;
  for (const BenchmarkFile* file : {&baseline, &contender}) {
    if (const std::string* list = file->ContextValue(context_key::kFingerprintKeys)) {
      for (std::string& key : SplitKeyList(*list)) {
        if (seen.insert(key).second) keys.push_back(std::move(key));
      }
    }
  }
  for (const std::string& key : keys) {
    auto base_value = OptionalValue(baseline, key);
    auto cont_value = OptionalValue(contender, key);
    if (base_value != cont_value) check.differences.push_back({key, base_value, cont_value, true});
  }
  check.mismatch = *check.baseline_fingerprint != *check.contender_fingerprint;
  if (check.mismatch && check.differences.empty()) {
    check.notes.push_back(
        "the settings fingerprints differ but no key listed in gpubench_fingerprint_keys "
        "differs; the files were probably written by different gpubench versions");
  } else if (!check.mismatch && !check.differences.empty()) {
    check.notes.push_back(
        "the settings fingerprints are equal but listed settings differ; the fingerprint may be "
        "stale");
  }
  return check;
}

std::vector<ValueDifference> DeviceDifferences(const BenchmarkFile& baseline,
                                               const BenchmarkFile& contender) {
  std::set<std::string> keys;
  for (const BenchmarkFile* file : {&baseline, &contender}) {
    for (const auto& [key, value] : file->context) {
      if (key.rfind(context_key::kGpuPrefix, 0) == 0 || key.rfind(context_key::kCudaPrefix, 0) == 0)
        keys.insert(key);
    }
  }
  std::vector<ValueDifference> differences;
  for (const std::string& key :
       {std::string(context_key::kGpuName), std::string(context_key::kCudaDriverVersion)}) {
    auto base_value = OptionalValue(baseline, key);
    auto cont_value = OptionalValue(contender, key);
    if (base_value != cont_value) differences.push_back({key, base_value, cont_value, true});
    keys.erase(key);
  }
  for (const std::string& key : keys) {
    auto base_value = OptionalValue(baseline, key);
    auto cont_value = OptionalValue(contender, key);
    if (base_value != cont_value) {
      differences.push_back({key, base_value, cont_value,
                             ProminentIdentity(key, base_value, cont_value, baseline, contender)});
    }
  }
  return differences;
}

bool IsGpuIdentityKey(std::string_view key) {
  const std::string_view fact = GpuFact(key);
  return !fact.empty() &&
         (fact == GpuFact(context_key::kGpuUuid) || fact == GpuFact(context_key::kGpuSerial) ||
          fact == GpuFact(context_key::kGpuVbiosVersion) ||
          fact == GpuFact(context_key::kGpuDriverVersion));
}

PhysicalGpuCheck CheckPhysicalGpu(const BenchmarkFile& baseline, const BenchmarkFile& contender) {
  const auto base_uuid = OptionalValue(baseline, context_key::kGpuUuid);
  const auto cont_uuid = OptionalValue(contender, context_key::kGpuUuid);
  PhysicalGpuCheck check;
  if (Recorded(base_uuid) && Recorded(cont_uuid)) {
    check.physical_gpu = *base_uuid == *cont_uuid ? PhysicalGpu::kSame : PhysicalGpu::kDifferent;
  } else if (Recorded(base_uuid) || Recorded(cont_uuid)) {
    check.physical_gpu = PhysicalGpu::kUnknown;
    check.without_uuid = Recorded(base_uuid) ? "contender" : "baseline";
  }
  return check;
}

}  // namespace gpubench::tools
