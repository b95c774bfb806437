// A CPU-only Google Benchmark binary that writes gpubench-shaped output:
// manual ("GPU") time, gpubench counters and settings/device context. The
// times are simulated and deterministic so that the comparison tests built
// on its real GB JSON output cannot flake.
//
// Extra flags (removed before GB sees the command line):
//   --variant=baseline|contender|rerun  what the simulated kernels do
//   --settings=default|alternate        gpubench settings in the context
//   --gpu=default|other                 device facts in the context
//   --uuid=GPU-...                      the physical GPU (gpu_uuid, with a serial, VBIOS and full
//                                       driver version); without it none, as before gpubench
//                                       recorded them
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "schema/context_keys.hpp"
#include "schema/counter_table.hpp"

namespace {

namespace context_key = gpubench::context_key;
namespace counter = gpubench::counter;

enum class Variant { kBaseline, kContender, kRerun };

struct Config {
  Variant variant = Variant::kBaseline;
  bool alternate_settings = false;
  bool other_gpu = false;
  std::string uuid;  ///< "": no identity keys
};

struct Kernel {
  std::string name;
  double baseline_us;
  double contender_us;
  double write_bytes_contender_factor = 1.0;
  bool throttled_in_contender = false;
  bool fails_in_contender = false;
};

// Small distinct deviations so that repetitions are not tied.
double Jitter(int repetition, bool rerun) {
  static const double kOffsets[] = {-0.004, 0.001, 0.003, -0.002, 0.0, 0.002, -0.001, 0.004};
  return 1.0 + kOffsets[(repetition + (rerun ? 3 : 0)) % 8];
}

void RunKernel(benchmark::State& state, const Kernel& kernel, const Config& config) {
  static std::map<std::string, int> repetitions_seen;
  const int repetition = repetitions_seen[kernel.name]++;
  const bool contender = config.variant == Variant::kContender;
  if (contender && kernel.fails_in_contender) {
    state.SkipWithError("simulated CUDA launch failure");
    for (auto _ : state) {
    }
    return;
  }
  const double micros = (contender ? kernel.contender_us : kernel.baseline_us) *
                        Jitter(repetition, config.variant == Variant::kRerun);
  for (auto _ : state) {
    state.SetIterationTime(micros * 1e-6);
  }
  // Large enough that a 5% change of the writes is above the gate's byte floors.
  const double read_bytes = 64.0 * 1024 * 1024;
  const double write_bytes =
      16.0 * 1024 * 1024 * (contender ? kernel.write_bytes_contender_factor : 1.0);
  const bool throttled = contender && kernel.throttled_in_contender;
  state.counters[counter::kDramReadBytes] = read_bytes;
  state.counters[counter::kDramWriteBytes] = write_bytes;
  state.counters[counter::kBytesMoved] = read_bytes + write_bytes;
  state.counters[counter::kDramBandwidth] = (read_bytes + write_bytes) / (micros * 1e-6);
  state.counters[counter::kSmClockMhz] = throttled ? 1200 : 1980;
  state.counters[counter::kSmClockRatedMhz] = 1980;
  state.counters[counter::kSmClockThrottled] = throttled ? 1 : 0;
  state.counters[counter::kProfilePasses] = 1;
  state.counters[counter::kL2HitRate] = 0.5;
  state.counters["my_unknown_counter"] = contender ? 7 : 3;
}

std::vector<Kernel> KernelsFor(Variant variant) {
  std::vector<Kernel> kernels = {
      {"BM_Stable/1024", 100, 100},
      {"BM_Slower/1024", 100, 130},
      {"BM_Faster/1024", 100, 70},
      {"BM_MoreDramWrites/1024", 100, 100, 1.2},  // +3.4 MB written: above the 2 MiB floor
      {"BM_Throttled/1024", 100, 100, 1.0, true},
      {"BM_FailsInContender/1024", 100, 100, 1.0, false, true},
  };
  if (variant != Variant::kContender) kernels.push_back({"BM_OnlyInBaseline", 50, 50});
  if (variant == Variant::kContender) kernels.push_back({"BM_OnlyInContender", 50, 50});
  return kernels;
}

// A stable 64-bit FNV-1a hash, printed as 16 lowercase hex digits like
// gpubench's settings fingerprint.
std::string Fingerprint(const std::vector<std::pair<std::string, std::string>>& settings) {
  std::uint64_t hash = 1469598103934665603ull;
  for (const auto& [key, value] : settings) {
    for (char c : key + "=" + value + ";") {
      hash ^= static_cast<unsigned char>(c);
      hash *= 1099511628211ull;
    }
  }
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash));
  return text;
}

void AddContext(const Config& config) {
  const std::vector<std::pair<std::string, std::string>> settings = {
      {context_key::kTimer, config.alternate_settings ? "cupti" : "cuda_event"},
      {context_key::kCache, config.alternate_settings ? "warm" : "flush"},
      {context_key::kFlushMethod, "memset"},
      {context_key::kClockControl, "none"},
      {context_key::kMetrics, "dram"},
      {context_key::kProfiling, "off"},
      {context_key::kMethodVersion, "1"},
  };
  std::string keys;
  for (const auto& [key, value] : settings) {
    benchmark::AddCustomContext(key, value);
    keys += (keys.empty() ? "" : ",") + key;
  }
  benchmark::AddCustomContext(context_key::kFingerprintKeys, keys);
  benchmark::AddCustomContext(context_key::kSettingsFingerprint, Fingerprint(settings));
  benchmark::AddCustomContext(context_key::kGpuName,
                              config.other_gpu ? "NVIDIA A100-SXM4-40GB" : "NVIDIA H100 80GB HBM3");
  benchmark::AddCustomContext(context_key::kCudaDriverVersion,
                              config.other_gpu ? "535.104" : "550.54");
  benchmark::AddCustomContext(context_key::kCudaRuntimeVersion, "12.4");
  benchmark::AddCustomContext(context_key::kGpuComputeCapability, config.other_gpu ? "8.0" : "9.0");
  benchmark::AddCustomContext(context_key::kGpuSmClockRatedMhz, "1980");
  if (!config.uuid.empty()) {
    benchmark::AddCustomContext(context_key::kGpuUuid, config.uuid);
    benchmark::AddCustomContext(context_key::kGpuSerial, "serial-of-" + config.uuid);
    benchmark::AddCustomContext(context_key::kGpuVbiosVersion, "96.00.AF.00.01");
    benchmark::AddCustomContext(context_key::kGpuDriverVersion,
                                config.other_gpu ? "535.104.05" : "550.54.15");
  }
}

bool TakeFlag(const char* arg, const char* prefix, std::string* value) {
  const std::size_t length = std::strlen(prefix);
  if (std::strncmp(arg, prefix, length) != 0) return false;
  *value = arg + length;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  Config config;
  std::vector<char*> remaining;
  for (int i = 0; i < argc; ++i) {
    std::string value;
    if (i > 0 && TakeFlag(argv[i], "--variant=", &value)) {
      config.variant = value == "contender" ? Variant::kContender
                       : value == "rerun"   ? Variant::kRerun
                                            : Variant::kBaseline;
    } else if (i > 0 && TakeFlag(argv[i], "--settings=", &value)) {
      config.alternate_settings = value == "alternate";
    } else if (i > 0 && TakeFlag(argv[i], "--gpu=", &value)) {
      config.other_gpu = value == "other";
    } else if (i > 0 && TakeFlag(argv[i], "--uuid=", &value)) {
      config.uuid = value;
    } else {
      remaining.push_back(argv[i]);
    }
  }
  int remaining_count = static_cast<int>(remaining.size());
  remaining.push_back(nullptr);

  static std::vector<Kernel> kernels = KernelsFor(config.variant);
  for (const Kernel& kernel : kernels) {
    benchmark::RegisterBenchmark(
        kernel.name.c_str(),
        [&kernel, config](benchmark::State& state) { RunKernel(state, kernel, config); })
        ->UseManualTime()
        ->Iterations(1)
        ->Unit(benchmark::kMicrosecond);
  }
  AddContext(config);
  benchmark::Initialize(&remaining_count, remaining.data());
  if (benchmark::ReportUnrecognizedArguments(remaining_count, remaining.data())) return 2;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
