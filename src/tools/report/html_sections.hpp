// The parts of gpubench-report's page, in the order RenderHtmlReport puts them; each part is made
// in its own file (named below), from the same ReportInputs.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "tools/load/model.hpp"
#include "tools/report/html_report.hpp"

namespace gpubench::tools::internal {

// --- html_header.cpp

/// The title, the cards of device, settings and cost, and the list of warnings.
std::string Header(const ReportInputs& inputs);

// --- html_warnings.cpp: what the header says is wrong with the files and their rows

/// One entry of the header's list of warnings.
struct Warning {
  std::string level;  ///< "bad" or "warn"
  std::string text;
};

/// The banners of cut-off files (the run's and the baseline's), above everything else: numbers
/// from a run that did not finish must not pass for a whole run.
std::string CutOffBanners(const ReportInputs& inputs);

/// Everything that makes the run's numbers doubtful: its files, its rows, the log's copied
/// counters, the loader's warnings and how the baseline differs.
std::vector<Warning> CollectWarnings(const ReportInputs& inputs);

// --- html_summary.cpp

/// The table of every benchmark's medians (and, with a baseline, the gate's verdicts).
std::string SummaryTable(const ReportInputs& inputs, double peak);

// --- html_series.cpp: with a history, its change points (issue #50)

/// The section "History": what the series is, its settings changes and GPUs, the table of
/// practical changes and the charts' containers; "" without a history.
std::string HistorySection(const ReportInputs& inputs);
/// The section's chart data, as data["history"]: the runs, each benchmark's median GPU time per
/// run and its changes' markers. Nothing without a history.
void AddHistoryData(const ReportInputs& inputs, nlohmann::ordered_json* data);

// --- html_charts.cpp

/// What the page's script draws, as JSON that is safe inside a <script> element.
std::string ChartDataJson(const ReportInputs& inputs, double peak);
/// Whether any row can be drawn on the roofline.
bool HasRoofline(const BenchmarkFile& run);
/// Everything the charts show, as tables, for readers without JavaScript.
std::string NoScriptTables(const ReportInputs& inputs);

}  // namespace gpubench::tools::internal
