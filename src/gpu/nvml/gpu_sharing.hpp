// Other work on the benchmarked GPU: which other processes hold a context on it, seen through
// NVML (loaded at run time from the driver's libnvidia-ml.so.1; the toolkit has no NVML header).
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace gpubench::detail {

struct GpuProcess {
  unsigned pid = 0;
  unsigned long long memory_bytes = 0;  ///< 0 when NVML does not say
  std::string name;                     ///< "" when the process is not visible (containers)
};

/// One look at the device: the compute processes on it and its utilisation.
struct SharingSample {
  bool known = false;                 ///< false: NVML could not tell (see unknown_reason)
  std::string unknown_reason;         ///< e.g. "libnvidia-ml.so.1 not found"
  std::vector<GpuProcess> processes;  ///< every compute process on the device, this one included
  int utilization_percent = -1;       ///< NVML's GPU utilisation, -1 when unknown
};

/// The narrow interface the loop uses; tests install a fake.
class SharingMonitor {
 public:
  virtual ~SharingMonitor() = default;
  virtual SharingSample Sample() = 0;
};

/// NVML's view of the device with this PCI bus id ("0000:00:06.0"). Never null: without NVML
/// every sample is unknown, with the reason.
std::unique_ptr<SharingMonitor> MakeNvmlMonitor(const std::string& pci_bus_id);

/// The processes of `sample` other than gpubench's own, `own_pids` (this process and, in the
/// profiling child, its parent, idle while the child runs). Each is found
/// by its PID, else (NVML reports host PIDs, so inside a container the PID is not among them) as
/// a process named like this executable, else as one process NVML could not name.
std::vector<GpuProcess> OtherProcesses(const SharingSample& sample,
                                       const std::vector<unsigned>& own_pids);

/// "pid 1234 (python3, 2.15 GB)", joined with ", ".
std::string DescribeProcesses(const std::vector<GpuProcess>& processes);

}  // namespace gpubench::detail
