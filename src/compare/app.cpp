#include "compare/app.hpp"

#include <cstdlib>
#include <exception>
#include <fstream>
#include <memory>
#include <optional>
#include <ostream>
#include <thread>

#include "compare/cut_off.hpp"
#include "compare/loader.hpp"

namespace gpubench::compare {
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

std::string Render(const ComparisonReport& report, OutputFormat format, bool color) {
  switch (format) {
    case OutputFormat::kMarkdown:
      return FormatMarkdown(report);
    case OutputFormat::kJson:
      return FormatJson(report);
    case OutputFormat::kConsole:
      break;
  }
  return FormatConsole(report, color);
}

// The JSON report is streamed rather than rendered: it is ten times the size of the console table.
void Write(const ComparisonReport& report, OutputFormat format, bool color, std::ostream& out) {
  if (format == OutputFormat::kJson) return WriteJson(report, out);
  out << Render(report, format, color);
}

}  // namespace

int RunComparison(const AppOptions& options, std::ostream& out, std::ostream& err,
                  bool out_is_terminal) {
  struct Data {
    LoadOutcome baseline, contender;
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
  LoadOutcome& baseline = data->baseline;
  LoadOutcome& contender = data->contender;
  ComparisonReport& report = data->report;

  // The two files are independent; parsing dominates, so use two cores.
  std::thread contender_loader([&] { contender = Load(options.contender_path); });
  baseline = Load(options.baseline_path);
  contender_loader.join();
  bool bad_input = false;
  for (const LoadOutcome* outcome : {&baseline, &contender}) {
    if (!outcome->error.empty()) {
      err << "gpubench-compare: error: " << outcome->error << "\n";
      bad_input = true;
    }
  }
  if (bad_input) return kExitBadInput;
  // On stderr as well as in the report: whoever reads the log must not miss it.
  for (const CutOffFile& cut : baseline.file->cut_off) {
    err << "gpubench-compare: warning: baseline " << DescribeCutOff(cut)
        << " (the contender's benchmarks after the cut are shown as new and not judged)\n";
  }
  for (const CutOffFile& cut : contender.file->cut_off) {
    err << "gpubench-compare: warning: contender " << DescribeCutOff(cut)
        << "; a cut-off contender never passes the gate\n";
  }

  detail::Result<ComparisonReport> compared =
      CompareFiles(*baseline.file, *contender.file, options.compare);
  if (!compared.ok()) {
    err << "gpubench-compare: error: " << compared.status().message() << "\n";
    return kExitBadInput;
  }
  report = std::move(compared).value();

  const bool color_allowed = std::getenv("NO_COLOR") == nullptr;
  const bool stdout_color = options.color == ColorMode::kAlways ||
                            (options.color == ColorMode::kAuto && out_is_terminal && color_allowed);
  if (options.output_path.empty()) {
    Write(report, options.format, stdout_color, out);
  } else {
    std::ofstream file(options.output_path, std::ios::binary | std::ios::trunc);
    Write(report, options.format, options.color == ColorMode::kAlways, file);
    file.close();
    if (!file) {
      err << "gpubench-compare: error: cannot write " << options.output_path << "\n";
      return kExitBadInput;
    }
    if (options.format != OutputFormat::kConsole) out << FormatConsole(report, stdout_color);
  }
  out.flush();
  if (report.refused_for_settings) {
    err << "gpubench-compare: the benchmark settings differ (" << report.settings.differences.size()
        << " setting(s)); not comparing. Pass --allow-settings-mismatch to compare anyway.\n";
  }
  return report.exit_code;
}

}  // namespace gpubench::compare
