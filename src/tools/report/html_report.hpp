// gpubench-report: one self-contained HTML file that shows a gpubench run (and, with a baseline,
// the gate's verdicts), drawn in the browser by Chart.js, which is inlined: it opens from disk
// with no network.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tools/gate/comparison.hpp"
#include "tools/gate/history/series_changes.hpp"
#include "tools/load/model.hpp"

namespace gpubench::tools {

/// Debian's libjs-chart.js puts Chart.js here.
inline constexpr std::string_view kDefaultChartJsPath =
    "/usr/share/javascript/chart.js/chart.min.js";

struct ReportInputs {
  const BenchmarkFile* run = nullptr;       ///< required
  const BenchmarkFile* baseline = nullptr;  ///< optional
  /// The gate's comparison of baseline and run (CompareFiles), present with a baseline.
  const ComparisonReport* comparison = nullptr;
  /// With a history (2 or more baseline runs): the change points of the history runs followed by
  /// the run (AnalyseSeries; the run is the last of its runs), drawn in the section "History".
  const SeriesReport* series = nullptr;
  /// Lines of gpubench's stderr that say a reported call's counters were copied (--log).
  std::vector<std::string> copied_counter_lines;
  bool log_given = false;
  std::string chart_js;         ///< the library's source, licence header included
  std::string chart_js_source;  ///< where it came from, for the comment above it
};

/// The benchmark's family and the argument it sweeps: GB's suffixes (/manual_time,
/// /iterations:N, ...) are dropped and a last path component that is a number (or name:number)
/// is the argument: "BM_Copy/1048576/manual_time" -> {"BM_Copy", 1048576}.
struct FamilyArgument {
  std::string family;
  std::optional<double> argument;
  std::string argument_text;
};
FamilyArgument SplitFamily(std::string_view benchmark_name);

std::string RenderHtmlReport(const ReportInputs& inputs);

/// Text made safe for HTML element content and attribute values.
std::string HtmlEscape(std::string_view text);

}  // namespace gpubench::tools
