// gpubench-report's section "History" (issue #50): with a history of baseline runs, each
// benchmark's median GPU time per run of the series (the history, then this run) with the change
// points that gpubench-compare --changes finds (SeriesReport), as chart data for the page's
// script and as a table of every practical change.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <iterator>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "schema/counter_table.hpp"
#include "tools/base/text.hpp"
#include "tools/gate/history/history.hpp"
#include "tools/gate/history/series_changes.hpp"
#include "tools/report/html_cells.hpp"
#include "tools/report/html_report.hpp"
#include "tools/report/html_sections.hpp"

namespace gpubench::tools::internal {
namespace {

using OrderedJson = nlohmann::ordered_json;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Benchmarks with a change get a chart of their own at the top, at most this many; the others
// (and changed ones beyond it) are in a <details> that is drawn when it is opened.
constexpr std::size_t kMaxOpenCharts = 48;
// An unchanged series this short is shown open: nothing to hide.
constexpr std::size_t kOpenQuietCharts = 12;

std::string FileName(const std::string& path) {
  const std::size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The run's value of `metric` as the analysis takes it: the median of its repetitions, without
// those marked gpu_shared or sm_clock_throttled or reused from an earlier run (reuse_status
// reused); NaN when none is left or the benchmark failed.
double RunMedian(const BenchmarkRecord& record, std::string_view metric) {
  if (record.failed) return kNaN;
  const MetricSeries* series = record.FindMetric(metric);
  if (!series || series->values.empty()) return kNaN;
  std::vector<bool> keep(series->values.size(), true);
  const std::vector<bool> reused = ReusedRepetitions(record);
  if (reused.size() == keep.size()) {
    for (std::size_t i = 0; i < keep.size(); ++i) keep[i] = !reused[i];
  }
  for (const char* flag : {counter::kGpuShared, counter::kSmClockThrottled}) {
    const MetricSeries* marks = record.FindMetric(flag);
    if (!marks) continue;
    for (std::size_t i = 0; i < marks->values.size(); ++i) {
      if (!(marks->values[i] >= 0.5)) continue;
      if (marks->values.size() == keep.size()) {
        keep[i] = false;
      } else {
        return kNaN;  // cannot tell which repetition: the run has no value
      }
    }
  }
  std::vector<double> kept;
  for (std::size_t i = 0; i < keep.size(); ++i) {
    if (keep[i] && std::isfinite(series->values[i])) kept.push_back(series->values[i]);
  }
  if (kept.empty()) return kNaN;
  std::sort(kept.begin(), kept.end());
  const std::size_t mid = kept.size() / 2;
  return kept.size() % 2 ? kept[mid] : (kept[mid - 1] + kept[mid]) / 2;
}

// A value of `metric` in its unit.
std::string FormatMetric(const std::string& metric, double value) {
  const CounterInfo* info = FindCounter(metric);
  const std::string_view unit = info ? info->unit : std::string_view();
  if (unit == "ns") return FormatTime(value);
  if (unit == "bytes") {
    // Four digits, decimal units as gpubench-compare --changes prints them: a change of 1% must
    // show in both numbers (FormatBytes has three).
    static constexpr const char* kUnits[] = {"B", "kB", "MB", "GB", "TB"};
    if (!std::isfinite(value)) return "-";
    std::size_t unit_index = 0;
    double scaled = value;
    while (std::fabs(scaled) >= 1000 && unit_index + 1 < std::size(kUnits)) {
      scaled /= 1000;
      ++unit_index;
    }
    return Printf("%.4g", scaled) + " " + kUnits[unit_index];
  }
  if (unit == "bytes/s") return FormatBandwidth(value);
  return std::isfinite(value) ? Printf("%.6g", value) : "-";
}

std::string SignedPercent(double percent) {
  return std::isfinite(percent) ? Printf("%+.2f%%", percent) : "-";
}

// The benchmarks of the series: the run's (last of the series) in its order, then those only in
// earlier runs, in order of first appearance.
std::vector<std::string> SeriesBenchmarks(const SeriesReport& series) {
  std::vector<std::string> names;
  std::unordered_map<std::string, bool> seen;
  const auto add = [&](const BenchmarkFile& file) {
    for (const BenchmarkRecord& record : file.benchmarks) {
      if (seen.emplace(record.name, true).second) names.push_back(record.name);
    }
  };
  if (!series.runs.empty()) add(*series.runs.back().file);
  for (const SeriesRun& run : series.runs) add(*run.file);
  return names;
}

std::vector<const SeriesChange*> PracticalChanges(const SeriesReport& series) {
  std::vector<const SeriesChange*> changes;
  for (const SeriesChange& change : series.changes) {
    if (change.practical) changes.push_back(&change);
  }
  return changes;
}

std::string KindText(const SeriesChange& change) {
  std::string text = SeriesChangeKindName(change.kind);
  if (change.kind == SeriesChangeKind::kGpu) {
    text += ": " + change.gpu_before + " \u2192 " + change.gpu_after;
  } else if (change.direction == ChangeDirection::kRegression ||
             change.direction == ChangeDirection::kImprovement) {
    text += std::string(" (") + ChangeDirectionName(change.direction) + ")";
  }
  return text;
}

std::string KindClass(const SeriesChange& change) {
  if (change.kind == SeriesChangeKind::kGpu) return "warn";
  if (change.direction == ChangeDirection::kRegression) return "bad";
  if (change.direction == ChangeDirection::kImprovement) return "good";
  return "";
}

// The table of every practical change, of every metric the analysis judged.
std::string ChangesTable(const SeriesReport& series,
                         const std::vector<const SeriesChange*>& changes) {
  std::string html =
      "<div class=\"table-wrap\"><table id=\"series-changes\" class=\"series-table\"><thead><tr>"
      "<th>Benchmark</th><th>Metric</th><th>Kind</th><th>First run</th><th>Commit</th>"
      "<th>Before</th><th>After</th><th>Change</th></tr></thead><tbody>\n";
  for (const SeriesChange* change : changes) {
    const SeriesRun& first = series.runs[change->first_run];
    const std::string file = FileName(first.file->path);
    html += "<tr data-benchmark=\"" + HtmlEscape(change->benchmark) + "\" data-metric=\"" +
            HtmlEscape(change->metric) + "\" data-kind=\"" + SeriesChangeKindName(change->kind) +
            "\" data-run=\"" + HtmlEscape(file) + "\" data-commit=\"" + HtmlEscape(first.commit) +
            "\">" + TextCell(change->benchmark, "name") + TextCell(change->metric) +
            TextCell(KindText(*change), KindClass(*change)) +
            TextCell(file + " (run " + std::to_string(change->first_run + 1) + " of " +
                     std::to_string(series.runs.size()) + ")") +
            TextCell(first.commit.empty() ? "-" : first.commit) +
            TextCell(FormatMetric(change->metric, change->median_before), "num") +
            TextCell(FormatMetric(change->metric, change->median_after), "num") +
            TextCell(SignedPercent(change->change_percent), "num " + KindClass(*change)) +
            "</tr>\n";
  }
  return html + "</tbody></table></div>\n";
}

// Settings changes, GPUs, and the analysis' notes.
std::string SeriesFacts(const SeriesReport& series) {
  std::string html;
  if (!series.settings_changes.empty()) {
    html += "<ul id=\"series-settings\">";
    for (const SettingsChange& change : series.settings_changes) {
      const SeriesRun& first = series.runs[change.first_run];
      html += "<li class=\"warn\">Settings change at " + HtmlEscape(FileName(first.file->path)) +
              (first.commit.empty() ? "" : " (commit " + HtmlEscape(first.commit) + ")") +
              ": settings fingerprint " + HtmlEscape(change.fingerprint_before) + " \u2192 " +
              HtmlEscape(change.fingerprint_after) +
              "; runs either side are not compared (gray markers)</li>";
    }
    html += "</ul>\n";
  }
  if (series.gpus > 1) {
    html += "<p id=\"series-gpus\" class=\"warn\">The runs come from " +
            std::to_string(series.gpus) +
            " physical GPUs (gpu_uuid): each GPU's runs are analysed on their own, and where the "
            "series moves to another GPU the offset is a change of kind <code>gpu</code>, not a "
            "regression.";
    if (!series.gpu_spreads.empty()) {
      html +=
          " Series whose GPUs' levels differ beyond the practical: the GPU's share of the "
          "series' spread, and the largest GPU's offset from the first GPU's level:</p><ul>";
      constexpr std::size_t kMaxSpreads = 10;  // a suite that moved GPU has one per series
      for (std::size_t i = 0; i < series.gpu_spreads.size() && i < kMaxSpreads; ++i) {
        const GpuSpread& spread = series.gpu_spreads[i];
        html += "<li>" + HtmlEscape(spread.benchmark) + " " + HtmlEscape(spread.metric) + ": " +
                Printf("%.0f%%", spread.share_percent) + " of its spread, offset " +
                SignedPercent(spread.offset_percent) + "</li>";
      }
      if (series.gpu_spreads.size() > kMaxSpreads) {
        html += "<li>and " + std::to_string(series.gpu_spreads.size() - kMaxSpreads) +
                " more series (gpubench-compare --changes lists them all)</li>";
      }
      html += "</ul>\n";
    } else {
      html += "</p>\n";
    }
  }
  if (!series.notes.empty()) {
    html += "<details class=\"series-notes\"><summary>Notes of the analysis (" +
            std::to_string(series.notes.size()) + ")</summary><ul>";
    for (const std::string& note : series.notes) html += "<li>" + HtmlEscape(note) + "</li>";
    html += "</ul></details>\n";
  }
  return html;
}

}  // namespace

void AddHistoryData(const ReportInputs& inputs, nlohmann::ordered_json* data) {
  if (!inputs.series) return;
  const SeriesReport& series = *inputs.series;
  OrderedJson runs = OrderedJson::array();
  for (const SeriesRun& run : series.runs) {
    OrderedJson entry;
    entry["f"] = FileName(run.file->path);
    entry["c"] = run.commit;
    const std::string* date = run.file->ContextValue("date");
    entry["d"] = date ? *date : "";
    entry["g"] = run.gpu;
    runs.push_back(std::move(entry));
  }
  OrderedJson settings = OrderedJson::array();
  for (const SettingsChange& change : series.settings_changes) settings.push_back(change.first_run);
  std::map<std::string, std::vector<const SeriesChange*>> by_benchmark;
  for (const SeriesChange* change : PracticalChanges(series)) {
    by_benchmark[change->benchmark].push_back(change);
  }
  OrderedJson changed = OrderedJson::array(), quiet = OrderedJson::array();
  for (const std::string& name : SeriesBenchmarks(series)) {
    OrderedJson benchmark;
    benchmark["n"] = name;
    OrderedJson values = OrderedJson::array();
    for (const SeriesRun& run : series.runs) {
      const BenchmarkRecord* record = run.file->Find(name);
      const double value = record ? RunMedian(*record, counter::kRealTime) : kNaN;
      values.push_back(std::isfinite(value) ? OrderedJson(value) : OrderedJson(nullptr));
    }
    benchmark["v"] = std::move(values);
    const auto found = by_benchmark.find(name);
    if (found == by_benchmark.end()) {
      quiet.push_back(std::move(benchmark));
      continue;
    }
    OrderedJson marks = OrderedJson::array();
    for (const SeriesChange* change : found->second) {
      OrderedJson mark;
      mark["x"] = change->first_run;
      mark["e"] = change->end_run;
      mark["m"] = change->metric;
      mark["k"] = SeriesChangeKindName(change->kind);
      mark["dir"] = ChangeDirectionName(change->direction);
      mark["p"] = std::isfinite(change->change_percent) ? OrderedJson(change->change_percent)
                                                        : OrderedJson(nullptr);
      mark["c"] = series.runs[change->first_run].commit;
      if (change->kind == SeriesChangeKind::kGpu) {
        mark["g"] = change->gpu_before + " \u2192 " + change->gpu_after;
      }
      marks.push_back(std::move(mark));
    }
    benchmark["marks"] = std::move(marks);
    changed.push_back(std::move(benchmark));
  }
  // Beyond the cap, changed benchmarks join the collapsed ones, first.
  OrderedJson collapsed = OrderedJson::array();
  while (changed.size() > kMaxOpenCharts) {
    collapsed.push_back(std::move(changed.back()));
    changed.erase(changed.end() - 1);
  }
  std::reverse(collapsed.begin(), collapsed.end());
  for (OrderedJson& benchmark : quiet) collapsed.push_back(std::move(benchmark));
  OrderedJson history;
  history["runs"] = std::move(runs);
  history["settings"] = std::move(settings);
  history["changed"] = std::move(changed);
  history["collapsed"] = std::move(collapsed);
  (*data)["history"] = std::move(history);
}

std::string HistorySection(const ReportInputs& inputs) {
  if (!inputs.series) return "";
  const SeriesReport& series = *inputs.series;
  const std::vector<const SeriesChange*> changes = PracticalChanges(series);
  std::map<std::string, bool> changed_benchmarks;
  for (const SeriesChange* change : changes) changed_benchmarks[change->benchmark] = true;
  const std::vector<std::string> names = SeriesBenchmarks(series);
  const std::size_t open = std::min(changed_benchmarks.size(), kMaxOpenCharts);
  const std::size_t collapsed = names.size() - open;
  const std::size_t history_runs = series.runs.size() - 1;
  bool dated = true;
  for (std::size_t i = 0; i < history_runs; ++i) {
    dated = dated && series.runs[i].file->ContextValue("date") != nullptr;
  }
  std::string html =
      "<section id=\"history\"><h2>History: change points</h2><p class=\"muted\">The " +
      std::to_string(history_runs) + " baseline runs, " +
      (dated ? std::string("oldest first (by their context <code>date</code>)")
             : std::string("in the order given (not every run has a context <code>date</code>)")) +
      ", then this run: per "
      "benchmark, its median GPU time in each run (repetitions marked <code>gpu_shared</code> or "
      "<code>sm_clock_throttled</code> held out), and the change points that "
      "<code>gpubench-compare --changes</code> finds in the series, marked at the change's first "
      "run with the change, its kind and the commit: <b>step</b> (the level moved between two "
      "runs), <b>drift</b> (over a stretch of runs), <b>gpu</b> (the series moved to another "
      "physical GPU: an offset, not a regression). Only practical changes (beyond 0.5%, byte "
      "counters the gate's byte floor) are shown; the chart draws GPU time, the markers and the "
      "table every judged metric. Settings changes (another settings fingerprint) are marked in "
      "gray.</p>\n";
  const std::string level = Printf("%.2g", series.level);
  if (changes.empty()) {
    html += "<p id=\"series-verdict\" class=\"gate ok\">No practical change in the series of " +
            std::to_string(series.runs.size()) + " runs (" + std::to_string(series.benchmarks) +
            " benchmarks, " + std::to_string(series.tests) + " tests, each at level " + level +
            ").</p>\n";
  } else {
    // GPU changes are offsets between two GPUs, not the code's: they alone do not make it red.
    const std::size_t gpu = static_cast<std::size_t>(std::count_if(
        changes.begin(), changes.end(),
        [](const SeriesChange* change) { return change->kind == SeriesChangeKind::kGpu; }));
    html += std::string("<p id=\"series-verdict\" class=\"gate ") +
            (gpu == changes.size() ? "warn" : "bad") + "\">" + std::to_string(changes.size()) +
            " practical change(s) in " + std::to_string(changed_benchmarks.size()) +
            " benchmark(s) over the series of " + std::to_string(series.runs.size()) + " runs" +
            (gpu > 0 ? ", " + std::to_string(gpu) + " of them GPU changes" : std::string()) + " (" +
            std::to_string(series.benchmarks) + " benchmarks, " + std::to_string(series.tests) +
            " tests, each at level " + level + ").</p>\n";
  }
  html += SeriesFacts(series);
  if (!changes.empty()) html += ChangesTable(series, changes);
  html += "<div id=\"series-charts\" class=\"charts\"></div>\n";
  if (collapsed > 0) {
    const bool quiet_only = collapsed == names.size() - changed_benchmarks.size();
    html += std::string("<details id=\"series-more\"") +
            (collapsed <= kOpenQuietCharts ? " open" : "") + "><summary>" +
            std::to_string(collapsed) + " benchmark(s)" +
            (quiet_only ? " without a practical change"
                        : " more (" + std::to_string(changed_benchmarks.size() - open) +
                              " of them with a change, first)") +
            "</summary><div id=\"series-more-charts\" class=\"charts\"></div></details>\n";
  }
  return html + "</section>\n";
}

}  // namespace gpubench::tools::internal
