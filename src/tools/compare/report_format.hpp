// Renders a ComparisonReport for people (console, Markdown) and machines (JSON), each format in
// its own file: format_console.cpp, format_markdown.cpp, format_json.cpp.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <string>

#include "tools/base/text.hpp"
#include "tools/gate/comparison.hpp"

namespace gpubench::tools {

/// kCsv: one row per (benchmark, metric), tools/compare/report_csv.hpp.
enum class OutputFormat { kConsole, kMarkdown, kJson, kCsv };

/// Markdown job summaries have a size limit, so the full table is cut here.
inline constexpr std::size_t kMarkdownMaxDetailRows = 1000;

/// Which metric rows the console and Markdown tables show (--metrics); JSON and CSV have all.
enum class MetricRows {
  kGated,  ///< the gated metrics, and any other that changed, fails or is a flag that is set
  kAll,
};

std::string FormatConsole(const ComparisonReport& report, bool color,
                          MetricRows rows = MetricRows::kGated);
std::string FormatMarkdown(const ComparisonReport& report, MetricRows rows = MetricRows::kGated);
std::string FormatJson(const ComparisonReport& report);
/// FormatJson's text, written to `out` piece by piece (a large report's text, 200 MB for 10,000
/// benchmarks x 12 metrics x 10 repetitions, is never held whole).
void WriteJson(const ComparisonReport& report, std::ostream& out);

}  // namespace gpubench::tools
