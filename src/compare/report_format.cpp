#include "compare/report_format.hpp"

#include <cmath>
#include <cstdio>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace gpubench::compare {
namespace {

using OrderedJson = nlohmann::ordered_json;

std::string Printf(const char* format, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, format, value);
  return buffer;
}

std::string FormatPValue(const MetricComparison& metric) {
  if (!metric.p_value) return "-";
  return *metric.p_value < 1e-4 ? "<0.0001" : Printf("%.4f", *metric.p_value);
}

std::string FormatThreshold(const MetricComparison& metric) {
  if (!metric.applied_threshold_percent) return "-";
  const double percent = *metric.applied_threshold_percent;
  const std::string value = std::isinf(percent) ? std::string("inf%")
                            : percent >= 10     ? Printf("%.1f", percent) + "%"
                                                : Printf("%.3g", percent) + "%";
  return value + " (" + metric.threshold_source + ")";
}

std::string FormatMetricValue(const MetricComparison& metric, double value) {
  return metric.is_time ? FormatTimeNs(value) : FormatQuantity(value);
}

std::string VerdictLabel(const MetricComparison& metric) {
  if (metric.verdict == Verdict::kUnconfirmed) {
    return metric.worse ? "unconfirmed (worse)" : "unconfirmed (better)";
  }
  if (metric.verdict == Verdict::kReportOnly) return "report";
  return VerdictName(metric.verdict);
}

std::string StatusLabel(const BenchmarkComparison& benchmark) {
  switch (benchmark.status) {
    case BenchmarkStatus::kMissing:
      return benchmark.fails_gate ? "MISSING in contender (fails: --fail-on-missing)"
                                  : "missing in contender";
    case BenchmarkStatus::kNew:
      return "new in contender";
    case BenchmarkStatus::kFailedInContender:
      return "FAILED in contender (" + benchmark.failure_message + ")";
    case BenchmarkStatus::kFailedInBaseline:
      return "failed in baseline (" + benchmark.failure_message + ")";
    case BenchmarkStatus::kFailedInBoth:
      return "failed in both (" + benchmark.failure_message + ")";
    case BenchmarkStatus::kCompared:
      break;
  }
  return "";
}

// The Clock column: what makes a row's numbers doubtful (throttled clock, shared GPU).
std::string ThrottleFlag(const BenchmarkComparison& benchmark) {
  auto side = [](bool baseline, bool contender) {
    return baseline && contender ? std::string(" (both)")
           : baseline            ? std::string(" (baseline)")
                                 : std::string(" (contender)");
  };
  std::string flag;
  if (benchmark.throttled_baseline || benchmark.throttled_contender) {
    flag = "THROTTLED" + side(benchmark.throttled_baseline, benchmark.throttled_contender);
  }
  if (benchmark.shared_baseline || benchmark.shared_contender) {
    flag += (flag.empty() ? "" : ", ") + std::string("GPU SHARED") +
            side(benchmark.shared_baseline, benchmark.shared_contender);
  }
  return flag;
}

std::string Join(const std::vector<std::string>& parts, std::string_view separator) {
  std::string joined;
  for (const std::string& part : parts) {
    if (!joined.empty()) joined += separator;
    joined += part;
  }
  return joined;
}

std::string ShowValue(const std::optional<std::string>& value) {
  return value ? "\"" + *value + "\"" : std::string("(absent)");
}

bool AnyThrottled(const ComparisonReport& report) {
  return report.summary.throttled > 0 || report.summary.shared > 0;
}

// How a table cell should stand out; mapped to ANSI colours or Markdown bold.
enum class Tone { kPlain, kBad, kWarn, kGood, kInfo };

Tone MetricTone(const MetricComparison& metric) {
  switch (metric.verdict) {
    case Verdict::kRegression:
      return Tone::kBad;
    case Verdict::kImprovement:
      return Tone::kGood;
    case Verdict::kUnconfirmed:
      return metric.worse ? Tone::kWarn : Tone::kInfo;
    default:
      return Tone::kPlain;
  }
}

Tone StatusTone(const BenchmarkComparison& benchmark) {
  switch (benchmark.status) {
    case BenchmarkStatus::kFailedInContender:
      return Tone::kBad;
    case BenchmarkStatus::kMissing:
      return benchmark.fails_gate ? Tone::kBad : Tone::kWarn;
    case BenchmarkStatus::kNew:
      return Tone::kInfo;
    default:
      return Tone::kWarn;
  }
}

struct TableRow {
  std::vector<std::string> cells;
  std::vector<Tone> tones;
};

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

const char* const kHeaders[kColumnCount] = {"Benchmark", "Clock",  "Metric",  "Baseline",
                                            "Contender", "Change", "p-value", "Threshold",
                                            "Verdict",   "Notes"};

// One row per compared metric, or one row for a benchmark without metrics.
void AppendRows(const BenchmarkComparison& benchmark, std::vector<TableRow>& rows,
                bool only_notable) {
  const std::string bench_notes = Join(benchmark.notes, "; ");
  const std::string clock = ThrottleFlag(benchmark);
  if (benchmark.status != BenchmarkStatus::kCompared || benchmark.metrics.empty()) {
    TableRow row;
    row.cells.assign(kColumnCount, "");
    row.tones.assign(kColumnCount, Tone::kPlain);
    row.cells[kBenchmark] = benchmark.name;
    row.cells[kClock] = clock;
    row.tones[kClock] = Tone::kWarn;
    row.cells[kVerdict] = benchmark.status == BenchmarkStatus::kCompared ? "no common metrics"
                                                                         : StatusLabel(benchmark);
    row.tones[kVerdict] = StatusTone(benchmark);
    row.cells[kNotes] = bench_notes;
    rows.push_back(std::move(row));
    return;
  }
  bool first = true;
  for (const MetricComparison& metric : benchmark.metrics) {
    const bool notable = metric.verdict == Verdict::kRegression ||
                         metric.verdict == Verdict::kImprovement ||
                         metric.verdict == Verdict::kUnconfirmed;
    if (only_notable && !notable) continue;
    TableRow row;
    row.cells.assign(kColumnCount, "");
    row.tones.assign(kColumnCount, Tone::kPlain);
    row.cells[kBenchmark] = first || only_notable ? benchmark.name : "";
    row.cells[kClock] = first || only_notable ? clock : "";
    row.tones[kClock] = Tone::kWarn;
    row.cells[kMetric] = metric.name;
    row.cells[kBaseline] = FormatMetricValue(metric, metric.baseline_median);
    row.cells[kContender] = FormatMetricValue(metric, metric.contender_median);
    row.cells[kChange] = FormatChangePercent(metric.change_percent);
    row.tones[kChange] = MetricTone(metric);
    row.cells[kP] = FormatPValue(metric);
    row.cells[kThreshold] = FormatThreshold(metric);
    row.cells[kVerdict] = VerdictLabel(metric);
    row.tones[kVerdict] = MetricTone(metric);
    std::vector<std::string> notes = metric.notes;
    if (first && !bench_notes.empty()) notes.push_back(bench_notes);
    row.cells[kNotes] = Join(notes, "; ");
    rows.push_back(std::move(row));
    first = false;
  }
}

std::string SummaryLine(const ComparisonReport& report) {
  const Summary& s = report.summary;
  std::string line = std::to_string(s.compared) + " compared: " + std::to_string(s.regressions) +
                     " regression(s), " + std::to_string(s.unconfirmed_regressions) +
                     " unconfirmed regression(s), " + std::to_string(s.improvements) +
                     " improvement(s), " + std::to_string(s.same) + " same";
  if (s.unconfirmed_improvements) {
    line += ", " + std::to_string(s.unconfirmed_improvements) + " unconfirmed improvement(s)";
  }
  if (s.report_only) line += ", " + std::to_string(s.report_only) + " report-only";
  line += "; " + std::to_string(s.missing) + " missing, " + std::to_string(s.added) + " new, " +
          std::to_string(s.failed_in_contender) + " failed in contender";
  if (s.failed_in_baseline) {
    line += ", " + std::to_string(s.failed_in_baseline) + " failed in baseline";
  }
  if (s.failed_in_both) line += ", " + std::to_string(s.failed_in_both) + " failed in both";
  if (s.throttled) line += "; " + std::to_string(s.throttled) + " ran with a throttled SM clock";
  return line;
}

std::string GateLine(const ComparisonReport& report) {
  switch (report.exit_code) {
    case kExitOk:
      return "PASS (exit 0)";
    case kExitRegression:
      return "FAIL (exit 1): " + std::to_string(report.summary.failing) +
             " benchmark(s) fail the gate";
    case kExitSettingsMismatch:
      return "REFUSED (exit 3): the benchmark settings differ";
    default:
      break;
  }
  return "exit " + std::to_string(report.exit_code);
}

// Lines that must be seen before any number is trusted.
std::vector<std::pair<Tone, std::string>> Banners(const ComparisonReport& report) {
  std::vector<std::pair<Tone, std::string>> banners;
  const SettingsCheck& settings = report.settings;
  if (settings.mismatch) {
    std::string text = report.refused_for_settings
                           ? "SETTINGS MISMATCH: refusing to compare (pass "
                             "--allow-settings-mismatch to compare anyway)"
                           : "SETTINGS MISMATCH (allowed by --allow-settings-mismatch): numbers "
                             "may not mean the same thing";
    text += "; fingerprint " + ShowValue(settings.baseline_fingerprint) + " -> " +
            ShowValue(settings.contender_fingerprint);
    banners.emplace_back(Tone::kBad, text);
    for (const ValueDifference& difference : settings.differences) {
      banners.emplace_back(Tone::kBad, "  setting " + difference.key + ": baseline " +
                                           ShowValue(difference.baseline) + ", contender " +
                                           ShowValue(difference.contender));
    }
  }
  for (const std::string& note : settings.notes) banners.emplace_back(Tone::kWarn, note);
  for (const ValueDifference& difference : report.device_differences) {
    if (!difference.prominent) continue;
    banners.emplace_back(
        Tone::kWarn,
        std::string(difference.key == "gpu_name" ? "DIFFERENT GPU" : "DIFFERENT DRIVER") + ": " +
            difference.key + " baseline " + ShowValue(difference.baseline) + ", contender " +
            ShowValue(difference.contender));
  }
  std::vector<std::string> other;
  for (const ValueDifference& difference : report.device_differences) {
    if (!difference.prominent) {
      other.push_back(difference.key + " " + ShowValue(difference.baseline) + " -> " +
                      ShowValue(difference.contender));
    }
  }
  if (!other.empty())
    banners.emplace_back(Tone::kInfo, "device facts differ: " + Join(other, ", "));
  if (report.summary.throttled > 0) {
    banners.emplace_back(Tone::kWarn, std::to_string(report.summary.throttled) +
                                          " benchmark(s) ran with the SM clock below 90% of its "
                                          "rated clock (THROTTLED): their time comparisons are "
                                          "doubtful");
  }
  if (report.summary.shared > 0) {
    banners.emplace_back(Tone::kWarn, std::to_string(report.summary.shared) +
                                          " benchmark(s) ran while another process used the GPU "
                                          "(GPU SHARED, counter gpu_shared): their changes are "
                                          "shown but not judged");
  }
  for (const std::string& warning : report.warnings) {
    banners.emplace_back(Tone::kWarn, "warning: " + warning);
  }
  return banners;
}

// --- console ---------------------------------------------------------------

const char* AnsiColor(Tone tone) {
  switch (tone) {
    case Tone::kBad:
      return "\033[1;31m";
    case Tone::kWarn:
      return "\033[1;33m";
    case Tone::kGood:
      return "\033[32m";
    case Tone::kInfo:
      return "\033[36m";
    case Tone::kPlain:
      break;
  }
  return "";
}

void AppendColored(std::string& out, const std::string& text, Tone tone, bool color) {
  if (color && tone != Tone::kPlain && !text.empty()) {
    out += AnsiColor(tone);
    out += text;
    out += "\033[0m";
  } else {
    out += text;
  }
}

// Display width in terminal columns: counts UTF-8 code points, not bytes.
std::size_t DisplayWidth(const std::string& text) {
  std::size_t width = 0;
  for (unsigned char c : text) width += (c & 0xC0) != 0x80;
  return width;
}

// --- markdown --------------------------------------------------------------

std::string MarkdownCell(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '\n' || c == '\r') {
      out += ' ';
    } else if (c == '<') {
      out += "&lt;";
    } else if (c == '>') {
      out += "&gt;";
    } else {
      out += c;
    }
  }
  return out;
}

void AppendMarkdownTable(const std::vector<TableRow>& rows, bool with_clock, std::size_t limit,
                         std::string& out) {
  out += "|";
  for (int column = 0; column < kColumnCount; ++column) {
    if (column == kClock && !with_clock) continue;
    out += " ";
    out += kHeaders[column];
    out += " |";
  }
  out += "\n|";
  for (int column = 0; column < kColumnCount; ++column) {
    if (column == kClock && !with_clock) continue;
    out += column >= kBaseline && column <= kThreshold ? " ---: |" : " --- |";
  }
  out += "\n";
  std::size_t written = 0;
  for (const TableRow& row : rows) {
    if (written == limit) break;
    ++written;
    out += "|";
    for (int column = 0; column < kColumnCount; ++column) {
      if (column == kClock && !with_clock) continue;
      std::string cell = MarkdownCell(row.cells[column]);
      if (column == kBenchmark && !cell.empty()) cell = "`" + cell + "`";
      if (!cell.empty() && (row.tones[column] == Tone::kBad || row.tones[column] == Tone::kWarn ||
                            row.tones[column] == Tone::kGood)) {
        cell = "**" + cell + "**";
      }
      out += " " + cell + " |";
    }
    out += "\n";
  }
  if (rows.size() > written) {
    out += "\n_" + std::to_string(rows.size() - written) +
           " more rows not shown; use --format json for all of them._\n";
  }
}

// --- json ------------------------------------------------------------------

OrderedJson Number(double value) {
  return std::isfinite(value) ? OrderedJson(value) : OrderedJson(nullptr);
}

OrderedJson OptionalString(const std::optional<std::string>& value) {
  return value ? OrderedJson(*value) : OrderedJson(nullptr);
}

OrderedJson DifferencesJson(const std::vector<ValueDifference>& differences) {
  OrderedJson list = OrderedJson::array();
  for (const ValueDifference& difference : differences) {
    list.push_back({{"key", difference.key},
                    {"baseline", OptionalString(difference.baseline)},
                    {"contender", OptionalString(difference.contender)},
                    {"prominent", difference.prominent}});
  }
  return list;
}

OrderedJson MetricJson(const MetricComparison& metric) {
  OrderedJson values_b = OrderedJson::array(), values_c = OrderedJson::array();
  for (double v : metric.baseline_values) values_b.push_back(Number(v));
  for (double v : metric.contender_values) values_c.push_back(Number(v));
  OrderedJson json;
  json["name"] = metric.name;
  json["unit"] = metric.is_time ? "ns" : metric.policy.unit;
  json["direction"] = DirectionName(metric.policy.direction);
  json["gated"] = metric.policy.threshold_percent.has_value();
  json["threshold_percent"] =
      metric.applied_threshold_percent && std::isfinite(*metric.applied_threshold_percent)
          ? OrderedJson(*metric.applied_threshold_percent)
          : OrderedJson(nullptr);
  json["threshold_source"] = metric.threshold_source;
  json["floor"] = metric.applied_floor;
  json["noise_percent"] = Number(metric.noise_percent);
  json["statistical"] = metric.policy.statistical;
  json["rule"] = metric.policy.rule;
  json["baseline"] = {{"median", Number(metric.baseline_median)}, {"values", values_b}};
  json["contender"] = {{"median", Number(metric.contender_median)}, {"values", values_c}};
  json["change_percent"] = Number(metric.change_percent);
  json["change"] = FormatChangePercent(metric.change_percent);
  json["p_value"] = metric.p_value ? OrderedJson(*metric.p_value) : OrderedJson(nullptr);
  json["test"] = !metric.test_method                                ? "none"
                 : *metric.test_method == MannWhitneyMethod::kExact ? "mann_whitney_exact"
                                                                    : "mann_whitney_asymptotic";
  json["verdict"] = VerdictName(metric.verdict);
  json["worse"] = metric.worse;
  json["fails_gate"] = metric.fails_gate;
  json["notes"] = metric.notes;
  return json;
}

}  // namespace

std::string FormatTimeNs(double nanoseconds) {
  if (!std::isfinite(nanoseconds)) return Printf("%g", nanoseconds);
  const double magnitude = std::fabs(nanoseconds);
  if (magnitude >= 1e9) return Printf("%.4g s", nanoseconds / 1e9);
  if (magnitude >= 1e6) return Printf("%.4g ms", nanoseconds / 1e6);
  if (magnitude >= 1e3) return Printf("%.4g us", nanoseconds / 1e3);
  return Printf("%.4g ns", nanoseconds);
}

std::string FormatQuantity(double value) {
  if (!std::isfinite(value)) return Printf("%g", value);
  const double magnitude = std::fabs(value);
  if (magnitude >= 1e15) return Printf("%.4g", value);
  if (magnitude >= 1e12) return Printf("%.4g T", value / 1e12);
  if (magnitude >= 1e9) return Printf("%.4g G", value / 1e9);
  if (magnitude >= 1e6) return Printf("%.4g M", value / 1e6);
  if (magnitude >= 1e4) return Printf("%.4g k", value / 1e3);
  return Printf("%.6g", value);
}

std::string FormatChangePercent(double percent) {
  if (std::isnan(percent)) return "n/a";
  if (std::isinf(percent)) return percent > 0 ? "+inf%" : "-inf%";
  return Printf("%+.2f%%", percent);
}

std::string FormatConsole(const ComparisonReport& report, bool color) {
  std::string out;
  out += "gpubench-compare: baseline " + report.baseline_path + " (" +
         std::to_string(report.baseline_benchmark_count) + " benchmarks) vs contender " +
         report.contender_path + " (" + std::to_string(report.contender_benchmark_count) +
         " benchmarks), alpha " + Printf("%g", report.options.alpha) + "\n";
  for (const auto& [tone, text] : Banners(report)) {
    AppendColored(out, "!! " + text, tone, color);
    out += "\n";
  }
  if (!report.refused_for_settings) {
    std::vector<TableRow> rows;
    for (const BenchmarkComparison& benchmark : report.benchmarks) {
      AppendRows(benchmark, rows, false);
    }
    const bool with_clock = AnyThrottled(report);
    std::size_t widths[kColumnCount];
    for (int column = 0; column < kColumnCount; ++column) {
      widths[column] = DisplayWidth(kHeaders[column]);
    }
    for (const TableRow& row : rows) {
      for (int column = 0; column < kColumnCount; ++column) {
        widths[column] = std::max(widths[column], DisplayWidth(row.cells[column]));
      }
    }
    auto append_row = [&](const std::vector<std::string>& cells, const std::vector<Tone>& tones) {
      std::string line;
      for (int column = 0; column < kColumnCount; ++column) {
        if (column == kClock && !with_clock) continue;
        const std::string& cell = cells[column];
        const std::size_t padding = widths[column] - DisplayWidth(cell);
        const bool right = column >= kBaseline && column <= kThreshold;
        if (right) line.append(padding, ' ');
        AppendColored(line, cell, tones[column], color);
        if (column == kNotes) break;  // no trailing spaces
        if (!right) line.append(padding, ' ');
        line += "  ";
      }
      while (!line.empty() && line.back() == ' ') line.pop_back();
      out += line;
      out += '\n';
    };
    out += "\n";
    append_row(std::vector<std::string>(kHeaders, kHeaders + kColumnCount),
               std::vector<Tone>(kColumnCount, Tone::kPlain));
    for (const TableRow& row : rows) append_row(row.cells, row.tones);
    out += "\n" + SummaryLine(report) + "\n";
  }
  const Tone gate_tone = report.exit_code == kExitOk ? Tone::kGood : Tone::kBad;
  AppendColored(out, GateLine(report), gate_tone, color);
  out += "\n";
  return out;
}

std::string FormatMarkdown(const ComparisonReport& report) {
  std::string out;
  const char* icon = report.exit_code == kExitOk ? "✅" : "❌";
  out +=
      "## " + std::string(icon) + " gpubench-compare: " + MarkdownCell(GateLine(report)) + "\n\n";
  out += "Baseline `" + MarkdownCell(report.baseline_path) + "` (" +
         std::to_string(report.baseline_benchmark_count) + " benchmarks) vs contender `" +
         MarkdownCell(report.contender_path) + "` (" +
         std::to_string(report.contender_benchmark_count) + " benchmarks), alpha " +
         Printf("%g", report.options.alpha) + ".\n\n";
  const auto banners = Banners(report);
  if (!banners.empty()) {
    out += "> [!WARNING]\n";
    for (const auto& [tone, text] : banners) {
      // Bold must not start with a space in Markdown, so drop the indent.
      const std::string cell = MarkdownCell(text.substr(text.find_first_not_of(' ')));
      out += "> " + (tone == Tone::kBad ? "**" + cell + "**" : cell) + "<br>\n";
    }
    out += "\n";
  }
  if (report.refused_for_settings) {
    out += "| Setting | Baseline | Contender |\n| --- | --- | --- |\n";
    for (const ValueDifference& difference : report.settings.differences) {
      out += "| `" + MarkdownCell(difference.key) + "` | " +
             MarkdownCell(ShowValue(difference.baseline)) + " | " +
             MarkdownCell(ShowValue(difference.contender)) + " |\n";
    }
    return out;
  }
  out += "**Summary:** " + MarkdownCell(SummaryLine(report)) + "\n\n";
  const bool with_clock = AnyThrottled(report);
  std::vector<TableRow> notable;
  for (const BenchmarkComparison& benchmark : report.benchmarks) {
    AppendRows(benchmark, notable, true);
  }
  if (!notable.empty()) {
    out += "### Changes, failures, missing and new benchmarks\n\n";
    AppendMarkdownTable(notable, with_clock, kMarkdownMaxDetailRows, out);
    out += "\n";
  }
  std::vector<TableRow> all;
  for (const BenchmarkComparison& benchmark : report.benchmarks) {
    AppendRows(benchmark, all, false);
  }
  out += "<details><summary>All results (" + std::to_string(all.size()) + " rows)</summary>\n\n";
  AppendMarkdownTable(all, with_clock, kMarkdownMaxDetailRows, out);
  out += "\n</details>\n";
  return out;
}

std::string FormatJson(const ComparisonReport& report) {
  OrderedJson json;
  json["tool"] = "gpubench-compare";
  json["format_version"] = 1;
  json["exit_code"] = report.exit_code;
  json["gate"] = report.exit_code == kExitOk                 ? "pass"
                 : report.exit_code == kExitSettingsMismatch ? "settings_mismatch"
                                                             : "fail";
  json["baseline"] = {
      {"file", report.baseline_path},
      {"benchmarks", report.baseline_benchmark_count},
      {"settings_fingerprint", OptionalString(report.settings.baseline_fingerprint)}};
  json["contender"] = {
      {"file", report.contender_path},
      {"benchmarks", report.contender_benchmark_count},
      {"settings_fingerprint", OptionalString(report.settings.contender_fingerprint)}};
  OrderedJson thresholds = OrderedJson::object();
  for (const auto& [name, percent] : report.options.overrides.thresholds) {
    thresholds[name] = percent ? OrderedJson(*percent) : OrderedJson("off");
  }
  json["options"] = {
      {"alpha", report.options.alpha},
      {"unconfirmed", report.options.unconfirmed == UnconfirmedPolicy::kFail ? "fail" : "warn"},
      {"allow_settings_mismatch", report.options.allow_settings_mismatch},
      {"fail_on_missing", report.options.fail_on_missing},
      {"threshold_overrides", thresholds}};
  json["settings"] = {{"checked", report.settings.baseline_fingerprint.has_value() &&
                                      report.settings.contender_fingerprint.has_value()},
                      {"mismatch", report.settings.mismatch},
                      {"refused", report.refused_for_settings},
                      {"differences", DifferencesJson(report.settings.differences)},
                      {"notes", report.settings.notes}};
  OrderedJson prominent = OrderedJson::array();
  for (const ValueDifference& difference : report.device_differences) {
    if (difference.prominent) prominent.push_back(difference.key);
  }
  json["device_differences"] = DifferencesJson(report.device_differences);
  json["different_gpu_or_driver"] = !prominent.empty();
  json["warnings"] = report.warnings;
  const Summary& s = report.summary;
  json["summary"] = {{"compared", s.compared},
                     {"regressions", s.regressions},
                     {"unconfirmed_regressions", s.unconfirmed_regressions},
                     {"improvements", s.improvements},
                     {"unconfirmed_improvements", s.unconfirmed_improvements},
                     {"same", s.same},
                     {"report_only", s.report_only},
                     {"missing", s.missing},
                     {"new", s.added},
                     {"failed_in_contender", s.failed_in_contender},
                     {"failed_in_baseline", s.failed_in_baseline},
                     {"failed_in_both", s.failed_in_both},
                     {"throttled", s.throttled},
                     {"gpu_shared", s.shared},
                     {"failing", s.failing}};
  OrderedJson benchmarks = OrderedJson::array();
  for (const BenchmarkComparison& benchmark : report.benchmarks) {
    OrderedJson entry;
    entry["name"] = benchmark.name;
    entry["status"] = StatusName(benchmark.status);
    entry["verdict"] = benchmark.status == BenchmarkStatus::kCompared
                           ? OrderedJson(VerdictName(benchmark.verdict))
                           : OrderedJson(nullptr);
    entry["worse"] = benchmark.worse;
    entry["fails_gate"] = benchmark.fails_gate;
    entry["repetitions"] = {{"baseline", benchmark.baseline_repetitions},
                            {"contender", benchmark.contender_repetitions}};
    entry["throttled"] = {{"baseline", benchmark.throttled_baseline},
                          {"contender", benchmark.throttled_contender}};
    entry["gpu_shared"] = {{"baseline", benchmark.shared_baseline},
                           {"contender", benchmark.shared_contender}};
    entry["failure_message"] = benchmark.failure_message.empty()
                                   ? OrderedJson(nullptr)
                                   : OrderedJson(benchmark.failure_message);
    OrderedJson metrics = OrderedJson::array();
    for (const MetricComparison& metric : benchmark.metrics) metrics.push_back(MetricJson(metric));
    entry["metrics"] = std::move(metrics);
    entry["notes"] = benchmark.notes;
    benchmarks.push_back(std::move(entry));
  }
  json["benchmarks"] = std::move(benchmarks);
  // Replace invalid UTF-8 in names rather than throwing while writing.
  return json.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

}  // namespace gpubench::compare
