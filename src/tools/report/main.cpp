// gpubench-report: one offline HTML file that shows a gpubench run, optionally against a
// baseline with gpubench-compare's verdicts.
#include <iostream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "common/text_files.hpp"
#include "tools/base/output_file.hpp"
#include "tools/base/text.hpp"
#include "tools/gate/comparison.hpp"
#include "tools/gate/history/history.hpp"
#include "tools/gate/history/series_changes.hpp"
#include "tools/gate/run_summary.hpp"
#include "tools/load/baseline_files.hpp"
#include "tools/load/cut_off.hpp"
#include "tools/load/loader.hpp"
#include "tools/report/html_report.hpp"

namespace {

using gpubench::detail::Result;
using gpubench::detail::Status;
using gpubench::tools::kExitBadInput;
using gpubench::tools::kExitNothingCompared;
using gpubench::tools::kExitOk;
using gpubench::tools::kExitSettingsMismatch;

constexpr const char* kDescription =
    "Write a self-contained HTML report of gpubench / Google Benchmark JSON: device, clocks,\n"
    "settings and warnings, a sortable summary table, sweep charts and every repetition; with\n"
    "--baseline, the changes and gpubench-compare's verdicts (several --baseline files or\n"
    "--history DIR: a history of baseline runs, as gpubench-compare takes it; with a history,\n"
    "each benchmark's series over the runs with its change points, as gpubench-compare\n"
    "--changes finds them). The file needs no network. A file\n"
    "cut off mid-write (a killed run) is shown with its complete rows under a warning.\n"
    "Exit codes: 0 written, 2 bad input or usage, 3 the settings fingerprints differ.";

// gpubench says on stderr when a reported call's counters were copied from an earlier call.
std::vector<std::string> CopiedCounterLines(const std::string& log) {
  std::vector<std::string> lines;
  std::istringstream stream(log);
  std::string line;
  while (std::getline(stream, line)) {
    // A log holds whatever the process wrote; the page stays valid UTF-8.
    if (line.find("hardware counters were copied") != std::string::npos) {
      lines.push_back(gpubench::tools::ShowableText(line));
    }
  }
  return lines;
}

// Prints a failed Status and returns its exit code.
int ExitFor(const Status& status) {
  std::cerr << "gpubench-report: error: " << status.message() << "\n";
  return status.code() == Status::Code::kSettingsMismatch ? kExitSettingsMismatch : kExitBadInput;
}

// The change points of a history followed by the run (issue #50), as gpubench-compare --changes
// finds them: the history runs ordered by their context "date" when every one has it (else as
// given, with a note), the run last.
gpubench::tools::SeriesReport AnalyseHistory(
    std::vector<const gpubench::tools::BenchmarkFile*> history,
    const gpubench::tools::BenchmarkFile& run, const gpubench::tools::CompareOptions& compare) {
  std::vector<const gpubench::tools::BenchmarkFile*> by_date = history;
  const bool dated = gpubench::tools::OrderRunsBy(by_date, "date").ok();
  if (dated) history = by_date;
  history.push_back(&run);
  gpubench::tools::SeriesOptions options;
  options.overrides = compare.overrides;
  gpubench::tools::SeriesReport series = gpubench::tools::AnalyseSeries(history, options);
  if (!dated) {
    series.notes.insert(series.notes.begin(),
                        "not every history run has a context \"date\": the runs are in the order "
                        "given (file names), the run last");
  }
  return series;
}

// The baseline (one file, or the pooled runs of a history) and the gate's comparison of the run
// against it, into `report`; with a history, its change points too.
int AddBaseline(const std::vector<std::string>& baseline_paths,
                const gpubench::tools::CompareOptions& compare,
                std::vector<gpubench::tools::BenchmarkFile>& baselines,
                std::optional<gpubench::tools::BenchmarkFile>& pooled,
                gpubench::tools::ComparisonReport& comparison,
                std::optional<gpubench::tools::SeriesReport>& series,
                gpubench::tools::ReportInputs& report) {
  const gpubench::tools::BenchmarkFile& run = *report.run;
  std::vector<const gpubench::tools::BenchmarkFile*> runs;
  baselines.reserve(baseline_paths.size());
  for (const std::string& path : baseline_paths) {
    Result<gpubench::tools::BenchmarkFile> loaded = gpubench::tools::LoadBenchmarkFile(path);
    if (!loaded.ok()) return ExitFor(loaded.status());
    baselines.push_back(std::move(loaded).value());
  }
  for (const gpubench::tools::BenchmarkFile& baseline : baselines) {
    runs.push_back(&baseline);
    for (const gpubench::tools::CutOffFile& cut : baseline.cut_off) {
      std::cerr << "gpubench-report: warning: baseline " << gpubench::tools::DescribeCutOff(cut)
                << " (the run's benchmarks after the cut have no baseline there)\n";
    }
    const gpubench::tools::SettingsCheck check = gpubench::tools::CheckSettings(baseline, run);
    if (check.mismatch && !compare.allow_settings_mismatch) {
      std::cerr << "gpubench-report: error: "
                << gpubench::tools::DescribeSettingsMismatch(check, baseline.path, run.path)
                << "\ngpubench-report: not reporting against this baseline; pass "
                   "--allow-settings-mismatch to report anyway (with a warning)"
                << (baselines.size() > 1 ? ", or leave this run out of the history" : "") << ".\n";
      return kExitSettingsMismatch;
    }
  }
  // A history is pooled once: the comparison judges it and the report shows it.
  std::optional<gpubench::tools::PooledBaseline> history;
  if (runs.size() > 1) history = gpubench::tools::PoolBaselineRuns(runs, run);
  Result<gpubench::tools::ComparisonReport> compared =
      history ? gpubench::tools::CompareWithHistory(runs, *history, run, compare)
              : gpubench::tools::CompareFiles(*runs.front(), run, compare);
  if (!compared.ok()) return ExitFor(compared.status());
  comparison = std::move(compared).value();
  if (history) {
    pooled = std::move(history->file);
    report.baseline = &*pooled;
    series = AnalyseHistory(runs, run, compare);
    report.series = &*series;
  } else {
    report.baseline = runs.front();
  }
  report.comparison = &comparison;
  return kExitOk;
}

// Everything after the command line and Chart.js: load, compare, render, write.
int Report(const std::vector<std::string>& inputs, const std::vector<std::string>& baseline_paths,
           const std::string& log_path, const std::string& output,
           const gpubench::tools::CompareOptions& compare, gpubench::tools::ReportInputs& report) {
  const Result<gpubench::tools::BenchmarkFile> loaded = gpubench::tools::LoadRun(inputs);
  if (!loaded.ok()) return ExitFor(loaded.status());
  const gpubench::tools::BenchmarkFile& run = loaded.value();
  report.run = &run;
  for (const gpubench::tools::CutOffFile& cut : run.cut_off) {
    std::cerr << "gpubench-report: warning: " << gpubench::tools::DescribeCutOff(cut)
              << "; the report shows the recovered benchmarks only\n";
  }
  std::vector<gpubench::tools::BenchmarkFile> baselines;
  std::optional<gpubench::tools::BenchmarkFile> pooled;
  gpubench::tools::ComparisonReport comparison;
  std::optional<gpubench::tools::SeriesReport> series;
  if (!baseline_paths.empty()) {
    const int code =
        AddBaseline(baseline_paths, compare, baselines, pooled, comparison, series, report);
    if (code != kExitOk) return code;
  }
  if (!log_path.empty()) {
    std::string log;
    if (!gpubench::detail::ReadWholeFile(log_path, &log)) {
      std::cerr << "gpubench-report: error: cannot read the log " << log_path << "\n";
      return kExitBadInput;
    }
    report.copied_counter_lines = CopiedCounterLines(log);
    report.log_given = true;
  }
  const std::string html = gpubench::tools::RenderHtmlReport(report);
  if (const Status written = gpubench::tools::WriteOutputFile(output, html); !written.ok()) {
    std::cerr << "gpubench-report: error: " << written.message() << "\n";
    return kExitBadInput;
  }
  std::cout << "wrote " << output << ": " << run.benchmarks.size() << " benchmarks, " << html.size()
            << " bytes";
  if (report.comparison) {
    std::cout << "; gate against " << comparison.baseline_path << ": "
              << (comparison.exit_code == kExitOk ? "pass"
                  : comparison.exit_code == kExitNothingCompared
                      ? "nothing compared: " + comparison.nothing_compared
                      : "fail")
              << " (gpubench-compare would exit " << comparison.exit_code << ")";
  }
  std::cout << "\n";
  return kExitOk;
}

// What the command line gives.
struct CommandLine {
  std::vector<std::string> inputs, threshold_specs, direction_specs, baseline_paths;
  std::string history_dir, output = "report.html", log_path, unconfirmed = "fail";
  std::string chart_js_path{gpubench::tools::kDefaultChartJsPath};
  gpubench::tools::CompareOptions compare;
};

void AddOptions(CLI::App& app, CommandLine& line) {
  app.add_option("RESULTS", line.inputs,
                 "gpubench JSON (--benchmark_out); several files are shards")
      ->required();
  app.add_option("--baseline", line.baseline_paths,
                 "Baseline JSON: changes and the gate's verdicts; repeat it for a history of "
                 "baseline runs")
      ->allow_extra_args(false);
  app.add_option("--history", line.history_dir,
                 "Folder of baseline runs (each *.json one run), as gpubench-compare --history");
  app.add_option("--output,-o", line.output, "The HTML file to write")->capture_default_str();
  app.add_option("--log", line.log_path,
                 "gpubench's stderr of the run: lines about copied counters become warnings");
  app.add_option("--chartjs", line.chart_js_path, "Chart.js to inline (Debian: libjs-chart.js)")
      ->capture_default_str();
  app.add_flag("--allow-settings-mismatch", line.compare.allow_settings_mismatch,
               "Report against a baseline whose settings fingerprint differs (with a warning)");
  app.add_option("--threshold", line.threshold_specs,
                 "As gpubench-compare --threshold (repeatable)")
      ->allow_extra_args(false);
  app.add_option("--direction", line.direction_specs,
                 "As gpubench-compare --direction (repeatable)")
      ->allow_extra_args(false);
  app.add_option("--unconfirmed", line.unconfirmed, "As gpubench-compare --unconfirmed")
      ->capture_default_str()
      ->check(CLI::IsMember({"fail", "warn"}));
}

// Policy overrides, the history folder, repeated baselines; false (said on stderr) on an error.
bool Resolve(const CLI::App& app, CommandLine& line) {
  if (const gpubench::detail::Status status = gpubench::tools::AddPolicyOverrides(
          line.threshold_specs, line.direction_specs, line.compare.overrides);
      !status.ok()) {
    std::cerr << "gpubench-report: usage error: " << status.message() << "\n";
    return false;
  }
  if (!line.history_dir.empty()) {
    auto history = gpubench::tools::HistoryFiles(line.history_dir, line.inputs.front());
    if (!history.ok()) {
      std::cerr << "gpubench-report: error: " << history.status().message() << "\n";
      return false;
    }
    line.baseline_paths.insert(line.baseline_paths.end(), history.value().begin(),
                               history.value().end());
  }
  if (!line.baseline_paths.empty()) {
    std::vector<std::string> warnings;
    line.baseline_paths =
        gpubench::tools::DistinctBaselines(line.baseline_paths, line.inputs.front(), warnings);
    for (const std::string& warning : warnings) {
      std::cerr << "gpubench-report: warning: " << warning << "\n";
    }
  }
  if (line.baseline_paths.empty() && line.history_dir.empty()) {
    // Options of the gate's verdicts change nothing in a report without one; a typo'd command
    // line must not look as if they had.
    for (const char* option :
         {"--threshold", "--direction", "--unconfirmed", "--allow-settings-mismatch"}) {
      if (app.count(option) > 0) {
        std::cerr << "gpubench-report: warning: " << option
                  << " changes nothing without --baseline or --history\n";
      }
    }
  }
  line.compare.unconfirmed = line.unconfirmed == "warn" ? gpubench::tools::UnconfirmedPolicy::kWarn
                                                        : gpubench::tools::UnconfirmedPolicy::kFail;
  // Every file the report reads (the history's runs are among the baselines by now).
  std::vector<std::string> read = line.inputs;
  read.insert(read.end(), line.baseline_paths.begin(), line.baseline_paths.end());
  for (const std::string* path : {&line.log_path, &line.chart_js_path}) {
    if (!path->empty()) read.push_back(*path);
  }
  if (const gpubench::detail::Status status =
          gpubench::tools::CheckOutputIsNoInput(line.output, "--output", read);
      !status.ok()) {
    std::cerr << "gpubench-report: usage error: " << status.message() << "\n";
    return false;
  }
  return true;
}

// Chart.js, read to be inlined; false (said on stderr) when it cannot be.
bool ReadChartJs(const std::string& path, gpubench::tools::ReportInputs& report) {
  if (!gpubench::detail::ReadWholeFile(path, &report.chart_js) || report.chart_js.empty()) {
    std::cerr << "gpubench-report: error: cannot read Chart.js at " << path
              << " (install Debian's libjs-chart.js, or pass --chartjs PATH)\n";
    return false;
  }
  if (report.chart_js.find("</script") != std::string::npos) {
    std::cerr << "gpubench-report: error: " << path
              << " contains \"</script\" and cannot be inlined\n";
    return false;
  }
  report.chart_js_source = path;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  CommandLine line;
  CLI::App app{kDescription, "gpubench-report"};
  AddOptions(app, line);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return kExitOk;
  } catch (const CLI::ParseError& error) {
    std::cerr << "gpubench-report: usage error: " << error.what() << "\n"
              << "Run 'gpubench-report --help' for usage.\n";
    return kExitBadInput;
  }
  gpubench::tools::ReportInputs report;
  if (!Resolve(app, line) || !ReadChartJs(line.chart_js_path, report)) return kExitBadInput;
  try {
    return Report(line.inputs, line.baseline_paths, line.log_path, line.output, line.compare,
                  report);
  } catch (const std::bad_alloc&) {
    std::cerr << "gpubench-report: error: out of memory\n";
    return kExitBadInput;
  } catch (const std::exception& error) {
    // Last resort: a bug must not pass silently.
    std::cerr << "gpubench-report: internal error: " << error.what() << "\n";
    return kExitBadInput;
  }
}
