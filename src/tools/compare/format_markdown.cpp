// gpubench-compare --format markdown: a GitHub job summary with the gate's outcome, the banners as
// a warning box, a table of what changed and, folded, the table of all results.
#include "tools/compare/report_format.hpp"

#include <cstddef>
#include <string>
#include <string_view>

#include "tools/base/text.hpp"
#include "tools/compare/format_common.hpp"
#include "tools/gate/suite_summary.hpp"

namespace gpubench::tools {

// The table and lines shared with the other text format (format_common.hpp).
using internal::AnyThrottled;
using internal::AppendRows;
using internal::Banners;
using internal::GateLine;
using internal::HiddenRowsLine;
using internal::kBaseline;
using internal::kBenchmark;
using internal::kClock;
using internal::kColumnCount;
using internal::kHeaders;
using internal::kThreshold;
using internal::MarkdownCell;
using internal::RowFilter;
using internal::ShowValue;
using internal::SummaryLine;
using internal::TableRows;
using internal::Tone;

namespace {

void AppendMarkdownTable(const TableRows& rows, bool with_clock, std::size_t limit,
                         std::string& out) {
  out += "|";
  for (int column = 0; column < kColumnCount; ++column) {
    if (column == kClock && !with_clock) continue;
    out += " ";
    out += kHeaders[column];
    out += " |";
  }
  out += "\n|";
  for (int column = 0; column < kColumnCount; ++column) {
    if (column == kClock && !with_clock) continue;
    out += column >= kBaseline && column <= kThreshold ? " ---: |" : " --- |";
  }
  out += "\n";
  std::size_t written = 0;
  for (std::size_t row = 0; row < rows.size(); ++row) {
    if (written == limit) break;
    ++written;
    out += "|";
    for (int column = 0; column < kColumnCount; ++column) {
      if (column == kClock && !with_clock) continue;
      const std::string_view text = rows.Cell(row, column);
      std::string cell =
          column == kBenchmark && !text.empty() ? internal::MarkdownName(text) : MarkdownCell(text);
      const Tone tone = rows.CellTone(row, column);
      if (!cell.empty() && (tone == Tone::kBad || tone == Tone::kWarn || tone == Tone::kGood)) {
        cell = "**" + cell + "**";
      }
      out += " " + cell + " |";
    }
    out += "\n";
  }
  if (rows.size() > written) {
    out += "\n_" + std::to_string(rows.size() - written) +
           " more rows not shown; use --format json for all of them._\n";
  }
}

}  // namespace

std::string FormatMarkdown(const ComparisonReport& report, MetricRows metric_rows) {
  std::string out;
  // A contender of reused rows only is neither a pass nor a failure: nothing was measured.
  const char* icon = report.exit_code == kExitOk          ? "✅"
                     : report.exit_code == kExitAllReused ? "♻️"
                                                          : "❌";
  out +=
      "## " + std::string(icon) + " gpubench-compare: " + MarkdownCell(GateLine(report)) + "\n\n";
  out += "Baseline " + internal::MarkdownCode(report.baseline_path) + " (" +
         std::to_string(report.baseline_benchmark_count) + " benchmarks) vs contender " +
         internal::MarkdownCode(report.contender_path) + " (" +
         std::to_string(report.contender_benchmark_count) + " benchmarks).\n\n";
  if (const std::string levels = LevelsLine(report); !levels.empty()) {
    out += "**Levels:** " + MarkdownCell(levels) + ".\n\n";
  }
  const auto banners = Banners(report);
  if (!banners.empty()) {
    out += "> [!WARNING]\n";
    for (const auto& [tone, text] : banners) {
      // Bold must not start with a space in Markdown, so drop the indent.
      const std::string cell = MarkdownCell(text.substr(text.find_first_not_of(' ')));
      out += "> " + (tone == Tone::kBad ? "**" + cell + "**" : cell) + "<br>\n";
    }
    out += "\n";
  }
  if (report.refused_for_settings) {
    out += "| Setting | Baseline | Contender |\n| --- | --- | --- |\n";
    for (const ValueDifference& difference : report.settings.differences) {
      out += "| " + internal::MarkdownCode(difference.key) + " | " +
             MarkdownCell(ShowValue(difference.baseline)) + " | " +
             MarkdownCell(ShowValue(difference.contender)) + " |\n";
    }
    return out;
  }
  out += "**Summary:** " + MarkdownCell(SummaryLine(report)) + "\n\n";
  if (const std::string reuse = internal::ReuseLine(report); !reuse.empty()) {
    out += "**Reused:** " + MarkdownCell(reuse) + "\n\n";
  }
  out += "**Tests:** " + MarkdownCell(TestingLine(report)) + "\n\n";
  if (const std::string suite = SuiteLine(report); !suite.empty()) {
    out += "**Suite:** " + MarkdownCell(suite) + "\n\n";
  }
  const bool with_clock = AnyThrottled(report);
  TableRows notable;
  for (const BenchmarkComparison& benchmark : report.benchmarks) {
    AppendRows(benchmark, notable, RowFilter::kNotable);
  }
  if (!notable.empty()) {
    out += "### Changes, failures, missing and new benchmarks\n\n";
    AppendMarkdownTable(notable, with_clock, kMarkdownMaxDetailRows, out);
    out += "\n";
  }
  TableRows all;
  std::size_t hidden = 0;
  for (const BenchmarkComparison& benchmark : report.benchmarks) {
    hidden += AppendRows(benchmark, all,
                         metric_rows == MetricRows::kAll ? RowFilter::kAll : RowFilter::kGated);
  }
  out += "<details><summary>" +
         std::string(metric_rows == MetricRows::kAll ? "All results" : "Gated results") + " (" +
         std::to_string(all.size()) + " rows)</summary>\n\n";
  AppendMarkdownTable(all, with_clock, kMarkdownMaxDetailRows, out);
  if (const std::string line = HiddenRowsLine(hidden); !line.empty()) {
    out += "\n_" + MarkdownCell(line) + "._\n";
  }
  out += "\n</details>\n";
  return out;
}

}  // namespace gpubench::tools
