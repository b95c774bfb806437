// The settings check: whether two files were measured with the same gpubench settings, which
// device facts (GPU, driver) differ between them, and whether they ran on the same physical GPU.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tools/load/model.hpp"

namespace gpubench::tools {

struct ValueDifference {
  std::string key;
  std::optional<std::string> baseline, contender;  ///< nullopt: key absent
  /// Shown before the table: gpu_name, cuda_driver_version; a physical GPU (gpu_uuid) of the
  /// same gpu_name; the driver's full version (gpu_driver_version) of the same CUDA version.
  bool prominent = false;
};

struct SettingsCheck {
  /// With several baseline runs: the run this check is about (the first whose settings differ).
  std::string baseline_path;
  std::optional<std::string> baseline_fingerprint, contender_fingerprint;
  bool mismatch = false;
  std::vector<ValueDifference> differences;  ///< every fingerprint key that differs
  std::vector<std::string> notes;
};

SettingsCheck CheckSettings(const BenchmarkFile& baseline, const BenchmarkFile& contender);
/// Every gpu_* and cuda_* key whose values differ, gpu_name and cuda_driver_version first. An
/// identity key one side does not record is listed too (that side nullopt), never prominent.
std::vector<ValueDifference> DeviceDifferences(const BenchmarkFile& baseline,
                                               const BenchmarkFile& contender);

/// Whether `key` holds the physical GPU's identity: gpu_uuid, gpu_serial, gpu_vbios_version,
/// gpu_driver_version, or a device's gpu_<N>_ one. Files written before gpubench recorded them
/// have none, so one side without such a key is no difference of the device.
bool IsGpuIdentityKey(std::string_view key);

/// Whether baseline and contender ran on the same physical GPU, by gpu_uuid (identity, not a
/// setting: it never makes the comparison refuse). Ordered: with a history the largest of the
/// runs' answers holds.
enum class PhysicalGpu {
  kNotRecorded,  ///< neither side records a UUID (files from before gpubench recorded it)
  kSame,
  kUnknown,    ///< one side records a UUID, the other none (or "unknown: ..."): cannot be told
  kDifferent,  ///< both record one, and they differ
};

struct PhysicalGpuCheck {
  PhysicalGpu physical_gpu = PhysicalGpu::kNotRecorded;
  std::string without_uuid;  ///< kUnknown: the side that records none, "baseline" or "contender"
};

PhysicalGpuCheck CheckPhysicalGpu(const BenchmarkFile& baseline, const BenchmarkFile& contender);

}  // namespace gpubench::tools
