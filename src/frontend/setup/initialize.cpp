// gpubench::Initialize: the run's plan, decided once (config/run_plan.hpp), then the steps it
// asks for in their order: the devices' children, the counts, the GPU lock, the profiling child
// before this process's CUDA context, the profiler, the counter route and the context block.
#include "frontend/setup/initialize.hpp"

#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/environment.hpp"
#include "config/run_plan.hpp"
#include "config/settings_parse.hpp"
#include "config/settings_table.hpp"
#include "frontend/hooks/gpubench_counts.hpp"
#include "frontend/setup/context.hpp"
#include "frontend/setup/devices.hpp"
#include "frontend/setup/profiling_run.hpp"
#include "gb/gb_internals.hpp"
#include "gpu/backend.hpp"
#include "gpu/cuda/cuda_status.hpp"
#include "gpu/nvml/gpu_identity.hpp"
#include "gpubench/main.hpp"
#include "measure/process/process_state.hpp"
#include "schema/context_keys.hpp"

namespace gpubench {
namespace detail {
namespace {

bool main_reports = false;
int counts_taken = 0;
bool cost_printed = false;

}  // namespace

void SetMainReports() { main_reports = true; }

int CountsTaken() { return counts_taken; }

bool IsProfilingChild() { return ProcessState::Get().harness.plan().is_profiling_child(); }

void PrintRunCost() {
  ProcessState& process = ProcessState::Get();
  if (cost_printed || process.harness.plan().is_profiling_child()) return;
  cost_printed = true;
  std::cerr << process.cost.Summary();
}

}  // namespace detail

namespace {

bool IsTrue(const std::string& flag) { return flag == "true" || flag == "yes" || flag == "1"; }

// Why a main of one's own cannot have gpubench's count through --benchmark_min_time=<n>x, or "".
std::string GlobalCountRefusal() {
  if (!detail::GbTakesGlobalCounts()) {
    return "this Google Benchmark (before 1.8) takes no count for every benchmark at once, "
           "which would leave the names alone";
  }
  const std::optional<std::vector<std::string>> instances = detail::ListInstanceNames();
  if (!instances) return "Google Benchmark did not list its benchmarks";
  const std::string outside = detail::InstanceOutsideGpubench(*instances);
  if (outside.empty()) return "";
  return outside +
         " is registered with GB's own macro and has no ->Iterations() or ->MinTime() of its "
         "own: a count for every benchmark would change its count too";
}

// What the plan is decided from: the parsed flags, GB's, and the environment, read here once.
detail::PlanInputs GatherPlanInputs(const detail::CommandLine& command_line, int argc,
                                    char** argv) {
  detail::PlanInputs inputs;
  inputs.settings = command_line.settings;
  inputs.main_reports = detail::main_reports;
  inputs.gb_min_time = detail::GbFlagValue(argc, argv, "min_time");
  if (!inputs.main_reports && inputs.gb_min_time.empty()) {
    inputs.global_count_refusal = GlobalCountRefusal();
  }
  inputs.cuda_tool = detail::InjectedCudaTool();
  inputs.child_file = detail::ProfilingChildFile();
  inputs.devices_at_once = detail::DevicesAtOnce();
  inputs.devices_asked = command_line.all_devices || !command_line.devices.empty();
  return inputs;
}

// GB's last call of the process had no successor to show whether it was a trial.
void CheckLastCallAtExit() {
  std::cerr << detail::ProcessState::Get().policy.trials().Finish();
  detail::PrintRunCost();
}

// Who else is on the GPU as the run starts (each call is checked again; see gpu_shared).
std::string GpuSharingAtStart(detail::Harness& harness) {
  if (!harness.facts().available) return "unknown: no usable CUDA device";
  const detail::SharingSample sample = harness.sharing().Sample();
  const auto others = detail::OtherProcesses(sample, detail::OwnGpuProcesses());
  return !sample.known    ? "unknown: " + sample.unknown_reason
         : others.empty() ? "checked with NVML: no other process at start"
                          : "checked with NVML: at start also " + detail::DescribeProcesses(others);
}

// --gpubench_devices: several devices run as child processes (the result is their exit code);
// one device is this process's, with every name tagged. Nothing to do without the flag.
std::optional<InitResult> RunDevices(const detail::CommandLine& command_line,
                                     const std::vector<std::string>& args, int argc, char** argv,
                                     Settings* settings, std::optional<int>* tagged_device) {
  if (!command_line.all_devices && command_line.devices.empty()) return std::nullopt;
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
// the context. Before this process creates its context: a job waiting here is not "another
// process" to the job that benchmarks the GPU meanwhile.
std::string TakeGpuTurn(const detail::DeviceFacts& facts, const std::string& lock_dir) {
  auto& process = detail::ProcessState::Get();
  const bool own = lock_dir.empty();
  const std::string folder = own ? detail::DefaultGpuLockDirectory() : lock_dir;
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
    if (const std::string failed = harness.StartProfiler(); !failed.empty()) {
      std::cerr << "gpubench: hardware metrics are off for this run, timing is not affected: "
                << failed << "\n";
    }
  } else if (!child->ran) {
    std::cerr << "gpubench: hardware metrics are off for this run, timing is not affected: "
              << child->why_not << "\n";
    harness.SetProfiler(nullptr, child->why_not);
  }
  if (!harness.plan().is_profiling_child()) return std::nullopt;
  // This process is the profiling child: its calls profile, write their sessions and skip.
  const detail::ProfilingPass::Header header{harness.profiler_status(), harness.metric_units()};
  if (detail::Status status =
          process.profiling_pass.BeginProfiling(harness.plan().child_file, header);
      !status.ok()) {
    std::cerr << "gpubench: " << status.message() << "\n";
    return InitResult{false, 2};
  }
  // Without a profiler there is nothing to profile: the parent learns why from the header.
  if (harness.profiler() == nullptr) return InitResult{false, 0};
  return std::nullopt;
}

// The work signature's run-level lines, and --gpubench_reuse's source with the run-level check
// (said once on stderr when it makes every row measured).
void SetUpReuse(const detail::DeviceFacts& facts, detail::ReuseState* reuse) {
  const Settings& settings = detail::ProcessState::Get().harness.settings();
  reuse->identity.settings_fingerprint = detail::SettingsFingerprint(settings);
  reuse->identity.gpu_uuid =
      facts.identity.uuid.value.empty() ? facts.cuda_uuid : facts.identity.uuid.value;
  reuse->identity.driver_version = facts.identity.driver_version.value.empty()
                                       ? std::to_string(facts.driver_version)
                                       : facts.identity.driver_version.value;
  reuse->identity.method_version = std::to_string(detail::kMethodVersion);
  reuse->run_lines = {"settings " + reuse->identity.settings_fingerprint,
                      "gpu " + reuse->identity.gpu_uuid, "driver " + reuse->identity.driver_version,
                      "method " + reuse->identity.method_version};
  reuse->signing = settings.signature == Signature::kOn;
  if (settings.reuse_path.empty()) return;
  reuse->on = true;
  reuse->rules.max_runs = settings.reuse_max_runs;
  reuse->rules.max_age_seconds = settings.reuse_max_age_seconds;
  detail::Result<detail::ReuseSource> source =
      detail::LoadReuseSource(settings.reuse_path, detail::SystemFileCalls());
  const bool child = detail::ProcessState::Get().harness.plan().is_profiling_child();
  if (!source.ok()) {
    reuse->source_error = source.status().message();
    if (!child) {
      std::cerr << "gpubench: --gpubench_reuse: every benchmark is measured: "
                << reuse->source_error << "\n";
    }
    return;
  }
  reuse->source = std::move(source).value();
  if (!child) {
    for (const std::string& note : reuse->source->notes) {
      std::cerr << "gpubench: --gpubench_reuse: " << note << "\n";
    }
  }
  reuse->run_difference = detail::RunDifference(reuse->source->identity, reuse->identity);
  if (!reuse->run_difference.empty() && !child) {
    std::cerr << "gpubench: --gpubench_reuse: every benchmark is measured: "
              << reuse->run_difference << "\n";
  }
}

void AddContext(const detail::DeviceFacts& facts, const std::string& lock_note,
                std::optional<int> tagged_device) {
  detail::ProcessState& process = detail::ProcessState::Get();
  detail::Harness& harness = process.harness;
  std::string gpu_sharing = GpuSharingAtStart(harness);
  if (!lock_note.empty()) gpu_sharing += "; exclusive=wait: " + lock_note;
  // The physical GPU, read here and not with the other facts: only the process that writes the
  // context needs it, and the sharing check above holds NVML initialised, so reading costs little.
  for (const auto& [key, value] : detail::BuildContext(
           harness.settings(), facts, harness.profiler_status(), harness.metric_units(),
           gpu_sharing, tagged_device,
           facts.available ? harness.streams().UnavailableReason() : "no usable CUDA device")) {
    benchmark::AddCustomContext(key, value);
  }
  for (const auto& [key, value] : process.route().BusyContext(harness.profiler_status())) {
    benchmark::AddCustomContext(key, value);
  }
  for (const auto& [key, value] : detail::SignatureContext(
           process.reuse, harness.work().UnavailableReason(), facts.available)) {
    benchmark::AddCustomContext(key, value);
  }
  // The GPU before any benchmark: also the first reference of --gpubench_thermal=wait.
  detail::ThermalSample at_start;
  at_start.unknown_reason = "no usable CUDA device";
  if (facts.available) at_start = harness.thermal().Sample();
  if (at_start.known) process.thermal_reference_c = at_start.temperature_c;
  for (const auto& [key, value] : detail::ThermalContext(at_start)) {
    benchmark::AddCustomContext(key, value);
  }
}

// The benchmarked device becomes the current one before any benchmark function runs, so a
// benchmark's own allocations (made before its loop) land on it, with or without profiling.
void SetCurrentDevice(int device, detail::DeviceFacts* facts) {
  if (detail::Status status = detail::CudaStatus(cudaSetDevice(device), "cudaSetDevice");
      !status.ok()) {
    facts->available = false;
    facts->unavailable_reason = status.message();
  }
}

// A context the program made before Initialize (a main that prints the device first): said once,
// with what it can change and where the call belongs. Not in the profiling child, which runs
// the same main again.
void WarnOfEarlyContext(int device) {
  if (!detail::ContextExistsBeforeGpubench(device)) return;
  std::cerr << "gpubench: a CUDA context on device " << device
            << " existed before gpubench::Initialize (the program made it: cudaSetDevice, "
               "cudaFree(0), a device query that creates it, an allocation or a kernel before "
               "Initialize). gpubench makes this process's context only after its profiling "
               "child has ended, and its own GPU resources before any benchmark, so that where "
               "a benchmark's data lands does not depend on the settings or on what ran before "
               "it; a context made earlier holds GPU memory while the child profiles, so the "
               "benchmarks' data can land elsewhere than in a run without it, and a kernel whose "
               "time depends on where its data lies can time differently (docs/accuracy.md "
               "\"Metrics on and off\"); and while this job waits for its turn on the GPU "
               "(--gpubench_exclusive=wait), other jobs see it as another process and mark their "
               "rows gpu_shared=1. Move that call after gpubench::Initialize: in a main of your "
               "own right after it, or into gpubench::Main's before_benchmarks function "
               "(docs/user_guide.md \"A main of your own\")\n";
}

InitResult Refuse(const std::string& message) {
  std::cerr << "gpubench: " << message << "\n";
  return {false, 2};
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

  detail::Result<detail::RunPlan> drafted =
      detail::DraftRunPlan(GatherPlanInputs(command_line, *argc, argv));
  if (!drafted.ok()) return Refuse(drafted.status().message());
  detail::RunPlan plan = std::move(drafted).value();
  std::optional<int> tagged_device;
  if (std::optional<InitResult> done =
          RunDevices(command_line, args, *argc, argv, &plan.settings, &tagged_device)) {
    return *done;
  }
  if (detail::Status refused = detail::RefuseUnderCudaTool(plan); !refused.ok()) {
    return Refuse(refused.message());
  }
  std::cerr << plan.console_note;
  auto& process = detail::ProcessState::Get();
  process.cost.Start();
  // Before any child runs (each takes the counts over in its own process, from the same code).
  if (plan.gpubench_counts()) detail::counts_taken = detail::TakeOverCounts(plan.counts_by_flag);
  // Nothing is measured for a listing or for --help (GB prints it in benchmark::Initialize).
  const bool nothing_measured = command_line.list_metrics ||
                                IsTrue(detail::GbFlagValue(*argc, argv, "list_tests")) ||
                                std::find(args.begin() + 1, args.end(), "--help") != args.end();
  std::optional<detail::ProfilingChildResult> child;
  detail::ProfilingChild running_child;
  const auto child_start = std::chrono::steady_clock::now();
  const bool driver_present = detail::CudaDriverPresent();
  const bool child_early = plan.starts_child_before_device_query(driver_present, nothing_measured);
  if (child_early) running_child.Start(detail::OwnCommandLine(args));
  if (plan.prepares_profiler_before_context(driver_present, nothing_measured)) {
    detail::PrepareCuptiProfiler(plan.settings.device);
  }
  if (driver_present && !nothing_measured && !plan.is_profiling_child()) {
    WarnOfEarlyContext(plan.settings.device);
  }
  detail::DeviceFacts facts = detail::QueryDeviceFacts(plan.settings.device);
  const std::string lock_note = plan.takes_gpu_lock(facts.available, command_line.list_metrics)
                                    ? TakeGpuTurn(facts, command_line.lock_dir)
                                    : "";
  const bool child_first = plan.runs_child_first(facts.available, nothing_measured);
  // A child started early for a device this process then could not use says nothing: it is
  // waited for and its file removed, as without a device no child runs.
  if (child_early && !child_first) running_child.Discard();
  if (child_first && !child_early) running_child.Start(detail::OwnCommandLine(args));
  if (child_first) {
    running_child.Announce(std::cerr);
    child = running_child.Finish(std::cerr);
    process.cost.AddProfilingPass(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - child_start).count());
  }
  // Only now this process creates its context (cudaSetDevice makes the primary context). Made
  // while the child still held GPU memory, the context's own memory and every buffer after it
  // landed elsewhere than with metrics off, and a short kernel's time depends on where its data
  // lies: the held tiny kernel then timed 4-6% apart (docs/accuracy.md "Metrics on and off").
  // A signing run reads module loads from the context's creation on (an eager module loading
  // loads every module now): each kernel's machine code goes into the work signature.
  const bool watches_modules = facts.available && !command_line.list_metrics &&
                               plan.cuda_tool.empty() && !nothing_measured &&
                               plan.settings.signature == Signature::kOn;
  if (watches_modules) process.harness.work().WatchModules(true);
  if (facts.available && !command_line.list_metrics) SetCurrentDevice(plan.settings.device, &facts);

  if (command_line.list_metrics) {
    std::string error =
        detail::ListMetrics(command_line.chip, facts, command_line.list_metrics_filter, std::cout);
    if (!error.empty()) return Refuse(error);
    return {false, 0};
  }
  process.tagged_device = tagged_device;
  if (detail::Status status = process.profile_log.Open(command_line.profile_out); !status.ok()) {
    return Refuse(status.message());
  }
  // The profiling child takes no timed samples: only the timing process writes them.
  if (detail::Status status = process.sample_log.Open(
          plan.is_profiling_child() ? std::string() : command_line.samples_out);
      !status.ok()) {
    return Refuse(status.message());
  }
  process.harness.Configure(plan, facts);
  // Read before benchmark::Initialize removes GB's flags from argv.
  process.policy.SetTrialRunDetector(detail::TrialRunDetector(
      detail::MinTimeSeconds(detail::GbFlagValue(*argc, argv, "min_time"))));
  static const bool at_exit_registered = std::atexit(CheckLastCallAtExit) == 0;
  (void)at_exit_registered;
  if (std::optional<InitResult> done = SetUpProfiling(child)) return *done;
  // After the profiler: the stream watch's first attachment detaches CUPTI again, which a
  // profiler set up later could not survive.
  if (facts.available) {
    if (detail::Status status = process.harness.PrepareBeforeBenchmarks(); !status.ok()) {
      std::cerr << "gpubench: could not make gpubench's GPU resources before the benchmarks ("
                << status.message() << "); each benchmark makes them when it first needs them\n";
    }
  }
  if (watches_modules) process.harness.work().WatchModules(false);
  if (facts.available) facts.identity = detail::ReadGpuIdentity(facts.pci_bus_id, facts.cuda_uuid);
  SetUpReuse(facts, &process.reuse);
  process.ChooseRoute();  // the loop and its stages ask the route from here on
  AddContext(facts, lock_note, tagged_device);
  return {true, 0};
}

}  // namespace gpubench
