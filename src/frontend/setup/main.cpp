#include "gpubench/main.hpp"

#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/environment.hpp"
#include "config/settings_parse.hpp"
#include "frontend/hooks/gpubench_counts.hpp"
#include "frontend/setup/context.hpp"
#include "frontend/setup/devices.hpp"
#include "frontend/setup/profiling_run.hpp"
#include "gb/gb_internals.hpp"
#include "gpu/cuda/cuda_status.hpp"
#include "gpubench/reporter.hpp"
#include "measure/process/process_state.hpp"

namespace gpubench {
namespace {

void PrintHelp() {
  benchmark::PrintDefaultHelp();
  std::cout << detail::FlagHelp();
}

bool UseColor(int argc, char** argv) {
  const std::string flag = detail::GbFlagValue(argc, argv, "color");
  if (flag == "false" || flag == "no" || flag == "0") return false;
  if (flag == "true" || flag == "yes" || flag == "1") return true;
  const char* term = detail::TerminalVariable();
  return isatty(STDOUT_FILENO) != 0 && term != nullptr && std::strcmp(term, "dumb") != 0;
}

// Set by Main before it calls Initialize: --gpubench_devices needs Main's reporters, which name
// every row after its device, and so does gpubench's stopping rule (GB names the rows of a
// family whose count gpubench set ".../iterations:2/...", and Main's reporters restore them).
bool main_reports = false;

// Initialize set the count of this many families (stopping=precision).
int counts_taken = 0;

// Whether the closing line on the run's cost has been printed (Main prints it after the run; a
// main of your own gets it at exit).
bool cost_printed = false;

void PrintRunCost() {
  if (cost_printed || !detail::ProfilingChildFile().empty()) return;
  cost_printed = true;
  std::cerr << detail::ProcessState::Get().cost.Summary();
}

// stopping=precision needs Main's reporters and no GB time or count asked for on the command
// line; otherwise GB's rule stays, and the note says why (context gpubench_stopping_note).
void ChooseStopping(int argc, char** argv, Settings* settings) {
  if (settings->stopping != Stopping::kPrecision) return;
  const std::string min_time = detail::GbFlagValue(argc, argv, "min_time");
  if (!min_time.empty()) {
    settings->stopping = Stopping::kGb;
    settings->stopping_note = "GB's rule: --benchmark_min_time=" + min_time +
                              " (or BENCHMARK_MIN_TIME) was given, and what a user asks GB for "
                              "wins over gpubench's rule";
  } else if (!main_reports) {
    settings->stopping = Stopping::kGb;
    settings->stopping_note =
        "GB's rule: a main of your own runs GB's reporters, which would show the count gpubench "
        "sets in every name (.../iterations:2/...); call gpubench::Main(argc, argv) from your "
        "main, or use GPUBENCH_MAIN(), for gpubench's rule";
  }
}

bool IsTrue(const std::string& flag) { return flag == "true" || flag == "yes" || flag == "1"; }

// profile_process=child: whether this process has a profiling child run first.
bool ProfileInChild(const Settings& settings, const detail::DeviceFacts& facts,
                    const detail::CommandLine& command_line, bool listing) {
  return settings.profile_process == ProfileProcess::kChild && settings.profile_iterations > 0 &&
         facts.available && !command_line.list_metrics && !listing &&
         detail::ProfilingChildFile().empty() &&
         // Under ncu or nsys gpubench's profiler steps aside (StartProfiler says why).
         detail::InjectedCudaTool().empty();
}

// GB's last call of the process had no successor to show whether it was a trial.
void CheckLastCallAtExit() {
  std::cerr << detail::ProcessState::Get().policy.trials().Finish();
  PrintRunCost();
}

// The CUPTI Range Profiler, or none with the reason (the gpubench_profiler context value).
void StartProfiler(detail::Harness& harness) {
  const Settings& settings = harness.settings();
  const detail::DeviceFacts& facts = harness.facts();
  std::string status;
  std::unique_ptr<detail::Profiler> profiler;
  if (settings.profile_iterations == 0) {
    status = "off: --gpubench_profile_iterations=0";
  } else if (!facts.available) {
    status = "unavailable: no usable CUDA device";
  } else {
    profiler = detail::MakeCuptiProfiler(settings, facts, &status);
    if (!profiler) {
      std::cerr << "gpubench: hardware metrics are off for this run, timing is not affected: "
                << status << "\n";
    }
  }
  harness.SetProfiler(std::move(profiler), status);
}

// Who else is on the GPU as the run starts (each call is checked again; see gpu_shared).
std::string GpuSharingAtStart(detail::Harness& harness) {
  if (!harness.facts().available) return "unknown: no usable CUDA device";
  const detail::SharingSample sample = harness.sharing().Sample();
  const auto others = detail::OtherProcesses(sample, static_cast<unsigned>(::getpid()));
  return !sample.known    ? "unknown: " + sample.unknown_reason
         : others.empty() ? "checked with NVML: no other process at start"
                          : "checked with NVML: at start also " + detail::DescribeProcesses(others);
}

// GB's reporter for a format name (--benchmark_format, --benchmark_out_format).
std::unique_ptr<benchmark::BenchmarkReporter> MakeGbReporter(const std::string& name) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"  // GB still offers csv; so do we
  if (name == "csv") return std::make_unique<benchmark::CSVReporter>();
#pragma GCC diagnostic pop
  if (name == "console") return std::make_unique<benchmark::ConsoleReporter>();
  return std::make_unique<benchmark::JSONReporter>();
}

// gpubench's console reporter for the console (GB's own for --benchmark_format=json|csv). Rows
// reach GB's reporters through ForwardingReporter, which flushes after every benchmark (a killed
// run keeps what finished) and, for one device of a --gpubench_devices run, names every row after
// the device.
void RunBenchmarks(const std::string& format, const std::string& out, const std::string& out_format,
                   bool color) {
  CounterReporter console(color ? benchmark::ConsoleReporter::OO_ColorTabular
                                : benchmark::ConsoleReporter::OO_Tabular);
  const std::optional<int> device = detail::ProcessState::Get().tagged_device;
  const bool console_display = format.empty() || format == "console";
  std::unique_ptr<benchmark::BenchmarkReporter> display_format =
      console_display ? nullptr : MakeGbReporter(format);
  detail::ForwardingReporter forwarded_display(display_format ? display_format.get() : &console,
                                               device);
  // The console reporter is GB's own class, which GB treats specially (colour, tabular counters),
  // so it stays unwrapped when there is nothing to tag.
  benchmark::BenchmarkReporter* display = console_display && !device
                                              ? static_cast<benchmark::BenchmarkReporter*>(&console)
                                              : &forwarded_display;
  if (out.empty()) {
    benchmark::RunSpecifiedBenchmarks(display);
    return;
  }
  std::unique_ptr<benchmark::BenchmarkReporter> file_format = MakeGbReporter(out_format);
  detail::ForwardingReporter file(file_format.get(), device);
  benchmark::RunSpecifiedBenchmarks(display, &file);
}

// --gpubench_devices: several devices run as child processes (the result is their exit code);
// one device is this process's, with every name tagged. Nothing to do without the flag.
std::optional<InitResult> ChooseDevices(const detail::CommandLine& command_line,
                                        const std::vector<std::string>& args, int argc, char** argv,
                                        Settings* settings, std::optional<int>* tagged_device) {
  // What ran beside this process's rows: the other devices' children, in an all_at_once run only
  // (its children are told so); a run of one device reads one_at_a_time whatever was asked.
  settings->device_order = detail::EnvironmentValue(detail::kDevicesAtOnceVariable) != nullptr
                               ? DeviceOrder::kAllAtOnce
                               : DeviceOrder::kOneAtATime;
  if (!command_line.all_devices && command_line.devices.empty()) return std::nullopt;
  if (!main_reports) {
    std::cerr << "gpubench: --gpubench_devices needs GPUBENCH_MAIN() or gpubench::Main: it runs "
                 "the suite once per device and names every row after its device in GB's "
                 "output, which a main of your own does not let gpubench do\n";
    return InitResult{false, 2};
  }
  const std::vector<int> devices = detail::ResolveDevices(command_line);
  if (devices.size() > 1) {
    const detail::GbOutput output{detail::GbFlagValue(argc, argv, "format"),
                                  detail::GbFlagValue(argc, argv, "out"),
                                  detail::GbFlagValue(argc, argv, "out_format")};
    return InitResult{
        false, detail::RunOnEachDevice(args, devices, output, command_line.settings.device_order)};
  }
  settings->device = devices.front();
  *tagged_device = devices.front();
  return std::nullopt;
}

}  // namespace

namespace {

// Hands GB only what is left of argv, in place, as benchmark::Initialize does.
void RemoveGpubenchFlags(int* argc, char** argv) {
  int kept = 0;
  for (int i = 0; i < *argc; ++i) {
    const std::string arg = argv[i];
    if (i == 0 || arg.rfind("--gpubench_", 0) != 0) argv[kept++] = argv[i];
  }
  *argc = kept;
  argv[kept] = nullptr;
}

// --gpubench_exclusive=wait: this job's turn among gpubench jobs on the GPU; what happened, for
// the context ("" when there was no wait). Before this process creates its context: a job waiting
// here is not "another process" to the job that benchmarks the GPU meanwhile.
std::string TakeGpuTurn(const Settings& settings, const detail::DeviceFacts& facts,
                        const detail::CommandLine& command_line) {
  auto& process = detail::ProcessState::Get();
  // The profiling child's parent holds the lock already.
  if (!facts.available || command_line.list_metrics || settings.exclusive != Exclusive::kWait ||
      !detail::ProfilingChildFile().empty()) {
    return "";
  }
  const bool own = command_line.lock_dir.empty();
  const std::string folder = own ? detail::DefaultGpuLockDirectory() : command_line.lock_dir;
  std::string note = detail::PrepareGpuLockDirectory(folder, own);
  if (!note.empty()) {
    note = "went on without the lock between gpubench jobs: " + note;
  } else {
    note = process.gpu_lock.Acquire(detail::GpuLockPath(folder, facts.pci_bus_id),
                                    kExclusiveWaitSeconds, std::cerr, /*shared=*/!own);
  }
  if (!process.gpu_lock.held()) std::cerr << "gpubench: " << note << "\n";
  return note;
}

// The profiler of this process, or the profiling child's results (child: set when a child ran).
// In the profiling child itself, its sessions go to the parent's file from here on. A value
// ends Initialize with it.
std::optional<InitResult> SetUpProfiling(const std::optional<detail::ProfilingChildResult>& child) {
  auto& process = detail::ProcessState::Get();
  detail::Harness& harness = process.harness;
  if (!child) {
    StartProfiler(harness);
  } else if (!child->ran) {
    std::cerr << "gpubench: hardware metrics are off for this run, timing is not affected: "
              << child->why_not << "\n";
    harness.SetProfiler(nullptr, child->why_not);
  }
  const std::string child_file = detail::ProfilingChildFile();
  if (child_file.empty()) return std::nullopt;
  // This process is the profiling child: its calls profile, write their sessions and skip.
  const detail::ProfilingPass::Header header{harness.profiler_status(), harness.metric_units()};
  if (detail::Status status = process.profiling_pass.BeginProfiling(child_file, header);
      !status.ok()) {
    std::cerr << "gpubench: " << status.message() << "\n";
    return InitResult{false, 2};
  }
  // Without a profiler there is nothing to profile: the parent learns why from the header.
  if (harness.profiler() == nullptr) return InitResult{false, 0};
  return std::nullopt;
}

void AddContext(const Settings& settings, const detail::DeviceFacts& facts,
                const std::string& lock_note, std::optional<int> tagged_device) {
  detail::Harness& harness = detail::ProcessState::Get().harness;
  std::string gpu_sharing = GpuSharingAtStart(harness);
  if (!lock_note.empty()) gpu_sharing += "; exclusive=wait: " + lock_note;
  for (const auto& [key, value] : detail::BuildContext(
           settings, facts, harness.profiler_status(), harness.metric_units(), gpu_sharing,
           tagged_device,
           facts.available ? harness.streams().UnavailableReason() : "no usable CUDA device")) {
    benchmark::AddCustomContext(key, value);
  }
  detail::ProcessState& process = detail::ProcessState::Get();
  for (const auto& [key, value] : detail::BusyContext(
           settings, harness.profiler_status(), process.counter_source(), process.profiling_pass)) {
    benchmark::AddCustomContext(key, value);
  }
  // The GPU before any benchmark: also the first reference of --gpubench_thermal=wait.
  detail::ThermalSample at_start;
  at_start.unknown_reason = "no usable CUDA device";
  if (facts.available) at_start = harness.thermal().Sample();
  if (at_start.known) detail::ProcessState::Get().thermal_reference_c = at_start.temperature_c;
  for (const auto& [key, value] : detail::ThermalContext(at_start)) {
    benchmark::AddCustomContext(key, value);
  }
}

}  // namespace

InitResult Initialize(int* argc, char** argv) {
  std::vector<std::string> args(argv, argv + *argc);
  detail::ParseResult parsed = detail::ParseCommandLine(args, detail::ProcessEnvironment());
  if (!parsed.ok) {
    std::cerr << "gpubench: " << parsed.error;
    return {false, 2};
  }
  const detail::CommandLine& command_line = parsed.command_line;
  RemoveGpubenchFlags(argc, argv);

  Settings settings = command_line.settings;
  std::optional<int> tagged_device;
  if (std::optional<InitResult> done =
          ChooseDevices(command_line, args, *argc, argv, &settings, &tagged_device)) {
    return *done;
  }
  if (settings.timer == Timer::kCupti && !detail::InjectedCudaTool().empty()) {
    std::cerr << "gpubench: --gpubench_timer=cupti cannot run under another CUDA tool "
                 "(CUDA_INJECTION64_PATH is set, e.g. by ncu or nsys): only one CUPTI client can "
                 "trace a process; use --gpubench_timer=events under that tool\n";
    return {false, 2};
  }
  auto& process = detail::ProcessState::Get();
  process.cost.Start();
  ChooseStopping(*argc, argv, &settings);
  // Before any child runs (each takes the counts over in its own process, from the same code).
  if (settings.stopping == Stopping::kPrecision) counts_taken = detail::TakeOverCounts();
  detail::DeviceFacts facts = detail::QueryDeviceFacts(settings.device);
  const std::string lock_note = TakeGpuTurn(settings, facts, command_line);
  // Before this process creates its context too: the child's NVML checks see no parent there.
  // Nothing is measured for a listing or for --help (GB prints it in benchmark::Initialize).
  std::optional<detail::ProfilingChildResult> child;
  const bool nothing_runs = IsTrue(detail::GbFlagValue(*argc, argv, "list_tests")) ||
                            std::find(args.begin() + 1, args.end(), "--help") != args.end();
  if (ProfileInChild(settings, facts, command_line, nothing_runs)) {
    const auto child_start = std::chrono::steady_clock::now();
    child = detail::RunProfilingChild(detail::OwnCommandLine(args), std::cerr);
    process.cost.AddProfilingPass(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - child_start).count());
  }
  if (facts.available && !command_line.list_metrics) {
    // The benchmarked device becomes the current one before any benchmark function runs, so a
    // benchmark's own allocations (made before its loop) land on it, with or without profiling.
    if (detail::Status status = detail::CudaStatus(cudaSetDevice(settings.device), "cudaSetDevice");
        !status.ok()) {
      facts.available = false;
      facts.unavailable_reason = status.message();
    }
  }

  if (command_line.list_metrics) {
    std::string error =
        detail::ListMetrics(command_line.chip, facts, command_line.list_metrics_filter, std::cout);
    if (!error.empty()) {
      std::cerr << "gpubench: " << error << "\n";
      return {false, 2};
    }
    return {false, 0};
  }
  process.tagged_device = tagged_device;
  if (detail::Status status = process.profile_log.Open(command_line.profile_out); !status.ok()) {
    std::cerr << "gpubench: " << status.message() << "\n";
    return {false, 2};
  }
  // The profiling child takes no timed samples: only the timing process writes them.
  if (detail::Status status = process.sample_log.Open(
          detail::ProfilingChildFile().empty() ? command_line.samples_out : std::string());
      !status.ok()) {
    std::cerr << "gpubench: " << status.message() << "\n";
    return {false, 2};
  }
  process.harness.Configure(settings, facts);
  // Read before benchmark::Initialize removes GB's flags from argv.
  process.policy.SetTrialRunDetector(detail::TrialRunDetector(
      detail::MinTimeSeconds(detail::GbFlagValue(*argc, argv, "min_time"))));
  static const bool at_exit_registered = std::atexit(CheckLastCallAtExit) == 0;
  (void)at_exit_registered;
  if (std::optional<InitResult> done = SetUpProfiling(child)) return *done;
  process.DecideCounterSource();  // the loop and its stages ask it from here on
  AddContext(settings, facts, lock_note, tagged_device);
  return {true, 0};
}

int Main(int argc, char** argv) {
  main_reports = true;
  InitResult init = Initialize(&argc, argv);
  if (!init.run_benchmarks) return init.exit_code;
  // Read before benchmark::Initialize, which removes GB's flags from argv.
  const std::string format = detail::GbFlagValue(argc, argv, "format");
  const std::string out = detail::GbFlagValue(argc, argv, "out");
  const std::string out_format = detail::GbFlagValue(argc, argv, "out_format");
  const bool color = UseColor(argc, argv);
  benchmark::Initialize(&argc, argv, PrintHelp);
  if (argc > 1) {
    for (int i = 1; i < argc; ++i) {
      std::cerr << "gpubench: unrecognized argument '" << argv[i]
                << "': gpubench flags start with --gpubench_ and GB's with --benchmark_ (see "
                   "--help)\n";
    }
    return 2;
  }
  // GB matches the filter against names that carry the counts gpubench set.
  if (counts_taken > 0) {
    benchmark::SetBenchmarkFilter(detail::WidenFilterForCounts(benchmark::GetBenchmarkFilter()));
  }
  RunBenchmarks(format, out, out_format, color);
  PrintRunCost();
  benchmark::Shutdown();
  detail::ProcessState::Get().Shutdown();
  return 0;
}

}  // namespace gpubench
