// gpubench-report's summary table: a row per benchmark with its medians and, with a baseline, the
// change and the gate's verdict, under the gate's banner.
#include <cmath>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "schema/context_keys.hpp"
#include "schema/counter_table.hpp"
#include "tools/base/text.hpp"
#include "tools/gate/comparison.hpp"
#include "tools/gate/history/history.hpp"
#include "tools/gate/run_summary.hpp"
#include "tools/gate/suite_summary.hpp"
#include "tools/report/html_cells.hpp"
#include "tools/report/html_report.hpp"
#include "tools/report/html_sections.hpp"

namespace gpubench::tools::internal {
namespace {

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
      // As the console says it: a floor in its unit, not as a share of a small counter (4.92e+04%).
      details += " (threshold ";
      AppendThreshold(details, metric);
      details += ")";
    }
    details += "\n";
  }
  for (const std::string& note : benchmark.notes) details += note + "\n";
  if (!benchmark.failure_message.empty()) details += benchmark.failure_message + "\n";
  return details;
}

// The gate's outcome in the banner: PASS, FAIL, or NOTHING COMPARED with the reason (no pass: a
// run whose every row is an error tested nothing).
std::string GateOutcome(const ComparisonReport& report) {
  const std::string exit = " (exit " + std::to_string(report.exit_code) + ")";
  if (report.exit_code == kExitOk) return "PASS" + exit;
  if (report.exit_code == kExitNothingCompared) {
    return "NOTHING COMPARED" + exit + ": " + report.nothing_compared;
  }
  if (report.exit_code == kExitAllReused) {
    return "REUSED" + exit + ": every row carries an earlier run's values; nothing was judged";
  }
  return "FAIL" + exit;
}

std::string GateBanner(const ComparisonReport& report) {
  const Summary& s = report.summary;
  const char* tone = report.exit_code == kExitOk          ? "ok"
                     : report.exit_code == kExitAllReused ? "warn"
                                                          : "bad";
  std::string html = "<p class=\"gate " + std::string(tone) +
                     "\"><b>gpubench-compare: " + HtmlEscape(GateOutcome(report)) +
                     "</b> &middot; ";
  html += std::to_string(s.compared) + " compared, " + std::to_string(s.regressions) +
          " regressions, " + std::to_string(s.unconfirmed_regressions) +
          " unconfirmed regressions, " + std::to_string(s.improvements) + " improvements, " +
          std::to_string(s.same) + " same, " + std::to_string(s.undecided) + " undecided, " +
          std::to_string(s.missing) + " missing, " + std::to_string(s.added) + " new, " +
          std::to_string(s.failed_in_contender) + " failed in this run";
  if (s.reused > 0) html += ", " + std::to_string(s.reused) + " reused (not judged)";
  if (!report.contender_cut_off.empty()) {
    html += " &middot; this run was cut off mid-write: a cut-off run never passes";
  }
  html += "</p>\n<p class=\"muted\" id=\"gate-tests\">" + HtmlEscape(TestingLine(report));
  if (const std::string suite = SuiteLine(report); !suite.empty()) {
    html += "<br>" + HtmlEscape(suite);
  }
  return html + "</p>\n";
}

// The columns of codes (stop_reason, clock_event_reasons) the run has: each repetition's code in
// words, counted; a code's mean or median would name nothing.
struct CodeColumn {
  std::string_view metric, heading;
};

std::vector<CodeColumn> CodeColumns(const BenchmarkFile& run) {
  std::vector<CodeColumn> columns;
  for (const CodeColumn& column : {CodeColumn{counter::kStopReason, "Stopped by"},
                                   CodeColumn{counter::kClockEventReasons, "Clock events"},
                                   CodeColumn{counter::kReuseStatus, "Reuse"}}) {
    for (const BenchmarkRecord& record : run.benchmarks) {
      if (!record.aggregates_only && record.FindMetric(column.metric) != nullptr) {
        columns.push_back(column);
        break;
      }
    }
  }
  return columns;
}

// The columns of a row's own numbers: repetitions, time, cv, bytes, bandwidth, % of peak, clock.
constexpr std::size_t kMeasuredColumns = 7;

// The cells of a row's own numbers: repetitions, time and cv, bytes, bandwidth, clock, and its
// codes in words.
std::string MeasuredCells(const BenchmarkRecord& record, double peak,
                          const std::vector<CodeColumn>& codes) {
  if (record.failed) {
    return "<td colspan=\"" + std::to_string(kMeasuredColumns + codes.size()) +
           "\" class=\"bad\">" + std::string(record.skipped ? "skipped" : "error") +
           (record.failure_message.empty() ? "" : ": " + HtmlEscape(record.failure_message)) +
           "</td>";
  }
  const MetricSeries* time = record.FindMetric(counter::kRealTime);
  const Spread spread = time ? Summarize(time->values) : Spread{};
  const double moved = MedianOf(record, counter::kBytesMoved);
  const double bandwidth = MedianOf(record, counter::kDramBandwidth);
  double percent = MedianOf(record, counter::kDramBandwidthPct);
  if (!std::isfinite(percent) && std::isfinite(bandwidth) && peak > 0) {
    percent = bandwidth / peak * 100;
  }
  const double clock = MedianOf(record, counter::kSmClockMhz);
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
  for (const CodeColumn& code : codes) {
    const std::string words = CountedCodes({&record}, code.metric);
    html += TextCell(words.empty() ? "-" : words);
  }
  return html;
}

// The cells against the baseline: its time, the change, the verdict (null: not compared).
std::string BaselineCells(const BenchmarkComparison* compared) {
  const MetricComparison* time = nullptr;
  if (compared) {
    for (const MetricComparison& metric : compared->metrics) {
      if (metric.name == counter::kRealTime) time = &metric;
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

// The mark of a benchmark whose values were reused from an earlier run (--gpubench_reuse): a
// badge after its name, "reused" when every repetition was, "reused 3/10" when some were.
std::string ReuseBadge(const BenchmarkRecord& record) {
  const std::size_t reused = CountReused(record);
  if (reused == 0) return "";
  const std::size_t repetitions = record.RepetitionCount();
  const std::string text = reused == repetitions ? std::string("reused")
                                                 : "reused " + std::to_string(reused) + "/" +
                                                       std::to_string(repetitions);
  return " <span class=\"badge reused\" title=\"not measured in this run: the values are an "
         "earlier run&#39;s row of the same work (its work signature matched)\">" +
         text + "</span>";
}

// The line above the table when rows were reused: how many, and from which run.
std::string ReuseParagraph(const BenchmarkFile& run) {
  std::size_t rows = 0, reused_rows = 0, benchmarks = 0;
  for (const BenchmarkRecord& record : run.benchmarks) {
    if (record.aggregates_only) continue;
    rows += record.RepetitionCount();
    const std::size_t reused = CountReused(record);
    reused_rows += reused;
    if (reused > 0) ++benchmarks;
  }
  if (reused_rows == 0) return "";
  const std::string* source = run.ContextValue(context_key::kReuseSource);
  return "<p class=\"reuse-note\" id=\"reuse-line\"><span class=\"badge reused\">reused</span> " +
         std::to_string(reused_rows) + " of " + std::to_string(rows) + " rows (" +
         std::to_string(benchmarks) + " benchmark(s)) carry an earlier run&#39;s values" +
         (source != nullptr ? " (" + HtmlEscape(*source) + ")" : std::string()) +
         ": they were not measured in this run, and a comparison does not judge them.</p>";
}

// Rows for the benchmarks only the baseline has.
std::string MissingRows(const ComparisonReport& comparison, const BenchmarkFile& run,
                        std::size_t code_columns) {
  const char* where = run.cut_off.empty()
                          ? "in the baseline only"
                          : "in the baseline only (this run was cut off mid-write: maybe after "
                            "the cut)";
  std::string html;
  for (const BenchmarkComparison& benchmark : comparison.benchmarks) {
    if (benchmark.status != BenchmarkStatus::kMissing) continue;
    html += "<tr><td class=\"name\">" + HtmlEscape(benchmark.name) + "</td><td colspan=\"" +
            std::to_string(kMeasuredColumns + code_columns) + "\" class=\"muted\">" + where +
            "</td>" + TextCell("-") + TextCell("-") + "<td class=\"" + VerdictClass(benchmark) +
            "\">missing" + (benchmark.fails_gate ? " (fails)" : "") + "</td></tr>\n";
  }
  return html;
}

}  // namespace

std::string SummaryTable(const ReportInputs& inputs, double peak) {
  const BenchmarkFile& run = *inputs.run;
  std::unordered_map<std::string, const BenchmarkComparison*> verdicts;
  if (inputs.comparison) {
    for (const BenchmarkComparison& benchmark : inputs.comparison->benchmarks) {
      verdicts.emplace(benchmark.name, &benchmark);
    }
  }
  const bool baseline = inputs.comparison != nullptr;
  const std::vector<CodeColumn> codes = CodeColumns(run);
  std::string html = "<section><h2>Summary</h2>";
  if (baseline) html += GateBanner(*inputs.comparison);
  html += ReuseParagraph(run);
  html +=
      "<p class=\"muted\">Medians over the repetitions; cv is the coefficient of variation of the "
      "GPU time." +
      std::string(codes.empty() ? ""
                                : " Codes are not averaged: each repetition's code in words, "
                                  "with how many repetitions had it.") +
      " Click a column to sort.</p><div class=\"table-wrap\"><table id=\"summary\" "
      "class=\"sortable\"><thead><tr>"
      "<th data-type=\"text\">Benchmark</th><th>Reps</th><th>Median GPU time</th><th>cv</th>"
      "<th>Bytes moved</th><th>DRAM bandwidth</th><th>% of peak</th><th>SM clock</th>";
  for (const CodeColumn& code : codes) {
    html += "<th data-type=\"text\" title=\"" + std::string(code.metric) +
            " of each repetition, in words\">" + std::string(code.heading) + "</th>";
  }
  if (baseline) {
    html += "<th>Baseline time</th><th>Change</th><th data-type=\"text\">Verdict</th>";
  }
  html += "</tr></thead><tbody>\n";
  for (const BenchmarkRecord& record : run.benchmarks) {
    const std::string badge = ReuseBadge(record);
    html += std::string(AllReused(record) ? "<tr class=\"reused\">" : "<tr>") +
            "<td class=\"name\">" + HtmlEscape(record.name) + badge + "</td>" +
            MeasuredCells(record, peak, codes);
    if (baseline) {
      const auto it = verdicts.find(record.name);
      html += BaselineCells(it != verdicts.end() ? it->second : nullptr);
    }
    html += "</tr>\n";
  }
  if (inputs.comparison) html += MissingRows(*inputs.comparison, run, codes.size());
  return html + "</tbody></table></div></section>\n";
}

}  // namespace gpubench::tools::internal
