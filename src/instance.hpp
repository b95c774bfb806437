// Which registered benchmark instance is running on this thread, for NVTX range names.
#pragma once

#include <benchmark/benchmark.h>

#include <string>

namespace gpubench::detail {

struct CurrentInstance {
  const std::string* family = nullptr;  ///< null: not registered through gpubench
  int args_count = -1;                  ///< GB's ArgsCnt(): -1 when the family has no args
};

/// The instance running on this thread (set by InstanceScope).
const CurrentInstance& GetCurrentInstance();

/// "family/arg0/arg1...": the family name followed by the instance's argument values.
std::string InstanceName(const CurrentInstance& instance, const benchmark::State& state);

}  // namespace gpubench::detail
