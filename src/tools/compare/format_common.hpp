// What the console and Markdown reports share: the rows of their table with the tone of each
// cell, and the lines around the table (banners, summary, gate).
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tools/gate/comparison.hpp"

namespace gpubench::tools::internal {

/// How a table cell should stand out; mapped to ANSI colours or Markdown bold.
enum class Tone { kPlain, kBad, kWarn, kGood, kInfo };

/// The table's columns, in order.
enum Column {
  kBenchmark,
  kClock,
  kMetric,
  kBaseline,
  kContender,
  kChange,
  kP,
  kThreshold,
  kVerdict,
  kNotes,
  kColumnCount
};

/// The columns' headings.
inline constexpr const char* kHeaders[kColumnCount] = {
    "Benchmark", "Clock",   "Metric",    "Baseline", "Contender",
    "Change",    "p-value", "Threshold", "Verdict",  "Notes"};

/// The cells of a table in one buffer, row after row and column after column: ten std::strings
/// per row made up most of the time of a 140,000-row console table.
class TableRows {
 public:
  std::size_t size() const { return tones_.size(); }
  bool empty() const { return tones_.empty(); }
  std::string_view Cell(std::size_t row, int column) const {
    const std::size_t cell = row * kColumnCount + static_cast<std::size_t>(column);
    const std::size_t begin = cell == 0 ? 0 : ends_[cell - 1];
    return std::string_view(text_).substr(begin, ends_[cell] - begin);
  }
  Tone CellTone(std::size_t row, int column) const { return tones_[row][column]; }

  /// Starts a row whose cells are then written in column order with Text() and EndCell().
  void StartRow() { tones_.emplace_back().fill(Tone::kPlain); }
  std::string& Text() { return text_; }
  void EndCell(Tone tone = Tone::kPlain) {
    tones_.back()[ends_.size() % kColumnCount] = tone;
    ends_.push_back(text_.size());
  }
  void AddCell(std::string_view text, Tone tone = Tone::kPlain) {
    text_ += text;
    EndCell(tone);
  }

 private:
  std::string text_;
  std::vector<std::size_t> ends_;  // where each cell ends in text_
  std::vector<std::array<Tone, kColumnCount>> tones_;
};

/// Which metrics of a compared benchmark get a row.
enum class RowFilter {
  kAll,
  kGated,    ///< the gated ones, and any other that changed, fails or is a flag in its bad state
  kNotable,  ///< only the changed or unconfirmed ones, each row naming its benchmark
};

/// One row per compared metric that `filter` keeps, or one row for a benchmark without metrics.
/// The first row of a benchmark names it (with kNotable every row does). Returns the number of
/// metric rows left out.
std::size_t AppendRows(const BenchmarkComparison& benchmark, TableRows& rows, RowFilter filter);

/// What to say about the rows a table left out ("" for none): how many, and the switch for them.
std::string HiddenRowsLine(std::size_t hidden);

/// `value` in double quotes, or "(absent)".
std::string ShowValue(const std::optional<std::string>& value);

/// Whether a benchmark ran throttled or on a shared GPU: only then do tables show the Clock column.
bool AnyThrottled(const ComparisonReport& report);

/// The counts of the summary: "N compared: R regression(s), ...; M missing, ...".
std::string SummaryLine(const ComparisonReport& report);

/// The gate's outcome: "PASS (exit 0)", "FAIL (exit 1): ...", "REFUSED (exit 3): ...",
/// "NOTHING COMPARED (exit 4): ...".
std::string GateLine(const ComparisonReport& report);

/// How many rows of the contender (and of one baseline file) carry values reused from an earlier
/// run (--gpubench_reuse), and from which; "" when none.
std::string ReuseLine(const ComparisonReport& report);

/// Lines that must be seen before any number is trusted (cut-off files, differing settings or
/// GPU, throttled or shared runs, the loader's warnings), each with its tone.
std::vector<std::pair<Tone, std::string>> Banners(const ComparisonReport& report);

/// `text` in a Markdown table cell: '|' escaped (it would end the cell), line breaks as spaces,
/// '<' and '>' as entities (no HTML is read from a benchmark's name).
std::string MarkdownCell(std::string_view text);
/// `text` as a code span in a Markdown table cell. Entities are not decoded inside a code span,
/// so '<', '>' and '&' stay as they are ("BM_Sort<int>" reads as itself); the fence is longer
/// than any run of backticks in the text; '|' is escaped and line breaks are spaces, as in a
/// cell.
std::string MarkdownCode(std::string_view text);
/// What the tables show for an empty benchmark name (an empty cell would read as the row
/// above's benchmark).
inline constexpr std::string_view kEmptyNameShown = "\"\" (an empty name)";
/// A benchmark's name as a table or the console shows it: as it is, but an empty name as
/// kEmptyNameShown and control characters as \xNN (no terminal escape from a file reaches the
/// console). `shown` holds the text when it is not the name itself.
std::string_view ShownName(std::string_view name, std::string& shown);
/// A benchmark's name in a Markdown table: a code span (MarkdownCode) of ShownName's text; for an
/// empty name (raw or as kEmptyNameShown) the span holds only `""`, and the words stay outside
/// it.
std::string MarkdownName(std::string_view name);

}  // namespace gpubench::tools::internal
