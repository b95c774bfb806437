#include "gpu/gpu_sharing.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace gpubench::detail {
namespace {

// The few NVML declarations used (NVML's ABI, stable since the _v2/_v3 entry points).
using NvmlReturn = int;
constexpr NvmlReturn kNvmlSuccess = 0;
constexpr NvmlReturn kNvmlInsufficientSize = 7;
using NvmlDevice = struct NvmlDeviceOpaque*;
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
  explicit NvmlMonitor(const std::string& pci_bus_id) {
    library_ = ::dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (library_ == nullptr) {
      reason_ = "libnvidia-ml.so.1 (the driver's NVML) not found";
      return;
    }
    auto init = Symbol<NvmlReturn (*)()>("nvmlInit_v2");
    auto by_bus =
        Symbol<NvmlReturn (*)(const char*, NvmlDevice*)>("nvmlDeviceGetHandleByPciBusId_v2");
    processes_ = Symbol<NvmlReturn (*)(NvmlDevice, unsigned*, NvmlProcessInfo*)>(
        "nvmlDeviceGetComputeRunningProcesses_v3");
    utilization_ =
        Symbol<NvmlReturn (*)(NvmlDevice, NvmlUtilization*)>("nvmlDeviceGetUtilizationRates");
    process_name_ = Symbol<NvmlReturn (*)(unsigned, char*, unsigned)>("nvmlSystemGetProcessName");
    shutdown_ = Symbol<NvmlReturn (*)()>("nvmlShutdown");
    if (!init || !by_bus || !processes_) {
      reason_ =
          "libnvidia-ml.so.1 lacks nvmlInit_v2, nvmlDeviceGetHandleByPciBusId_v2 or "
          "nvmlDeviceGetComputeRunningProcesses_v3 (driver too old)";
      return;
    }
    if (NvmlReturn result = init(); result != kNvmlSuccess) {
      reason_ = "nvmlInit_v2 failed (NVML error " + std::to_string(result) + ")";
      return;
    }
    initialized_ = true;
    if (NvmlReturn result = by_bus(pci_bus_id.c_str(), &device_); result != kNvmlSuccess) {
      reason_ = "NVML does not know the device at PCI bus id " + pci_bus_id + " (NVML error " +
                std::to_string(result) + ")";
      device_ = nullptr;
    }
  }

  ~NvmlMonitor() override {
    if (initialized_ && shutdown_) shutdown_();
    // The library stays loaded: NVML's own threads may outlive the shutdown call.
  }

  SharingSample Sample() override {
    SharingSample sample;
    if (device_ == nullptr) {
      sample.unknown_reason = reason_;
      return sample;
    }
    std::vector<NvmlProcessInfo> infos(16);
    unsigned count = static_cast<unsigned>(infos.size());
    NvmlReturn result = processes_(device_, &count, infos.data());
    if (result == kNvmlInsufficientSize) {
      infos.resize(count + 8);
      count = static_cast<unsigned>(infos.size());
      result = processes_(device_, &count, infos.data());
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
    if (utilization_ && utilization_(device_, &utilization) == kNvmlSuccess) {
      sample.utilization_percent = static_cast<int>(utilization.gpu);
    }
    return sample;
  }

 private:
  template <class Function>
  Function Symbol(const char* name) {
    return reinterpret_cast<Function>(::dlsym(library_, name));
  }

  void* library_ = nullptr;
  bool initialized_ = false;
  NvmlDevice device_ = nullptr;
  std::string reason_;
  NvmlReturn (*processes_)(NvmlDevice, unsigned*, NvmlProcessInfo*) = nullptr;
  NvmlReturn (*utilization_)(NvmlDevice, NvmlUtilization*) = nullptr;
  NvmlReturn (*process_name_)(unsigned, char*, unsigned) = nullptr;
  NvmlReturn (*shutdown_)() = nullptr;
};

}  // namespace

std::unique_ptr<SharingMonitor> MakeNvmlMonitor(const std::string& pci_bus_id) {
  return std::make_unique<NvmlMonitor>(pci_bus_id);
}

std::vector<GpuProcess> OtherProcesses(const SharingSample& sample, unsigned own_pid) {
  std::vector<GpuProcess> others = sample.processes;
  auto own = std::find_if(others.begin(), others.end(),
                          [&](const GpuProcess& p) { return p.pid == own_pid; });
  if (own == others.end()) {
    // Another PID namespace (a container): recognise this process by its executable's name;
    // failing that, NVML could not name a process it lists, and one such is taken to be this one.
    static const std::string executable = OwnExecutableName();
    own = std::find_if(others.begin(), others.end(), [&](const GpuProcess& p) {
      return !executable.empty() && p.name == executable;
    });
    if (own == others.end()) {
      own = std::find_if(others.begin(), others.end(),
                         [](const GpuProcess& p) { return p.name.empty(); });
    }
  }
  if (own != others.end()) others.erase(own);
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
