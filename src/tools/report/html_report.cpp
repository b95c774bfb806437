#include "tools/report/html_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <unordered_map>
#include <utility>

#include <nlohmann/json.hpp>

#include "gpubench/counters.hpp"
#include "tools/base/text.hpp"
#include "tools/gate/host_calls.hpp"
#include "tools/gate/run_summary.hpp"
#include "tools/gate/suite_summary.hpp"
#include "tools/load/cut_off.hpp"
#include "tools/report/web_assets.hpp"

namespace gpubench::compare {
namespace {

using OrderedJson = nlohmann::ordered_json;

// Six significant digits are plenty for a chart and keep the embedded data small.
double Round6(double value) {
  if (!std::isfinite(value) || value == 0) return value;
  return std::strtod(Printf("%.6g", value).c_str(), nullptr);
}

OrderedJson NumberOrNull(double value) {
  return std::isfinite(value) ? OrderedJson(Round6(value)) : OrderedJson(nullptr);
}

OrderedJson Values(const MetricSeries* series) {
  OrderedJson values = OrderedJson::array();
  if (series) {
    for (double value : series->values) values.push_back(NumberOrNull(value));
  }
  return values;
}

bool EndsWith(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool IsNumber(std::string_view text, double* value) {
  if (text.empty() || text.size() > 40) return false;
  const std::string copy(text);
  char* end = nullptr;
  *value = std::strtod(copy.c_str(), &end);
  return end == copy.c_str() + copy.size() && std::isfinite(*value) &&
         (std::isdigit(static_cast<unsigned char>(copy[0])) || copy[0] == '-');
}

std::string FormatBandwidth(double bytes_per_second) {
  if (!std::isfinite(bytes_per_second)) return "-";
  if (bytes_per_second >= 1e12) return Printf("%.3g TB/s", bytes_per_second / 1e12);
  if (bytes_per_second >= 1e9) return Printf("%.3g GB/s", bytes_per_second / 1e9);
  if (bytes_per_second >= 1e6) return Printf("%.3g MB/s", bytes_per_second / 1e6);
  return Printf("%.3g kB/s", bytes_per_second / 1e3);
}

std::string FormatBytes(double bytes) {
  if (!std::isfinite(bytes)) return "-";
  if (bytes >= 1 << 30) return Printf("%.4g GiB", bytes / (1 << 30));
  if (bytes >= 1 << 20) return Printf("%.4g MiB", bytes / (1 << 20));
  if (bytes >= 1 << 10) return Printf("%.4g KiB", bytes / (1 << 10));
  return Printf("%.0f B", bytes);
}

std::string FormatTime(double ns) { return std::isfinite(ns) ? FormatTimeNs(ns) : "-"; }

std::string FormatPercentValue(double percent, const char* format = "%.2f%%") {
  return std::isfinite(percent) ? Printf(format, percent) : "-";
}

double MedianOf(const BenchmarkRecord& record, std::string_view metric) {
  const MetricSeries* series = record.FindMetric(metric);
  if (!series || series->values.empty()) return NAN;
  const Spread spread = Summarize(series->values);
  return spread.median;
}

// A sortable cell: data-v is what the table's script sorts by.
std::string Cell(const std::string& text, double sort_value, const std::string& css = "num") {
  std::string cell = "<td class=\"" + css + "\" data-v=\"";
  cell += std::isfinite(sort_value) ? Printf("%.9g", sort_value) : "";
  return cell + "\">" + HtmlEscape(text) + "</td>";
}

std::string TextCell(const std::string& text, const std::string& css = "") {
  return "<td" + (css.empty() ? std::string() : " class=\"" + css + "\"") + ">" + HtmlEscape(text) +
         "</td>";
}

struct Row {
  std::string label, value;
};

std::string DefinitionTable(const std::vector<Row>& rows) {
  std::string html = "<table class=\"facts\">";
  for (const Row& row : rows) {
    html += "<tr><th>" + HtmlEscape(row.label) + "</th><td>" + HtmlEscape(row.value) + "</td></tr>";
  }
  return html + "</table>";
}

std::string VerdictText(const BenchmarkComparison& benchmark) {
  switch (benchmark.status) {
    case BenchmarkStatus::kCompared:
      break;
    case BenchmarkStatus::kNew:
      return "new";
    case BenchmarkStatus::kMissing:
      return "missing";
    default:
      return StatusName(benchmark.status);
  }
  if (benchmark.verdict == Verdict::kUnconfirmed) {
    return benchmark.worse ? "unconfirmed (worse)" : "unconfirmed (better)";
  }
  return benchmark.verdict == Verdict::kReportOnly ? "report only" : VerdictName(benchmark.verdict);
}

std::string VerdictClass(const BenchmarkComparison& benchmark) {
  if (benchmark.fails_gate) return "bad";
  if (benchmark.verdict == Verdict::kImprovement ||
      (benchmark.verdict == Verdict::kUnconfirmed && !benchmark.worse)) {
    return "good";
  }
  if (benchmark.verdict == Verdict::kUnconfirmed || benchmark.verdict == Verdict::kUndecided) {
    return "warn";
  }
  return "";
}

// The gated metrics' verdicts, for the verdict cell's tooltip.
std::string VerdictDetails(const BenchmarkComparison& benchmark) {
  std::string details;
  for (const MetricComparison& metric : benchmark.metrics) {
    if (!metric.policy.threshold_percent) continue;
    details += metric.name + ": " + FormatChangePercent(metric.change_percent) + ", " +
               VerdictName(metric.verdict);
    if (metric.applied_threshold_percent) {
      details += " (threshold " + Printf("%.3g", *metric.applied_threshold_percent) + "%; " +
                 metric.threshold_source + ")";
    }
    details += "\n";
  }
  for (const std::string& note : benchmark.notes) details += note + "\n";
  if (!benchmark.failure_message.empty()) details += benchmark.failure_message + "\n";
  return details;
}

// What the header says about the SM clock of the whole run: the rated clock and the range of the
// benchmarks' median actual clocks.
std::string ClockText(const BenchmarkFile& run) {
  std::vector<double> clocks;
  for (const BenchmarkRecord& record : run.benchmarks) {
    const double clock = MedianOf(record, "sm_clock_mhz");
    if (std::isfinite(clock)) clocks.push_back(clock);
  }
  const std::string rated = ContextOr(run, "gpu_sm_clock_rated_mhz", "unknown");
  if (clocks.empty()) return "rated " + rated + " MHz; actual not measured";
  const auto [low, high] = std::minmax_element(clocks.begin(), clocks.end());
  std::string text = "rated " + rated + " MHz; actual " + Printf("%.0f", Median(clocks)) +
                     " MHz (median of the benchmarks' medians; " + Printf("%.0f", *low) + " - " +
                     Printf("%.0f", *high) + " MHz)";
  if (const auto rated_number = ContextNumber(run, "gpu_sm_clock_rated_mhz")) {
    text += ", " + Printf("%.1f%%", Median(clocks) / *rated_number * 100) + " of rated";
  }
  return text;
}

std::string Versions(const BenchmarkFile& file) {
  return "driver " + ContextOr(file, "cuda_driver_version", "?") + ", runtime " +
         ContextOr(file, "cuda_runtime_version", "?") + ", CUPTI API " +
         ContextOr(file, "cuda_cupti_api_version", "?");
}

std::string Quoted(const std::optional<std::string>& value) {
  return value ? "\"" + *value + "\"" : std::string("absent");
}

struct Warning {
  std::string level;  // "bad" or "warn"
  std::string text;
};

std::string RunCutOffText(const CutOffFile& cut) {
  return DescribeCutOff(cut) +
         "; this report shows the recovered benchmarks only, and a cut-off run never passes "
         "gpubench-compare's gate";
}

std::string BaselineCutOffText(const CutOffFile& cut) {
  return "baseline " + DescribeCutOff(cut) +
         "; the run's benchmarks after the cut have no baseline (new, not judged)";
}

// Above everything else: numbers from a run that did not finish must not pass for a whole run.
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
  if (ContextOr(run, "gpu_status", "ok") != "ok") {
    warnings->push_back(
        {"bad", "GPU unavailable when the run was made: " + ContextOr(run, "gpu_status", "")});
  }
  if (ContextOr(run, "gpubench_profiler", "").rfind("unavailable", 0) == 0) {
    warnings->push_back({"warn", "hardware counters were not collected: gpubench_profiler = " +
                                     ContextOr(run, "gpubench_profiler", "")});
  }
  if (!run.ContextValue(kSettingsFingerprintKey)) {
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

// What the run's rows cost in wall time (their wall_* counters, gpubench >= method version 4):
// the total and its split, the costliest benchmarks, and the stopping rule.
std::string CostCard(const BenchmarkFile& run) {
  struct Cost {
    std::string name;
    double wall = 0;
  };
  double total = 0, warmup = 0, timed = 0, profiling = 0, samples = 0;
  std::vector<Cost> costs;
  auto sum = [](const BenchmarkRecord& record, std::string_view metric) {
    double value = 0;
    if (const MetricSeries* series = record.FindMetric(metric)) {
      for (double v : series->values) value += std::isfinite(v) ? v : 0;
    }
    return value;
  };
  for (const BenchmarkRecord& record : run.benchmarks) {
    if (record.aggregates_only || record.FindMetric("wall_time") == nullptr) continue;
    const double wall = sum(record, "wall_time");
    total += wall;
    warmup += sum(record, "wall_warmup");
    timed += sum(record, "wall_timed");
    profiling += sum(record, "wall_profiling");
    samples += sum(record, "samples");
    costs.push_back({record.name, wall});
  }
  std::vector<Row> rows;
  const std::string* rule = run.ContextValue("gpubench_stopping_rule");
  rows.push_back({"stopping rule", rule != nullptr ? *rule : std::string("GB's (not recorded)")});
  if (const std::string* note = run.ContextValue("gpubench_stopping_note")) {
    rows.push_back({"why", *note});
  }
  if (costs.empty()) {
    rows.push_back({"wall time",
                    "not recorded: the rows have no wall_time (gpubench before "
                    "method version 4, or no benchmark finished)"});
  } else {
    auto seconds = [](double value) { return Printf("%.2f s", value); };
    auto share = [&](double part) {
      return seconds(part) + " (" + Printf("%.0f%%", total > 0 ? 100 * part / total : 0) + ")";
    };
    rows.push_back({"rows' wall time", seconds(total) + " over " + std::to_string(costs.size()) +
                                           " benchmark(s), " + Printf("%.0f", samples) +
                                           " timed samples"});
    rows.push_back({"profiling", share(profiling)});
    rows.push_back({"warm-up", share(warmup)});
    rows.push_back({"timed samples", share(timed)});
    rows.push_back(
        {"set-up and GB's trial calls", share(std::max(0.0, total - profiling - warmup - timed))});
    std::sort(costs.begin(), costs.end(),
              [](const Cost& a, const Cost& b) { return a.wall > b.wall; });
    std::string top;
    for (std::size_t i = 0; i < costs.size() && i < 5; ++i) {
      top += (top.empty() ? "" : ", ") + costs[i].name + " " + seconds(costs[i].wall);
    }
    rows.push_back({"costliest", top});
  }
  return "<div class=\"card\" id=\"cost\"><h2>What the run cost</h2>" + DefinitionTable(rows) +
         "</div>";
}

std::string Header(const ReportInputs& inputs) {
  const BenchmarkFile& run = *inputs.run;
  std::string html;
  html += "<header><h1>gpubench report</h1><p class=\"sub\">" + HtmlEscape(run.path);
  if (inputs.baseline) html += " against the baseline " + HtmlEscape(inputs.baseline->path);
  html += " &middot; run " + HtmlEscape(ContextOr(run, "date", "date unknown")) + " on " +
          HtmlEscape(ContextOr(run, "host_name", "unknown host")) + "</p></header>\n";
  html += CutOffBanners(inputs);

  const std::optional<double> peak =
      ContextNumber(run, "gpu_dram_bandwidth_theoretical_bytes_per_second");
  std::vector<Row> device = {
      {"GPU", ContextOr(run, "gpu_name", "unknown") + " (compute capability " +
                  ContextOr(run, "gpu_compute_capability", "?") + ", " +
                  ContextOr(run, "gpu_sm_count", "?") + " SMs, ECC " +
                  ContextOr(run, "gpu_ecc", "?") + ")"},
      {"CUDA", Versions(run)},
      {"SM clock", ClockText(run)},
      {"DRAM", "theoretical peak " + (peak ? FormatBandwidth(*peak) : std::string("unknown")) +
                   " (" + ContextOr(run, "gpu_memory_bus_width_bits", "?") + "-bit bus, " +
                   ContextOr(run, "gpu_memory_clock_rated_mhz", "?") + " MHz rated)"},
      {"L2", FormatBytes(ContextNumber(run, "gpu_l2_bytes").value_or(NAN))},
  };
  if (inputs.baseline) {
    device.push_back({"Baseline GPU", ContextOr(*inputs.baseline, "gpu_name", "unknown") + ", " +
                                          Versions(*inputs.baseline)});
  }
  std::vector<Row> settings = {
      {"gpubench", ContextOr(run, "gpubench_version", "?") + " (method version " +
                       ContextOr(run, "gpubench_method_version", "?") + ")"},
      {"timer", ContextOr(run, "gpubench_timer", "?")},
      {"cache", ContextOr(run, "gpubench_cache", "?") + " (" +
                    ContextOr(run, "gpubench_flush_method", "?") + ")"},
      {"clock control", ContextOr(run, "gpubench_clock_control", "?")},
      {"profiling",
       ContextOr(run, "gpubench_profiling", "?") + "; " +
           ContextOr(run, "gpubench_profile_iterations", "?") +
           " profiled iterations; profile_runs=" + ContextOr(run, "gpubench_profile_runs", "?")},
      {"metrics", ContextOr(run, "gpubench_metrics", "?")},
      {"settings fingerprint", ContextOr(run, kSettingsFingerprintKey, "none")},
  };
  if (const std::string* busy = run.ContextValue(kGpuBusyKey)) {
    settings.insert(settings.end() - 1, {"GPU busy time", *busy});
  }
  // The GPU's heat: the setting, and how the thermal counters were read (or why there are none).
  if (const std::string* thermal = run.ContextValue("gpubench_thermal")) {
    settings.insert(settings.end() - 1, {"thermal", *thermal});
  }
  if (const std::string* read = run.ContextValue("gpubench_gpu_thermal")) {
    settings.insert(settings.end() - 1, {"GPU temperature, power", *read});
  }
  if (inputs.baseline) {
    settings.push_back(
        {"baseline fingerprint", ContextOr(*inputs.baseline, kSettingsFingerprintKey, "none")});
  }
  html += "<section class=\"cards\"><div class=\"card\"><h2>Device</h2>" + DefinitionTable(device) +
          "</div><div class=\"card\"><h2>gpubench settings</h2>" + DefinitionTable(settings) +
          "</div>" + CostCard(run) + "</section>\n";

  const std::vector<Warning> warnings = CollectWarnings(inputs);
  html += "<section id=\"warnings\"><h2>Warnings</h2>";
  if (warnings.empty()) {
    html += "<p class=\"ok\">None: no throttled runs, no failed benchmarks";
    html += inputs.log_given ? ", no copied counters in the log" : "";
    html += inputs.baseline ? ", settings equal to the baseline's" : "";
    html += ".</p>";
  } else {
    html += "<ul>";
    for (const Warning& warning : warnings) {
      html += "<li class=\"" + warning.level + "\">" + HtmlEscape(warning.text) + "</li>";
    }
    html += "</ul>";
  }
  if (!inputs.log_given) {
    html +=
        "<p class=\"muted\">Copied counters (a reported call whose counters gpubench copied from "
        "an earlier profiled call) are announced on gpubench's stderr, not in the JSON: pass "
        "<code>--log</code> with that output to list them here.</p>";
  }
  html += "</section>\n";
  return html;
}

std::string GateBanner(const ComparisonReport& report) {
  const Summary& s = report.summary;
  std::string text = report.exit_code == kExitOk ? "PASS" : "FAIL";
  std::string html = "<p class=\"gate " + std::string(report.exit_code == kExitOk ? "ok" : "bad") +
                     "\"><b>gpubench-compare: " + text + " (exit " +
                     std::to_string(report.exit_code) + ")</b> &middot; ";
  html += std::to_string(s.compared) + " compared, " + std::to_string(s.regressions) +
          " regressions, " + std::to_string(s.unconfirmed_regressions) +
          " unconfirmed regressions, " + std::to_string(s.improvements) + " improvements, " +
          std::to_string(s.same) + " same, " + std::to_string(s.undecided) + " undecided, " +
          std::to_string(s.missing) + " missing, " + std::to_string(s.added) + " new, " +
          std::to_string(s.failed_in_contender) + " failed in this run";
  if (!report.contender_cut_off.empty()) {
    html += " &middot; this run was cut off mid-write: a cut-off run never passes";
  }
  html += "</p>\n<p class=\"muted\" id=\"gate-tests\">" + HtmlEscape(TestingLine(report));
  if (const std::string suite = SuiteLine(report); !suite.empty()) {
    html += "<br>" + HtmlEscape(suite);
  }
  return html + "</p>\n";
}

// The cells of a row's own numbers: repetitions, time and cv, bytes, bandwidth, clock.
std::string MeasuredCells(const BenchmarkRecord& record, double peak) {
  if (record.failed) {
    return "<td colspan=\"7\" class=\"bad\">" + std::string(record.skipped ? "skipped" : "error") +
           (record.failure_message.empty() ? "" : ": " + HtmlEscape(record.failure_message)) +
           "</td>";
  }
  const MetricSeries* time = record.FindMetric(kRealTime);
  const Spread spread = time ? Summarize(time->values) : Spread{};
  const double moved = MedianOf(record, "bytes_moved");
  const double bandwidth = MedianOf(record, "dram_bandwidth");
  double percent = MedianOf(record, "dram_bandwidth_pct");
  if (!std::isfinite(percent) && std::isfinite(bandwidth) && peak > 0) {
    percent = bandwidth / peak * 100;
  }
  const double clock = MedianOf(record, "sm_clock_mhz");
  std::size_t throttled = 0, shared = 0;
  Throttled(record, &throttled);
  Shared(record, &shared);
  std::string html =
      Cell(std::to_string(record.RepetitionCount()), static_cast<double>(record.RepetitionCount()));
  html += Cell(FormatTime(spread.median), spread.median);
  html += Cell(FormatPercentValue(spread.cv_percent), spread.cv_percent);
  html += Cell(FormatBytes(moved), moved);
  html += Cell(FormatBandwidth(bandwidth), bandwidth);
  html += Cell(FormatPercentValue(percent, "%.1f%%"), percent);
  html += Cell((std::isfinite(clock) ? Printf("%.0f MHz", clock) : std::string("-")) +
                   (throttled ? " THROTTLED" : "") + (shared ? " GPU SHARED" : ""),
               clock, throttled || shared ? "num bad" : "num");
  return html;
}

// The cells against the baseline: its time, the change, the verdict (null: not compared).
std::string BaselineCells(const BenchmarkComparison* compared) {
  const MetricComparison* time = nullptr;
  if (compared) {
    for (const MetricComparison& metric : compared->metrics) {
      if (metric.name == kRealTime) time = &metric;
    }
  }
  std::string html =
      time ? Cell(FormatTime(time->baseline_median), time->baseline_median) : Cell("-", NAN);
  html +=
      time ? Cell(FormatChangePercent(time->change_percent), time->change_percent) : Cell("-", NAN);
  if (!compared) return html + TextCell("-");
  return html + "<td class=\"" + VerdictClass(*compared) + "\" title=\"" +
         HtmlEscape(VerdictDetails(*compared)) + "\">" + HtmlEscape(VerdictText(*compared)) +
         (compared->fails_gate ? " (fails)" : "") + "</td>";
}

// Rows for the benchmarks only the baseline has.
std::string MissingRows(const ComparisonReport& comparison, const BenchmarkFile& run) {
  const char* where = run.cut_off.empty()
                          ? "in the baseline only"
                          : "in the baseline only (this run was cut off mid-write: maybe after "
                            "the cut)";
  std::string html;
  for (const BenchmarkComparison& benchmark : comparison.benchmarks) {
    if (benchmark.status != BenchmarkStatus::kMissing) continue;
    html += "<tr><td class=\"name\">" + HtmlEscape(benchmark.name) +
            "</td><td colspan=\"7\" class=\"muted\">" + where + "</td>" + TextCell("-") +
            TextCell("-") + "<td class=\"" + VerdictClass(benchmark) + "\">missing" +
            (benchmark.fails_gate ? " (fails)" : "") + "</td></tr>\n";
  }
  return html;
}

std::string SummaryTable(const ReportInputs& inputs, double peak) {
  const BenchmarkFile& run = *inputs.run;
  std::unordered_map<std::string, const BenchmarkComparison*> verdicts;
  if (inputs.comparison) {
    for (const BenchmarkComparison& benchmark : inputs.comparison->benchmarks) {
      verdicts.emplace(benchmark.name, &benchmark);
    }
  }
  const bool baseline = inputs.comparison != nullptr;
  std::string html = "<section><h2>Summary</h2>";
  if (baseline) html += GateBanner(*inputs.comparison);
  html +=
      "<p class=\"muted\">Medians over the repetitions; cv is the coefficient of variation of the "
      "GPU time. Click a column to sort.</p><div class=\"table-wrap\"><table id=\"summary\" "
      "class=\"sortable\"><thead><tr>"
      "<th data-type=\"text\">Benchmark</th><th>Reps</th><th>Median GPU time</th><th>cv</th>"
      "<th>Bytes moved</th><th>DRAM bandwidth</th><th>% of peak</th><th>SM clock</th>";
  if (baseline) {
    html += "<th>Baseline time</th><th>Change</th><th data-type=\"text\">Verdict</th>";
  }
  html += "</tr></thead><tbody>\n";
  for (const BenchmarkRecord& record : run.benchmarks) {
    html +=
        "<tr><td class=\"name\">" + HtmlEscape(record.name) + "</td>" + MeasuredCells(record, peak);
    if (baseline) {
      const auto it = verdicts.find(record.name);
      html += BaselineCells(it != verdicts.end() ? it->second : nullptr);
    }
    html += "</tr>\n";
  }
  if (inputs.comparison) html += MissingRows(*inputs.comparison, run);
  return html + "</tbody></table></div></section>\n";
}

// The medians a roofline point needs (--gpubench_metrics=+flops): arithmetic intensity, FLOP
// rate, the FLOP peak of the row's precision mix, the tensor pipe's share. Rows without them
// get none.
void AddRooflinePoint(const BenchmarkRecord& record, OrderedJson* benchmark) {
  const double intensity = MedianOf(record, "arithmetic_intensity");
  const double rate = MedianOf(record, "flop_rate");
  if (!(intensity > 0) || !(rate > 0)) return;
  (*benchmark)["ai"] = intensity;
  (*benchmark)["fr"] = rate;
  (*benchmark)["fp"] = NumberOrNull(MedianOf(record, "flop_rate_peak"));
  (*benchmark)["tp"] = NumberOrNull(MedianOf(record, "tensor_pipe_pct"));
}

// The data the page's script draws: per benchmark, its family, argument and the per-repetition
// values of time and bandwidth (and the baseline's).
OrderedJson ChartData(const ReportInputs& inputs, double peak) {
  const BenchmarkFile& run = *inputs.run;
  OrderedJson data;
  data["peak"] = peak > 0 ? OrderedJson(peak) : OrderedJson(nullptr);
  data["baseline"] = inputs.baseline != nullptr;
  OrderedJson benchmarks = OrderedJson::array();
  for (const BenchmarkRecord& record : run.benchmarks) {
    if (record.failed) continue;
    const FamilyArgument split = SplitFamily(record.name);
    OrderedJson benchmark;
    benchmark["n"] = record.name;
    benchmark["f"] = split.family;
    benchmark["a"] = split.argument ? OrderedJson(*split.argument) : OrderedJson(nullptr);
    benchmark["t"] = Values(record.FindMetric(kRealTime));
    const MetricSeries* bandwidth = record.FindMetric("dram_bandwidth");
    if (bandwidth) benchmark["b"] = Values(bandwidth);
    AddRooflinePoint(record, &benchmark);
    if (inputs.baseline) {
      if (const BenchmarkRecord* base = inputs.baseline->Find(record.name); base && !base->failed) {
        benchmark["bt"] = Values(base->FindMetric(kRealTime));
        if (const MetricSeries* base_bandwidth = base->FindMetric("dram_bandwidth")) {
          benchmark["bb"] = Values(base_bandwidth);
        }
      }
    }
    benchmarks.push_back(std::move(benchmark));
  }
  data["benchmarks"] = std::move(benchmarks);
  return data;
}

// Whether any row can be drawn on the roofline.
bool HasRoofline(const BenchmarkFile& run) {
  for (const BenchmarkRecord& record : run.benchmarks) {
    if (!record.failed && record.FindMetric("arithmetic_intensity") &&
        record.FindMetric("flop_rate")) {
      return true;
    }
  }
  return false;
}

// Everything the charts show, as tables, for readers without JavaScript.
std::string NoScriptTables(const ReportInputs& inputs) {
  const BenchmarkFile& run = *inputs.run;
  std::string html =
      "<noscript><section><h2>Repetitions</h2><p>The charts need JavaScript; these are the "
      "values they draw (GPU time per iteration and DRAM bandwidth of every repetition).</p>"
      "<table><thead><tr><th>Benchmark</th><th>Family</th><th>Argument</th>"
      "<th>GPU time per repetition</th><th>DRAM bandwidth per repetition</th>";
  if (inputs.baseline) html += "<th>Baseline GPU time per repetition</th>";
  html += "</tr></thead><tbody>\n";
  const auto list = [](const MetricSeries* series, bool time) {
    if (!series) return std::string("-");
    std::string text;
    for (double value : series->values) {
      if (!text.empty()) text += ", ";
      text += time ? FormatTime(value) : FormatBandwidth(value);
    }
    return text;
  };
  for (const BenchmarkRecord& record : run.benchmarks) {
    if (record.failed) continue;
    const FamilyArgument split = SplitFamily(record.name);
    html += "<tr>" + TextCell(record.name) + TextCell(split.family) +
            TextCell(split.argument ? split.argument_text : "-") +
            TextCell(list(record.FindMetric(kRealTime), true)) +
            TextCell(list(record.FindMetric("dram_bandwidth"), false));
    if (inputs.baseline) {
      const BenchmarkRecord* base = inputs.baseline->Find(record.name);
      html += TextCell(base ? list(base->FindMetric(kRealTime), true) : "-");
    }
    html += "</tr>\n";
  }
  html += "</tbody></table></section>\n";
  if (HasRoofline(run)) {
    html +=
        "<section><h2>Roofline</h2><table><thead><tr><th>Benchmark</th><th>Arithmetic "
        "intensity (FLOP/byte)</th><th>FLOP rate</th><th>FLOP peak</th><th>Tensor pipe</th>"
        "</tr></thead><tbody>\n";
    for (const BenchmarkRecord& record : run.benchmarks) {
      if (record.failed || !record.FindMetric("arithmetic_intensity")) continue;
      html += "<tr>" + TextCell(record.name) +
              TextCell(Printf("%.4g", MedianOf(record, "arithmetic_intensity"))) +
              TextCell(Printf("%.4g FLOP/s", MedianOf(record, "flop_rate"))) +
              TextCell(Printf("%.4g FLOP/s", MedianOf(record, "flop_rate_peak"))) +
              TextCell(FormatPercentValue(MedianOf(record, "tensor_pipe_pct"))) + "</tr>\n";
    }
    html += "</tbody></table></section>\n";
  }
  return html + "</noscript>\n";
}

}  // namespace

std::string HtmlEscape(std::string_view text) {
  std::string escaped;
  escaped.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        escaped += "&amp;";
        break;
      case '<':
        escaped += "&lt;";
        break;
      case '>':
        escaped += "&gt;";
        break;
      case '"':
        escaped += "&quot;";
        break;
      case '\'':
        escaped += "&#39;";
        break;
      default:
        escaped += c;
    }
  }
  return escaped;
}

FamilyArgument SplitFamily(std::string_view name) {
  // GB appends these to the instance name; they are not arguments.
  static constexpr std::string_view kSuffixes[] = {"/manual_time", "/real_time", "/process_time"};
  static constexpr std::string_view kKeyedSuffixes[] = {
      "/iterations:", "/repeats:", "/threads:", "/min_time:", "/min_warmup_time:"};
  bool stripped = true;
  while (stripped) {
    stripped = false;
    for (std::string_view suffix : kSuffixes) {
      if (EndsWith(name, suffix)) {
        name.remove_suffix(suffix.size());
        stripped = true;
      }
    }
    const std::size_t slash = name.rfind('/');
    if (slash != std::string_view::npos) {
      for (std::string_view key : kKeyedSuffixes) {
        if (name.compare(slash, key.size(), key) == 0) {
          name = name.substr(0, slash);
          stripped = true;
          break;
        }
      }
    }
  }
  FamilyArgument result;
  const std::size_t slash = name.rfind('/');
  if (slash != std::string_view::npos && slash > 0) {
    std::string_view last = name.substr(slash + 1);
    const std::size_t colon = last.find(':');
    const std::string_view number = colon == std::string_view::npos ? last : last.substr(colon + 1);
    double value = 0;
    if (IsNumber(number, &value)) {
      result.family = std::string(name.substr(0, slash));
      result.argument = value;
      result.argument_text = std::string(last);
      return result;
    }
  }
  result.family = std::string(name);
  return result;
}

std::string RenderHtmlReport(const ReportInputs& inputs) {
  const BenchmarkFile& run = *inputs.run;
  const double peak =
      ContextNumber(run, "gpu_dram_bandwidth_theoretical_bytes_per_second").value_or(0);
  std::string data = ChartData(inputs, peak).dump();
  // Inside <script>, "</" could end the element early; "<\/" means the same in JSON strings.
  for (std::size_t at = data.find("</"); at != std::string::npos; at = data.find("</", at + 3)) {
    data.replace(at, 2, "<\\/");
  }
  std::string html;
  html.reserve(inputs.chart_js.size() + data.size() * 3 + 65536);
  html += "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n";
  html += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  html +=
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
      "script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:\">\n";
  html += "<title>gpubench report: " + HtmlEscape(run.path) + "</title>\n<style>" +
          std::string(kReportStyle) + "</style>\n</head><body>\n";
  html += Header(inputs);
  html += SummaryTable(inputs, peak);
  html +=
      "<section><h2>Sweeps</h2><p class=\"muted\">Per benchmark family, over its last "
      "numeric argument (log2 axis): the median of every instance as a line and each "
      "repetition as a point" +
      std::string(inputs.baseline ? "; the baseline in gray (dashed), beside the run" : "") +
      ". Bandwidth is drawn against the GPU's theoretical DRAM peak.</p>"
      "<div id=\"sweeps\" class=\"charts\"></div></section>\n";
  html +=
      "<section><h2>Other benchmarks</h2><p class=\"muted\">Benchmarks that are not part of a "
      "sweep: each repetition as a point, the median as a bar.</p>"
      "<div id=\"others\" class=\"charts\"></div></section>\n";
  if (HasRoofline(run)) {
    html +=
        "<section><h2>Roofline</h2><p class=\"muted\">Benchmarks profiled with "
        "<code>--gpubench_metrics=+flops</code>: FLOP rate against arithmetic intensity (FLOP per "
        "DRAM byte), medians over the repetitions, log&ndash;log, under the DRAM roof (the "
        "theoretical DRAM bandwidth &times; intensity) and the FLOP roof (the highest "
        "<code>flop_rate_peak</code> of the rows: 2 &times; the FMA peak per cycle &times; the "
        "profiled clock, for the rows' precision mix). Rows whose tensor pipe was busy are marked: "
        "counters give no FLOP count for tensor-core work, so their points lie too low.</p>"
        "<div id=\"roofline\" class=\"charts\"></div></section>\n";
  }
  html += NoScriptTables(inputs);
  html += "<p id=\"gpubench-status\" data-state=\"loading\">Charts need JavaScript.</p>\n";
  html += "<script type=\"application/json\" id=\"gpubench-data\">" + data + "</script>\n";
  html += "<!-- Chart.js, inlined from " + HtmlEscape(inputs.chart_js_source) +
          " (Debian package libjs-chart.js); its licence header follows. -->\n<script>\n" +
          inputs.chart_js + "\n</script>\n";
  html += "<script>" + std::string(kReportScript) + "</script>\n</body></html>\n";
  return html;
}

}  // namespace gpubench::compare
