// gpubench-compare --changes: the change points of a series of runs
// (tools/gate/history/series_changes.hpp) as a console table, Markdown, JSON or CSV
// (docs/compare.md "Change points over a history").
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "tools/compare/report_format.hpp"
#include "tools/gate/history/series_changes.hpp"

namespace gpubench::tools {

struct ChangesOptions {
  std::vector<std::string> paths;  ///< the runs, oldest first unless order_by is set
  std::string order_by;            ///< a context key to sort the runs by; "" keeps their order
  SeriesOptions series;
  OutputFormat format = OutputFormat::kConsole;
  std::string output_path;  ///< empty: the report goes to `out`
};

/// Loads the runs, analyses them and writes the report: 0 when the analysis ran, 2 on bad input
/// (a file that cannot be read, fewer than two runs, a run without the order_by key).
int RunChanges(const ChangesOptions& options, std::ostream& out, std::ostream& err);

std::string FormatChangesConsole(const SeriesReport& report);
std::string FormatChangesMarkdown(const SeriesReport& report);
std::string FormatChangesJson(const SeriesReport& report, double family_alpha);
std::string FormatChangesCsv(const SeriesReport& report);

/// The CSV's columns, in order (python/gpubench_results.py reads them).
extern const std::vector<std::string> kChangesCsvColumns;

}  // namespace gpubench::tools
