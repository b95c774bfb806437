// --gpubench_devices: the suite once per listed GPU, one device after another or all at once
// (--gpubench_device_order). Each device runs in a child process of its own (the same binary with
// --gpubench_devices=<one ordinal>), so every device has its own CUDA context, flush buffer, event
// pool, clock probe and CUPTI state, and a device that fails takes only its own rows with it. A run
// for one device names every row
// .../gpu:N/... (ForwardingReporter); the parent merges the children's JSON files into one.
#pragma once

#include <benchmark/benchmark.h>

#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "common/environment.hpp"
#include "common/status.hpp"
#include "config/settings_table.hpp"
#include "frontend/setup/run_self.hpp"
#include "gpu/plan/range_names.hpp"

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

/// Starts and waits for the devices' children: processes of this binary (run_self), or a fake in
/// the tests.
class ChildProcesses {
 public:
  virtual ~ChildProcesses() = default;
  /// A handle for Wait, or -1 when the child could not be started.
  virtual int Start(const std::vector<std::string>& args, const ChildSetup& setup) = 0;
  /// The child's exit code, 128 + the signal that ended it, or -1.
  virtual int Wait(int handle) = 0;
};

/// Runs this binary once per device (args: the whole original argv) and merges the JSON into
/// output.out. Returns the exit code: 0 when every device's run exited 0, else the first failed
/// device's. all_at_once starts every child first; their console output is kept in a file per
/// device and printed in device order, so that the rows of two devices never interleave.
int RunOnEachDevice(const std::vector<std::string>& args, const std::vector<int>& devices,
                    const GbOutput& output, DeviceOrder order, ChildProcesses& children,
                    std::ostream& console);

/// The same with real processes and std::cout.
int RunOnEachDevice(const std::vector<std::string>& args, const std::vector<int>& devices,
                    const GbOutput& output, DeviceOrder order);

/// Where the JSON a ForwardingReporter's inner reporter writes goes, for what an abort appends
/// (measure/call/abort_note.hpp).
struct JsonDestination {
  bool json = false;  ///< the inner reporter writes GB's JSON
  std::string path;   ///< its --benchmark_out file; "" for stdout
};

/// Hands GB's rows on to another reporter: with a device, adds its tag to every row's name; and
/// flushes the output after every benchmark's rows, so that the file of a run killed part way
/// (a CI timeout) holds every benchmark that finished (GB's own file reporter keeps up to a
/// buffer's worth of rows unwritten). For a JSON `destination`, an abort of the process from the
/// context on appends an error row for the benchmark that aborted and closes the JSON.
class ForwardingReporter : public benchmark::BenchmarkReporter {
 public:
  ForwardingReporter(benchmark::BenchmarkReporter* inner, std::optional<int> device,
                     JsonDestination destination = {})
      : inner_(inner), tag_(device ? DeviceTag(*device) : ""), destination_(destination) {}
  ~ForwardingReporter() override;
  ForwardingReporter(const ForwardingReporter&) = delete;
  ForwardingReporter& operator=(const ForwardingReporter&) = delete;
  bool ReportContext(const Context& context) override;
  void ReportRuns(const std::vector<Run>& reports) override;
  void Finalize() override;

 private:
  void StopAbortOutput();
  benchmark::BenchmarkReporter* inner_;
  std::string tag_;  ///< "" without a device
  JsonDestination destination_;
  int abort_fd_ = -1;      ///< opened on the JSON file after GB opened it (O_APPEND)
  int abort_output_ = -1;  ///< its handle in abort_note.hpp
};

}  // namespace gpubench::detail
