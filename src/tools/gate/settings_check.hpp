// The settings check: whether two files were measured with the same gpubench settings, and which
// device facts (GPU, driver) differ between them.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tools/load/model.hpp"

namespace gpubench::tools {

struct ValueDifference {
  std::string key;
  std::optional<std::string> baseline, contender;  ///< nullopt: key absent
  bool prominent = false;                          ///< GPU name or driver: shown before the table
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
std::vector<ValueDifference> DeviceDifferences(const BenchmarkFile& baseline,
                                               const BenchmarkFile& contender);

}  // namespace gpubench::tools
