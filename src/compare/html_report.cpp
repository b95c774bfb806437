#include "compare/html_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <unordered_map>
#include <utility>

#include <nlohmann/json.hpp>

#include "compare/cut_off.hpp"
#include "compare/report_format.hpp"
#include "compare/run_summary.hpp"
#include "compare/text.hpp"
#include "gpubench/counters.hpp"

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
  if (benchmark.verdict == Verdict::kUnconfirmed) return "warn";
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

std::vector<Warning> CollectWarnings(const ReportInputs& inputs) {
  const BenchmarkFile& run = *inputs.run;
  std::vector<Warning> warnings;
  for (const CutOffFile& cut : run.cut_off) warnings.push_back({"bad", RunCutOffText(cut)});
  if (inputs.baseline) {
    for (const CutOffFile& cut : inputs.baseline->cut_off) {
      warnings.push_back({"bad", BaselineCutOffText(cut)});
    }
  }
  if (ContextOr(run, "gpu_status", "ok") != "ok") {
    warnings.push_back(
        {"bad", "GPU unavailable when the run was made: " + ContextOr(run, "gpu_status", "")});
  }
  if (ContextOr(run, "gpubench_profiler", "").rfind("unavailable", 0) == 0) {
    warnings.push_back({"warn", "hardware counters were not collected: gpubench_profiler = " +
                                    ContextOr(run, "gpubench_profiler", "")});
  }
  if (!run.ContextValue(kSettingsFingerprintKey)) {
    warnings.push_back({"warn", run.path + " has no gpubench settings (not written by gpubench)"});
  }
  std::vector<std::string> throttled, shared;
  std::size_t failed = 0;
  for (const BenchmarkRecord& record : run.benchmarks) {
    std::size_t count = 0;
    if (Throttled(record, &count)) {
      throttled.push_back(record.name + " (" + std::to_string(count) + " of " +
                          std::to_string(record.RepetitionCount()) + " repetitions)");
    }
    if (Shared(record, &count)) {
      shared.push_back(record.name + " (" + std::to_string(count) + " of " +
                       std::to_string(record.RepetitionCount()) + " repetitions)");
    }
    if (record.failed) ++failed;
  }
  if (!throttled.empty()) {
    std::string text = "SM clock throttled (below 90% of the rated clock) in " +
                       std::to_string(throttled.size()) +
                       " benchmark(s); their times are doubtful: ";
    for (std::size_t i = 0; i < throttled.size() && i < 20; ++i) {
      text += (i ? ", " : "") + throttled[i];
    }
    if (throttled.size() > 20) text += ", ...";
    warnings.push_back({"bad", text});
  }
  if (!shared.empty()) {
    std::string text = "GPU shared: another process used the GPU during " +
                       std::to_string(shared.size()) +
                       " benchmark(s) (gpu_shared); their times and device-wide counters are "
                       "doubtful and the gate does not judge them: ";
    for (std::size_t i = 0; i < shared.size() && i < 20; ++i) text += (i ? ", " : "") + shared[i];
    if (shared.size() > 20) text += ", ...";
    warnings.push_back({"bad", text});
  }
  if (failed > 0) {
    warnings.push_back(
        {"warn", std::to_string(failed) + " benchmark(s) failed or were skipped (see the table)"});
  }
  for (const std::string& line : inputs.copied_counter_lines) {
    warnings.push_back({"warn", "copied counters: " + line});
  }
  for (const std::string& warning : run.warnings) warnings.push_back({"warn", warning});
  if (inputs.baseline) {
    const SettingsCheck check = CheckSettings(*inputs.baseline, run);
    if (check.mismatch) {
      std::string text = "settings differ from the baseline (fingerprint " +
                         check.baseline_fingerprint.value_or("none") + " vs " +
                         check.contender_fingerprint.value_or("none") +
                         "): compared anyway (--allow-settings-mismatch)";
      for (const ValueDifference& difference : check.differences) {
        text += "; " + difference.key + ": " + Quoted(difference.baseline) + " in the baseline, " +
                Quoted(difference.contender) + " here";
      }
      warnings.push_back({"bad", text});
    }
    for (const std::string& note : check.notes) warnings.push_back({"warn", note});
    for (const ValueDifference& difference : DeviceDifferences(*inputs.baseline, run)) {
      if (!difference.prominent) continue;
      warnings.push_back({"warn", "different " + difference.key +
                                      " than the baseline: " + Quoted(difference.baseline) +
                                      " vs " + Quoted(difference.contender)});
    }
    for (const std::string& warning : inputs.baseline->warnings) {
      warnings.push_back({"warn", "baseline: " + warning});
    }
  }
  return warnings;
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
  if (inputs.baseline) {
    settings.push_back(
        {"baseline fingerprint", ContextOr(*inputs.baseline, kSettingsFingerprintKey, "none")});
  }
  html += "<section class=\"cards\"><div class=\"card\"><h2>Device</h2>" + DefinitionTable(device) +
          "</div><div class=\"card\"><h2>gpubench settings</h2>" + DefinitionTable(settings) +
          "</div></section>\n";

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
          std::to_string(s.same) + " same, " + std::to_string(s.missing) + " missing, " +
          std::to_string(s.added) + " new, " + std::to_string(s.failed_in_contender) +
          " failed in this run";
  if (!report.contender_cut_off.empty()) {
    html += " &middot; this run was cut off mid-write: a cut-off run never passes";
  }
  return html + "</p>\n";
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
    const BenchmarkComparison* compared = nullptr;
    if (auto it = verdicts.find(record.name); it != verdicts.end()) compared = it->second;
    html += "<tr><td class=\"name\">" + HtmlEscape(record.name) + "</td>";
    if (record.failed) {
      html += "<td colspan=\"7\" class=\"bad\">" +
              std::string(record.skipped ? "skipped" : "error") +
              (record.failure_message.empty() ? "" : ": " + HtmlEscape(record.failure_message)) +
              "</td>";
    } else {
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
      html += Cell(std::to_string(record.RepetitionCount()),
                   static_cast<double>(record.RepetitionCount()));
      html += Cell(FormatTime(spread.median), spread.median);
      html += Cell(FormatPercentValue(spread.cv_percent), spread.cv_percent);
      html += Cell(FormatBytes(moved), moved);
      html += Cell(FormatBandwidth(bandwidth), bandwidth);
      html += Cell(FormatPercentValue(percent, "%.1f%%"), percent);
      html += Cell((std::isfinite(clock) ? Printf("%.0f MHz", clock) : std::string("-")) +
                       (throttled ? " THROTTLED" : "") + (shared ? " GPU SHARED" : ""),
                   clock, throttled || shared ? "num bad" : "num");
    }
    if (baseline) {
      const MetricComparison* time = nullptr;
      if (compared) {
        for (const MetricComparison& metric : compared->metrics) {
          if (metric.name == kRealTime) time = &metric;
        }
      }
      html +=
          time ? Cell(FormatTime(time->baseline_median), time->baseline_median) : Cell("-", NAN);
      html += time ? Cell(FormatChangePercent(time->change_percent), time->change_percent)
                   : Cell("-", NAN);
      if (compared) {
        html += "<td class=\"" + VerdictClass(*compared) + "\" title=\"" +
                HtmlEscape(VerdictDetails(*compared)) + "\">" + HtmlEscape(VerdictText(*compared)) +
                (compared->fails_gate ? " (fails)" : "") + "</td>";
      } else {
        html += TextCell("-");
      }
    }
    html += "</tr>\n";
  }
  // Benchmarks only in the baseline.
  if (inputs.comparison) {
    const char* where = run.cut_off.empty()
                            ? "in the baseline only"
                            : "in the baseline only (this run was cut off mid-write: maybe after "
                              "the cut)";
    for (const BenchmarkComparison& benchmark : inputs.comparison->benchmarks) {
      if (benchmark.status != BenchmarkStatus::kMissing) continue;
      html += "<tr><td class=\"name\">" + HtmlEscape(benchmark.name) +
              "</td><td colspan=\"7\" class=\"muted\">" + where + "</td>" + TextCell("-") +
              TextCell("-") + "<td class=\"" + VerdictClass(benchmark) + "\">missing" +
              (benchmark.fails_gate ? " (fails)" : "") + "</td></tr>\n";
    }
  }
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

constexpr const char* kStyle = R"css(
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 0 24px 40px;
       color: #1d2330; background: #fafbfc; }
h1 { margin: 18px 0 2px; font-size: 24px; } h2 { font-size: 17px; margin: 18px 0 8px; }
.sub, .muted { color: #5b6475; } .muted { font-size: 13px; }
.cards { display: flex; flex-wrap: wrap; gap: 16px; }
.card { background: #fff; border: 1px solid #dde1e8; border-radius: 6px; padding: 4px 14px 10px;
        flex: 1 1 520px; min-width: 0; }
table { border-collapse: collapse; } .facts th { text-align: left; padding: 2px 14px 2px 0;
        color: #5b6475; font-weight: 600; white-space: nowrap; vertical-align: top; }
.facts td { padding: 2px 0; overflow-wrap: anywhere; }
#warnings ul { margin: 0; padding-left: 20px; } li.bad { color: #b42318; } li.warn { color: #9a6700; }
p.ok { color: #1a7f37; margin: 4px 0; }
.table-wrap { max-height: 70vh; overflow: auto; border: 1px solid #dde1e8; }
/* With scripting, the summary table is shown by the script when it starts: laid out once, not again
   and again while the parser adds its rows (with 1,000 rows that took most of a second before the
   script could start). Without scripting the rule does not apply. */
@media (scripting: enabled) { .table-wrap:not(.shown) { display: none; } }
#summary { background: #fff; width: 100%; }
#summary th { background: #eef1f5; padding: 6px 8px; text-align: right; cursor: pointer;
              position: sticky; top: 0; white-space: nowrap; user-select: none; }
#summary th:first-child { text-align: left; }
#summary th.asc::after { content: " \25B2"; } #summary th.desc::after { content: " \25BC"; }
#summary td { padding: 3px 8px; border-top: 1px solid #edf0f4; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.name { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 12.5px;
          overflow-wrap: anywhere; min-width: 12em; }
td.bad, .bad { color: #b42318; font-weight: 600; } td.good { color: #1a7f37; font-weight: 600; }
td.warn { color: #9a6700; }
p.gate { padding: 8px 12px; border-radius: 6px; } p.gate.ok { background: #dafbe1; }
p.gate.bad { background: #ffebe9; }
.charts { display: flex; flex-wrap: wrap; gap: 16px; }
.chart { background: #fff; border: 1px solid #dde1e8; border-radius: 6px; padding: 8px 12px;
         flex: 1 1 560px; max-width: 900px; min-width: 0; }
.chart h3 { margin: 2px 0 6px; font-size: 14px; font-family: ui-monospace, Menlo, Consolas, monospace; }
.chart .box { position: relative; height: 280px; overflow: hidden; } .chart.wide { max-width: none; flex-basis: 100%; }
.chart.wide .box { height: 360px; }
#gpubench-status { color: #5b6475; font-size: 12px; margin-top: 24px; }
code { background: #eef1f5; padding: 0 3px; border-radius: 3px; }
)css";

// Draws the charts from the embedded data, makes the table sortable and writes what happened
// into #gpubench-status (charts expected and drawn, script errors) for tests and readers.
constexpr const char* kScript = R"js(
(function () {
  'use strict';
  var scriptStart = performance.now();
  // First, before anything that could fail: the summary table is hidden until now (see the style).
  Array.prototype.forEach.call(document.querySelectorAll('.table-wrap'), function (wrap) {
    wrap.classList.add('shown');
  });
  var status = document.getElementById('gpubench-status');
  var errors = [];
  var expected = 0, drawn = 0;
  function show(state) {
    status.setAttribute('data-state', state);
    status.setAttribute('data-charts-expected', String(expected));
    status.setAttribute('data-charts-drawn', String(drawn));
    status.setAttribute('data-errors', String(errors.length));
    status.textContent = 'Charts drawn: ' + drawn + ' of ' + expected + '; script errors: ' +
        errors.length + (errors.length ? ' (' + errors.join(' | ') + ')' : '') +
        (status.getAttribute('data-render-ms') ? '; rendered in ' +
         status.getAttribute('data-render-ms') + ' ms' : '');
  }
  window.addEventListener('error', function (event) {
    errors.push(String(event.message || event.error || 'error'));
    show(status.getAttribute('data-state') || 'error');
  });

  function fmtTime(ns) {
    if (!isFinite(ns)) return '-';
    if (ns === 0) return '0';
    var a = Math.abs(ns);
    if (a >= 1e9) return (ns / 1e9).toPrecision(3) + ' s';
    if (a >= 1e6) return (ns / 1e6).toPrecision(3) + ' ms';
    if (a >= 1e3) return (ns / 1e3).toPrecision(3) + ' \u00b5s';
    return ns.toPrecision(3) + ' ns';
  }
  function fmtBw(b) {
    if (!isFinite(b)) return '-';
    if (b === 0) return '0';
    if (b >= 1e12) return (b / 1e12).toPrecision(3) + ' TB/s';
    if (b >= 1e9) return (b / 1e9).toPrecision(3) + ' GB/s';
    if (b >= 1e6) return (b / 1e6).toPrecision(3) + ' MB/s';
    return (b / 1e3).toPrecision(3) + ' kB/s';
  }
  function fmtArg(v) {
    var units = ['', 'Ki', 'Mi', 'Gi', 'Ti'], i = 0;
    while (i < units.length - 1 && v >= 1024 && v % 1024 === 0) { v /= 1024; i++; }
    return String(v) + units[i];
  }
  function median(values) {
    var v = values.filter(function (x) { return x !== null && isFinite(x); }).sort(function (a, b) { return a - b; });
    if (!v.length) return NaN;
    var m = v.length >> 1;
    return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
  }

  function setupTable() {
    var table = document.getElementById('summary');
    if (!table) return;
    var heads = table.tHead.rows[0].cells;
    Array.prototype.forEach.call(heads, function (th, column) {
      th.addEventListener('click', function () {
        var ascending = !th.classList.contains('asc');
        Array.prototype.forEach.call(heads, function (h) { h.classList.remove('asc', 'desc'); });
        th.classList.add(ascending ? 'asc' : 'desc');
        var text = th.getAttribute('data-type') === 'text';
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        function key(row) {
          var cell = row.cells[column];
          if (!cell) return text ? '' : NaN;
          if (text) return cell.textContent;
          var v = cell.getAttribute('data-v');
          return v === null || v === '' ? NaN : parseFloat(v);
        }
        rows.sort(function (a, b) {
          var x = key(a), y = key(b);
          if (!text) {
            if (isNaN(x) && isNaN(y)) return 0;
            if (isNaN(x)) return 1;
            if (isNaN(y)) return -1;
            return ascending ? x - y : y - x;
          }
          return ascending ? x.localeCompare(y) : y.localeCompare(x);
        });
        var fragment = document.createDocumentFragment();
        rows.forEach(function (row) { fragment.appendChild(row); });
        body.appendChild(fragment);
      });
    });
  }

  var BLUE = 'rgba(31, 111, 235, 1)', BLUE_PT = 'rgba(31, 111, 235, 0.45)';
  var GRAY = 'rgba(110, 118, 129, 1)', GRAY_PT = 'rgba(110, 118, 129, 0.45)';
  var RED = 'rgba(207, 34, 46, 0.9)';

  var pending = [];
  function makeChart(canvas, config) { pending.push([canvas, config]); }
  function integerTicks(lo, hi, maxCount) {
    var step = Math.max(1, Math.ceil((hi - lo + 1) / maxCount));
    return function (scale) {
      var ticks = [];
      for (var v = lo; v <= hi; v += step) ticks.push({value: v});
      scale.ticks = ticks;
    };
  }
  function newChart(container, title, wide) {
    var card = document.createElement('div');
    card.className = 'chart' + (wide ? ' wide' : '');
    var h = document.createElement('h3');
    h.textContent = title;
    var box = document.createElement('div');
    box.className = 'box';
    var canvas = document.createElement('canvas');
    box.appendChild(canvas);
    card.appendChild(h);
    card.appendChild(box);
    container.appendChild(card);
    expected++;
    return canvas;
  }

  // Points of every repetition, offset a little on x so that baseline and run sit side by side.
  function points(items, key, x, offset) {
    var out = [];
    items.forEach(function (item) {
      (item[key] || []).forEach(function (y) {
        if (y !== null && isFinite(y) && y > 0) out.push({x: x(item) + offset, y: y, name: item.n});
      });
    });
    return out;
  }
  function medians(items, key, x, offset) {
    var out = [];
    items.forEach(function (item) {
      var m = median(item[key] || []);
      if (isFinite(m)) out.push({x: x(item) + offset, y: m, name: item.n});
    });
    return out.sort(function (a, b) { return a.x - b.x; });
  }

  function datasets(items, key, baseKey, x, withLine) {
    var hasBase = items.some(function (item) { return item[baseKey] && item[baseKey].length; });
    var off = hasBase ? 0.12 : 0;
    var lineOff = withLine ? 0 : off;  // sweeps: medians on the argument; otherwise beside
    var sets = [];
    var lineType = withLine ? 'line' : 'scatter';
    sets.push({type: lineType, label: 'median', data: medians(items, key, x, lineOff), borderColor: BLUE,
               backgroundColor: BLUE, pointRadius: withLine ? 3 : 7, pointStyle: withLine ? 'circle' : 'line',
               borderWidth: 2, showLine: withLine});
    sets.push({type: 'scatter', label: 'repetitions', data: points(items, key, x, off),
               backgroundColor: BLUE_PT, borderColor: BLUE_PT, pointRadius: 2.5});
    if (hasBase) {
      sets.push({type: lineType, label: 'baseline median', data: medians(items, baseKey, x, -lineOff), borderColor: GRAY,
                 backgroundColor: GRAY, pointRadius: withLine ? 3 : 7, pointStyle: withLine ? 'circle' : 'line',
                 borderWidth: 2, borderDash: [5, 4], showLine: withLine});
      sets.push({type: 'scatter', label: 'baseline repetitions', data: points(items, baseKey, x, -off),
                 backgroundColor: GRAY_PT, borderColor: GRAY_PT, pointRadius: 2.5});
    }
    return sets;
  }

  function yScale(sets, format, title, logAllowed, minZero) {
    var ys = [];
    sets.forEach(function (s) { s.data.forEach(function (p) { ys.push(p.y); }); });
    var lo = Math.min.apply(null, ys), hi = Math.max.apply(null, ys);
    var log = logAllowed && lo > 0 && hi / lo > 20;
    var scale = {type: log ? 'logarithmic' : 'linear', title: {display: true, text: title},
                 ticks: {callback: function (v) { return format(v); }, maxTicksLimit: 8}};
    if (log) {
      scale.min = lo / 1.6;
      scale.max = hi * 1.6;
    } else {
      scale.min = minZero ? 0 : lo - (hi - lo) * 0.1;
      scale.max = hi + (hi - lo) * 0.08 + (hi === lo ? Math.abs(hi) * 0.05 + 1e-12 : 0);
    }
    return scale;
  }

  function options(xScale, yScaleOptions, format) {
    return {
      animation: false, responsive: false, maintainAspectRatio: false, parsing: false,
      plugins: {
        legend: {labels: {boxWidth: 12}},
        // Plugins these charts do not use, off so that they cost nothing in each update and draw.
        decimation: false, filler: false, title: false, subtitle: false,
        tooltip: {callbacks: {label: function (c) {
          return c.dataset.label + ': ' + format(c.parsed.y) + (c.raw && c.raw.name ? ' (' + c.raw.name + ')' : '');
        }}}
      },
      scales: {x: xScale, y: yScaleOptions}
    };
  }

  var data = JSON.parse(document.getElementById('gpubench-data').textContent);
  var counter = {id: 'gpubenchDrawn', afterRender: function (chart) {
    if (!chart.$gpubenchDrawn) { chart.$gpubenchDrawn = true; drawn++; }
  }};

  function fmtFlops(v) {
    if (!isFinite(v)) return '-';
    if (v >= 1e12) return (v / 1e12).toPrecision(3) + ' TFLOP/s';
    if (v >= 1e9) return (v / 1e9).toPrecision(3) + ' GFLOP/s';
    return (v / 1e6).toPrecision(3) + ' MFLOP/s';
  }
  // FLOP rate against arithmetic intensity, log-log, under the DRAM roof (bandwidth x intensity)
  // and the FLOP roof (the highest flop_rate_peak of the rows).
  function drawRoofline() {
    var box = document.getElementById('roofline');
    var rows = data.benchmarks.filter(function (b) { return b.ai > 0 && b.fr > 0; });
    if (!box || !rows.length) return;
    var peaks = rows.map(function (b) { return b.fp; }).filter(function (v) { return v > 0; });
    var roof = peaks.length ? Math.max.apply(null, peaks) : 0;
    var ais = rows.map(function (b) { return b.ai; });
    var lo = Math.min.apply(null, ais) / 4, hi = Math.max.apply(null, ais) * 4;
    var sets = [];
    var plain = rows.filter(function (b) { return !(b.tp > 0.5); });
    var tensor = rows.filter(function (b) { return b.tp > 0.5; });
    var point = function (b) { return {x: b.ai, y: b.fr, name: b.n}; };
    sets.push({type: 'scatter', label: 'benchmarks (median)', data: plain.map(point),
               backgroundColor: BLUE, borderColor: BLUE, pointRadius: 5});
    if (tensor.length) {
      sets.push({type: 'scatter', label: 'tensor pipe busy: FLOP undercounted', data: tensor.map(point),
                 backgroundColor: GRAY, borderColor: GRAY, pointRadius: 6, pointStyle: 'triangle'});
    }
    if (data.peak && roof > 0) {
      var ridge = roof / data.peak;
      lo = Math.min(lo, ridge / 4);
      hi = Math.max(hi, ridge * 4);
      sets.push({type: 'line', label: 'DRAM roof ' + fmtBw(data.peak), borderColor: RED,
                 backgroundColor: RED, pointRadius: 0, borderWidth: 1.5, borderDash: [6, 4],
                 data: [{x: lo, y: data.peak * lo}, {x: ridge, y: roof}]});
      sets.push({type: 'line', label: 'FLOP roof ' + fmtFlops(roof), borderColor: RED,
                 backgroundColor: RED, pointRadius: 0, borderWidth: 1.5,
                 data: [{x: ridge, y: roof}, {x: hi, y: roof}]});
    }
    // Whole decades on the intensity axis, so its end ticks do not crowd each other.
    var decadeLo = Math.pow(10, Math.floor(Math.log10(lo))), decadeHi = Math.pow(10, Math.ceil(Math.log10(hi)));
    sets.forEach(function (s) {
      if (s.type !== 'line') return;
      if (s.data[0].x === lo) { s.data[0] = {x: decadeLo, y: data.peak * decadeLo}; }
      if (s.data[1].x === hi) { s.data[1] = {x: decadeHi, y: s.data[1].y}; }
    });
    lo = decadeLo;
    hi = decadeHi;
    var ys = [];
    sets.forEach(function (s) { s.data.forEach(function (p) { ys.push(p.y); }); });
    var xScale = {type: 'logarithmic', min: lo, max: hi,
                  title: {display: true, text: 'arithmetic intensity (FLOP per DRAM byte)'},
                  ticks: {callback: function (v) {
                    var m = v / Math.pow(10, Math.floor(Math.log10(v) + 1e-9));
                    return [1, 2, 5].indexOf(Math.round(m * 10) / 10) < 0 ? '' : String(+v.toPrecision(2));
                  }, autoSkip: false}};
    var yScaleOptions = {type: 'logarithmic', min: Math.min.apply(null, ys) / 2,
                         max: Math.max.apply(null, ys) * 2, title: {display: true, text: 'FLOP rate'},
                         ticks: {callback: function (v) { return fmtFlops(v); }, maxTicksLimit: 8}};
    makeChart(newChart(box, 'Roofline: FLOP rate against arithmetic intensity', true), {
      type: 'scatter', data: {datasets: sets}, options: options(xScale, yScaleOptions, fmtFlops)});
  }

  function draw() {
    Chart.register(counter);
    drawRoofline();
    var sweeps = document.getElementById('sweeps');
    var others = document.getElementById('others');
    var families = {}, order = [];
    data.benchmarks.forEach(function (b) {
      if (!families[b.f]) { families[b.f] = []; order.push(b.f); }
      families[b.f].push(b);
    });
    var singles = [];
    var log2 = function (b) { return Math.log2(b.a); };
    order.forEach(function (name) {
      var items = families[name];
      var args = items.filter(function (b) { return b.a !== null && b.a > 0; });
      var distinct = {};
      args.forEach(function (b) { distinct[b.a] = true; });
      if (Object.keys(distinct).length < 2 || args.length !== items.length) {
        singles = singles.concat(items);
        return;
      }
      var xs = args.map(log2);
      var lo = Math.floor(Math.min.apply(null, xs)), hi = Math.ceil(Math.max.apply(null, xs));
      var xScale = {type: 'linear', min: lo - 0.5, max: hi + 0.5,
                    title: {display: true, text: 'argument (log2 axis)'},
                    afterBuildTicks: integerTicks(lo, hi, 12),
                    ticks: {autoSkip: false, callback: function (v) {
                      return Number.isInteger(v) ? fmtArg(Math.pow(2, v)) : '';
                    }}};
      var timeSets = datasets(args, 't', 'bt', log2, true);
      makeChart(newChart(sweeps, name + ': GPU time'), {
        type: 'scatter', data: {datasets: timeSets},
        options: options(xScale, yScale(timeSets, fmtTime, 'GPU time per iteration', true, false), fmtTime)});
      if (args.some(function (b) { return b.b && b.b.length; })) {
        var bwSets = datasets(args, 'b', 'bb', log2, true);
        if (data.peak) {
          bwSets.push({type: 'line', label: 'theoretical peak ' + fmtBw(data.peak), borderColor: RED,
                       backgroundColor: RED, borderDash: [6, 4], pointRadius: 0, borderWidth: 1.5,
                       data: [{x: xScale.min, y: data.peak}, {x: xScale.max, y: data.peak}]});
        }
        makeChart(newChart(sweeps, name + ': DRAM bandwidth'), {
          type: 'scatter', data: {datasets: bwSets},
          options: options(xScale, yScale(bwSets, fmtBw, 'DRAM bandwidth', false, true), fmtBw)});
      }
    });
    if (!order.length || !sweeps.children.length) {
      sweeps.innerHTML = '<p class="muted">No benchmark family sweeps a numeric argument over two or more values.</p>';
    }
    // Benchmarks outside a sweep: one x position each, repetitions as points.
    var CHUNK = 30;
    for (var start = 0; start < singles.length; start += CHUNK) {
      var chunk = singles.slice(start, start + CHUNK);
      var index = function (b) { return chunk.indexOf(b); };
      var labels = chunk.map(function (b) { return b.n.replace(/\/manual_time$/, ''); });
      var xCat = {type: 'linear', min: -0.5, max: chunk.length - 0.5,
                  afterBuildTicks: integerTicks(0, chunk.length - 1, CHUNK),
                  ticks: {autoSkip: false, maxRotation: 50, minRotation: 30, callback: function (v) {
                    return Number.isInteger(v) && labels[v] ? (labels[v].length > 34 ? labels[v].slice(0, 33) + '\u2026' : labels[v]) : '';
                  }}};
      var suffix = singles.length > CHUNK ? ' (' + (start + 1) + '-' + (start + chunk.length) + ' of ' + singles.length + ')' : '';
      var sets = datasets(chunk, 't', 'bt', index, false);
      makeChart(newChart(others, 'GPU time of each repetition' + suffix, true), {
        type: 'scatter', data: {datasets: sets},
        options: options(xCat, yScale(sets, fmtTime, 'GPU time per iteration', true, false), fmtTime)});
      if (chunk.some(function (b) { return b.b && b.b.length; })) {
        var bw = datasets(chunk, 'b', 'bb', index, false);
        if (data.peak) {
          bw.push({type: 'line', label: 'theoretical peak ' + fmtBw(data.peak), borderColor: RED,
                   backgroundColor: RED, borderDash: [6, 4], pointRadius: 0, borderWidth: 1.5,
                   data: [{x: -0.5, y: data.peak}, {x: chunk.length - 0.5, y: data.peak}]});
        }
        makeChart(newChart(others, 'DRAM bandwidth of each repetition' + suffix, true), {
          type: 'scatter', data: {datasets: bw},
          options: options(xCat, yScale(bw, fmtBw, 'DRAM bandwidth', false, true), fmtBw)});
      }
    }
    if (!singles.length) others.parentNode.style.display = 'none';
    // Charts are drawn when their card comes near the viewport (all at once with #all in the URL,
    // before printing, or without IntersectionObserver): a report of 1,000 benchmarks has a few
    // hundred charts, and the first screen should not wait for all of them. Cards are laid out
    // first; each chart gets the fixed size of its box.
    var charts = [];
    function create(i) {
      if (charts[i]) return;
      var canvas = pending[i][0], box = canvas.parentNode;
      canvas.width = box.clientWidth;
      canvas.height = box.clientHeight;
      charts[i] = new Chart(canvas, pending[i][1]);
    }
    function createAll() {
      var sizes = pending.map(function (item) {
        return [item[0].parentNode.clientWidth, item[0].parentNode.clientHeight];
      });
      pending.forEach(function (item, i) {
        if (charts[i]) return;
        item[0].width = sizes[i][0];
        item[0].height = sizes[i][1];
        charts[i] = new Chart(item[0], item[1]);
      });
    }
    window.addEventListener('beforeprint', createAll);
    var resizeTimer = null;
    window.addEventListener('resize', function () {
      clearTimeout(resizeTimer);
      resizeTimer = setTimeout(function () {
        var live = charts.filter(function (chart) { return chart; });
        var boxes = live.map(function (chart) {
          return [chart.canvas.parentNode.clientWidth, chart.canvas.parentNode.clientHeight];
        });
        live.forEach(function (chart, i) { chart.resize(boxes[i][0], boxes[i][1]); });
      }, 150);
    });
    if (location.hash === '#all' || !('IntersectionObserver' in window)) {
      createAll();
      return true;
    }
    // The first screens are drawn now, from layout, so the page's state does not depend on when
    // the browser first delivers IntersectionObserver callbacks (a loaded machine may not before
    // a headless dump); the observer draws the cards further down as they come near.
    var observer = new IntersectionObserver(function (entries) {
      entries.forEach(function (entry) {
        if (!entry.isIntersecting) return;
        observer.unobserve(entry.target);
        create(Number(entry.target.getAttribute('data-chart')));
      });
      show('done');
    }, {rootMargin: '100% 0px'});
    var nearEnough = 2 * (window.innerHeight || document.documentElement.clientHeight || 900);
    var tops = pending.map(function (item) {
      return item[0].parentNode.parentNode.getBoundingClientRect().top;
    });
    pending.forEach(function (item, i) {
      if (tops[i] < nearEnough) {
        create(i);
        return;
      }
      var card = item[0].parentNode.parentNode;
      card.setAttribute('data-chart', String(i));
      observer.observe(card);
    });
    return true;
  }

  function finish() {
    status.setAttribute('data-script-start-ms', scriptStart.toFixed(0));
    status.setAttribute('data-render-ms', performance.now().toFixed(0));
    // Every chart drawn so far painted something: pixels that are not transparent.
    var blank = 0;
    Array.prototype.forEach.call(document.querySelectorAll('.chart canvas'), function (canvas) {
      if (!canvas.$chartjs) return;
      var w = canvas.width, h = canvas.height, painted = false;
      if (w && h) {
        var pixels = canvas.getContext('2d').getImageData(0, 0, w, h).data;
        for (var i = 3; i < pixels.length; i += 4 * 7) { if (pixels[i] !== 0) { painted = true; break; } }
      }
      if (!painted) blank++;
    });
    status.setAttribute('data-charts-blank', String(blank));
    show('done');
  }

  var complete = true;
  try {
    setupTable();
    if (typeof Chart === 'undefined') throw new Error('Chart.js did not load');
    complete = draw();
  } catch (error) {
    errors.push(String(error && error.stack || error));
  }
  if (complete) finish();
})();
)js";

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
          std::string(kStyle) + "</style>\n</head><body>\n";
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
  html += "<script>" + std::string(kScript) + "</script>\n</body></html>\n";
  return html;
}

}  // namespace gpubench::compare
