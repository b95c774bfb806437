// gpubench-compare: CI regression gate for Google Benchmark / gpubench JSON.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "tools/base/output_file.hpp"
#include "tools/compare/app.hpp"
#include "tools/compare/changes_report.hpp"
#include "tools/gate/comparison.hpp"
#include "tools/load/baseline_files.hpp"

namespace {

using gpubench::tools::AppOptions;
using gpubench::tools::ColorMode;
using gpubench::tools::OutputFormat;
using gpubench::tools::UnconfirmedPolicy;

constexpr const char* kDescription =
    "Compare Google Benchmark JSON files and fail on regressions: BASELINE CONTENDER, or\n"
    "several baseline runs of one suite (BASE1 BASE2 ... CONTENDER, or --history DIR CONTENDER),\n"
    "whose between-run spread sets the thresholds from 3 runs on.\n"
    "Exit codes: 0 no regression, 1 regression, failed benchmark or a contender file cut off\n"
    "mid-write (a killed run: its complete rows are compared), 2 bad input or usage,\n"
    "3 benchmark settings differ (gpubench_settings_fingerprint), 4 nothing compared (e.g. every\n"
    "row of the baseline or of both files an error: a runner without a working GPU), 5 every\n"
    "row of the contender reused an earlier run's values (--gpubench_reuse): nothing measured.\n"
    "With --changes: the change points of a series of runs (RUN_1 ... RUN_N oldest first, or\n"
    "--history DIR ordered by --order-by); exit 0 when the analysis ran, 2 on bad input.";

// What the command line gives, before it is turned into AppOptions.
struct CommandLine {
  AppOptions options;
  std::vector<std::string> files, threshold_specs, direction_specs;
  std::string history_dir, format = "console", color = "auto", unconfirmed = "fail",
                           metrics = "gated";
  bool changes = false;
  std::string order_by, commit_key = "commit";
};

void AddOptions(CLI::App& app, CommandLine& line) {
  AppOptions& options = line.options;
  app.add_option("FILES", line.files,
                 "Baseline JSON file(s) (--benchmark_out), then the contender's; the last file is "
                 "the contender. With --changes: the runs of the series, oldest first");
  app.add_option("--history", line.history_dir,
                 "Folder of baseline runs: each *.json in it is one run of the same suite and "
                 "settings (added to any baseline files given)");
  app.add_flag("--changes", line.changes,
               "Change points over a series of runs instead of a comparison: which run (and "
               "commit) moved each benchmark's judged metrics, steps, drifts, settings and GPU "
               "changes (docs/compare.md)");
  app.add_option("--order-by", line.order_by,
                 "With --changes: sort the runs by this context key (date, or any key every run "
                 "has; numbers as numbers). Default: date with --history, else the order given");
  app.add_option("--commit-key", line.commit_key,
                 "With --changes: the context key that holds a run's commit "
                 "(--benchmark_context=commit=SHA)")
      ->capture_default_str();
  app.add_option("--threshold", line.threshold_specs,
                 "METRIC=PERCENT (e.g. real_time=5%, dram_write_bytes=1%) or METRIC=off; "
                 "repeatable. Exactly this threshold: no noise term, floor or history. Defaults: "
                 "see docs/compare.md (real_time at least 1.75%, byte counters 1%, "
                 "dram_bandwidth 5%, others report only)")
      ->allow_extra_args(false);
  app.add_option("--direction", line.direction_specs,
                 "METRIC=higher|lower: which way is better for a counter; repeatable")
      ->allow_extra_args(false);
  app.add_option("--alpha", options.compare.alpha, "Significance level of the Mann-Whitney U test")
      ->capture_default_str()
      // Not CLI::Range: it lets "nan" through (no comparison with NaN fails), and p < NaN never
      // holds, so the gate would pass every change.
      ->check(CLI::Validator(
          [](const std::string& text) {
            const double value = std::strtod(text.c_str(), nullptr);
            return value >= 1e-12 && value <= 0.999999
                       ? std::string()
                       : "--alpha " + text + " is not a level in [1e-12, 0.999999], e.g. 0.05";
          },
          "in [1e-12, 0.999999]", "a level"));
  app.add_option("--unconfirmed", line.unconfirmed,
                 "Whether a change beyond the threshold that repetitions cannot confirm fails "
                 "the gate (fail) or is advisory (warn)")
      ->capture_default_str()
      ->check(CLI::IsMember({"fail", "warn"}));
  app.add_flag("--allow-settings-mismatch", options.compare.allow_settings_mismatch,
               "Compare even when the gpubench settings fingerprints differ");
  app.add_flag("--whole-history", options.compare.whole_history,
               "With a history: judge each benchmark against all its runs, also those before "
               "the history's last change point (by default only the runs since it)");
  app.add_flag("--fail-on-missing", options.compare.fail_on_missing,
               "Fail the gate when a baseline benchmark is missing from the contender");
  app.add_option("--format", line.format, "Report format")
      ->capture_default_str()
      ->check(CLI::IsMember({"console", "markdown", "json", "csv"}));
  app.add_option("--output,-o", options.output_path,
                 "Write the report to FILE (stdout then gets the console table)");
  app.add_option("--metrics", line.metrics,
                 "Metric rows of the console and Markdown tables: the gated ones (and any other "
                 "that changed, fails or is a flag in its bad state), or all (JSON and CSV always "
                 "have all)")
      ->capture_default_str()
      ->check(CLI::IsMember({"gated", "all"}));
  app.add_option("--color", line.color, "Colour the console table")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "always", "never"}));
}

// False (with the message on stderr) where --output is one of the runs read: writing the report
// there would destroy the run.
bool OutputIsNoInput(const std::string& output, std::vector<std::string> runs,
                     const std::string& contender = "") {
  if (!contender.empty()) runs.push_back(contender);
  const gpubench::detail::Status status =
      gpubench::tools::CheckOutputIsNoInput(output, "--output", runs);
  if (!status.ok()) std::cerr << "gpubench-compare: usage error: " << status.message() << "\n";
  return status.ok();
}

// The parsed line as AppOptions: files, history folder, policy overrides, formats. False (with
// the message on stderr) for what the parser could not check.
bool Resolve(CommandLine& line) {
  AppOptions& options = line.options;
  options.contender_path = line.files.back();
  line.files.pop_back();
  options.baseline_paths = line.files;
  if (!line.history_dir.empty()) {
    auto history = gpubench::tools::HistoryFiles(line.history_dir, options.contender_path);
    if (!history.ok()) {
      std::cerr << "gpubench-compare: error: " << history.status().message() << "\n";
      return false;
    }
    options.baseline_paths.insert(options.baseline_paths.end(), history.value().begin(),
                                  history.value().end());
  }
  if (!OutputIsNoInput(options.output_path, options.baseline_paths, options.contender_path)) {
    return false;
  }
  if (options.baseline_paths.empty()) {
    std::cerr << "gpubench-compare: usage error: a baseline is needed: BASELINE.json "
                 "CONTENDER.json, several baselines before the contender, or --history DIR "
                 "CONTENDER.json\n"
              << "Run 'gpubench-compare --help' for usage.\n";
    return false;
  }
  if (const gpubench::detail::Status status = gpubench::tools::AddPolicyOverrides(
          line.threshold_specs, line.direction_specs, options.compare.overrides);
      !status.ok()) {
    std::cerr << "gpubench-compare: usage error: " << status.message() << "\n";
    return false;
  }
  options.format = line.format == "markdown" ? OutputFormat::kMarkdown
                   : line.format == "json"   ? OutputFormat::kJson
                   : line.format == "csv"    ? OutputFormat::kCsv
                                             : OutputFormat::kConsole;
  options.color = line.color == "always"  ? ColorMode::kAlways
                  : line.color == "never" ? ColorMode::kNever
                                          : ColorMode::kAuto;
  options.metric_rows = line.metrics == "all" ? gpubench::tools::MetricRows::kAll
                                              : gpubench::tools::MetricRows::kGated;
  options.compare.unconfirmed =
      line.unconfirmed == "warn" ? UnconfirmedPolicy::kWarn : UnconfirmedPolicy::kFail;
  options.free_memory = false;  // the process exits right after
  return true;
}

// gpubench-compare --changes: the series' files (and a --history folder's), then the analysis.
int RunChangesCommand(CommandLine& line, const CLI::App& app) {
  gpubench::tools::ChangesOptions options;
  options.paths = line.files;
  if (!line.history_dir.empty()) {
    auto history = gpubench::tools::HistoryFiles(line.history_dir, "");
    if (!history.ok()) {
      std::cerr << "gpubench-compare: error: " << history.status().message() << "\n";
      return gpubench::tools::kExitBadInput;
    }
    options.paths.insert(options.paths.end(), history.value().begin(), history.value().end());
    options.order_by = gpubench::tools::kRunDateKey;  // a folder's files have no order of their own
  }
  if (!OutputIsNoInput(line.options.output_path, options.paths)) {
    return gpubench::tools::kExitBadInput;
  }
  if (app.count("--order-by") > 0) options.order_by = line.order_by;
  for (const char* flag : {"--unconfirmed", "--alpha", "--allow-settings-mismatch",
                           "--fail-on-missing", "--metrics", "--color", "--whole-history"}) {
    if (app.count(flag) > 0) {
      std::cerr << "gpubench-compare: usage error: " << flag
                << " is an option of a comparison, not of --changes\n";
      return gpubench::tools::kExitBadInput;
    }
  }
  if (const gpubench::detail::Status status = gpubench::tools::AddPolicyOverrides(
          line.threshold_specs, line.direction_specs, options.series.overrides);
      !status.ok()) {
    std::cerr << "gpubench-compare: usage error: " << status.message() << "\n";
    return gpubench::tools::kExitBadInput;
  }
  options.series.commit_key = line.commit_key;
  options.format = line.format == "markdown" ? OutputFormat::kMarkdown
                   : line.format == "json"   ? OutputFormat::kJson
                   : line.format == "csv"    ? OutputFormat::kCsv
                                             : OutputFormat::kConsole;
  options.output_path = line.options.output_path;
  try {
    return gpubench::tools::RunChanges(options, std::cout, std::cerr);
  } catch (const std::exception& error) {
    std::cerr << "gpubench-compare: internal error: " << error.what() << "\n";
    return gpubench::tools::kExitBadInput;
  }
}

}  // namespace

int main(int argc, char** argv) {
  CommandLine line;
  CLI::App app{kDescription, "gpubench-compare"};
  AddOptions(app, line);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return gpubench::tools::kExitOk;
  } catch (const CLI::ParseError& error) {
    std::cerr << "gpubench-compare: usage error: " << error.what() << "\n"
              << "Run 'gpubench-compare --help' for usage.\n";
    return gpubench::tools::kExitBadInput;
  }
  if (line.changes) return RunChangesCommand(line, app);
  if (app.count("--order-by") > 0 || app.count("--commit-key") > 0) {
    std::cerr << "gpubench-compare: usage error: --order-by and --commit-key belong to --changes\n"
              << "Run 'gpubench-compare --help' for usage.\n";
    return gpubench::tools::kExitBadInput;
  }
  if (line.files.empty()) {
    std::cerr << "gpubench-compare: usage error: FILES is required: BASELINE.json CONTENDER.json, "
                 "or --history DIR CONTENDER.json\n"
              << "Run 'gpubench-compare --help' for usage.\n";
    return gpubench::tools::kExitBadInput;
  }
  if (!Resolve(line)) return gpubench::tools::kExitBadInput;
  try {
    return gpubench::tools::RunComparison(line.options, std::cout, std::cerr,
                                          ::isatty(STDOUT_FILENO) == 1);
  } catch (const std::exception& error) {
    // Last resort: a bug must not look like a passing gate.
    std::cerr << "gpubench-compare: internal error: " << error.what() << "\n";
    return gpubench::tools::kExitBadInput;
  }
}
