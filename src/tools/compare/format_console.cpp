// gpubench-compare's console report (the default format): the banners, the table with each column
// as wide as its widest cell (coloured on a terminal), the summary and the gate's outcome.
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
using internal::AnyThrottled;
using internal::AppendRows;
using internal::Banners;
using internal::GateLine;
using internal::kBaseline;
using internal::kClock;
using internal::kColumnCount;
using internal::kHeaders;
using internal::kNotes;
using internal::kThreshold;
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

void AppendConsoleLine(const TableRows& rows, std::size_t row, const std::size_t* widths,
                       bool with_clock, bool color, std::string& out) {
  const std::size_t line_start = out.size();
  for (int column = 0; column < kColumnCount; ++column) {
    if (column == kClock && !with_clock) continue;
    const std::string_view cell = row < rows.size() ? rows.Cell(row, column) : kHeaders[column];
    const Tone tone = row < rows.size() ? rows.CellTone(row, column) : Tone::kPlain;
    const std::size_t padding = widths[column] - DisplayWidth(cell);
    const bool right = column >= kBaseline && column <= kThreshold;
    if (right) out.append(padding, ' ');
    AppendColored(out, cell, tone, color);
    if (column == kNotes) break;  // no trailing spaces
    if (!right) out.append(padding, ' ');
    out += "  ";
  }
  while (out.size() > line_start && out.back() == ' ') out.pop_back();
  out += '\n';
}

// The header, then a row per compared metric, each column as wide as its widest cell. Large
// reports are built in two halves on two threads.
void AppendConsoleTable(const ComparisonReport& report, bool color, std::string& out) {
  const bool with_clock = AnyThrottled(report);
  const std::vector<BenchmarkComparison>& benchmarks = report.benchmarks;
  TableRows rows[2];
  OnTwoHalves(benchmarks.size(), [&](int half, std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) AppendRows(benchmarks[i], rows[half], false);
  });
  std::size_t widths[kColumnCount];
  for (int column = 0; column < kColumnCount; ++column) {
    widths[column] = DisplayWidth(kHeaders[column]);
    for (const TableRows& half : rows) {
      for (std::size_t row = 0; row < half.size(); ++row) {
        widths[column] = std::max(widths[column], DisplayWidth(half.Cell(row, column)));
      }
    }
  }
  out += "\n";
  AppendConsoleLine(rows[0], rows[0].size(), widths, with_clock, color, out);  // the header
  std::string second_half;
  OnTwoHalves(benchmarks.size(), [&](int half, std::size_t, std::size_t) {
    std::string& text = half == 0 ? out : second_half;
    for (std::size_t row = 0; row < rows[half].size(); ++row) {
      AppendConsoleLine(rows[half], row, widths, with_clock, color, text);
    }
  });
  out += second_half;
}

}  // namespace

std::string FormatConsole(const ComparisonReport& report, bool color) {
  std::string out;
  out += "gpubench-compare: baseline " + report.baseline_path + " (" +
         std::to_string(report.baseline_benchmark_count) + " benchmarks) vs contender " +
         report.contender_path + " (" + std::to_string(report.contender_benchmark_count) +
         " benchmarks), alpha " + Printf("%g", report.options.alpha) + "\n";
  for (const auto& [tone, text] : Banners(report)) {
    AppendColored(out, "!! " + text, tone, color);
    out += "\n";
  }
  if (!report.refused_for_settings) {
    AppendConsoleTable(report, color, out);
    out += "\n" + SummaryLine(report) + "\n" + TestingLine(report) + "\n";
    if (const std::string suite = SuiteLine(report); !suite.empty()) out += suite + "\n";
  }
  const Tone gate_tone = report.exit_code == kExitOk ? Tone::kGood : Tone::kBad;
  AppendColored(out, GateLine(report), gate_tone, color);
  out += "\n";
  return out;
}

}  // namespace gpubench::tools
