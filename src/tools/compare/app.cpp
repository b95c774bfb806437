#include "tools/compare/app.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <memory>
#include <optional>
#include <ostream>
#include <sstream>
#include <thread>

#include "common/environment.hpp"
#include "tools/base/output_file.hpp"
#include "tools/compare/report_csv.hpp"
#include "tools/load/baseline_files.hpp"
#include "tools/load/cut_off.hpp"
#include "tools/load/loader.hpp"

namespace gpubench::tools {
namespace {

struct LoadOutcome {
  std::optional<BenchmarkFile> file;
  std::string error;
};

LoadOutcome Load(const std::string& path) {
  LoadOutcome outcome;
  detail::Result<BenchmarkFile> file = LoadBenchmarkFile(path);
  if (file.ok()) {
    outcome.file = std::move(file).value();
  } else {
    outcome.error = file.status().message();
  }
  return outcome;
}

std::string Render(const ComparisonReport& report, OutputFormat format, bool color,
                   MetricRows rows) {
  switch (format) {
    case OutputFormat::kMarkdown:
      return FormatMarkdown(report, rows);
    case OutputFormat::kJson:
      return FormatJson(report);
    case OutputFormat::kCsv:
    case OutputFormat::kConsole:
      break;
  }
  return FormatConsole(report, color, rows);
}

// The JSON report is streamed rather than rendered: it is ten times the size of the console table.
void Write(const ComparisonReport& report, OutputFormat format, bool color, MetricRows rows,
           std::ostream& out) {
  if (format == OutputFormat::kJson) return WriteJson(report, out);
  if (format == OutputFormat::kCsv) return WriteComparisonCsv(report, out);
  out << Render(report, format, color, rows);
}

// Loads `paths` on up to as many threads as there are cores (parsing dominates).
std::vector<LoadOutcome> LoadAll(const std::vector<std::string>& paths) {
  std::vector<LoadOutcome> outcomes(paths.size());
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i = next++; i < paths.size(); i = next++) outcomes[i] = Load(paths[i]);
  };
  const std::size_t threads =
      std::min<std::size_t>(paths.size(), std::max(2u, std::thread::hardware_concurrency()));
  std::vector<std::thread> workers;
  for (std::size_t i = 1; i < threads; ++i) workers.emplace_back(work);
  work();
  for (std::thread& worker : workers) worker.join();
  return outcomes;
}

// The baselines (each run once, the contender not among them), then the contender, loaded into
// *loaded; false after printing every file's error.
bool LoadRuns(const AppOptions& options, std::ostream& err, std::vector<LoadOutcome>* loaded) {
  // The same run twice would shrink the history's spread; the contender is no baseline of itself.
  std::vector<std::string> warnings;
  std::vector<std::string> paths =
      DistinctBaselines(options.baseline_paths, options.contender_path, warnings);
  for (const std::string& warning : warnings)
    err << "gpubench-compare: warning: " << warning << "\n";
  paths.push_back(options.contender_path);
  *loaded = LoadAll(paths);
  bool bad_input = false;
  for (const LoadOutcome& outcome : *loaded) {
    if (!outcome.error.empty()) {
      err << "gpubench-compare: error: " << outcome.error << "\n";
      bad_input = true;
    }
  }
  return !bad_input;
}

// On stderr as well as in the report: whoever reads the log must not miss it.
void WarnAboutCutOffs(const std::vector<const BenchmarkFile*>& baselines,
                      const BenchmarkFile& contender, std::ostream& err) {
  for (const BenchmarkFile* baseline : baselines) {
    for (const CutOffFile& cut : baseline->cut_off) {
      err << "gpubench-compare: warning: baseline " << DescribeCutOff(cut)
          << (baselines.size() > 1
                  ? " (its benchmarks after the cut are left out of the history)\n"
                  : " (the contender's benchmarks after the cut are shown as new and not "
                    "judged)\n");
    }
  }
  for (const CutOffFile& cut : contender.cut_off) {
    err << "gpubench-compare: warning: contender " << DescribeCutOff(cut)
        << "; a cut-off contender never passes the gate\n";
  }
}

// The report on stdout, or in options.output_path with the console table on stdout as well;
// false when the file cannot be written.
bool WriteReport(const ComparisonReport& report, const AppOptions& options, bool out_is_terminal,
                 std::ostream& out, std::ostream& err) {
  const bool color_allowed = !gpubench::detail::NoColorAsked();
  const bool stdout_color = options.color == ColorMode::kAlways ||
                            (options.color == ColorMode::kAuto && out_is_terminal && color_allowed);
  if (options.output_path.empty()) {
    Write(report, options.format, stdout_color, options.metric_rows, out);
  } else {
    std::ostringstream text;
    Write(report, options.format, options.color == ColorMode::kAlways, options.metric_rows, text);
    if (const detail::Status written = WriteOutputFile(options.output_path, text.str());
        !written.ok()) {
      err << "gpubench-compare: error: " << written.message() << "\n";
      return false;
    }
    if (options.format != OutputFormat::kConsole) {
      out << FormatConsole(report, stdout_color, options.metric_rows);
    }
  }
  if (const detail::Status flushed = FlushReportStream(out); !flushed.ok()) {
    err << "gpubench-compare: error: " << flushed.message() << "\n";
    return false;
  }
  return true;
}

void ExplainSettingsRefusal(const ComparisonReport& report, std::ostream& err) {
  err << "gpubench-compare: the benchmark settings differ (" << report.settings.differences.size()
      << " setting(s)"
      << (report.baseline_paths.size() > 1 ? " in baseline run " + report.settings.baseline_path
                                           : std::string())
      << "); not comparing. Pass --allow-settings-mismatch to compare anyway"
      << (report.baseline_paths.size() > 1 ? ", or leave that run out of the history" : "")
      << ".\n";
}

}  // namespace

int RunComparison(const AppOptions& options, std::ostream& out, std::ostream& err,
                  bool out_is_terminal) {
  struct Data {
    std::vector<LoadOutcome> loaded;  // the baselines, then the contender
    ComparisonReport report;
  };
  auto data = std::make_unique<Data>();
  struct KeepAllocated {  // destroyed before `data`
    std::unique_ptr<Data>& data;
    bool keep;
    ~KeepAllocated() {
      // Held by a static, so the data stays reachable until the process exits: nothing to free
      // block by block, and nothing a leak checker would call lost.
      [[maybe_unused]] static Data* volatile kept_until_exit = nullptr;
      if (keep) kept_until_exit = data.release();
    }
  } keep_allocated{data, !options.free_memory};
  ComparisonReport& report = data->report;

  if (!LoadRuns(options, err, &data->loaded)) return kExitBadInput;
  const BenchmarkFile& contender = *data->loaded.back().file;
  std::vector<const BenchmarkFile*> baselines;
  for (std::size_t i = 0; i + 1 < data->loaded.size(); ++i) {
    baselines.push_back(&*data->loaded[i].file);
  }
  WarnAboutCutOffs(baselines, contender, err);

  detail::Result<ComparisonReport> compared =
      CompareWithHistory(baselines, contender, options.compare);
  if (!compared.ok()) {
    err << "gpubench-compare: error: " << compared.status().message() << "\n";
    return kExitBadInput;
  }
  report = std::move(compared).value();

  if (!WriteReport(report, options, out_is_terminal, out, err)) return kExitBadInput;
  if (report.refused_for_settings) ExplainSettingsRefusal(report, err);
  // On stderr too: with --format json on stdout, the log must still say why nothing passed.
  if (report.exit_code == kExitNothingCompared) {
    err << "gpubench-compare: nothing compared: " << report.nothing_compared << "\n";
  }
  return report.exit_code;
}

}  // namespace gpubench::tools
