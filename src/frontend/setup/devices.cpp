#include "frontend/setup/devices.hpp"

#include "common/text_files.hpp"
#include "frontend/hooks/gpubench_counts.hpp"
#include "frontend/hooks/self_timed_rows.hpp"
#include "frontend/setup/run_self.hpp"
#include "gb/gb_internals.hpp"
#include "measure/call/abort_note.hpp"
#include "schema/context_keys.hpp"

#include <cuda_runtime_api.h>
#include <fcntl.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

namespace gpubench::detail {
namespace {

// Splits GB's JSON at its "benchmarks" array (SplitGbJson): the context object, parsed, and the
// array's inside.
Status ParseGbJson(const std::string& text, nlohmann::json* context, std::string* rows) {
  std::string context_object;
  GPUBENCH_RETURN_IF_ERROR(SplitGbJson(text, &context_object, rows));
  try {
    *context = nlohmann::json::parse(context_object).at("context");
  } catch (const std::exception& error) {
    return Status::InvalidInput(std::string("its context block does not parse: ") + error.what());
  }
  return Status::Ok();
}

}  // namespace

std::vector<int> ResolveDevices(const CommandLine& line) {
  if (!line.all_devices) return line.devices;
  // cudaGetDeviceCount creates no context, so the children find no trace of the parent.
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count <= 0) return {0};
  std::vector<int> devices;
  for (int device = 0; device < count; ++device) devices.push_back(device);
  return devices;
}

std::vector<std::string> ChildArgs(const std::vector<std::string>& args, int device,
                                   const std::string& out_path) {
  std::vector<std::string> child;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (i > 0 && arg == "--gpubench_devices") {
      ++i;  // the value follows
      continue;
    }
    if (i > 0 && (StartsWith(arg, "--gpubench_devices=") || StartsWith(arg, "--benchmark_out=") ||
                  StartsWith(arg, "--benchmark_out_format="))) {
      continue;
    }
    child.push_back(arg);
  }
  child.push_back("--gpubench_devices=" + std::to_string(device));
  if (!out_path.empty()) {
    child.push_back("--benchmark_out=" + out_path);
    child.push_back("--benchmark_out_format=json");
  }
  return child;
}

Result<std::string> MergeDeviceResults(const std::vector<std::pair<int, std::string>>& files) {
  nlohmann::json context;
  std::string rows, devices;
  for (const auto& [device, text] : files) {
    nlohmann::json child_context;
    std::string child_rows;
    if (Status status = ParseGbJson(text, &child_context, &child_rows); !status.ok()) {
      return Status::InvalidInput("the results of device " + std::to_string(device) + ": " +
                                  status.message());
    }
    if (context.is_null()) {
      context = child_context;
    } else if (context.value(context_key::kSettingsFingerprint, "") !=
               child_context.value(context_key::kSettingsFingerprint, "")) {
      return Status::SettingsMismatch("device " + std::to_string(device) +
                                      " ran with other settings than the first device");
    } else {
      const std::string prefix = context_key::kGpuPrefix + std::to_string(device) + "_";
      for (const auto& [key, value] : child_context.items()) {
        if (StartsWith(key, prefix)) context[key] = value;
      }
    }
    devices += (devices.empty() ? "" : ",") + std::to_string(device);
    if (!child_rows.empty()) rows += (rows.empty() ? "" : ",\n    ") + child_rows;
  }
  if (context.is_null()) return Status::InvalidInput("no device produced results");
  context[context_key::kDevices] = devices;
  std::string merged = JoinGbJson(context.dump(2), rows);
  return merged;
}

namespace {

class RealChildProcesses : public ChildProcesses {
 public:
  int Start(const std::vector<std::string>& args, const ChildSetup& setup) override {
    return StartSelf(args, setup);
  }
  int Wait(int handle) override { return WaitForChild(handle); }
};

// One device's child: what it writes and where.
struct DeviceChild {
  int device = 0;
  std::string part;     // its JSON file ("" without --benchmark_out)
  std::string console;  // all_at_once: its console output, printed when it is done
  std::string errors;   // all_at_once: its error stream (GB's context block, warnings), likewise
  int handle = -1;
};

void PrintAndRemove(const std::string& path, std::ostream& stream) {
  if (path.empty()) return;
  std::string text;
  ReadWholeFile(path, &text);
  std::remove(path.c_str());
  stream << text;
  stream.flush();
}

}  // namespace

int RunOnEachDevice(const std::vector<std::string>& args, const std::vector<int>& devices,
                    const GbOutput& output, DeviceOrder order) {
  RealChildProcesses children;
  return RunOnEachDevice(args, devices, output, order, children, std::cout);
}

int RunOnEachDevice(const std::vector<std::string>& args, const std::vector<int>& devices,
                    const GbOutput& output, DeviceOrder order, ChildProcesses& children,
                    std::ostream& console) {
  if (!output.format.empty() && output.format != "console") {
    std::cerr
        << "gpubench: --benchmark_format=" << output.format
        << " with several devices would print one document per device: write it to a file "
           "with --benchmark_out=FILE (merged over the devices) and keep the console format\n";
    return 2;
  }
  if (!output.out.empty() && !output.out_format.empty() && output.out_format != "json") {
    std::cerr << "gpubench: --benchmark_out_format=" << output.out_format
              << " with several devices: gpubench merges the devices' files as JSON only; use "
                 "--benchmark_out_format=json\n";
    return 2;
  }
  const bool at_once = order == DeviceOrder::kAllAtOnce;
  std::vector<DeviceChild> runs;
  for (int device : devices) {
    DeviceChild run;
    run.device = device;
    if (!output.out.empty()) run.part = output.out + ".gpu" + std::to_string(device) + ".part";
    if (at_once) {  // "" when no file can be made: that stream goes straight through
      run.console = TemporaryFile("gpubench-gpu" + std::to_string(device) + "-stdout");
      run.errors = TemporaryFile("gpubench-gpu" + std::to_string(device) + "-stderr");
    }
    runs.push_back(run);
  }
  const auto start = [&](DeviceChild& run) {
    ChildSetup setup;
    setup.role = "for one device";
    setup.stdout_file = run.console;
    setup.stderr_file = run.errors;
    if (at_once) {
      setup.set_env = {{kDevicesAtOnceVariable, "1"}};
    } else {
      setup.unset_env = {kDevicesAtOnceVariable};
    }
    run.handle = children.Start(ChildArgs(args, run.device, run.part), setup);
  };
  if (at_once) {
    console << "gpubench: " << runs.size()
            << " devices at once (--gpubench_device_order=" << ToString(order)
            << "); each device's console output follows when it is done\n";
    console.flush();
    for (DeviceChild& run : runs) start(run);
  }
  int exit_code = 0;
  std::vector<std::pair<int, std::string>> files;
  for (DeviceChild& run : runs) {
    if (!at_once) start(run);
    const int code = run.handle < 0 ? -1 : children.Wait(run.handle);
    // Its error stream first: GB writes the context block there, before the rows.
    PrintAndRemove(run.errors, std::cerr);
    PrintAndRemove(run.console, console);
    if (code != 0) {
      std::cerr << "gpubench: the run on device " << run.device << " exited with code " << code
                << "; the other devices' results are kept\n";
      if (exit_code == 0) exit_code = code;
    }
    if (run.part.empty()) continue;
    std::string text;
    ReadWholeFile(run.part, &text);  // unreadable: empty, reported below as not GB's JSON
    std::remove(run.part.c_str());
    if (text.empty()) {
      std::cerr << "gpubench: device " << run.device << " wrote no results\n";
      continue;
    }
    files.emplace_back(run.device, text);
  }
  if (output.out.empty()) return exit_code;
  Result<std::string> merged = MergeDeviceResults(files);
  if (!merged.ok()) {
    std::cerr << "gpubench: " << merged.status().message() << "\n";
    return exit_code != 0 ? exit_code : 1;
  }
  std::ofstream out(output.out, std::ios::binary | std::ios::trunc);
  out << merged.value();
  if (!out) {
    std::cerr << "gpubench: cannot write " << output.out << ": " << std::strerror(errno) << "\n";
    return exit_code != 0 ? exit_code : 1;
  }
  return exit_code;
}

ForwardingReporter::~ForwardingReporter() { StopAbortOutput(); }

void ForwardingReporter::StopAbortOutput() {
  RemoveAbortJsonOutput(abort_output_);
  abort_output_ = -1;
  if (abort_fd_ >= 0) ::close(abort_fd_);
  abort_fd_ = -1;
}

bool ForwardingReporter::ReportContext(const Context& context) {
  inner_->SetOutputStream(&GetOutputStream());
  inner_->SetErrorStream(&GetErrorStream());
  Context wider = context;
  wider.name_field_width += tag_.empty() ? 0 : tag_.size() + 1;
  const bool go_on = inner_->ReportContext(wider);
  GetOutputStream().flush();
  // GB opened (and emptied) the file before the context: an abort from now on appends to it.
  if (destination_.json && abort_output_ < 0) {
    abort_fd_ = destination_.path.empty()
                    ? ::dup(STDOUT_FILENO)
                    : ::open(destination_.path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
    if (abort_fd_ >= 0) abort_output_ = AddAbortJsonOutput(abort_fd_);
  }
  return go_on;
}

void ForwardingReporter::ReportRuns(const std::vector<Run>& reports) {
  std::vector<Run> marked = reports;
  RestoreRunNames(&marked);
  CheckReportedRows(&marked);  // before the tag: it matches untagged names
  for (Run& run : marked) {
    TagRunArgs(&run, tag_);
  }
  inner_->ReportRuns(marked);
  GetOutputStream().flush();
  if (!marked.empty()) AbortJsonOutputHasRows(abort_output_);
}

void ForwardingReporter::Finalize() {
  inner_->Finalize();
  GetOutputStream().flush();  // closed on disk before an abort could append to it
  StopAbortOutput();
}

}  // namespace gpubench::detail
