#include "frontend/profiling_run.hpp"

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "frontend/gb_compat.hpp"
#include "measure/process_state.hpp"

namespace gpubench::detail {
namespace {

// Sorts the profiling pass's rows: GB prints and writes nothing of this run.
class ProfilingPassReporter : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      if (run.run_type != Run::RT_Iteration) continue;
      const std::string error = RunErrorMessage(run);
      if (error.find(kProfilingPassSkip) != std::string::npos) continue;
      // A row GB reports without an error never reached a gpubench::Loop: a CPU benchmark
      // (or a GPU one of its own making) that ran in full here and runs again when timed.
      if (!RunFailed(run)) unprofiled.push_back(run.benchmark_name());
    }
  }
  std::vector<std::string> unprofiled;
};

std::string Listed(const std::vector<std::string>& names) {
  std::string text;
  const size_t shown = names.size() < 5 ? names.size() : 5;
  for (size_t i = 0; i < shown; ++i) text += (i ? ", " : "") + names[i];
  if (names.size() > shown) text += ", and " + std::to_string(names.size() - shown) + " more";
  return text;
}

}  // namespace

void RunProfilingPass(const GbRunFlags& flags, std::ostream& log) {
  ProcessState& process = ProcessState::Get();
  if (flags.list_tests || process.harness.profiler() == nullptr ||
      process.harness.settings().profile_iterations <= 0 ||
      process.profiling_pass.stage() != ProfilingPass::Stage::kInline) {
    return;
  }
  log << "gpubench: profiling pass: hardware metrics of every benchmark first, so that CUPTI is "
         "detached before anything is timed\n";
  log.flush();
  const auto start = std::chrono::steady_clock::now();
  ProfilingPassReporter display;
  ProfilingPassReporter file;  // GB opens --benchmark_out in every run; nothing is written to it
  process.profiling_pass.Begin();
  benchmark::RunSpecifiedBenchmarks(&display, flags.out_file ? &file : nullptr);
  process.profiling_pass.End();
  process.harness.profiler()->Finish();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  char took[32];
  std::snprintf(took, sizeof(took), "%.1f", seconds);
  log << "gpubench: profiling pass done: " << process.profiling_pass.size()
      << " benchmark instances profiled in " << took << " s; CUPTI detached, timing starts\n";
  if (!display.unprofiled.empty()) {
    log << "gpubench: the profiling pass also ran " << display.unprofiled.size()
        << " benchmark(s) that do not use gpubench::Loop (" << Listed(display.unprofiled)
        << "); their results were discarded, and they run again in the timed pass\n";
  }
}

}  // namespace gpubench::detail
