// --gpubench_devices: the suite once per listed GPU, one device after another. Each device runs
// in a child process of its own (the same binary with --gpubench_devices=<one ordinal>), so
// every device has its own CUDA context, flush buffer, event pool, clock probe and CUPTI state,
// and a device that fails takes only its own rows with it. A run for one device names every row
// .../gpu:N/... (ForwardingReporter); the parent merges the children's JSON files into one.
#pragma once

#include <benchmark/benchmark.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/status.hpp"
#include "config/settings_table.hpp"
#include "gpu/range_names.hpp"

namespace gpubench::detail {

/// The ordinals the command line lists; "all" is every device CUDA counts (device 0 when it
/// counts none, so that the run says why each benchmark cannot run).
std::vector<int> ResolveDevices(const CommandLine& line);

/// The argv of the child for `device`: `args` without --gpubench_devices, --benchmark_out and
/// --benchmark_out_format, then --gpubench_devices=<device> and, when `out_path` is not empty,
/// --benchmark_out=<out_path> --benchmark_out_format=json.
std::vector<std::string> ChildArgs(const std::vector<std::string>& args, int device,
                                   const std::string& out_path);

/// One JSON file of GB's from the children's files (device, text), in device order: the first
/// child's context with every child's gpu_<N>_* keys and gpubench_devices listing them all,
/// then every child's rows. GB's JSON (with its bare NaN/inf numbers) is spliced, not re-parsed.
Result<std::string> MergeDeviceResults(const std::vector<std::pair<int, std::string>>& files);

/// What GB was asked to write (its flags, read before GB parses them).
struct GbOutput {
  std::string format;      ///< --benchmark_format ("" = console)
  std::string out;         ///< --benchmark_out ("" = none)
  std::string out_format;  ///< --benchmark_out_format ("" = json)
};

/// Runs this binary once per device (args: the whole original argv) and merges the JSON into
/// output.out. Returns the exit code: 0 when every device's run exited 0.
int RunOnEachDevice(const std::vector<std::string>& args, const std::vector<int>& devices,
                    const GbOutput& output);

/// Hands GB's rows on to another reporter: with a device, adds its tag to every row's name; and
/// flushes the output after every benchmark's rows, so that the file of a run killed part way
/// (a CI timeout) holds every benchmark that finished (GB's own file reporter keeps up to a
/// buffer's worth of rows unwritten).
class ForwardingReporter : public benchmark::BenchmarkReporter {
 public:
  ForwardingReporter(benchmark::BenchmarkReporter* inner, std::optional<int> device)
      : inner_(inner), tag_(device ? DeviceTag(*device) : "") {}
  bool ReportContext(const Context& context) override;
  void ReportRuns(const std::vector<Run>& reports) override;
  void Finalize() override { inner_->Finalize(); }

 private:
  benchmark::BenchmarkReporter* inner_;
  std::string tag_;  ///< "" without a device
};

}  // namespace gpubench::detail
