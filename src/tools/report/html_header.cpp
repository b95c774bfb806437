// The top of gpubench-report's page: what was run where, the device, gpubench's settings, what the
// run cost in wall time, and the warnings.
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "schema/context_keys.hpp"
#include "schema/counter_table.hpp"
#include "tools/base/text.hpp"
#include "tools/gate/comparison.hpp"
#include "tools/gate/host_calls.hpp"
#include "tools/gate/run_summary.hpp"
#include "tools/report/html_cells.hpp"
#include "tools/report/html_report.hpp"
#include "tools/report/html_sections.hpp"

namespace gpubench::tools::internal {
namespace {

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

// What the header says about the SM clock of the whole run: the rated clock and the range of the
// benchmarks' median actual clocks.
std::string ClockText(const BenchmarkFile& run) {
  std::vector<double> clocks;
  for (const BenchmarkRecord& record : run.benchmarks) {
    const double clock = MedianOf(record, counter::kSmClockMhz);
    if (std::isfinite(clock)) clocks.push_back(clock);
  }
  const std::string rated = ContextOr(run, context_key::kGpuSmClockRatedMhz, "unknown");
  if (clocks.empty()) return "rated " + rated + " MHz; actual not measured";
  const auto [low, high] = std::minmax_element(clocks.begin(), clocks.end());
  std::string text = "rated " + rated + " MHz; actual " + Printf("%.0f", Median(clocks)) +
                     " MHz (median of the benchmarks' medians; " + Printf("%.0f", *low) + " - " +
                     Printf("%.0f", *high) + " MHz)";
  if (const auto rated_number = ContextNumber(run, context_key::kGpuSmClockRatedMhz)) {
    text += ", " + Printf("%.1f%%", Median(clocks) / *rated_number * 100) + " of rated";
  }
  return text;
}

std::string Versions(const BenchmarkFile& file) {
  return "driver " + ContextOr(file, context_key::kCudaDriverVersion, "?") + ", runtime " +
         ContextOr(file, context_key::kCudaRuntimeVersion, "?") + ", CUPTI API " +
         ContextOr(file, context_key::kCudaCuptiApiVersion, "?");
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
    if (record.aggregates_only || record.FindMetric(counter::kWallTime) == nullptr) continue;
    const double wall = sum(record, counter::kWallTime);
    total += wall;
    warmup += sum(record, counter::kWallWarmup);
    timed += sum(record, counter::kWallTimed);
    profiling += sum(record, counter::kWallProfiling);
    samples += sum(record, counter::kSamples);
    costs.push_back({record.name, wall});
  }
  std::vector<Row> rows;
  const std::string* rule = run.ContextValue(context_key::kStoppingRule);
  rows.push_back({"stopping rule", rule != nullptr ? *rule : std::string("GB's (not recorded)")});
  if (const std::string* note = run.ContextValue(context_key::kStoppingNote)) {
    rows.push_back({"why", *note});
  }
  std::vector<const BenchmarkRecord*> records;
  for (const BenchmarkRecord& record : run.benchmarks) records.push_back(&record);
  if (const std::string stopped = CountedCodes(records, counter::kStopReason); !stopped.empty()) {
    rows.push_back({"repetitions stopped by", stopped});
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

}  // namespace

std::string Header(const ReportInputs& inputs) {
  const BenchmarkFile& run = *inputs.run;
  std::string html;
  html += "<header><h1>gpubench report</h1><p class=\"sub\">" + HtmlEscape(run.path);
  if (inputs.baseline) html += " against the baseline " + HtmlEscape(inputs.baseline->path);
  html += " &middot; run " + HtmlEscape(ContextOr(run, "date", "date unknown")) + " on " +
          HtmlEscape(ContextOr(run, "host_name", "unknown host")) + "</p></header>\n";
  html += CutOffBanners(inputs);

  const std::optional<double> peak = ContextNumber(run, context_key::kGpuDramBandwidthTheoretical);
  std::vector<Row> device = {
      {"GPU", ContextOr(run, context_key::kGpuName, "unknown") + " (compute capability " +
                  ContextOr(run, context_key::kGpuComputeCapability, "?") + ", " +
                  ContextOr(run, context_key::kGpuSmCount, "?") + " SMs, ECC " +
                  ContextOr(run, context_key::kGpuEcc, "?") + ")"},
      {"CUDA", Versions(run)},
      {"SM clock", ClockText(run)},
      {"DRAM", "theoretical peak " + (peak ? FormatBandwidth(*peak) : std::string("unknown")) +
                   " (" + ContextOr(run, context_key::kGpuMemoryBusWidthBits, "?") + "-bit bus, " +
                   ContextOr(run, context_key::kGpuMemoryClockRatedMhz, "?") + " MHz rated)"},
      {"L2", FormatBytes(ContextNumber(run, context_key::kGpuL2Bytes).value_or(NAN))},
  };
  if (inputs.baseline) {
    device.push_back(
        {"Baseline GPU", ContextOr(*inputs.baseline, context_key::kGpuName, "unknown") + ", " +
                             Versions(*inputs.baseline)});
  }
  std::vector<Row> settings = {
      {"gpubench", ContextOr(run, context_key::kVersion, "?") + " (method version " +
                       ContextOr(run, context_key::kMethodVersion, "?") + ")"},
      {"timer", ContextOr(run, context_key::kTimer, "?")},
      {"cache", ContextOr(run, context_key::kCache, "?") + " (" +
                    ContextOr(run, context_key::kFlushMethod, "?") + ")"},
      {"clock control", ContextOr(run, context_key::kClockControl, "?")},
      {"profiling",
       ContextOr(run, context_key::kProfiling, "?") + "; " +
           ContextOr(run, context_key::kProfileIterations, "?") +
           " profiled iterations; profile_runs=" + ContextOr(run, context_key::kProfileRuns, "?")},
      {"metrics", ContextOr(run, context_key::kMetrics, "?")},
      {"settings fingerprint", ContextOr(run, context_key::kSettingsFingerprint, "none")},
  };
  if (const std::string* busy = run.ContextValue(context_key::kGpuBusy)) {
    settings.insert(settings.end() - 1, {"GPU busy time", *busy});
  }
  // The GPU's heat: the setting, and how the thermal counters were read (or why there are none).
  if (const std::string* thermal = run.ContextValue(context_key::kThermal)) {
    settings.insert(settings.end() - 1, {"thermal", *thermal});
  }
  if (const std::string* read = run.ContextValue(context_key::kGpuThermal)) {
    settings.insert(settings.end() - 1, {"GPU temperature, power", *read});
  }
  if (inputs.baseline) {
    settings.push_back({"baseline fingerprint",
                        ContextOr(*inputs.baseline, context_key::kSettingsFingerprint, "none")});
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

}  // namespace gpubench::tools::internal
