// What gpubench-report warns about: cut-off files, throttled, shared or paused rows, failures,
// copied counters, and how the baseline's settings and device differ.
#include <optional>
#include <string>
#include <vector>

#include "schema/context_keys.hpp"
#include "tools/gate/comparison.hpp"
#include "tools/gate/host_calls.hpp"
#include "tools/gate/run_summary.hpp"
#include "tools/load/cut_off.hpp"
#include "tools/report/html_report.hpp"
#include "tools/report/html_sections.hpp"

namespace gpubench::tools::internal {
namespace {

std::string Quoted(const std::optional<std::string>& value) {
  return value ? "\"" + *value + "\"" : std::string("absent");
}

std::string RunCutOffText(const CutOffFile& cut) {
  return DescribeCutOff(cut) +
         "; this report shows the recovered benchmarks only, and a cut-off run never passes "
         "gpubench-compare's gate";
}

std::string BaselineCutOffText(const CutOffFile& cut) {
  return "baseline " + DescribeCutOff(cut) +
         "; the run's benchmarks after the cut have no baseline (new, not judged)";
}

// "name (2 of 3 repetitions)"
std::string WithRepetitions(const BenchmarkRecord& record, std::size_t count) {
  return record.name + " (" + std::to_string(count) + " of " +
         std::to_string(record.RepetitionCount()) + " repetitions)";
}

// `intro` and the first 20 of `names`.
std::string Listed(std::string intro, const std::vector<std::string>& names) {
  for (std::size_t i = 0; i < names.size() && i < 20; ++i) intro += (i ? ", " : "") + names[i];
  if (names.size() > 20) intro += ", ...";
  return intro;
}

// What is wrong with the files themselves: cut off, no GPU, no counters, not gpubench's.
void AddFileWarnings(const ReportInputs& inputs, std::vector<Warning>* warnings) {
  const BenchmarkFile& run = *inputs.run;
  for (const CutOffFile& cut : run.cut_off) warnings->push_back({"bad", RunCutOffText(cut)});
  if (inputs.baseline) {
    for (const CutOffFile& cut : inputs.baseline->cut_off) {
      warnings->push_back({"bad", BaselineCutOffText(cut)});
    }
  }
  if (ContextOr(run, context_key::kGpuStatus, "ok") != "ok") {
    warnings->push_back({"bad", "GPU unavailable when the run was made: " +
                                    ContextOr(run, context_key::kGpuStatus, "")});
  }
  if (ContextOr(run, context_key::kProfiler, "").rfind("unavailable", 0) == 0) {
    warnings->push_back({"warn", "hardware counters were not collected: gpubench_profiler = " +
                                     ContextOr(run, context_key::kProfiler, "")});
  }
  if (!run.ContextValue(context_key::kSettingsFingerprint)) {
    warnings->push_back({"warn", run.path + " has no gpubench settings (not written by gpubench)"});
  }
}

// Rows whose numbers are doubtful: throttled clock, shared GPU, launches not held, a paused GB
// timer, failures.
void AddRowWarnings(const BenchmarkFile& run, std::vector<Warning>* warnings) {
  std::vector<std::string> throttled, shared, not_held, paused, held_down;
  std::size_t failed = 0;
  for (const BenchmarkRecord& record : run.benchmarks) {
    std::size_t count = 0;
    if (Throttled(record, &count)) throttled.push_back(WithRepetitions(record, count));
    const bool is_shared = Shared(record, &count);
    if (is_shared) shared.push_back(WithRepetitions(record, count));
    // A shared row is not held either; its cause is said above.
    if (!is_shared && NotHeld(record, &count)) not_held.push_back(WithRepetitions(record, count));
    if (TimingPaused(record, &count)) paused.push_back(WithRepetitions(record, count));
    if (const std::string reasons = HeatOrPowerReasons(record, &count); !reasons.empty()) {
      held_down.push_back(WithRepetitions(record, count) + ": " + reasons);
    }
    if (record.failed) ++failed;
  }
  if (!throttled.empty()) {
    warnings->push_back({"bad", Listed("SM clock throttled (below 90% of the rated clock) in " +
                                           std::to_string(throttled.size()) +
                                           " benchmark(s); their times are doubtful: ",
                                       throttled)});
  }
  if (!shared.empty()) {
    warnings->push_back(
        {"bad",
         Listed("GPU shared: another process used the GPU during " + std::to_string(shared.size()) +
                    " benchmark(s) (gpu_shared); their times and device-wide counters "
                    "are doubtful and the gate does not judge them: ",
                shared)});
  }
  if (!not_held.empty()) {
    warnings->push_back(
        {"warn", Listed("launches not held (launch_held=0) in " + std::to_string(not_held.size()) +
                            " benchmark(s): the loop body waits for the GPU, so the host's "
                            "launch time may be inside their GPU time: ",
                        not_held)});
  }
  if (!held_down.empty()) {
    warnings->push_back(
        {"warn", Listed("clocks held down for heat or power (NVML's clock_event_reasons) in " +
                            std::to_string(held_down.size()) +
                            " benchmark(s); their times depend on the GPU's temperature: ",
                        held_down)});
  }
  if (!paused.empty()) {
    warnings->push_back(
        {"bad", Listed("GB's timer paused (timing_paused=1) in " + std::to_string(paused.size()) +
                           " benchmark(s): the loop body calls state.PauseTiming(), which leaves "
                           "the paused GPU work in the GPU time (use gpubench::UntimedScope): ",
                       paused)});
  }
  if (failed > 0) {
    warnings->push_back(
        {"warn", std::to_string(failed) + " benchmark(s) failed or were skipped (see the table)"});
  }
}

// How the baseline differs: settings, device, its own warnings.
void AddBaselineWarnings(const BenchmarkFile& baseline, const BenchmarkFile& run,
                         std::vector<Warning>* warnings) {
  const SettingsCheck check = CheckSettings(baseline, run);
  if (check.mismatch) {
    std::string text = "settings differ from the baseline (fingerprint " +
                       check.baseline_fingerprint.value_or("none") + " vs " +
                       check.contender_fingerprint.value_or("none") +
                       "): compared anyway (--allow-settings-mismatch)";
    for (const ValueDifference& difference : check.differences) {
      text += "; " + difference.key + ": " + Quoted(difference.baseline) + " in the baseline, " +
              Quoted(difference.contender) + " here";
    }
    warnings->push_back({"bad", text});
  }
  for (const std::string& note : check.notes) warnings->push_back({"warn", note});
  for (const ValueDifference& difference : DeviceDifferences(baseline, run)) {
    if (!difference.prominent) continue;
    warnings->push_back({"warn", "different " + difference.key +
                                     " than the baseline: " + Quoted(difference.baseline) + " vs " +
                                     Quoted(difference.contender)});
  }
  for (const std::string& warning : baseline.warnings) {
    warnings->push_back({"warn", "baseline: " + warning});
  }
}

}  // namespace

std::string CutOffBanners(const ReportInputs& inputs) {
  std::string html;
  for (const CutOffFile& cut : inputs.run->cut_off) {
    html += "<p class=\"gate bad cut-off\"><b>CUT OFF:</b> " + HtmlEscape(RunCutOffText(cut)) +
            "</p>\n";
  }
  if (inputs.baseline) {
    for (const CutOffFile& cut : inputs.baseline->cut_off) {
      html += "<p class=\"gate bad cut-off\"><b>BASELINE CUT OFF:</b> " +
              HtmlEscape(BaselineCutOffText(cut)) + "</p>\n";
    }
  }
  return html;
}

std::vector<Warning> CollectWarnings(const ReportInputs& inputs) {
  std::vector<Warning> warnings;
  AddFileWarnings(inputs, &warnings);
  AddRowWarnings(*inputs.run, &warnings);
  // Rows whose GPU waited for the host inside the timed span, with the loop's runtime calls.
  for (std::string& text : GpuBusyWarnings(*inputs.run)) warnings.push_back({"warn", text});
  for (const std::string& line : inputs.copied_counter_lines) {
    warnings.push_back({"warn", "copied counters: " + line});
  }
  for (const std::string& warning : inputs.run->warnings) warnings.push_back({"warn", warning});
  if (inputs.baseline) AddBaselineWarnings(*inputs.baseline, *inputs.run, &warnings);
  return warnings;
}

}  // namespace gpubench::tools::internal
