#include "tools/compare/changes_report.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <memory>
#include <optional>
#include <ostream>
#include <thread>

#include <nlohmann/json.hpp>

#include "schema/counter_table.hpp"
#include "tools/base/csv.hpp"
#include "tools/base/output_file.hpp"
#include "tools/base/text.hpp"
#include "tools/compare/format_common.hpp"
#include "tools/load/baseline_files.hpp"
#include "tools/load/loader.hpp"

namespace gpubench::tools {

const std::vector<std::string> kChangesCsvColumns = {
    "benchmark",       "metric",         "kind",          "first_run",
    "first_run_index", "commit",         "end_run_index", "median_before",
    "median_after",    "change_percent", "direction",     "p_value",
    "t_statistic",     "practical",      "gpu_before",    "gpu_after"};

namespace {

bool IsTime(const std::string& metric) {
  return metric == counter::kRealTime || metric == counter::kCpuTime;
}

std::string FormatValue(const std::string& metric, double value) {
  if (!std::isfinite(value)) return "n/a";
  return IsTime(metric) ? FormatTimeNs(value) : FormatQuantity(value);
}

std::string FormatP(double p) {
  // Below about 1e-15 the t distribution's tail is rounding (it is 1 minus a probability).
  if (p < 1e-15) return "< 1e-15";
  char text[32];
  std::snprintf(text, sizeof text, p < 1e-3 ? "%.1e" : "%.4f", p);
  return text;
}

std::string Change(double percent) {
  std::string text;
  AppendChangePercent(text, percent);
  return text;
}

// "plain_07.json (commit g07)"
std::string RunName(const SeriesReport& report, std::size_t run) {
  if (run >= report.runs.size()) return "(end)";
  const SeriesRun& entry = report.runs[run];
  return entry.file->path + (entry.commit.empty() ? "" : " (commit " + entry.commit + ")");
}

std::string ShortGpu(const std::string& uuid) {
  if (uuid.empty()) return "(no gpu_uuid)";
  return uuid.size() > 12 ? uuid.substr(0, 12) + "…" : uuid;
}

std::string What(const SeriesChange& change) {
  switch (change.kind) {
    case SeriesChangeKind::kGpu:
      return "GPU change " + ShortGpu(change.gpu_before) + " -> " + ShortGpu(change.gpu_after) +
             ": an offset between two GPUs, not a regression";
    case SeriesChangeKind::kDrift:
      return std::string("drift (") + ChangeDirectionName(change.direction) + ")";
    case SeriesChangeKind::kStep:
      break;
  }
  return ChangeDirectionName(change.direction);
}

std::string Header(const SeriesReport& report) {
  std::string text = std::to_string(report.runs.size()) +
                     " runs (oldest first: " + report.runs.front().file->path + " … " +
                     report.runs.back().file->path + "), " + std::to_string(report.benchmarks) +
                     " benchmarks; " + std::to_string(report.settings_changes.size()) +
                     " settings change(s), " + std::to_string(report.gpus) + " GPU(s)";
  return text;
}

std::string LevelLine(const SeriesReport& report) {
  char level[32];
  std::snprintf(level, sizeof level, "%.2g", report.level);
  return std::to_string(report.series_tested) + " series analysed, " +
         std::to_string(report.tests) + " tests sharing 1% (each at " + level +
         "): identical reruns report a change anywhere with at most 1% probability";
}

std::vector<const SeriesChange*> Practical(const SeriesReport& report) {
  std::vector<const SeriesChange*> practical;
  for (const SeriesChange& change : report.changes) {
    if (change.practical) practical.push_back(&change);
  }
  return practical;
}

std::string SettingsLine(const SeriesReport& report, const SettingsChange& change) {
  return "at " + RunName(report, change.first_run) + ": settings fingerprint " +
         (change.fingerprint_before.empty() ? "(none)" : change.fingerprint_before) + " -> " +
         (change.fingerprint_after.empty() ? "(none)" : change.fingerprint_after) +
         ": a settings change, not a performance change (runs of different settings are never "
         "compared)";
}

std::string SpreadLine(const GpuSpread& spread) {
  std::string text = spread.benchmark + " " + spread.metric + ": ";
  for (std::size_t i = 0; i < spread.levels.size(); ++i) {
    const GpuSpread::Level& level = spread.levels[i];
    text += (i ? ", " : "") + ShortGpu(level.gpu) + " " + FormatValue(spread.metric, level.median) +
            " (" + std::to_string(level.runs) + " runs)";
  }
  return text + "; offset " + Change(spread.offset_percent) + ", the GPU explains " +
         Printf("%.0f", spread.share_percent) + "% of the spread";
}

nlohmann::json Number(double value) {
  return std::isfinite(value) ? nlohmann::json(value) : nlohmann::json(nullptr);
}

}  // namespace

std::string FormatChangesConsole(const SeriesReport& report) {
  std::string text =
      "gpubench-compare --changes: " + Header(report) + "\n" + LevelLine(report) + "\n\n";
  const std::vector<const SeriesChange*> practical = Practical(report);
  const std::size_t below = report.changes.size() - practical.size();
  if (practical.empty()) {
    text += "No change beyond the practical threshold (0.5%, byte counters the gate's byte floor)";
  } else {
    text += "Changes (" + std::to_string(practical.size()) + "):\n";
    std::string shown;
    for (const SeriesChange* change : practical) {
      text += "  ";
      text += internal::ShownName(change->benchmark, shown);
      text += "  " + change->metric + "  " + SeriesChangeKindName(change->kind) + " at " +
              RunName(report, change->first_run) + ": " +
              FormatValue(change->metric, change->median_before) + " -> " +
              FormatValue(change->metric, change->median_after) + " (" +
              Change(change->change_percent) + "), " + What(*change) + ", p " +
              FormatP(change->p_value) + "\n";
    }
  }
  if (below > 0) {
    text += (practical.empty() ? "; " : "  ") + std::to_string(below) +
            " significant change(s) within the practical threshold are in --format json/csv";
  }
  text += practical.empty() || below > 0 ? "\n" : "";
  if (!report.settings_changes.empty()) {
    text += "\nSettings changes:\n";
    for (const SettingsChange& change : report.settings_changes) {
      text += "  " + SettingsLine(report, change) + "\n";
    }
  }
  if (!report.gpu_spreads.empty()) {
    text += "\nGPUs: the runs come from " + std::to_string(report.gpus) +
            " GPUs; each GPU's runs are analysed on their own. Series whose GPUs differ beyond "
            "the practical threshold:\n";
    for (const GpuSpread& spread : report.gpu_spreads) text += "  " + SpreadLine(spread) + "\n";
  }
  if (!report.notes.empty()) {
    text += "\nNotes:\n";
    for (const std::string& note : report.notes) text += "  " + note + "\n";
  }
  return text;
}

std::string FormatChangesMarkdown(const SeriesReport& report) {
  std::string text = "## Change points\n\n" + Header(report) + ". " + LevelLine(report) + ".\n\n";
  const std::vector<const SeriesChange*> practical = Practical(report);
  if (practical.empty()) {
    text += "No change beyond the practical threshold.\n";
  } else {
    text +=
        "| benchmark | metric | kind | first run | commit | before | after | change | what | p |\n"
        "|---|---|---|---|---|---|---|---|---|---|\n";
    for (const SeriesChange* change : practical) {
      const SeriesRun& run = report.runs[change->first_run];
      text += "| " + internal::MarkdownName(change->benchmark) + " | " +
              internal::MarkdownCell(change->metric) + " | " + SeriesChangeKindName(change->kind) +
              " | " + internal::MarkdownCell(run.file->path) + " | " +
              (run.commit.empty() ? "" : internal::MarkdownCode(run.commit)) + " | " +
              FormatValue(change->metric, change->median_before) + " | " +
              FormatValue(change->metric, change->median_after) + " | " +
              Change(change->change_percent) + " | " + What(*change) + " | " +
              FormatP(change->p_value) + " |\n";
    }
  }
  if (report.changes.size() > practical.size()) {
    text += "\n" + std::to_string(report.changes.size() - practical.size()) +
            " significant change(s) within the practical threshold are in the JSON and CSV.\n";
  }
  if (!report.settings_changes.empty()) {
    text += "\n**Settings changes**\n\n";
    for (const SettingsChange& change : report.settings_changes) {
      text += "- " + SettingsLine(report, change) + "\n";
    }
  }
  if (!report.gpu_spreads.empty()) {
    text += "\n**GPUs** (" + std::to_string(report.gpus) +
            "; each GPU's runs are analysed on their own)\n\n";
    for (const GpuSpread& spread : report.gpu_spreads) text += "- " + SpreadLine(spread) + "\n";
  }
  if (!report.notes.empty()) {
    text += "\n**Notes**\n\n";
    for (const std::string& note : report.notes) text += "- " + note + "\n";
  }
  return text;
}

std::string FormatChangesJson(const SeriesReport& report, double family_alpha) {
  nlohmann::json json;
  json["runs"] = nlohmann::json::array();
  for (const SeriesRun& run : report.runs) {
    json["runs"].push_back({{"file", run.file->path},
                            {"commit", run.commit},
                            {"gpu_uuid", run.gpu},
                            {"settings_fingerprint", run.fingerprint}});
  }
  json["changes"] = nlohmann::json::array();
  for (const SeriesChange& change : report.changes) {
    const SeriesRun& first = report.runs[change.first_run];
    nlohmann::json entry = {
        {"benchmark", change.benchmark},
        {"metric", change.metric},
        {"kind", SeriesChangeKindName(change.kind)},
        {"first_run", first.file->path},
        {"first_run_index", change.first_run},
        {"commit", first.commit.empty() ? nlohmann::json(nullptr) : nlohmann::json(first.commit)},
        {"end_run_index", change.end_run},
        {"median_before", Number(change.median_before)},
        {"median_after", Number(change.median_after)},
        {"change_percent", Number(change.change_percent)},
        {"direction", ChangeDirectionName(change.direction)},
        {"p_value", change.p_value},
        {"t_statistic", Number(change.t_statistic)},
        {"practical", change.practical}};
    if (change.kind == SeriesChangeKind::kGpu) {
      entry["gpu_before"] = change.gpu_before;
      entry["gpu_after"] = change.gpu_after;
    }
    json["changes"].push_back(std::move(entry));
  }
  json["settings_changes"] = nlohmann::json::array();
  for (const SettingsChange& change : report.settings_changes) {
    json["settings_changes"].push_back({{"first_run", report.runs[change.first_run].file->path},
                                        {"first_run_index", change.first_run},
                                        {"commit", report.runs[change.first_run].commit},
                                        {"fingerprint_before", change.fingerprint_before},
                                        {"fingerprint_after", change.fingerprint_after}});
  }
  json["gpu_spreads"] = nlohmann::json::array();
  for (const GpuSpread& spread : report.gpu_spreads) {
    nlohmann::json levels = nlohmann::json::array();
    for (const GpuSpread::Level& level : spread.levels) {
      levels.push_back({{"gpu_uuid", level.gpu}, {"runs", level.runs}, {"median", level.median}});
    }
    json["gpu_spreads"].push_back({{"benchmark", spread.benchmark},
                                   {"metric", spread.metric},
                                   {"levels", levels},
                                   {"share_percent", Number(spread.share_percent)},
                                   {"offset_percent", Number(spread.offset_percent)}});
  }
  json["notes"] = report.notes;
  json["benchmarks"] = report.benchmarks;
  json["gpus"] = report.gpus;
  json["series_tested"] = report.series_tested;
  json["tests"] = report.tests;
  json["family_alpha"] = family_alpha;
  json["level"] = report.level;
  json["practical_changes"] = report.PracticalChanges();
  return json.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::string FormatChangesCsv(const SeriesReport& report) {
  std::string text = Join(kChangesCsvColumns, ",") + "\n";
  auto field = [&](std::string_view value) {
    AppendCsvField(text, value);
    text += ',';
  };
  auto number = [&](double value) {
    AppendCsvNumber(text, value);
    text += ',';
  };
  for (const SeriesChange& change : report.changes) {
    const SeriesRun& first = report.runs[change.first_run];
    field(change.benchmark);
    field(change.metric);
    field(SeriesChangeKindName(change.kind));
    field(first.file->path);
    number(static_cast<double>(change.first_run));
    field(first.commit);
    number(static_cast<double>(change.end_run));
    number(change.median_before);
    number(change.median_after);
    number(change.change_percent);
    field(ChangeDirectionName(change.direction));
    number(change.p_value);
    number(change.t_statistic);
    AppendCsvBool(text, change.practical);
    text += ',';
    field(change.gpu_before);
    AppendCsvField(text, change.gpu_after);
    text += '\n';
  }
  // A settings change: no benchmark, no numbers; its fingerprints in the GPU columns' place would
  // mislead, so they are in the JSON only.
  for (const SettingsChange& change : report.settings_changes) {
    const SeriesRun& first = report.runs[change.first_run];
    text += ",,settings,";
    AppendCsvField(text, first.file->path);
    text += ',';
    AppendCsvNumber(text, static_cast<double>(change.first_run));
    text += ',';
    AppendCsvField(text, first.commit);
    text += ",";
    AppendCsvNumber(text, static_cast<double>(change.first_run));
    text += ",,,,settings,,,false,,\n";
  }
  return text;
}

int RunChanges(const ChangesOptions& options, std::ostream& out, std::ostream& err) {
  std::vector<std::string> warnings;
  std::vector<std::string> paths = DistinctBaselines(options.paths, "", warnings);
  for (std::string warning : warnings) {
    // DistinctBaselines speaks of baselines; a series has runs.
    if (warning.rfind("baseline ", 0) == 0) warning.replace(0, 8, "run");
    err << "gpubench-compare: warning: " << warning << "\n";
  }
  if (paths.size() < 2) {
    err << "gpubench-compare: usage error: --changes needs a series of at least two runs "
           "(RUN_1.json ... RUN_N.json oldest first, or --history DIR); got "
        << paths.size() << "\n";
    return kExitBadInput;
  }
  // Loaded on all cores: parsing dominates, and a history may hold hundreds of runs. Never
  // freed: the process exits right after, and freeing 200 runs' millions of small blocks took
  // 3 s of 6.5 s (1,000 benchmarks x 200 runs x 5 repetitions, bench/validation/tools_perf). Held
  // by a static, so a leak checker sees it reachable.
  [[maybe_unused]] static std::vector<std::optional<BenchmarkFile>>* volatile kept_until_exit =
      nullptr;
  auto* loaded = new std::vector<std::optional<BenchmarkFile>>(paths.size());
  kept_until_exit = loaded;
  std::vector<std::optional<BenchmarkFile>>& files = *loaded;
  std::vector<std::string> errors(paths.size());
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i = next++; i < paths.size(); i = next++) {
      detail::Result<BenchmarkFile> file = LoadBenchmarkFile(paths[i]);
      if (file.ok()) {
        files[i] = std::move(file).value();
      } else {
        errors[i] = file.status().message();
      }
    }
  };
  const std::size_t threads =
      std::min<std::size_t>(paths.size(), std::max(2u, std::thread::hardware_concurrency()));
  std::vector<std::thread> workers;
  for (std::size_t i = 1; i < threads; ++i) workers.emplace_back(work);
  work();
  for (std::thread& worker : workers) worker.join();
  bool bad = false;
  for (const std::string& error : errors) {
    if (!error.empty()) err << "gpubench-compare: error: " << error << "\n", bad = true;
  }
  if (bad) return kExitBadInput;
  std::vector<const BenchmarkFile*> runs;
  for (const std::optional<BenchmarkFile>& file : files) {
    runs.push_back(&*file);
    for (const CutOffFile& cut : file->cut_off) {
      err << "gpubench-compare: warning: " << cut.path << " was cut off mid-write; its "
          << cut.rows_recovered << " complete rows are in the series\n";
    }
  }
  if (!options.order_by.empty()) {
    if (const detail::Status status = OrderRunsBy(runs, options.order_by); !status.ok()) {
      err << "gpubench-compare: error: " << status.message() << "\n";
      return kExitBadInput;
    }
  }
  const SeriesReport report = AnalyseSeries(runs, options.series);
  std::string text;
  switch (options.format) {
    case OutputFormat::kMarkdown:
      text = FormatChangesMarkdown(report);
      break;
    case OutputFormat::kJson:
      text = FormatChangesJson(report, options.series.family_alpha);
      break;
    case OutputFormat::kCsv:
      text = FormatChangesCsv(report);
      break;
    case OutputFormat::kConsole:
      text = FormatChangesConsole(report);
      break;
  }
  if (options.output_path.empty()) {
    out << text;
  } else {
    if (const detail::Status written = WriteOutputFile(options.output_path, text); !written.ok()) {
      err << "gpubench-compare: error: " << written.message() << "\n";
      return kExitBadInput;
    }
    if (options.format != OutputFormat::kConsole) out << FormatChangesConsole(report);
  }
  if (const detail::Status flushed = FlushReportStream(out); !flushed.ok()) {
    err << "gpubench-compare: error: " << flushed.message() << "\n";
    return kExitBadInput;
  }
  return kExitOk;
}

}  // namespace gpubench::tools
