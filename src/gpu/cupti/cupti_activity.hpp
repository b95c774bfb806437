// CUPTI's activity buffers for the whole process. CUPTI hands completed buffers to free
// functions without a user pointer, and a process has one set of them, so timer=cupti and the
// busy measurement share this sink: each takes the records collected since it last did.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/status.hpp"

namespace gpubench::detail {

/// One interval of the GPU's own work: a kernel, memcpy or memset.
struct GpuActivity {
  uint32_t correlation = 0;  ///< the API call that enqueued it
  uint64_t start = 0;        ///< ns, CUPTI's clock
  uint64_t end = 0;
  bool kernel = false;
  std::string name;  ///< kernels: the short demangled name
};

/// One CUDA runtime API call on the host.
struct RuntimeCall {
  uint32_t correlation = 0;
  uint32_t callback_id = 0;
  uint64_t start = 0;  ///< ns, CUPTI's clock
  uint64_t end = 0;
};

struct ActivityRecords {
  std::vector<GpuActivity> gpu;
  std::vector<RuntimeCall> runtime;
  /// Driver API calls (callback_id is the driver's): where a kernel launched with the driver
  /// API (cuLaunchKernel, a library's launches) was enqueued.
  std::vector<RuntimeCall> driver;
  /// Per external correlation kind (CUPTI_EXTERNAL_CORRELATION_KIND_*): correlation -> id.
  std::unordered_map<int, std::unordered_map<uint32_t, uint64_t>> external;
  size_t dropped = 0;
};

/// Registers the buffer callbacks (once per process; later calls return the first result).
Status RegisterActivityBuffers();
/// Moves every record collected so far into `records` (replacing its contents).
void TakeActivityRecords(ActivityRecords* records);
/// "cudaMalloc" for the runtime callback id of cudaMalloc_v3020.
std::string RuntimeCallName(uint32_t callback_id);

}  // namespace gpubench::detail
