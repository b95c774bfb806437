#include "gpu/nvml/gpu_sharing.hpp"

#include "gpu/nvml/nvml_library.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace gpubench::detail {
namespace {

// The NVML structures read here, as NVML's ABI has them.
struct NvmlProcessInfo {
  unsigned int pid;
  unsigned long long used_gpu_memory;
  unsigned int gpu_instance_id;
  unsigned int compute_instance_id;
};
struct NvmlUtilization {
  unsigned int gpu;
  unsigned int memory;
};

std::string BaseName(std::string path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string OwnExecutableName() {
  char path[4096];
  const ssize_t length = ::readlink("/proc/self/exe", path, sizeof(path) - 1);
  return length > 0 ? BaseName(std::string(path, static_cast<size_t>(length))) : "";
}

class NvmlMonitor final : public SharingMonitor {
 public:
  explicit NvmlMonitor(const std::string& pci_bus_id) : nvml_(pci_bus_id) {
    processes_ = nvml_.Symbol<NvmlReturn (*)(NvmlDevice, unsigned*, NvmlProcessInfo*)>(
        "nvmlDeviceGetComputeRunningProcesses_v3");
    utilization_ =
        nvml_.Symbol<NvmlReturn (*)(NvmlDevice, NvmlUtilization*)>("nvmlDeviceGetUtilizationRates");
    process_name_ =
        nvml_.Symbol<NvmlReturn (*)(unsigned, char*, unsigned)>("nvmlSystemGetProcessName");
    if (nvml_.device() == nullptr) {
      reason_ = nvml_.reason();
    } else if (!processes_) {
      reason_ = "libnvidia-ml.so.1 lacks nvmlDeviceGetComputeRunningProcesses_v3 (driver too old)";
    }
  }

  SharingSample Sample() override {
    SharingSample sample;
    if (!reason_.empty()) {
      sample.unknown_reason = reason_;
      return sample;
    }
    std::vector<NvmlProcessInfo> infos(16);
    unsigned count = static_cast<unsigned>(infos.size());
    NvmlReturn result = processes_(nvml_.device(), &count, infos.data());
    if (result == kNvmlInsufficientSize) {
      infos.resize(count + 8);
      count = static_cast<unsigned>(infos.size());
      result = processes_(nvml_.device(), &count, infos.data());
    }
    if (result != kNvmlSuccess) {
      sample.unknown_reason = "nvmlDeviceGetComputeRunningProcesses_v3 failed (NVML error " +
                              std::to_string(result) + ")";
      return sample;
    }
    sample.known = true;
    for (unsigned i = 0; i < count; ++i) {
      GpuProcess process;
      process.pid = infos[i].pid;
      // NVML's "not available" value is all ones.
      process.memory_bytes = infos[i].used_gpu_memory == ~0ull ? 0 : infos[i].used_gpu_memory;
      char name[256] = {};
      if (process_name_ && process_name_(process.pid, name, sizeof(name)) == kNvmlSuccess) {
        process.name = BaseName(name);
      }
      sample.processes.push_back(process);
    }
    NvmlUtilization utilization{};
    if (utilization_ && utilization_(nvml_.device(), &utilization) == kNvmlSuccess) {
      sample.utilization_percent = static_cast<int>(utilization.gpu);
    }
    return sample;
  }

 private:
  NvmlLibrary nvml_;
  std::string reason_;  ///< why every sample is unknown; "" when NVML can tell
  NvmlReturn (*processes_)(NvmlDevice, unsigned*, NvmlProcessInfo*) = nullptr;
  NvmlReturn (*utilization_)(NvmlDevice, NvmlUtilization*) = nullptr;
  NvmlReturn (*process_name_)(unsigned, char*, unsigned) = nullptr;
};

}  // namespace

std::unique_ptr<SharingMonitor> MakeNvmlMonitor(const std::string& pci_bus_id) {
  return std::make_unique<NvmlMonitor>(pci_bus_id);
}

std::vector<GpuProcess> OtherProcesses(const SharingSample& sample,
                                       const std::vector<unsigned>& own_pids) {
  std::vector<GpuProcess> others = sample.processes;
  static const std::string executable = OwnExecutableName();
  for (const unsigned own_pid : own_pids) {
    auto own = std::find_if(others.begin(), others.end(),
                            [&](const GpuProcess& p) { return p.pid == own_pid; });
    if (own == others.end()) {
      // Another PID namespace (a container): recognised by the executable's name; failing that,
      // NVML could not name a process it lists, and one such is taken to be this one.
      own = std::find_if(others.begin(), others.end(), [&](const GpuProcess& p) {
        return !executable.empty() && p.name == executable;
      });
      if (own == others.end()) {
        own = std::find_if(others.begin(), others.end(),
                           [](const GpuProcess& p) { return p.name.empty(); });
      }
    }
    if (own != others.end()) others.erase(own);
  }
  return others;
}

std::string DescribeProcesses(const std::vector<GpuProcess>& processes) {
  std::string out;
  for (const GpuProcess& process : processes) {
    char memory[32] = "";
    if (process.memory_bytes > 0) {
      std::snprintf(memory, sizeof(memory), "%.3g GB",
                    static_cast<double>(process.memory_bytes) / 1e9);
    }
    std::string details = process.name.empty() ? std::string("name not visible") : process.name;
    if (memory[0] != '\0') details += std::string(", ") + memory;
    out += (out.empty() ? "" : ", ") + std::string("pid ") + std::to_string(process.pid) + " (" +
           details + ")";
  }
  return out;
}

}  // namespace gpubench::detail
