#include "frontend/setup/profiling_run.hpp"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>

#include "common/environment.hpp"
#include "common/text_files.hpp"
#include "frontend/setup/run_self.hpp"
#include "measure/process/process_access.hpp"

namespace gpubench::detail {
namespace {

// The profiling child's file while the child runs: a signal that ends this process then (a CI
// timeout's SIGTERM, Ctrl-C) removes it first, and then ends the process as it would have.
constexpr int kEndingSignals[] = {SIGTERM, SIGINT, SIGHUP};
char g_child_file[4096];
struct sigaction g_previous_actions[std::size(kEndingSignals)];

void RemoveChildFileAndEnd(int signal) {
  ::unlink(g_child_file);  // async-signal-safe
  for (std::size_t i = 0; i < std::size(kEndingSignals); ++i) {
    if (kEndingSignals[i] == signal) ::sigaction(signal, &g_previous_actions[i], nullptr);
  }
  ::raise(signal);  // delivered with the previous action once this handler returns
}

}  // namespace

class RemovedOnSignal {
 public:
  explicit RemovedOnSignal(const std::string& path) {
    std::snprintf(g_child_file, sizeof(g_child_file), "%s", path.c_str());
    struct sigaction action {};
    action.sa_handler = RemoveChildFileAndEnd;
    sigemptyset(&action.sa_mask);
    for (std::size_t i = 0; i < std::size(kEndingSignals); ++i) {
      ::sigaction(kEndingSignals[i], &action, &g_previous_actions[i]);
    }
  }
  ~RemovedOnSignal() {
    for (std::size_t i = 0; i < std::size(kEndingSignals); ++i) {
      ::sigaction(kEndingSignals[i], &g_previous_actions[i], nullptr);
    }
    g_child_file[0] = '\0';
  }
  RemovedOnSignal(const RemovedOnSignal&) = delete;
  RemovedOnSignal& operator=(const RemovedOnSignal&) = delete;
};

std::vector<std::string> ProfilingChildArgs(const std::vector<std::string>& args) {
  std::vector<std::string> child;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (i > 0 &&
        (StartsWith(arg, "--benchmark_out=") || StartsWith(arg, "--benchmark_out_format="))) {
      continue;
    }
    child.push_back(arg);
  }
  return child;
}

std::vector<std::string> OwnCommandLine(const std::vector<std::string>& fallback) {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::vector<std::string> args;
  for (std::string arg; std::getline(in, arg, '\0');) args.push_back(arg);
  return args.empty() ? fallback : args;
}

ProfilingChild::ProfilingChild() = default;

ProfilingChild::~ProfilingChild() { Discard(); }

void ProfilingChild::Discard() {
  if (pid_ < 0 && file_.empty()) return;
  WaitForChild(pid_);
  pid_ = -1;
  removed_.reset();
  std::remove(file_.c_str());
  file_.clear();
}

void ProfilingChild::Start(const std::vector<std::string>& args) {
  file_ = TemporaryFile("gpubench-profiling");
  if (file_.empty()) {
    why_not_ = std::string("cannot create the profiling child's file: ") + std::strerror(errno) +
               " (set TMPDIR to a writable folder)";
    return;
  }
  start_ = std::chrono::steady_clock::now();
  ChildSetup setup;
  setup.role = "as the profiling child";
  // Its results are not the run's: its console goes nowhere, its messages stay.
  setup.discard_stdout = true;
  setup.dies_with_parent = true;  // a CI job that kills the parent takes the child with it
  setup.set_env = {{kProfilingChildVariable, file_}};
  setup.unset_env = {"BENCHMARK_OUT"};
  removed_ = std::make_unique<RemovedOnSignal>(file_);
  pid_ = StartSelf(ProfilingChildArgs(args), setup);
}

void ProfilingChild::Announce(std::ostream& log) {
  if (file_.empty()) return;  // Finish says why no child runs
  log << "gpubench: profiling pass: a child process takes the hardware metrics of every "
         "benchmark first, so that no timed iteration runs where CUPTI's profiler was set up\n";
  log.flush();
}

ProfilingChildResult ProfilingChild::Finish(std::ostream& log) {
  ProfilingChildResult result;
  if (file_.empty()) {
    result.why_not = why_not_;
    return result;
  }
  const int code = WaitForChild(pid_);
  pid_ = -1;
  removed_.reset();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  ProfilingPass::Header header;
  ProfilingPass& pass = ProcessProfilingPass();
  const Status read = pass.BeginTiming(file_, &header);
  std::remove(file_.c_str());
  file_.clear();
  if (!read.ok()) {
    result.why_not = "unavailable: the profiling child (exit code " + std::to_string(code) +
                     ") ended before its profiler was set up: " + read.message() +
                     "; --gpubench_profile_process=same profiles in this process instead";
    return result;
  }
  result.ran = true;
  SetProfilerFromChild(header.profiler_status, header.metric_units);
  if (!pass.files().read_child) return result;  // the child said why
  char took[32];
  std::snprintf(took, sizeof(took), "%.1f", seconds);
  log << "gpubench: profiling pass done: " << pass.size() << " benchmark instance(s) profiled in "
      << took << " s";
  // What the busy measurement (gpu_busy_time) took of it, summed over the instances.
  double busy_seconds = 0;
  for (const auto& [instance, entry] : pass.entries()) busy_seconds += entry.busy.host_seconds;
  if (busy_seconds > 0) {
    char busy[32];
    std::snprintf(busy, sizeof(busy), "%.2f", busy_seconds);
    log << " (busy measurement " << busy << " s of it)";
  }
  if (code != 0) log << "; the child ended with exit code " << code;
  for (const std::string& instance : pass.aborted_in_child()) {
    log << "; the child aborted (SIGABRT) in " << instance
        << ", which this process does not run again (its row is an error) and which leaves the "
           "benchmarks after it without metrics";
  }
  log << "; timing starts\n";
  return result;
}

ProfilingChildResult RunProfilingChild(const std::vector<std::string>& args, std::ostream& log) {
  ProfilingChild child;
  child.Start(args);
  child.Announce(log);
  return child.Finish(log);
}

}  // namespace gpubench::detail
