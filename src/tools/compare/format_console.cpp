// gpubench-compare's console report (the default format): the levels tested at, the banners, the
// table (a line per benchmark, its metric rows below with each column as wide as its widest cell,
// coloured on a terminal, notes wrapped below them), the summary and the gate's outcome.
#include "tools/compare/report_format.hpp"

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "tools/base/halves.hpp"
#include "tools/base/text.hpp"
#include "tools/compare/format_common.hpp"
#include "tools/gate/suite_summary.hpp"

namespace gpubench::tools {

// The table and lines shared with the other text format (format_common.hpp).
using internal::AppendRows;
using internal::Banners;
using internal::GateLine;
using internal::HiddenRowsLine;
using internal::kBaseline;
using internal::kBenchmark;
using internal::kChange;
using internal::kClock;
using internal::kColumnCount;
using internal::kContender;
using internal::kHeaders;
using internal::kMetric;
using internal::kNotes;
using internal::kP;
using internal::kThreshold;
using internal::kVerdict;
using internal::RowFilter;
using internal::SummaryLine;
using internal::TableRows;
using internal::Tone;

namespace {

const char* AnsiColor(Tone tone) {
  switch (tone) {
    case Tone::kBad:
      return "\033[1;31m";
    case Tone::kWarn:
      return "\033[1;33m";
    case Tone::kGood:
      return "\033[32m";
    case Tone::kInfo:
      return "\033[36m";
    case Tone::kPlain:
      break;
  }
  return "";
}

void AppendColored(std::string& out, std::string_view text, Tone tone, bool color) {
  if (color && tone != Tone::kPlain && !text.empty()) {
    out += AnsiColor(tone);
    out += text;
    out += "\033[0m";
  } else {
    out += text;
  }
}

// Display width in terminal columns: counts UTF-8 code points, not bytes.
std::size_t DisplayWidth(std::string_view text) {
  std::size_t width = 0;
  for (unsigned char c : text) width += (c & 0xC0) != 0x80;
  return width;
}

// Lines are kept within this many columns where the cells allow (notes are wrapped to it).
constexpr std::size_t kConsoleWidth = 120;
// Metric rows are indented under their benchmark's line, notes under their row.
constexpr std::string_view kMetricIndent = "  ";
constexpr std::string_view kNoteIndent = "      ";

// `text` as lines of at most kConsoleWidth columns (a longer word stays whole), the first
// indented by `first_indent`, the others by `indent`.
void AppendWrapped(std::string_view text, std::string_view first_indent, std::string_view indent,
                   std::string& out) {
  for (bool first = true; !text.empty(); first = false) {
    const std::string_view prefix = first ? first_indent : indent;
    const std::size_t room = kConsoleWidth - prefix.size();
    std::size_t end = text.size();
    if (DisplayWidth(text) > room) {
      // The last space within the room (byte offsets: the texts are ASCII but for names).
      end = text.rfind(' ', room);
      if (end == std::string_view::npos || end == 0) end = std::min(text.find(' '), text.size());
    }
    out += prefix;
    out += text.substr(0, end);
    out += '\n';
    text.remove_prefix(std::min(end + 1, text.size()));
  }
}

// The metric columns of the table, each padded to its width, the numbers right-aligned. The
// verdict comes before the threshold, whose text (the widest cell) then ends the line.
void AppendMetricLine(const TableRows& rows, std::size_t row, const std::size_t* widths, bool color,
                      std::string& out) {
  const std::size_t line_start = out.size();
  out += kMetricIndent;
  for (int column : {kMetric, kBaseline, kContender, kChange, kP, kVerdict, kThreshold}) {
    const std::string_view cell = row < rows.size() ? rows.Cell(row, column) : kHeaders[column];
    const Tone tone = row < rows.size() ? rows.CellTone(row, column) : Tone::kPlain;
    const std::size_t padding = widths[column] - DisplayWidth(cell);
    const bool right = column >= kBaseline && column <= kP;
    if (right) out.append(padding, ' ');
    AppendColored(out, cell, tone, color);
    if (!right) out.append(padding, ' ');
    out += "  ";
  }
  while (out.size() > line_start && out.back() == ' ') out.pop_back();
  out += '\n';
}

// A row of the table: its benchmark's line when it is the benchmark's first (the name, the Clock
// flag and, for a benchmark without compared metrics, its status), then the metric's line, then
// the notes below it.
void AppendConsoleRow(const TableRows& rows, std::size_t row, const std::size_t* widths, bool color,
                      std::string& out) {
  const std::string_view benchmark = rows.Cell(row, kBenchmark);
  const bool metric = !rows.Cell(row, kMetric).empty();
  if (!benchmark.empty()) {
    out += benchmark;
    for (int column : {kClock, kVerdict}) {
      if (column == kVerdict && metric) continue;
      const std::string_view cell = rows.Cell(row, column);
      if (cell.empty()) continue;
      out += "  ";
      AppendColored(out, cell, rows.CellTone(row, column), color);
    }
    out += '\n';
  }
  if (metric) AppendMetricLine(rows, row, widths, color, out);
  AppendWrapped(rows.Cell(row, kNotes), kNoteIndent, kNoteIndent, out);
}

// The header, then each benchmark's line with its metric rows below, the metric columns as wide
// as their widest cell. Large reports are built in two halves on two threads. Returns the number
// of metric rows left out.
std::size_t AppendConsoleTable(const ComparisonReport& report, bool color, RowFilter filter,
                               std::string& out) {
  const std::vector<BenchmarkComparison>& benchmarks = report.benchmarks;
  TableRows rows[2];
  std::size_t hidden[2] = {0, 0};
  OnTwoHalves(benchmarks.size(), [&](int half, std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      hidden[half] += AppendRows(benchmarks[i], rows[half], filter);
    }
  });
  // The metric rows' widths (a benchmark without metrics has its status on its own line).
  std::size_t widths[kColumnCount];
  bool any_metric = false;
  for (int column = kMetric; column <= kVerdict; ++column) {
    widths[column] = DisplayWidth(kHeaders[column]);
    for (const TableRows& half : rows) {
      for (std::size_t row = 0; row < half.size(); ++row) {
        if (half.Cell(row, kMetric).empty()) continue;
        any_metric = true;
        widths[column] = std::max(widths[column], DisplayWidth(half.Cell(row, column)));
      }
    }
  }
  out += "\n";
  out += kHeaders[kBenchmark];
  out += '\n';
  if (any_metric) AppendMetricLine(rows[0], rows[0].size(), widths, false, out);  // the header
  std::string second_half;
  OnTwoHalves(benchmarks.size(), [&](int half, std::size_t, std::size_t) {
    std::string& text = half == 0 ? out : second_half;
    for (std::size_t row = 0; row < rows[half].size(); ++row) {
      AppendConsoleRow(rows[half], row, widths, color, text);
    }
  });
  out += second_half;
  return hidden[0] + hidden[1];
}

}  // namespace

std::string FormatConsole(const ComparisonReport& report, bool color, MetricRows metric_rows) {
  std::string out;
  out += "gpubench-compare: baseline " + report.baseline_path + " (" +
         std::to_string(report.baseline_benchmark_count) + " benchmarks) vs contender " +
         report.contender_path + " (" + std::to_string(report.contender_benchmark_count) +
         " benchmarks)\n";
  if (const std::string levels = LevelsLine(report); !levels.empty()) {
    AppendWrapped("levels: " + levels, "", kMetricIndent, out);
  }
  for (const auto& [tone, text] : Banners(report)) {
    AppendColored(out, "!! " + text, tone, color);
    out += "\n";
  }
  if (!report.refused_for_settings) {
    const std::size_t hidden = AppendConsoleTable(
        report, color, metric_rows == MetricRows::kAll ? RowFilter::kAll : RowFilter::kGated, out);
    out += "\n";
    AppendWrapped(SummaryLine(report), "", kMetricIndent, out);
    AppendWrapped(internal::ReuseLine(report), "", kMetricIndent, out);
    AppendWrapped(HiddenRowsLine(hidden), "", kMetricIndent, out);
    AppendWrapped(TestingLine(report), "", kMetricIndent, out);
    if (const std::string suite = SuiteLine(report); !suite.empty()) out += suite + "\n";
  }
  const Tone gate_tone = report.exit_code == kExitOk ? Tone::kGood : Tone::kBad;
  AppendColored(out, GateLine(report), gate_tone, color);
  out += "\n";
  return out;
}

}  // namespace gpubench::tools
